// A run's spec: everything needed to start it on any target, stored as its spec.json.
#pragma once

#include "common/error.h"
#include "metrics/metricdefinition.h"
#include "snapshot/datafingerprint.h"
#include "snapshot/snapshot.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::run {

struct Hyperparameter {
    QString name;
    QString value;
    bool operator==(const Hyperparameter &) const = default;
};

struct DataChannel {
    QString name; // "training", "validation": lower-case letters, digits, '-' and '_'
    QString path; // a local file or folder
    bool operator==(const DataChannel &) const = default;
};

// Embedded: the libtorch trainer inside the Ferry process that started it (`ferry train`, the
// Train panel); such a run has no script.
enum class TargetKind { Local, Container, Ssh, Slurm, Embedded };

struct TargetSpec {
    TargetKind kind = TargetKind::Local;
    QString host;        // ssh / slurm
    QJsonObject options; // target-specific: gpus, partition, time, ...
    bool operator==(const TargetSpec &) const = default;

    QString toString() const; // "local", "container", "ssh:HOST", "slurm:HOST", "embedded"
    // Whether it runs on a host (ssh or slurm), which it names.
    bool onHost() const { return kind == TargetKind::Ssh || kind == TargetKind::Slurm; }
    static Expected<TargetSpec> parse(const QString &text);
};

// The target option that allows a container run its environment's isolation-breaking
// docker.run_arguments (`ferry run --allow-run-arguments`, the launch dialog's check box).
inline constexpr QLatin1String kAllowRunArgumentsOption{"allowRunArguments"};

// A run's caps (docs/cost.md, Budgets): the run is stopped when the first is reached, as a cancel
// stops it, its script given the grace signal (SIGTERM) and `graceSeconds` before SIGKILL. A money
// cap is turned into a time at launch, from the rate in force then (cost/budget.h): a run's cost
// grows with its time alone, at that rate.
struct RunBudget {
    static constexpr int kDefaultGraceSeconds = 30;
    qint64 maxSeconds = 0;  // --max-time; 0: none
    double maxCost = 0;     // --max-cost, in the catalog's currency; 0: none
    qint64 costSeconds = 0; // when maxCost is reached at the run's rate; 0: never (no cap, or a rate of 0)
    double perHour = 0;     // the run's cost an hour at launch (its rate times its nodes or GPUs)
    int graceSeconds = kDefaultGraceSeconds;
    bool operator==(const RunBudget &) const = default;

    bool any() const { return maxSeconds > 0 || maxCost > 0; }
    // The run's time when its first cap is reached; 0: no cap that can be reached.
    qint64 limitSeconds() const;
    // The run's time, in ms, when the word at kBudgetWarningShare of it is due; 0: no cap.
    qint64 warningMs() const;
    // The cap reached first: "max-time 0:00:05", "max-cost 0.50 USD (0:10:00 at 3.00 USD/h)".
    QString capText() const;
    // What the record says once it is reached: "budget: max-time 0:00:05 reached", "budget: max-cost
    // 0.50 USD reached (0:10:00 at 3.00 USD/h)".
    QString reachedText() const;
    // The same at 80 %: "80 % of the budget used: max-time 0:00:05".
    QString warningText() const;
    QJsonObject toJson() const;
    static RunBudget fromJson(const QJsonObject &json);
};
// The share of a cap at which the run's starter is told (a notification, a line in the log).
inline constexpr double kBudgetWarningShare = 0.8;

