// Prints what a run saw besides its code (data fingerprints, host facts, container image) for
// `ferry runs show` and `ferry runs diff`.
#pragma once

// What a run saw besides its code, as `ferry runs show` and `ferry runs diff` print it: each
// data channel's size, file count and fingerprint (snapshot/datafingerprint.h), the host
// (run/hostfacts.h) and a container run's image id and packages (targets/imagerecord.h).
#include "run/runspec.h"
#include "tracking/rundiff.h"

#include <QJsonObject>
#include <QTextStream>

namespace ferry::cli {

// "data:" "host:" "image:" lines of `ferry runs show` for the run in `runDir`.
void printProvenance(const run::RunSpec &spec, const QString &runDir, QTextStream &out);

// The data and host lines of `ferry runs diff`: a channel the same or changed, the host facts
// that differ (every one with `all`).
void printProvenanceDiff(const run::RunDiff &diff, bool all, QTextStream &out);

// `data` and `host` arrays of `ferry runs diff --json`, into `json`.
void addProvenanceJson(const run::RunDiff &diff, QJsonObject &json);

} // namespace ferry::cli
