#pragma once

// A run started again exactly as it was (`ferry runs rerun`, the window's "Re-run exactly"): the
// spec of the new run, made from the first one's record, with the code of its snapshot written
// where the new run reads it (snapshot::rerunSourceDir). The command line and the window launch
// what this returns; they share this one copy of the rule.
#include "store/runstore.h"

#include <QList>

#include <optional>

namespace ferry::run {

// What a rerun changes; nothing by default (an exact rerun).
struct RerunChanges {
    QList<Hyperparameter> hyperparameters; // a name the run had takes this value; a new one is added
    std::optional<TargetSpec> target;      // another target (with its own options), or the run's
};

// The hyperparameters `changes` names set on `spec` (a name it had takes the value, a new one is
// added): what every rerun applies, the embedded trainer's too.
void applyHyperparameters(RunSpec &spec, const QList<Hyperparameter> &changes);

// The new run's spec: the first run's parameters (as `changes` says), target, data, environment
// and snapshot, its source folder the snapshot's files, a new id, and `rerunOf` the first run.
// A run without a snapshot (from before Ferry kept them, or one that could not be taken) is an
// Error saying so. Blocking: writes the snapshot's files (objectsDir: snapshot::objectsDirFor);
// make it off the GUI thread.
Expected<RunSpec> rerunSpec(const RunRecord &record, const QString &objectsDir, const RerunChanges &changes = {});

} // namespace ferry::run
