// The Slurm target against a real single-node Slurm with two fake GPUs, submitted on this
// machine (slurm:local) and through the test sshd (slurm:ferrytest): the SageMaker-style
// script unchanged with --gres=gpu:1 (it sees CUDA_VISIBLE_DEVICES), model.tar.gz back; a
// pending job shows its queue position and reason; cancel leaves no job; a requeued job is one
// run with two attempts; a follower killed with SIGKILL or cut off (sshd stopped and restarted)
// loses and doubles no metric.
#include "targets/slurmtarget.h"

#include "run/archive.h"
#include "store/runstore.h"
#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"
#include "tracking/runmonitor.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::targets;
using ferry::run::RunDirectory;
using ferry::run::RunSpec;
using namespace ferry::test;

namespace {

RunSpec slurmSpec(const QString &host, const QString &sourceDir, const QString &script, const QString &remoteRoot)
{
    return ferry::test::remoteSpec(u"slurm:"_s + host, sourceDir, script, remoteRoot);
}

QStringList g_jobs; // every job a test submitted: cancelled after each test, whatever happened

QString jobOf(const QString &runDir)
{
    const QString job = (*RemoteRecord::read(runDir))->jobId;
    if (!g_jobs.contains(job))
        g_jobs << job;
    return job;
}

// squeue's answer for a job: empty once Slurm has let it go.
QString squeue(const QString &jobId)
{
    const ShellResult r = runProcess(u"squeue"_s, {u"-h"_s, u"-j"_s, jobId, u"-o"_s, u"%i %T"_s}, {}, 30000);
    return QString::fromUtf8(r.out).trimmed();
}

} // namespace

