// What a sweep has done so far (state.json, the file as started, the lock and log), written only by
// its controller.
#pragma once

// What a sweep has done so far, kept in its folder `<workspace>/.ferry/sweeps/<id>/`
// (docs/sweep-format.md): the sweep file as it was started (a resume runs that one, not the
// file edited since), state.json (every trial: its number, run, parameters, status and
// objective; replaced atomically at each change), the controller's lock and its log. Only the
// controller holding the lock writes the state; anyone may read it.
#include "common/error.h"
#include "run/runspec.h"
#include "sweep/sampler.h"
#include "sweep/sweepfile.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace ferry::sweep {

// Starting: planned and being launched (its run may not exist yet: a controller that died there
// launches it again under the same run id, so it runs once).
enum class TrialStatus { Starting, Running, Succeeded, Failed, StoppedEarly, Cancelled, Lost };
QString trialStatusText(TrialStatus status); // "starting", ..., "stopped early"
std::optional<TrialStatus> trialStatusFromText(QStringView text);
bool isOver(TrialStatus status);

struct Trial {
    int number = 0;
    QString runId;
    TrialStatus status = TrialStatus::Starting;
    Point point;                                // the sampler's coordinates (sweep/sampler.h)
    QList<run::Hyperparameter> hyperparameters; // what the script got for the searched parameters
    std::optional<double> objective;            // the metric's last or best value, as written
    QString gpu;                                // its CUDA_VISIBLE_DEVICES; empty: none given
    qint64 startedMs = 0;
    qint64 finishedMs = 0;
    QString detail; // why it stopped early, or failed
    bool operator==(const Trial &) const = default;
};

enum class SweepStatus { Running, Finished, Cancelled, Failed };
QString sweepStatusText(SweepStatus status); // "running", "finished", "cancelled", "failed"

struct SweepState {
    QString id;
    QString name;       // the sweep file's name without .yml
    QString sourceFile; // the file it was started from (absolute)
    SweepStatus status = SweepStatus::Running;
    QString error; // why it failed
    // Why it stopped launching trials before its plan's end (its budget, docs/cost.md); empty: it did not.
    QString stopReason;
    qint64 createdMs = 0;
    qint64 finishedMs = 0;
    QList<Trial> trials; // by number: trial n is trials[n]
    // A Slurm sweep's job array (targets/slurmarray.h): its folder on the host once made, its
    // job id once submitted.
    QString arrayJob;
    QString arrayDir;
    bool operator==(const SweepState &) const = default;

    QJsonObject toJson() const;
    static Expected<SweepState> fromJson(const QJsonObject &json);

    // The trial with the best objective under `goal` (the first of equal ones); nullopt when no
    // trial has one yet.
    std::optional<int> best(Goal goal) const;
    qsizetype count(TrialStatus of) const;
};

// A sweep's folder: its files, named in one place.
class SweepDirectory {
public:
    explicit SweepDirectory(QString path) : m_path(std::move(path)) {}
    QString path() const { return m_path; }
    QString specFile() const { return m_path + QStringLiteral("/sweep.yml"); }
    QString stateFile() const { return m_path + QStringLiteral("/state.json"); }
    QString lockFile() const { return m_path + QStringLiteral("/controller.lock"); }
    QString logFile() const { return m_path + QStringLiteral("/log"); }
    QString cancelFile() const { return m_path + QStringLiteral("/cancel"); }

    // Makes the folder with the sweep file's text and the first state. Refused when it exists.
    Expected<void> create(const QByteArray &sweepFile, const SweepState &state) const;
    Expected<SweepState> readState() const;
    Expected<void> writeState(const SweepState &state) const; // atomic: the old or the new, never half
    SweepRead readSpec() const;
    // A controller holds the lock (common/filelock.h): the sweep is being driven now.
    bool controllerRunning() const;
    // A cancel asked for (`ferry sweep cancel`): the controller cancels every trial and ends.
    Expected<void> requestCancel() const;
    bool cancelRequested() const;
    // Appends "2026-12-03 19:20:01 LINE" to the log; a failure to log is ignored.
    void log(const QString &line) const;

private:
    QString m_path;
};

// Every sweep under `sweepsDir` (Workspace::sweepsDir) whose state can be read, newest first;
// the folders whose state cannot be read are named in `problems`.
QList<SweepState> listSweeps(const QString &sweepsDir, QStringList *problems = nullptr);

} // namespace ferry::sweep
