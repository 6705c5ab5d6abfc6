// Sweeps on the real Slurm of the `slurm` fixture (slurm:local), through the built `ferry`: a
// sweep is one job array (--array=0-N%P, seen throttled in squeue), each trial the task of its
// number (SLURM_ARRAY_TASK_ID), one fake GPU each by --gres=gpu:1; TPE trials are placed as their
// tasks start, after the trials before them ended; median stopping cancels the hopeless trials as
// array tasks; kill -9 of the controller and a resume give exactly the planned trials on the same
// array; cancel is one scancel and leaves no job and no process; a sweep's budget stops placing
// trials in their tasks when the next would pass it and closes the array's other tasks.
#include "support/sweep.h"
#include "support/testmain.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace ferry::test;

namespace {

QString sweepFile(const QString &cluster, const QString &body)
{
    return u"ferry-sweep: 1\nscript: trial.py\ntarget: slurm:local\ntarget_options: {remote-dir: %1, gpus: 1}\n"_s.arg(
               cluster) +
           body;
}

QStringList squeue(const QStringList &args)
{
    QStringList all{u"-h"_s};
    all << args;
    return runProgram(u"squeue"_s, all, {}, 30000).out.split(u'\n', Qt::SkipEmptyParts);
}

QString arrayJob(const QJsonObject &sweep)
{
    return sweep[u"slurmArray"_s][u"job"_s].toString();
}

// Every trial's run is the array task of its number.
void checkTrialsAreTasks(const QString &root, const QJsonObject &sweep)
{
    const QString job = arrayJob(sweep);
    QVERIFY(!job.isEmpty());
    for (const QJsonValue &t : sweep[u"trials"_s].toArray()) {
        const int n = t[u"trial"_s].toInt();
        const QJsonObject remote =
            QJsonDocument::fromJson(readFile(root + u"/.ferry/runs/"_s + t[u"run"_s].toString() + u"/remote.json"_s))
                .object();
        QCOMPARE(remote[u"jobId"_s].toString(), u"%1_%2"_s.arg(job).arg(n));
    }
    for (const TrialStamp &s : trialStamps(root, sweep)) {
        if (s.start > 0)
            QCOMPARE(s.task, QString::number(s.trial));
    }
}

} // namespace

