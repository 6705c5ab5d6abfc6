// A workspace, trial script and checks that the sweep tests on real targets share.
#pragma once

// What the sweep tests on real targets share (tst_sweeprun, tst_sweepcontainer, tst_sweepslurm):
// a workspace with a trial script that writes its own start and end times, pid and GPU into its
// log (lines "stamp {json}": the log is on this machine for every target) and a val_loss curve whose final value is
// |log10(lr) + 2| + 1/steps (a hopeless trial, above 2, may be made slower: on a loaded machine its
// early stop must still come before its end), `ferry sweep` through the built binary, and the checks on what the trials
// did.
#include "support/cli.h"
#include "support/files.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <utility>
#include <vector>

namespace ferry::test {

inline const QByteArray kTrialScript = R"(import argparse, json, math, os, time
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--layers", default="64")
p.add_argument("--steps", type=int, default=10)
p.add_argument("--pause", type=float, default=0.1)
p.add_argument("--hopeless_pause", type=float, default=None)  # the pause of a trial whose loss stays above 2
a, _ = p.parse_known_args()
stamp = {"start": time.time(), "pid": os.getpid(), "gpu": os.environ.get("CUDA_VISIBLE_DEVICES"),
         "task": os.environ.get("SLURM_ARRAY_TASK_ID")}
def save():
    print("stamp " + json.dumps(stamp), flush=True)
save()
os.makedirs("checkpoints", exist_ok=True)  # each trial's own working folder: no shared ./checkpoints
with open("checkpoints/lr.txt", "w") as f:
    f.write(str(a.lr))
for step in range(1, a.steps + 1):
    loss = abs(math.log10(a.lr) + 2) + 1.0 / step
    print(json.dumps({"step": step, "val_loss": loss}), flush=True)
    time.sleep(a.hopeless_pause if a.hopeless_pause is not None and loss > 2 else a.pause)
stamp["end"] = time.time()
save()
)";

struct TrialStamp {
    int trial = -1;
    QString runId;
    double start = 0, end = 0; // seconds since the epoch; end 0: none written
    qint64 pid = 0;
    QString gpu;
    QString task; // SLURM_ARRAY_TASK_ID
};

// A workspace in `root` with trial.py and the sweep file sweeps/NAME.yml.
inline void writeSweepWorkspace(const QString &root, const QString &name, const QString &sweepYaml)
{
    QDir().mkpath(root + QStringLiteral("/sweeps"));
    writeFileOrStop(root + QStringLiteral("/trial.py"), kTrialScript);
    writeFileOrStop(root + QStringLiteral("/sweeps/") + name + QStringLiteral(".yml"), sweepYaml.toUtf8());
}

inline CliResult sweepCommand(const QString &root, const QStringList &arguments,
                              const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment(),
                              int timeoutMs = 300000)
{
    QStringList args{QStringLiteral("sweep")};
    args << arguments;
    return textOf(runCommand(ferryBinary(), args, root, {}, environment, timeoutMs));
}

