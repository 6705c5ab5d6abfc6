// Sweeps on the local target with real processes, through the built `ferry` as a user runs it:
// a grid of 6 and a random sweep of 12, two at a time (checked from the scripts' own start and
// end times); median stopping of the hopeless trials; kill -9 of the controller and a resume
// that runs exactly the planned trials, none twice (and, made by hand, the states a controller
// killed inside a trial's launch leaves: a resume starts or waits for those trials and ends); a
// cancel that leaves no process; one GPU per trial from an injected GPU list.
#include "support/sweep.h"
#include "support/testmain.h"

#include "run/rundirectory.h"
#include "store/runstore.h"
#include "sweep/sampler.h"
#include "sweep/sweepcontroller.h"
#include "sweep/sweepfile.h"
#include "sweep/sweepstate.h"
#include "workspace/workspace.h"

#include <QDateTime>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <csignal>
#include <optional>

using namespace Qt::StringLiterals;
using namespace ferry::test;

namespace {

// The log of sweep `id` in workspace `root`.
QString sweepLog(const QString &root, const QString &id)
{
    return root + u"/.ferry/sweeps/"_s + id + u"/log"_s;
}

// A sweep of `planned` random trials, two at a time, as a controller killed while it launched
// its first `made` trials leaves it: each of them starting in state.json under its run id, with
// what `leave(n, store, its run's spec)` made of its run; no controller runs. Nullopt (said) when
// it cannot be made.
template <typename Leave>
std::optional<ferry::sweep::SweepState> crashedSweep(const QString &root, int planned, int made, Leave leave)
{
    writeSweepWorkspace(root, u"crashed"_s, uR"(ferry-sweep: 1
script: trial.py
hyperparameters: {steps: 3, pause: 0.05}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: %1
max_parallel: 2
seed: 3
)"_s.arg(planned));
    const auto failed = [](const QString &what) {
        qWarning("crashedSweep: %s", qPrintable(what));
        return std::nullopt;
    };
    const auto workspace = ferry::workspace::Workspace::open(root);
    if (!workspace)
        return failed(workspace.error().toString());
    const QString file = root + u"/sweeps/crashed.yml"_s;
    const ferry::sweep::SweepRead read = ferry::sweep::readSweepFile(file);
    if (ferry::hasErrors(read.diagnostics))
        return failed(u"the sweep file"_s);
    const auto base = ferry::sweep::trialTemplate(read.spec, file, root);
    if (!base)
        return failed(base.error().toString());
    ferry::sweep::SweepState state;
    state.name = u"crashed"_s;
    state.id = ferry::run::newRunId(state.name);
    state.sourceFile = file;
    state.createdMs = QDateTime::currentMSecsSinceEpoch();
    const ferry::sweep::Sampler sampler(read.spec);
    {
        auto store = ferry::run::RunStore::open(ferry::run::RunStore::pathInWorkspace(root));
        if (!store)
            return failed(store.error().toString());
        for (int n = 0; n < made; ++n) {
            ferry::sweep::Trial trial; // starting
            trial.number = n;
            trial.runId = ferry::run::newRunId(base->script);
            const auto point = sampler.sample(n, {});
            if (!point)
                return failed(u"no trial %1"_s.arg(n));
            trial.point = *point;
            trial.hyperparameters = sampler.hyperparameters(*point);
            state.trials << trial;
            if (!leave(n, **store, ferry::sweep::trialSpec(*base, state.id, trial)))
                return failed(u"trial %1's run"_s.arg(n));
        }
        (*store)->flush();
    }
    const ferry::sweep::SweepDirectory sweepDir(workspace->sweepsDir() + u'/' + state.id);
    if (const auto created = sweepDir.create(readFile(file), state); !created)
        return failed(created.error().toString());
    return state;
}

} // namespace

class TestSweepRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gridOfSixRunsTwoAtATime()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"grid"_s, uR"(ferry-sweep: 1
script: trial.py
hyperparameters: {steps: 8, pause: 0.15}
method: grid
metric: val_loss
parameters:
  lr: [0.001, 0.01, 0.1]
  layers: ["64", "128"]
