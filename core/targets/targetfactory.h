// Makes the Target that drives runs of a given target kind.
#pragma once

#include "run/runspec.h"
#include "targets/target.h"

#include <memory>

namespace ferry::targets {

// The target that drives runs of `spec`'s kind. `ferryBinary`: the `ferry` executable, whose
// `__supervise` command a local run is started under (and whose `__container-budget` holds a
// container run's budget).
std::unique_ptr<Target> makeTarget(const run::TargetSpec &spec, const QString &ferryBinary);

} // namespace ferry::targets
