// The canonical image spec of an environment, its hash, and the Docker image tag and reference
// derived from it.
#pragma once

#include "env/environment.h"

#include <QString>

namespace ferry::env {

// Bumped whenever the generated Dockerfile changes for the same spec, so that images built
// by an older Ferry are not mistaken for current ones.
inline constexpr int kImageGeneratorVersion = 3;

// The canonical form of exactly what changes the built image (docs/environment-format.md):
// compact JSON with sorted keys; dependency lists normalised and sorted, channels in order.
QString canonicalImageSpec(const Environment &environment);
// SHA-256 of canonicalImageSpec, 64 lower-case hex digits.
QString specHash(const Environment &environment);
// `<name>-<version>-<hash8>`, made safe for a Docker tag.
QString imageTag(const Environment &environment);
// The full image reference Ferry builds and runs: `ferry:<imageTag>`.
QString imageReference(const Environment &environment);

} // namespace ferry::env