max_parallel: 2
)"_s);
        const CliResult run = sweepCommand(dir.path(), {u"start"_s, u"sweeps/grid.yml"_s, u"--wait"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString id = run.out.trimmed();
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"finished"_s);
        QCOMPARE(trialStatuses(sweep), QStringList(6, u"succeeded"_s));
        // The grid in its order, the last parameter fastest; each trial a run tagged with its number.
        const QJsonArray trials = sweep[u"trials"_s].toArray();
        const QStringList lrs{u"0.001"_s, u"0.01"_s, u"0.1"_s};
        for (int i = 0; i < 6; ++i) {
            const QJsonObject hp = trials[i][u"hyperparameters"_s].toObject();
            QCOMPARE(hp[u"lr"_s].toString(), lrs[i / 2]);
            QCOMPARE(hp[u"layers"_s].toString(), i % 2 ? u"128"_s : u"64"_s);
            // The last val_loss: |log10(lr) + 2| + 1/8.
            QVERIFY(std::abs(trials[i][u"objective"_s].toDouble() -
                             (std::abs(std::log10(lrs[i / 2].toDouble()) + 2) + 0.125)) < 1e-9);
        }
        QCOMPARE(sweep[u"best"_s].toInt(), 2);
        const QMap<int, QJsonObject> runs = sweepRuns(dir.path(), id);
        QCOMPARE(runs.keys(), (QList<int>{0, 1, 2, 3, 4, 5}));
        for (int i = 0; i < 6; ++i) {
            QCOMPARE(runs[i][u"id"_s].toString(), trials[i][u"run"_s].toString());
            QCOMPARE(runs[i][u"name"_s].toString(), u"trial trial %1"_s.arg(i));
        }
        // Two at a time: the controller kept both slots busy, and no more than two scripts ran at
        // once (whether two scripts' own lines overlap depends on the machine's load).
        QCOMPARE(mostInFlight(sweep), 2);
        QVERIFY(mostAtOnce(trialStamps(dir.path(), sweep)) <= 2);
        // Each trial wrote ./checkpoints in its own working folder.
        for (int i = 0; i < 6; ++i) {
            const QString checkpoint =
                dir.filePath(u".ferry/runs/%1/code/checkpoints/lr.txt"_s.arg(runs[i][u"id"_s].toString()));
            QCOMPARE(readFile(checkpoint).toDouble(), lrs[i / 2].toDouble());
        }
    }

    void randomSweepRunsThePlannedTrials()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"random"_s, uR"(ferry-sweep: 1
script: trial.py
hyperparameters: {steps: 4, pause: 0.1}
method: random
metric: {name: val_loss, goal: minimize}
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
  layers: {values: ["64", "128", "256"]}