// `ferry sweep start FILE`: the new sweep's id, empty when it was refused.
inline QString startSweep(const QString &root, const QString &file,
                          const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
{
    const CliResult started = sweepCommand(root, {QStringLiteral("start"), file}, environment);
    if (started.exitCode != 0)
        qWarning("ferry sweep start: %s", qPrintable(started.err));
    return started.out.trimmed();
}

inline QJsonObject sweepShow(const QString &root, const QString &id)
{
    const CliResult r = sweepCommand(root, {QStringLiteral("show"), id, QStringLiteral("--json")});
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

inline qint64 controllerPid(const QString &id);

// Until the sweep's state is no longer running and its controller is gone.
inline bool waitForSweep(const QString &root, const QString &id, int timeoutMs = 240000)
{
    return waitFor(
        [&] {
            return sweepShow(root, id)[QStringLiteral("status")].toString() != QStringLiteral("running") &&
                   controllerPid(id) == 0;
        },
        timeoutMs, 200);
}

// `ferry sweep resume ID --wait`, bounded: a resume that has not ended in `timeoutMs` (under the
// test function's own watchdog, which would say nothing) comes back with exit code -1 and, in
// `err`, the sweep's state.json and its controller's log; its controller is killed and the
// sweep cancelled, so nothing of it outlives the test.
inline CliResult resumeSweep(const QString &root, const QString &id, int timeoutMs = 180000)
{
    CliResult resumed = sweepCommand(root, {QStringLiteral("resume"), id, QStringLiteral("--wait")},
                                     QProcessEnvironment::systemEnvironment(), timeoutMs);
    if (resumed.exitCode != -1)
        return resumed;
    const QString folder = root + QStringLiteral("/.ferry/sweeps/") + id;
    resumed.err +=
        QStringLiteral("\n'ferry sweep resume %1 --wait' did not end in %2 s\n--- state.json\n%3\n--- log\n%4")
            .arg(id)
            .arg(timeoutMs / 1000)
            .arg(QString::fromUtf8(readFile(folder + QStringLiteral("/state.json"))),
                 QString::fromUtf8(readFile(folder + QStringLiteral("/log"))));
    if (const qint64 controller = controllerPid(id); controller > 0)
        ::kill(static_cast<pid_t>(controller), SIGKILL);
    waitFor([&] { return controllerPid(id) == 0; }, 10000);
    sweepCommand(root, {QStringLiteral("cancel"), id}, QProcessEnvironment::systemEnvironment(), 60000);
    return resumed;
}

// Every trial's stamps, from the last stamp line of its run's log.
inline std::vector<TrialStamp> trialStamps(const QString &root, const QJsonObject &sweep)
{
    std::vector<TrialStamp> stamps;
    for (const QJsonValue &t : sweep[QStringLiteral("trials")].toArray()) {
        TrialStamp s;
        s.trial = t[QStringLiteral("trial")].toInt();
        s.runId = t[QStringLiteral("run")].toString();
        const QByteArray log = readFile(root + QStringLiteral("/.ferry/runs/") + s.runId + QStringLiteral("/log"));
        QJsonObject o;
        for (const QByteArray &line : log.split('\n')) {
            if (line.startsWith("stamp {"))
                o = QJsonDocument::fromJson(line.mid(6)).object();
        }
        s.start = o[QStringLiteral("start")].toDouble();
        s.end = o[QStringLiteral("end")].toDouble();
        s.pid = o[QStringLiteral("pid")].toInteger();
        s.gpu = o[QStringLiteral("gpu")].toString();
        s.task = o[QStringLiteral("task")].toString();
        stamps.push_back(s);
    }
    return stamps;
}

// The most of these [start, end] intervals open at one moment (an end before a start at a tie).
inline int mostOverlapping(const std::vector<std::pair<double, double>> &intervals)
{
    std::vector<std::pair<double, int>> events; // (time, +1 start / -1 end); an end sorts first
    for (const auto &[start, end] : intervals) {
        if (start <= 0 || end <= 0)
            continue;
        events.emplace_back(start, 1);
        events.emplace_back(end, -1);
    }
    std::sort(events.begin(), events.end());
    int now = 0, most = 0;
    for (const auto &[time, delta] : events) {
        now += delta;
        most = std::max(most, now);
    }
    return most;
}

// The most trials whose scripts ran at the same moment, from their own start and end times.
inline int mostAtOnce(const std::vector<TrialStamp> &stamps)
{
    std::vector<std::pair<double, double>> intervals;
    for (const TrialStamp &s : stamps)
        intervals.emplace_back(s.start, s.end);
    return mostOverlapping(intervals);
}

// The most trials the controller had going at once (from their runs' start to their end, as
// `sweep show` records them): what max_parallel caps, whatever the scripts' own start-up took.
inline int mostInFlight(const QJsonObject &sweep)
{
    std::vector<std::pair<double, double>> intervals;
    for (const QJsonValue &t : sweep[QStringLiteral("trials")].toArray())
        intervals.emplace_back(t[QStringLiteral("started")].toDouble(), t[QStringLiteral("finished")].toDouble());
    return mostOverlapping(intervals);
}

// The pid of the controller of sweep `id` (`ferry __sweep .../ID`), 0 when none runs.
inline qint64 controllerPid(const QString &id)
{
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number)
            continue;
        const QList<QByteArray> args = readFile(QStringLiteral("/proc/%1/cmdline").arg(pid)).split('\0');
        if (args.size() > 2 && args[1] == "__sweep" && args[2].endsWith(id.toUtf8()) && processAlive(pid))
            return pid;
    }
    return 0;
}

// The runs of the workspace that are trials of sweep `id`: trial number → run record (JSON).
inline QMap<int, QJsonObject> sweepRuns(const QString &root, const QString &id)
{
    const CliResult r = runFerry(root, {QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--json")});
    QMap<int, QJsonObject> runs;
    for (const QJsonValue &v : QJsonDocument::fromJson(r.out.toUtf8()).array()) {
        const QJsonObject sweep = v[QStringLiteral("spec")][QStringLiteral("sweep")].toObject();
        if (sweep[QStringLiteral("id")].toString() != id)
            continue;
        const int trial = sweep[QStringLiteral("trial")].toInt();
        if (runs.contains(trial)) // a trial run twice: never
            runs.insert(-1 - trial, v.toObject());
        else
            runs.insert(trial, v.toObject());
    }
    return runs;
}

// Until the sweep's first two trials' scripts run (their pids stamped in their logs).
inline bool waitForTwoRunningTrials(const QString &root, const QString &id, int timeoutMs = 120000)
{
    return waitFor(
        [&] {
            const auto stamps = trialStamps(root, sweepShow(root, id));
            return stamps.size() == 2 && stamps[0].pid > 0 && stamps[1].pid > 0;
        },
        timeoutMs, 100);
}

// Each trial had one of `gpus` (CUDA_VISIBLE_DEVICES), and no two trials at once the same one.
inline void checkOneGpuPerTrial(const std::vector<TrialStamp> &stamps, const QStringList &gpus)
{
    for (const TrialStamp &a : stamps) {
        QVERIFY2(gpus.contains(a.gpu), qPrintable(a.gpu));
        for (const TrialStamp &b : stamps) {
            const bool overlap = a.trial != b.trial && a.start < b.end && b.start < a.end;
            QVERIFY2(!overlap || a.gpu != b.gpu,
                     qPrintable(QStringLiteral("trials %1 and %2 shared GPU %3").arg(a.trial).arg(b.trial).arg(a.gpu)));
        }
    }
}

inline QStringList trialStatuses(const QJsonObject &sweep)
{
    QStringList statuses;
    for (const QJsonValue &t : sweep[QStringLiteral("trials")].toArray())
        statuses << t[QStringLiteral("status")].toString();
    return statuses;
}

} // namespace ferry::test