class TestSweepSlurm : public QObject {
    Q_OBJECT
    QTemporaryDir m_cluster; // the runs' folders "on the host"

private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariableIsEmpty("SLURM_CONF"), "the slurm fixture sets SLURM_CONF"); }
    void cleanup()
    {
        const QStringList left = squeue({u"-o"_s, u"%A"_s});
        if (!left.isEmpty())
            runProgram(u"scancel"_s, left, {}, 30000);
    }

    void randomSweepIsOneJobArray()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"array"_s,
                            sweepFile(m_cluster.path(), uR"(hyperparameters: {steps: 6, pause: 0.25}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 12
max_parallel: 2
seed: 3
)"_s));
        const QString id = startSweep(dir.path(), u"sweeps/array.yml"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitFor([&] { return !arrayJob(sweepShow(dir.path(), id)).isEmpty(); }, 60000, 100));
        const QString job = arrayJob(sweepShow(dir.path(), id));
        // The cluster holds the queue: the tasks not started yet wait in squeue with the cap.
        bool throttled = false;
        int mostRunning = 0;
        const QRegularExpression pending(u"^%1_\\[[0-9]+-11%2\\]$"_s.arg(job));
        QVERIFY(waitFor(
            [&] {
                for (const QString &line : squeue({u"-j"_s, job, u"-o"_s, u"%i %t"_s})) {
                    if (pending.match(line.section(u' ', 0, 0)).hasMatch())
                        throttled = true;
                }
                mostRunning = std::max(mostRunning, int(squeue({u"-r"_s, u"-j"_s, job, u"-t"_s, u"R"_s}).size()));
                return sweepShow(dir.path(), id)[u"status"_s].toString() != u"running"_s;
            },
            300000, 100));
        QVERIFY(waitForSweep(dir.path(), id));
        QVERIFY2(throttled, "squeue never showed the array's pending tasks with %2");
        QVERIFY(mostRunning <= 2);
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"finished"_s);
        QCOMPARE(trialStatuses(sweep), QStringList(12, u"succeeded"_s));
        QCOMPARE(sweepRuns(dir.path(), id).keys(), (QList<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
        checkTrialsAreTasks(dir.path(), sweep);
        const auto stamps = trialStamps(dir.path(), sweep);
        QVERIFY(mostAtOnce(stamps) <= 2);
        // One fake GPU per trial (--gres=gpu:1): never one for two trials at once.
        checkOneGpuPerTrial(stamps, {u"0"_s, u"1"_s});
        if (QTest::currentTestFailed())
            return;
        QVERIFY(squeue({u"-j"_s, job}).isEmpty());
    }

    // TPE: each task gets its parameters when it starts, so with one at a time every trial is
    // placed after the one before it ended (and learns from it).
    void tpeTrialsArePlacedAsTheirTasksStart()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"tpe"_s,
                            sweepFile(m_cluster.path(), uR"(hyperparameters: {steps: 3, pause: 0.1}
method: bayes
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 4
max_parallel: 1
)"_s));
        const CliResult run = sweepCommand(dir.path(), {u"start"_s, u"sweeps/tpe.yml"_s, u"--wait"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject sweep = sweepShow(dir.path(), run.out.trimmed());
        QCOMPARE(trialStatuses(sweep), QStringList(4, u"succeeded"_s));
        checkTrialsAreTasks(dir.path(), sweep);
        const QJsonArray trials = sweep[u"trials"_s].toArray();
        const auto stamps = trialStamps(dir.path(), sweep);
        for (int i = 1; i < 4; ++i) // its run made (ms) after the script before it ended (s)
            QVERIFY2(trials[i][u"started"_s].toDouble() / 1000.0 >= stamps[i - 1].end,
                     qPrintable(u"trial %1 was placed before trial %2 ended"_s.arg(i).arg(i - 1)));
    }

    // Trials 2-4 stay above 3 while the others end below 0.5 (tst_sweeprun's objective).
    void medianStoppingCancelsArrayTasks()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(
            dir.path(), u"median"_s,
            sweepFile(m_cluster.path(), uR"(hyperparameters: {steps: 30, pause: 0.15, hopeless_pause: 1.0}
method: grid
metric: val_loss
parameters:
  lr: [0.03, 0.02, 1.0e-5, 10, 1.0e+5, 0.01, 0.011]
max_parallel: 2
early_stopping: {type: median, min_steps: 5}
)"_s));
        const CliResult run = sweepCommand(dir.path(), {u"start"_s, u"sweeps/median.yml"_s, u"--wait"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject sweep = sweepShow(dir.path(), run.out.trimmed());
        QCOMPARE(trialStatuses(sweep),
                 (QStringList{u"succeeded"_s, u"succeeded"_s, u"stopped early"_s, u"stopped early"_s,
                              u"stopped early"_s, u"succeeded"_s, u"succeeded"_s}));
        const QString job = arrayJob(sweep);
        for (int i : {2, 3, 4}) { // cancelled as array tasks
            const CliResult state =
                runProgram(u"scontrol"_s, {u"show"_s, u"job"_s, u"%1_%2"_s.arg(job).arg(i), u"-o"_s}, {}, 30000);
            QVERIFY2(state.out.contains(u"JobState=CANCELLED"_s), qPrintable(state.out));
        }
    }

    void resumeAfterKillKeepsTheArray()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"resume"_s,
                            sweepFile(m_cluster.path(), uR"(hyperparameters: {steps: 8, pause: 0.25}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 6
max_parallel: 2
seed: 9
)"_s));
        const QString id = startSweep(dir.path(), u"sweeps/resume.yml"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitFor([&] { return sweepShow(dir.path(), id)[u"trials"_s].toArray().size() >= 2; }, 120000, 50));
        const QString job = arrayJob(sweepShow(dir.path(), id));
        const qint64 controller = controllerPid(id);
        QVERIFY(controller > 0);
        QCOMPARE(::kill(static_cast<pid_t>(controller), SIGKILL), 0);
        QVERIFY(waitFor([&] { return controllerPid(id) == 0; }, 10000));
        // Meanwhile a task starts and waits for a trial no controller places (tasks/T.waiting in
        // the array's folder, no tasks/T.run): the resume must place it.
        const QDir tasks(sweepShow(dir.path(), id)[u"slurmArray"_s][u"dir"_s].toString() + u"/tasks"_s);
        QVERIFY2(waitFor(
                     [&] {
                         for (const QString &waiting : tasks.entryList({u"*.waiting"_s}, QDir::Files)) {
                             if (!tasks.exists(waiting.chopped(8) + u".run"_s))
                                 return true;
                         }
                         return false;
                     },
                     120000, 100),
                 qPrintable(tasks.entryList(QDir::Files).join(u' ')));
        const CliResult resumed = sweepCommand(dir.path(), {u"resume"_s, id, u"--wait"_s});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(arrayJob(sweep), job); // the same array: never submitted twice
        QCOMPARE(trialStatuses(sweep), QStringList(6, u"succeeded"_s));
        QCOMPARE(sweepRuns(dir.path(), id).keys(), (QList<int>{0, 1, 2, 3, 4, 5}));
        checkTrialsAreTasks(dir.path(), sweep);
        QVERIFY(squeue({u"-j"_s, job}).isEmpty());
    }

    // As tst_sweepbudget's local sweep: each trial takes more than 1.2 s, five planned in a budget
    // of 4 s: at most 3 placed, the task that waits for the next one and the tasks after it closed
    // (none runs a trial, none is left in the queue), the sweep's state says why.
    void aBudgetStopsPlacingTrialsAndClosesTheRestOfTheArray()
    {
        const OwnSettings settings; // no rate, no month's budget of the user's
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"budget"_s,
                            sweepFile(m_cluster.path(), uR"(hyperparameters: {steps: 4, pause: 0.3}
method: grid
metric: val_loss
parameters:
  lr: [0.001, 0.01, 0.1, 0.2, 0.3]
max_parallel: 1
budget:
  max_time: 0:00:04
)"_s));
        const CliResult run = sweepCommand(dir.path(), {u"start"_s, u"sweeps/budget.yml"_s, u"--wait"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString id = run.out.trimmed();
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"finished"_s);
        const QStringList statuses = trialStatuses(sweep);
        QVERIFY2(!statuses.isEmpty() && statuses.size() <= 3, qPrintable(statuses.join(u' ')));
        QCOMPARE(statuses, QStringList(statuses.size(), u"succeeded"_s));
        const QString why = sweep[u"stopReason"_s].toString();
        QVERIFY2(why.startsWith(u"budget: max_time 0:00:04 would be passed: "_s), qPrintable(why));
        QVERIFY2(why.contains(u"taken or committed by %1 trials"_s.arg(statuses.size())), qPrintable(why));
        checkTrialsAreTasks(dir.path(), sweep);
        QCOMPARE(sweepRuns(dir.path(), id).size(), statuses.size());
        // The array's other tasks: no trial placed in any, none left in the queue.
        const QString job = arrayJob(sweep);
        QVERIFY(squeue({u"-j"_s, job}).isEmpty());
        const QDir tasks(sweep[u"slurmArray"_s][u"dir"_s].toString() + u"/tasks"_s);
        for (int task = int(statuses.size()); task < 5; ++task)
            QVERIFY2(!tasks.exists(u"%1.run"_s.arg(task)), qPrintable(tasks.entryList(QDir::Files).join(u' ')));
        QVERIFY(QFileInfo::exists(tasks.filePath(u"../done"_s)));
        const QString log = QString::fromUtf8(readFile(dir.filePath(u".ferry/sweeps/%1/log"_s.arg(id))));
        QVERIFY2(log.contains(u"no more trials: "_s + why), qPrintable(log));
        // slurm:local has no rate here: the next trial's cost is unknown, not 0.
        QVERIFY2(!why.contains(u"its estimate"_s) || why.contains(u", cost unknown: "_s), qPrintable(why));
    }

    // The next task may wait in the queue for long (held here: `scontrol hold`): a budget spent by
    // the trials over ends the sweep when the last of them ends, without waiting for the task.
    // Each trial takes more than 5 s; the second would pass 8 s.
    void aSpentBudgetEndsTheSweepWithoutWaitingForTheQueue()
    {
        const OwnSettings settings; // no rate, no month's budget of the user's
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"held"_s,
                            sweepFile(m_cluster.path(), uR"(hyperparameters: {steps: 10, pause: 0.5}
method: grid
metric: val_loss
parameters:
  lr: [0.001, 0.01, 0.1]
max_parallel: 1
budget:
  max_time: 0:00:08
)"_s));
        const QString id = startSweep(dir.path(), u"sweeps/held.yml"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitFor([&] { return sweepShow(dir.path(), id)[u"trials"_s].toArray().size() >= 1; }, 120000, 50));
        const QString job = arrayJob(sweepShow(dir.path(), id));
        const CliResult held = runProgram(u"scontrol"_s, {u"hold"_s, job}, {}, 30000);
        QVERIFY2(held.exitCode == 0, qPrintable(held.err));
        const QJsonObject early = sweepShow(dir.path(), id);
        const QString first = early[u"trials"_s][0][u"status"_s].toString();
        QVERIFY2(early[u"trials"_s].toArray().size() == 1 && (first == u"starting"_s || first == u"running"_s),
                 qPrintable(u"the hold came after the first trial ended: "_s + first));
        QVERIFY(waitForSweep(dir.path(), id, 60000));
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"finished"_s);
        QCOMPARE(trialStatuses(sweep), QStringList{u"succeeded"_s});
        const QString why = sweep[u"stopReason"_s].toString();
        QVERIFY2(why.startsWith(u"budget: max_time 0:00:08 would be passed: "_s), qPrintable(why));
        QVERIFY(squeue({u"-j"_s, job}).isEmpty()); // the held tasks too
    }

    void cancelIsOneScancelAndLeavesNothing()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"long"_s,
                            sweepFile(m_cluster.path(), uR"(hyperparameters: {steps: 600, pause: 0.1}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 6
max_parallel: 2
)"_s));
        const QString id = startSweep(dir.path(), u"sweeps/long.yml"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitForTwoRunningTrials(dir.path(), id, 120000));
        const QJsonObject before = sweepShow(dir.path(), id);
        const QString job = arrayJob(before);
        QVERIFY(!squeue({u"-j"_s, job}).isEmpty());
        const auto running = trialStamps(dir.path(), before);
        const CliResult cancelled = sweepCommand(dir.path(), {u"cancel"_s, id});
        QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.err));
        QVERIFY(waitForSweep(dir.path(), id));
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"cancelled"_s);
        QCOMPARE(trialStatuses(sweep), QStringList(2, u"cancelled"_s));
        QVERIFY(squeue({u"-j"_s, job}).isEmpty()); // the running tasks and the pending ones
        for (const TrialStamp &s : running)
            QVERIFY2(!processAlive(s.pid), qPrintable(u"trial %1's script lives on"_s.arg(s.trial)));
        const QString log = QString::fromUtf8(readFile(dir.filePath(u".ferry/sweeps/%1/log"_s.arg(id))));
        QVERIFY2(log.contains(u"submitted as Slurm job array %1: 6 tasks, 2 at a time"_s.arg(job)), qPrintable(log));
    }
};

FERRY_TEST_GUILESS_MAIN(TestSweepSlurm)
#include "tst_sweepslurm.moc"