max_trials: 12
max_parallel: 2
seed: 11
)"_s);
        const CliResult plan = sweepCommand(dir.path(), {u"plan"_s, u"sweeps/random.yml"_s, u"--json"_s});
        QCOMPARE(plan.exitCode, 0);
        const QJsonArray planned = jsonObject(plan)[u"trials"_s].toArray();
        const CliResult run = sweepCommand(dir.path(), {u"start"_s, u"sweeps/random.yml"_s, u"--wait"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject sweep = sweepShow(dir.path(), run.out.trimmed());
        const QJsonArray trials = sweep[u"trials"_s].toArray();
        QCOMPARE(trials.size(), 12);
        for (int i = 0; i < 12; ++i) // the same file and seed: the plan's trials
            QCOMPARE(trials[i][u"hyperparameters"_s].toObject(), planned[i][u"hyperparameters"_s].toObject());
        QCOMPARE(trialStatuses(sweep), QStringList(12, u"succeeded"_s));
        QCOMPARE(mostInFlight(sweep), 2);
        QVERIFY(mostAtOnce(trialStamps(dir.path(), sweep)) <= 2);
        // The best is the trial of the least objective.
        int best = 0;
        for (int i = 1; i < 12; ++i) {
            if (trials[i][u"objective"_s].toDouble() < trials[best][u"objective"_s].toDouble())
                best = i;
        }
        QCOMPARE(sweep[u"best"_s].toInt(), best);
        // The sweep is listed, by id and by its file's name.
        const CliResult list = sweepCommand(dir.path(), {u"list"_s});
        QVERIFY(list.out.contains(sweep[u"id"_s].toString()));
        QVERIFY(list.out.contains(u"12/12"_s));
        QCOMPARE(sweepShow(dir.path(), u"random"_s)[u"id"_s], sweep[u"id"_s]);
    }

    // A synthetic objective: the final loss is |log10(lr) + 2|, so trials 2-4 (lr 1e-5, 10, 1e5)
    // stay above 3 while the others end below 0.5, each later good one better than the first two.
    // Median stopping (from step 5, at least 3 peers) stops those three, never the others.
    void medianStoppingStopsTheHopelessTrials()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"median"_s, uR"(ferry-sweep: 1
script: trial.py
hyperparameters: {steps: 30, pause: 0.08, hopeless_pause: 0.5}
method: grid
metric: val_loss
parameters:
  lr: [0.03, 0.02, 1.0e-5, 10, 1.0e+5, 0.01, 0.011]
max_parallel: 2
early_stopping: {type: median, min_steps: 5}
)"_s);
        const CliResult run = sweepCommand(dir.path(), {u"start"_s, u"sweeps/median.yml"_s, u"--wait"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString id = run.out.trimmed();
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(trialStatuses(sweep),
                 (QStringList{u"succeeded"_s, u"succeeded"_s, u"stopped early"_s, u"stopped early"_s,
                              u"stopped early"_s, u"succeeded"_s, u"succeeded"_s}));
        // A stopped trial is its run cancelled, shown as stopped early with the reason, never failed.
        const QMap<int, QJsonObject> runs = sweepRuns(dir.path(), id);
        for (int i : {2, 3, 4}) {
            QCOMPARE(runs[i][u"status"_s].toString(), u"stopped early"_s);
            QVERIFY2(runs[i][u"error"_s].toString().contains(u"worse than the median"_s),
                     qPrintable(runs[i][u"error"_s].toString()));
            const auto stamps = trialStamps(dir.path(), sweep);
            QCOMPARE(stamps[i].end, 0.0); // it never reached its end
            QVERIFY(!processAlive(stamps[i].pid));
        }
        QCOMPARE(sweep[u"best"_s].toInt(), 5);
        const CliResult runsList = runFerry(dir.path(), {u"runs"_s, u"list"_s});
        QVERIFY(runsList.out.contains(u"stopped early"_s));
        QVERIFY(!runsList.out.contains(u"failed"_s));
    }

    // The controller killed mid-sweep: its trials go on; resume adopts them and runs exactly the
    // planned number, each trial once.
    void resumeAfterKillRunsExactlyThePlannedTrials()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"resume"_s, uR"(ferry-sweep: 1
script: trial.py
hyperparameters: {steps: 10, pause: 0.1}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 8
max_parallel: 2
seed: 5
)"_s);
        const QString id = startSweep(dir.path(), u"sweeps/resume.yml"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitFor([&] { return sweepShow(dir.path(), id)[u"trials"_s].toArray().size() >= 4; }, 120000, 50));
        const qint64 controller = controllerPid(id);
        QVERIFY(controller > 0);
        QCOMPARE(::kill(static_cast<pid_t>(controller), SIGKILL), 0);
        QVERIFY(waitFor([&] { return controllerPid(id) == 0; }, 10000));
        // Its record says so once the killed controller's lock is released (a moment under load).
        QJsonObject orphaned;
        QVERIFY(waitFor(
            [&] {
                orphaned = sweepShow(dir.path(), id);
                return orphaned[u"controllerGone"_s].toBool();
            },
            30000));
        QCOMPARE(orphaned[u"status"_s].toString(), u"running"_s);
        QVERIFY(sweepCommand(dir.path(), {u"show"_s, id}).out.contains(u"ferry sweep resume"_s));

        const CliResult resumed = resumeSweep(dir.path(), id);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"finished"_s);
        QCOMPARE(trialStatuses(sweep), QStringList(8, u"succeeded"_s));
        const QMap<int, QJsonObject> runs = sweepRuns(dir.path(), id);
        QCOMPARE(runs.keys(), (QList<int>{0, 1, 2, 3, 4, 5, 6, 7})); // none twice (a second run is < 0)
        QCOMPARE(mostInFlight(sweep), 2);
        QVERIFY(mostAtOnce(trialStamps(dir.path(), sweep)) <= 2);
        // A finished sweep is not resumed again.
        QCOMPARE(sweepCommand(dir.path(), {u"resume"_s, id}).exitCode, 1);
    }

    // A controller killed inside a trial's launch, after the store had the trial's run and before
    // the run's folder was claimed (its spec.json; every target claims it before it starts
    // anything): nothing of the run ran. The state such a controller leaves, made here: trial 0
    // with a stored run and no folder, trial 1 with a stored run and an empty folder, trial 2 with
    // neither, all three starting. The resume starts each once, under its run id, and ends.
    void resumeStartsTrialsWhoseRunsNeverGotTheirFolder()
    {
        QTemporaryDir dir;
        const auto state =
            crashedSweep(dir.path(), 4, 3, [&](int n, ferry::run::RunStore &store, const ferry::run::RunSpec &spec) {
                if (n < 2)
                    store.createRun(ferry::run::newRunRecord(spec));
                return n != 1 || QDir().mkpath(dir.filePath(u".ferry/runs/"_s + spec.id));
            });
        QVERIFY(state);
        const CliResult resumed = resumeSweep(dir.path(), state->id, 120000);
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const QJsonObject sweep = sweepShow(dir.path(), state->id);
        QCOMPARE(sweep[u"status"_s].toString(), u"finished"_s);
        QCOMPARE(trialStatuses(sweep), QStringList(4, u"succeeded"_s));
        const QMap<int, QJsonObject> runs = sweepRuns(dir.path(), state->id);
        QCOMPARE(runs.keys(), (QList<int>{0, 1, 2, 3})); // each once (a second run is < 0)
        for (int n = 0; n < 3; ++n)
            QCOMPARE(runs[n][u"id"_s].toString(), state->trials[n].runId);
        QVERIFY(readFile(sweepLog(dir.path(), state->id)).contains("trial 0 never started: starting it"));
    }

    // A controller killed inside a trial's start, its run's folder claimed and its supervisor
    // started, before the supervisor reported (launchRun never stored the run as running): the
    // resume finds nothing of the run yet. Made here: trial 0's run stored and claimed, its
    // supervisor started by hand only once the resumed controller follows it. The resume waits
    // for that start instead of taking the trial for lost, and starts no second run of it.
    void resumeWaitsForAStartNeverConfirmed()
    {
        QTemporaryDir dir;
        QString runDir;
        const auto state =
            crashedSweep(dir.path(), 3, 1, [&](int, ferry::run::RunStore &store, const ferry::run::RunSpec &spec) {
                store.createRun(ferry::run::newRunRecord(spec));
                runDir = dir.filePath(u".ferry/runs/"_s + spec.id);
                return ferry::run::RunDirectory(runDir).claim(spec).hasValue();
            });
        QVERIFY(state);
        const CliResult resumed = sweepCommand(dir.path(), {u"resume"_s, state->id});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        const QByteArray followed = "trial 0 (run " + state->trials[0].runId.toUtf8() + "): followed again";
        QVERIFY(waitFor([&] { return readFile(sweepLog(dir.path(), state->id)).contains(followed); }, 60000, 50));
        QTest::qWait(1000); // rounds of the controller that find nothing of the run
        QProcess supervisor;
        supervisor.setProgram(ferryBinary());
        supervisor.setArguments({u"__supervise"_s, runDir});
        supervisor.setWorkingDirectory(runDir);
        supervisor.setStandardInputFile(QProcess::nullDevice());
        supervisor.setStandardOutputFile(runDir + u"/log"_s, QIODevice::Append);
        supervisor.setStandardErrorFile(runDir + u"/log"_s, QIODevice::Append);
        QVERIFY(supervisor.startDetached());
        const bool ended = waitForSweep(dir.path(), state->id, 120000);
        QVERIFY2(ended, readFile(sweepLog(dir.path(), state->id)).constData());
        const QJsonObject sweep = sweepShow(dir.path(), state->id);
        QCOMPARE(sweep[u"status"_s].toString(), u"finished"_s);
        QVERIFY2(trialStatuses(sweep) == QStringList(3, u"succeeded"_s),
                 readFile(sweepLog(dir.path(), state->id)).constData());
        const QMap<int, QJsonObject> runs = sweepRuns(dir.path(), state->id);
        QCOMPARE(runs.keys(), (QList<int>{0, 1, 2})); // each once (a second run is < 0)
        QCOMPARE(runs[0][u"id"_s].toString(), state->trials[0].runId);
    }

    void cancelLeavesNoProcess()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"long"_s, uR"(ferry-sweep: 1