// Everything needed to start a run, on any target. Stored as spec.json in the run folder,
// so a run can be re-attached, shown and re-run from it alone.
struct RunSpec {
    QString id;        // unique and readable: 20261130-061500-train-3fa2
    QString script;    // the entry point, relative to sourceDir
    QString sourceDir; // absolute; mounted (container) or used in place (local), never copied into an image
    // Fixed script arguments, given before the hyperparameters' `--name value` (what an imported
    // AzureML job's command passes besides its inputs: `--cuda`, a data path).
    QStringList arguments;
    QList<Hyperparameter> hyperparameters;
    QList<DataChannel> channels;
    QString environmentFile; // absolute path of the environment used; may be empty for a local run
    QString environmentTag;  // its image tag at launch (name-version-hash8)
    QString environmentSpec; // the environment itself as it was then (its Ferry YAML), for a diff or a rebuild
    QString interpreter = QStringLiteral("python3");
    QList<std::pair<QString, QString>> variables; // the environment's variables, given at start, never baked in
    // Environment variables whose values are keychain secrets: (VARIABLE, secret name). Only the
    // names are stored; the supervisor reads the values when it starts the script (local runs).
    QList<std::pair<QString, QString>> secretVariables;
    TargetSpec target;
    QList<MetricDefinition> metricDefinitions;
    // A sweep's trial (core/sweep): the sweep's id and the trial's number; empty, -1: no sweep.
    QString sweep;
    int trial = -1;
    // What it ran: its source folder's files at launch (snapshot/snapshot.h); none for a run
    // started before snapshots, or the embedded trainer's.
    std::optional<snapshot::Snapshot> snapshot;
    QString ferryVersion; // the Ferry that started it
    // Each channel's data at launch (snapshot/datafingerprint.h); empty for a run started before.
    QList<snapshot::DataFingerprint> data;
    QString rerunOf; // the run this one reproduces (`ferry runs rerun`), its code from that run's snapshot
    // A notebook's job (the window's Run as Job): the notebook (relative to sourceDir) and the ids of
    // the cells its script was made from, in order. Empty: a script's run.
    QString notebook;
    QStringList notebookCells;
    // A kernel (docs/kernels.md): what runs is the keeper its run folder holds (kKeeperFolder/
    // kKeeperFile), with these arguments (run/contract.h: runCommand's placeholders), instead of a
    // script; `script` is empty. Started, followed and stopped as a run.
    QStringList keeperArguments;
    // A run from elsewhere (`ferry runs import`, tracking/foreignrun.h): the bundle it came in and
    // what of the original was kept aside, shown and never applied. Empty: a run of this workspace.
    QJsonObject imported;
    // Its caps (none by default) and the rate in force when it was launched (cost/budget.h:
    // recordedRate reads it back; empty for a run of an earlier Ferry, or one at an unknown rate),
    // so that a later change of the rates does not rewrite what it cost.
    RunBudget budget;
    QJsonObject rate;
    bool operator==(const RunSpec &) const = default;

    bool fromElsewhere() const { return !imported.isEmpty(); }
    bool isKernel() const { return !keeperArguments.isEmpty(); }

    QJsonObject toJson() const;
    static Expected<RunSpec> fromJson(const QJsonObject &json);
};

// What of the run's source folder is the run's (snapshot/sourcefiles.h): .git, .ferry and the
// "exclude" target option's patterns left out; the upload and the snapshot use it alike.
snapshot::SourceExcludes sourceExcludes(const RunSpec &spec);

// Each channel's data as it is now (blocking: reads every file's ends, snapshot/datafingerprint.h).
QList<snapshot::DataFingerprint> fingerprintChannels(const QList<DataChannel> &channels);

// The keeper's file in a kernel's keeper folder.
inline constexpr QLatin1StringView kKeeperFile{"keeper.py"};
// A new id from the time and the script name, with a random suffix against collisions.
QString newRunId(const QString &script);

// Checks names (channels, hyperparameters) and, with `paths`, that the script and the data are
// there; every problem, not just the first.
enum class SpecChecks { NamesAndPaths, NamesOnly };
QList<Error> validateRunSpec(const RunSpec &spec, SpecChecks checks = SpecChecks::NamesAndPaths);

// Why `host` cannot name an SSH or Slurm host (a leading '-', a blank or a control
// character); nullopt when it can. TargetSpec::parse applies it.
Expected<void> hostNameProblem(const QString &host);

} // namespace ferry::run
