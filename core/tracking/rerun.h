// Makes the spec of a run started again exactly as it was (or with given changes), its snapshot's
// code written for it.
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
    QList<Hyperparameter> hyperparameters;              // a name the run had takes this value; a new one is added
    std::optional<TargetSpec> target;                   // another target (with its own options), or the run's
    std::optional<QList<DataChannel>> channels;         // data channels instead of the run's
    QList<std::pair<QString, QString>> secretVariables; // (VARIABLE, keychain secret) added
};

// The hyperparameters `changes` names set on `spec` (a name it had takes the value, a new one is
// added): what every rerun applies, the embedded trainer's too.
void applyHyperparameters(RunSpec &spec, const QList<Hyperparameter> &changes);

// The new run's spec: the first run's parameters (as `changes` says), target, data, environment
// and snapshot, its source folder a new folder of the workspace's own (<root>/.ferry/reruns/,
// snapshot::materialize) holding the snapshot's files, a new id, and `rerunOf` the first run. A
// run without a snapshot (from before Ferry kept them, or one that could not be taken) is an
// Error saying so. A container run's rerun gets its environment as the run recorded it
// (RunSpec::environmentSpec, validated again) in a hidden file of that folder named after its
// image tag, at the original file's place when it was in the source folder. The container engine
// is always this machine's setting's.
// A run from elsewhere (RunSpec::fromElsewhere, foreignrun.h) takes nothing that grants or
// trusts from its record: its target, options, data channels and secrets are `changes`' alone
// (a remote original without `changes.target` is an Error); its interpreter and variables come
// from its recorded environment, less those that run hidden code (foreignrun.h). `notes` gets
// what was left out, for the user. Blocking: writes the snapshot's files (objectsDir:
// snapshot::objectsDirFor); make it off the GUI thread.
Expected<RunSpec> rerunSpec(const RunRecord &record, const QString &objectsDir, const RerunChanges &changes = {},
                            QStringList *notes = nullptr);

// What the user gives a rerun (the command line's flags, the window's question): `changes`'
// target with its options instead of the run's, its data channels instead of the run's, its
// secret variables added. rerunSpec applies it; the window applies the answers to a rerun it
// prepared with rerunSpec.
void applyGrants(RunSpec &rerun, const RerunChanges &changes);

// The image a container run's rerun (from rerunSpec) will build first because its engine no
// longer has it; empty when it has it, or for any other target. `configuredEngine`: the
// settings' engine (targets::kContainerEngineSetting), used when the run recorded none. Said by
// the command line and the window alike. Blocking (asks the engine).
QString imageToRebuild(const RunSpec &rerun, const QString &configuredEngine);

// Each channel whose data the rerun (its spec as launched, with its fingerprints) did not find as
// the original run read it: one line for each, what it was then and is now. The command line
// and the window say them as warnings.
QStringList dataChanges(const RunSpec &original, const RunSpec &rerun);

} // namespace ferry::run