script: trial.py
hyperparameters: {steps: 600, pause: 0.1}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 6
max_parallel: 2
)"_s);
        const QString id = startSweep(dir.path(), u"sweeps/long.yml"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitForTwoRunningTrials(dir.path(), id, 120000));
        const auto running = trialStamps(dir.path(), sweepShow(dir.path(), id));
        const CliResult cancelled = sweepCommand(dir.path(), {u"cancel"_s, id});
        QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.err));
        QVERIFY(waitForSweep(dir.path(), id));
        const QJsonObject sweep = sweepShow(dir.path(), id);
        QCOMPARE(sweep[u"status"_s].toString(), u"cancelled"_s);
        QCOMPARE(trialStatuses(sweep), QStringList(2, u"cancelled"_s)); // no trial started after it
        for (const TrialStamp &s : running)
            QVERIFY2(!processAlive(s.pid), qPrintable(u"trial %1's script lives on"_s.arg(s.trial)));
        QCOMPARE(controllerPid(id), 0);
        const QMap<int, QJsonObject> runs = sweepRuns(dir.path(), id);
        QCOMPARE(runs.size(), 2);
        for (const QJsonObject &r : runs)
            QCOMPARE(r[u"status"_s].toString(), u"cancelled"_s);
    }

    // An injected GPU list: one GPU per trial (CUDA_VISIBLE_DEVICES), never one GPU for two
    // trials at once, and no more trials at once than GPUs.
    void eachTrialGetsItsOwnGpu()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"gpus"_s, uR"(ferry-sweep: 1
