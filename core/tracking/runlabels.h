// How a person tells runs apart and names one: the short id legends show, a name that says what
// differs among runs of one script, the metrics a one-line summary shows, an id given in part.
#pragma once

// One rule each for the runs table, the chart's legends, the compare view and `ferry runs list`
// (review 2026-12-06, finding 1: five runs all named "train", told apart by clicking each).
#include "store/runstore.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace ferry::run {

// The end of a run id that legends and the runs table show: "0eaa" of
// "20261206-101530-train-0eaa" (its last '-' section, at most 8 characters); the whole id when it
// has no '-'. `ferry runs show 0eaa` finds the run by it (resolveRun).
QString shortRunId(const QString &id);

// A run's parameters: those stored with it (RunStore::params), else those of its spec (a record
// older than the parameters table).
QList<Hyperparameter> runParameters(const RunRecord &record, const QList<Hyperparameter> &stored);

// A run as naming sees it: its id, its stored name (the script's, "train trial 3") and its
// parameters.
struct NamedRun {
    QString id;
    QString name;
    QList<Hyperparameter> params;
};

// The parameters whose values differ among `runs` (a run without the parameter counts as a value
// of its own), in the order they first appear. Fewer than two runs: none.
QStringList differingParameters(const QList<NamedRun> &runs);

// Each run's name for a person (id -> name): its stored name, followed by its values of the
// parameters that differ among the runs that share that name ("train lr=0.03 seed=2"). A name no
// other run shares stays as it is; an empty one is the id. At most kNamedParameters parameters
// are named ("…" after them), a value at most kNamedValueLength characters.
inline constexpr int kNamedParameters = 4;
inline constexpr int kNamedValueLength = 16;
QHash<QString, QString> distinguishingNames(const QList<NamedRun> &runs);

// The metrics a one-line summary of a run shows, out of `names`: the usual objectives first
// (val_accuracy, accuracy, val_loss, loss, train_loss), then the others by name; never the
// machine's samples (system/...), which say how the run ran, not how it trained.
QStringList keyMetricNames(const QStringList &names, int count);

// The run `text` names: the run whose id it is, else the one whose id starts or ends with it (the
// short id a legend shows). None, or several, is an Error that says so; several are named (up to
// ten) with what to do.
Expected<RunRecord> resolveRun(const QList<RunRecord> &runs, const QString &text);

} // namespace ferry::run