class TestSlurmTarget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariableIsEmpty("SLURM_CONF"), "the slurm fixture sets SLURM_CONF"); }
    void cleanup()
    {
        if (!g_jobs.isEmpty())
            runProcess(u"scancel"_s, g_jobs, {}, 30000);
        g_jobs.clear();
    }

    void sbatchOptionsAreChecked()
    {
        RunSpec spec = slurmSpec(u"local"_s, kScripts, u"x.py"_s, u"/tmp"_s);
        spec.target.options[u"gpus"_s] = 2;
        spec.target.options[u"partition"_s] = u"debug"_s;
        spec.target.options[u"time"_s] = u"01:30:00"_s;
        spec.target.options[u"cpus"_s] = 4;
        spec.target.options[u"mem"_s] = u"16G"_s;
        spec.target.options[u"requeue"_s] = true;
        const auto lines = SlurmTarget::sbatchOptions(spec, u"/r/run"_s);
        QVERIFY(lines);
        for (const QString &expected :
             {u"--gres=gpu:2"_s, u"--partition=debug"_s, u"--time=01:30:00"_s, u"--cpus-per-task=4"_s, u"--mem=16G"_s,
              u"--requeue"_s, u"--output=/r/run/slurm-%j.out"_s})
            QVERIFY2(lines->contains(expected), qPrintable(expected));
        spec.target.options[u"partition"_s] = u"gpu\n#SBATCH --uid=0"_s;
        const auto refused = SlurmTarget::sbatchOptions(spec, u"/r/run"_s);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(u"--partition"_s), qPrintable(refused.error().message));
    }

    void sageMakerScriptRunsWithAGpu_data()
    {
        QTest::addColumn<QString>("host");
        QTest::newRow("slurm:local") << u"local"_s;
        QTest::newRow("slurm over ssh") << ferry::test::kHost;
    }
    void sageMakerScriptRunsWithAGpu()
    {
        QFETCH(QString, host);
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString root = ws.filePath(u"cluster"_s);
        RunSpec spec = slurmSpec(host, kSageMaker, u"train.py"_s, root);
        spec.target.options[u"gpus"_s] = 1;
        const QString remoteDir = root + u'/' + spec.id;
        spec.channels = {{u"training"_s, kSageMaker + u"/data/training"_s},
                         {u"validation"_s, kSageMaker + u"/data/validation"_s}};
        spec.hyperparameters = sageMakerHyperparameters(remoteDir, remoteDir + u"/input/data/training"_s,
                                                        remoteDir + u"/input/data/validation"_s);
        const QString runDir = ws.filePath(u"run"_s);
        SlurmTarget target(host, sandbox.options());
        const auto started = target.start(runDir, spec);
        QVERIFY2(started, qPrintable(errorOf(started)));
        QVERIFY(!jobOf(runDir).isEmpty());
        QVERIFY(ferry::test::waitFor([&] { return probeOf(target, runDir).finished(); }, 120000, 200));
        const RunProbe status = probeOf(target, runDir);
        QVERIFY2(status.state == RunState::Succeeded,
                 qPrintable(status.exit ? status.exit->error + QString::fromUtf8(logOf(runDir)) : status.detail));
        QVERIFY(ferry::run::archiveEntries(RunDirectory(runDir).modelArchive())->contains(u"model.pth"_s));
        QVERIFY(QFile::exists(remoteDir + u"/slurm-%1.out"_s.arg(jobOf(runDir))));

        // A script that prints what it sees: one GPU of the two, by CUDA_VISIBLE_DEVICES.
        RunSpec gpu = slurmSpec(host, kScripts, u"attempts.py"_s, root);
        gpu.target.options[u"gpus"_s] = 1;
        const QString gpuDir = ws.filePath(u"gpu"_s);
        QVERIFY2(target.start(gpuDir, gpu), "started");
        QVERIFY(ferry::test::waitFor([&] { return probeOf(target, gpuDir).finished(); }, 120000, 200));
        QCOMPARE(probeOf(target, gpuDir).state, RunState::Succeeded);
        const QByteArray log = logOf(gpuDir);
        QVERIFY2(log.contains("CUDA_VISIBLE_DEVICES=0\n"), log.constData());
        QVERIFY2(log.contains("SM_NUM_GPUS=1\n"), log.constData());
    }

    void pendingShowsQueuePositionAndCancelLeavesNoJob()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString root = ws.filePath(u"cluster"_s);
        SlurmTarget target(u"local"_s, sandbox.options());
        // Both GPUs taken by the first job: the second waits for resources.
        QStringList dirs;
        for (int i = 0; i < 2; ++i) {
            RunSpec spec = slurmSpec(u"local"_s, kScripts, u"waiter.py"_s, root);
            spec.hyperparameters = {{u"go-file"_s, ws.filePath(u"never"_s)}};
            spec.target.options[u"gpus"_s] = 2;
            dirs << ws.filePath(u"run%1"_s.arg(i));
            const auto started = target.start(dirs.last(), spec);
            QVERIFY2(started, qPrintable(errorOf(started)));
            jobOf(dirs.last());
        }
        QVERIFY(ferry::test::waitFor(
            [&] {
                probeOf(target, dirs.at(0)); // copies the log
                return logOf(dirs.at(0)).contains("waiting for");
            },
            60000, 200));
        RunProbe pending;
        QVERIFY(ferry::test::waitFor(
            [&] {
                pending = probeOf(target, dirs.at(1));
                return pending.detail.contains(u"waiting for: Resources"_s);
            },
            30000, 200));
        QCOMPARE(pending.state, RunState::Running);
        QVERIFY2(pending.detail.contains(u"pending, position 1 in the queue"_s), qPrintable(pending.detail));

        // The window's monitor passes it on (the runs table shows it beside "running").
        {
            auto store = ferry::run::RunStore::open(ws.filePath(u"runs.sqlite"_s));
            QVERIFY(store);
            const auto spec = RunDirectory(dirs.at(1)).readSpec();
            QVERIFY(spec);
            ferry::run::RunRecord record = ferry::run::newRunRecord(*spec);
            record.status = ferry::run::RunStatus::Running;
            (*store)->createRun(record);
            // The monitor finds a run's folder by its id.
            QVERIFY(QDir().mkpath(ws.filePath(u"runs"_s)));
            QVERIFY(QFile::link(dirs.at(1), ws.filePath(u"runs/"_s + spec->id)));
            ferry::run::RunMonitor monitor(**store, ws.filePath(u"runs"_s), [&](const ferry::run::TargetSpec &) {
                return std::make_unique<SlurmTarget>(u"local"_s, sandbox.options());
            });
            std::optional<QString> detail;
            QVERIFY(ferry::test::waitFor(
                [&] {
                    for (const auto &change : monitor.poll()) {
                        if (change.runId == spec->id && change.detail)
                            detail = change.detail;
                    }
                    return detail.has_value();
                },
                30000, 200));
            QVERIFY2(detail->contains(u"pending, position 1 in the queue, waiting for: Resources"_s),
                     qPrintable(*detail));
        }

        for (const QString &runDir : dirs) {
            const QString job = jobOf(runDir);
            const auto cancelled = target.cancel(runDir, 1000);
            QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
            QCOMPARE(cancelled->state, RunState::Cancelled);
            QCOMPARE(squeue(job), QString());
        }
        // The running one's script is gone too (found by the run's marker).
        SshShell shell = sandbox.shell();
        RemoteRun remote(shell, dirs.at(0));
        QCOMPARE(*remote.markedProcesses(**RemoteRecord::read(dirs.at(0))), QList<qint64>{});
    }

    void requeuedJobIsOneRunWithTwoAttempts()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        RunSpec spec = slurmSpec(u"local"_s, kScripts, u"attempts.py"_s, ws.filePath(u"cluster"_s));
        spec.target.options[u"requeue"_s] = true;
        spec.hyperparameters = {{u"wait-for-requeue"_s, u"yes"_s}};
        const QString runDir = ws.filePath(u"run"_s);
        SlurmTarget target(u"local"_s, sandbox.options());
        QVERIFY2(target.start(runDir, spec), "started");
        jobOf(runDir);
        // The local copy of the log grows with each probe.
        QVERIFY(ferry::test::waitFor(
            [&] {
                probeOf(target, runDir);
                return logOf(runDir).contains("attempt=0");
            },
            60000, 200));
        QCOMPARE(runProcess(u"scontrol"_s, {u"requeue"_s, jobOf(runDir)}, {}, 30000).exitCode, 0);
        RunProbe requeued;
        QVERIFY(ferry::test::waitFor(
            [&] {
                requeued = probeOf(target, runDir);
                return requeued.detail.startsWith(u"pending"_s);
            },
            60000, 200));
        // The requeue revoked the old credential in this second or before (it is pending now).
        const qint64 requeuedBy = QDateTime::currentSecsSinceEpoch();
        QCOMPARE(requeued.state, RunState::Running);
        QVERIFY2(requeued.detail.endsWith(u"attempt 2"_s), qPrintable(requeued.detail));
        // Slurm holds a requeued job for two minutes (Reason=BeginTime); an admin may let it go.
        // Not within the second its old credential was revoked: slurmd compares whole seconds and
        // kills a restart in that second ("Job credential revoked"), which the hold exists to avoid.
        QVERIFY(waitPastSecond(requeuedBy));
        QCOMPARE(runProcess(u"scontrol"_s, {u"update"_s, u"JobId="_s + jobOf(runDir), u"StartTime=now"_s}, {}, 30000)
                     .exitCode,
                 0);
        QVERIFY(ferry::test::waitFor([&] { return probeOf(target, runDir).finished(); }, 180000, 250));
        const RunProbe status = probeOf(target, runDir);
        const QByteArray log = logOf(runDir);
        QVERIFY2(status.state == RunState::Succeeded,
                 qPrintable(stateName(status.state) + u": "_s + status.detail +
                            (status.exit ? u" (exit: "_s + status.exit->error + u')' : QString()) + u"\n"_s +
                            QString::fromUtf8(log)));
        QVERIFY2(log.contains("attempt=0") && log.contains("attempt=1"), log.constData());
        QVERIFY2(log.contains("ferry: attempt 2: the job was requeued"), log.constData());
        QCOMPARE(log.count("done\n"), 1);
    }

    // A job's script writing TensorBoard event files: they come back with the log.
    void eventFilesComeBackFromTheHost()
    {
        ferry::test::eventFilesComeBackFromTheHost(u"slurm:local"_s, [](const SshSandbox &sandbox) {
            return std::make_unique<SlurmTarget>(u"local"_s, sandbox.options());
        });
    }

    // The follower of a job through the test sshd: killed with SIGKILL, and cut off mid-run.
    void followerKilledMidRunLosesNothing()
    {
        ferry::test::followerKilledMidRunLosesNothing(u"slurm:"_s + ferry::test::kHost);
    }

    void cutConnectionResumesWithoutGaps()
    {
        ferry::test::cutConnectionResumesWithoutGaps(u"slurm:"_s + ferry::test::kHost);
    }
};

FERRY_TEST_GUILESS_MAIN(TestSlurmTarget)
#include "tst_slurmtarget.moc"