script: trial.py
hyperparameters: {steps: 6, pause: 0.1}
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
max_trials: 6
max_parallel: 4
)"_s);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"FERRY_GPUS"_s, u"3,7"_s);
        const CliResult run = sweepCommand(dir.path(), {u"start"_s, u"sweeps/gpus.yml"_s, u"--wait"_s}, environment);
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QJsonObject sweep = sweepShow(dir.path(), run.out.trimmed());
        QCOMPARE(trialStatuses(sweep), QStringList(6, u"succeeded"_s));
        const auto stamps = trialStamps(dir.path(), sweep);
        QVERIFY(mostAtOnce(stamps) <= 2);
        checkOneGpuPerTrial(stamps, {u"3"_s, u"7"_s});
        if (QTest::currentTestFailed())
            return;
        // One GPU: one trial at a time, each given that GPU.
        environment.insert(u"FERRY_GPUS"_s, u"5"_s);
        const CliResult one = sweepCommand(dir.path(), {u"start"_s, u"sweeps/gpus.yml"_s, u"--wait"_s}, environment);
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));
        const auto single = trialStamps(dir.path(), sweepShow(dir.path(), one.out.trimmed()));
        QCOMPARE(mostAtOnce(single), 1);
        for (const TrialStamp &s : single)
            QCOMPARE(s.gpu, u"5"_s);
    }

    void badSweepsAreRefusedBeforeTheyStart()
    {
        QTemporaryDir dir;
        writeSweepWorkspace(dir.path(), u"bad"_s,
                            u"ferry-sweep: 1\nscript: missing.py\nmethod: grid\nmetric: loss\n"
                            u"parameters:\n  lr: [0.1]\n"_s);
        const CliResult r = sweepCommand(dir.path(), {u"start"_s, u"sweeps/bad.yml"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"missing.py"_s) && r.err.contains(u"sweeps/bad.yml"_s), qPrintable(r.err));
        QVERIFY(!QDir(dir.filePath(u".ferry/sweeps"_s)).exists() || QDir(dir.filePath(u".ferry/sweeps"_s)).isEmpty());
        QCOMPARE(sweepCommand(dir.path(), {u"show"_s, u"nothing"_s}).exitCode, 1);
    }
};

FERRY_TEST_GUILESS_MAIN(TestSweepRun)
#include "tst_sweeprun.moc"
