// The container target against a real Docker engine (tests/services/docker.sh): the
// SageMaker script from data/runs/sagemaker runs unchanged inside the container, an unchanged
// environment starts without any build step, cancel stops and removes the container.
#include "env/formats.h"
#include "env/spechash.h"
#include "metrics/eventfile.h"
#include "run/archive.h"
#include "run/rundirectory.h"
#include "store/runstore.h"
#include "support/container.h"
#include "support/corpus.h"
#include "support/targets.h"
#include "support/testmain.h"
#include "targets/containertarget.h"
#include "tracking/metricsources.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::run;
using namespace ferry::targets;
using namespace ferry::test;

namespace {

RunProbe containerProbe(const QString &runDir)
{
    return probeOf(ContainerTarget(), runDir);
}

} // namespace

class TestContainerTarget : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QString m_envFile;
    QString m_image;
    QStringList m_runIds;

    RunSpec specFor(const QString &id, const QString &sourceDir, const QString &script)
    {
        RunSpec spec;
        spec.id = id;
        spec.script = script;
        spec.sourceDir = sourceDir;
        spec.environmentFile = m_envFile;
        spec.interpreter = u"python3"_s;
        spec.target.kind = TargetKind::Container;
        m_runIds << id;
        return spec;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_ws.isValid());
        const QString missing = connectToDocker(); // the engine and the base image of the fixture
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        // An environment of its own, so the first run really builds its image.
        const QString name = u"tst-container-%1"_s.arg(QCoreApplication::applicationPid());
        m_envFile = m_ws.filePath(u"env.yml"_s);
        QVERIFY(writeFile(m_envFile, u"ferry: 1\nname: %1\nversion: \"1\"\n"
                                     u"docker:\n  base_image: ferry-base:bookworm\n  shm_size: 256m\n  gpu: \"off\"\n"
                                     u"python:\n  interpreter: python3\n  user_managed: true\n"
                                     u"variables:\n  FERRY_TEST_VAR: \"hello world; $(echo no)\"\n"_s.arg(name)
                                         .toUtf8()));
        const auto read = ferry::env::readEnvironment(m_envFile);
        QVERIFY(!ferry::env::hasErrors(read.diagnostics));
        m_image = ferry::env::imageReference(read.environment);
        docker({u"rmi"_s, u"-f"_s, m_image});
    }

    void cleanupTestCase()
    {
        for (const QString &id : std::as_const(m_runIds)) {
            const QStringList left = containersLabelled(id);
            if (!left.isEmpty())
                docker(QStringList{u"rm"_s, u"-f"_s} + left);
        }
        if (!m_image.isEmpty())
            docker({u"rmi"_s, u"-f"_s, m_image});
    }

    // A script as SageMaker users write it runs unchanged: it checks every contract variable
    // (the /opt/ml paths) itself; the model comes back as model.tar.gz with model.pth.
    void sageMakerScriptRunsInContainer()
    {
        // The script checks SM_TRAINING_ENV's job_name against its run folder's name (/opt/ml).
        RunSpec spec = specFor(u"ml"_s, kSageMaker, u"train.py"_s);
        const QString runDir = RunDirectory::pathFor(m_ws.filePath(u"a"_s), spec.id);
        spec.channels = {{u"training"_s, kSageMaker + u"/data/training"_s},
                         {u"validation"_s, kSageMaker + u"/data/validation"_s}};
        spec.hyperparameters = sageMakerHyperparameters(u"/opt/ml"_s, u"/opt/ml/input/data/training"_s,
                                                        u"/opt/ml/input/data/validation"_s);
        QElapsedTimer clock;
        clock.start();
        const auto started = ContainerTarget().start(runDir, spec);
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        const QJsonObject record = ContainerTarget::readRecord(runDir);
        qInfo("cold start (build + container start): %lld ms, %d build steps", clock.elapsed(),
              record.value(u"buildSteps"_s).toInt());
        QVERIFY(record.value(u"built"_s).toBool());
        QVERIFY(record.value(u"buildSteps"_s).toInt() > 0);
        QVERIFY(!record.value(u"containerId"_s).toString().isEmpty());

        QVERIFY(waitFor([&] { return containerProbe(runDir).finished(); }, 300000, 100));
        const RunProbe status = containerProbe(runDir);
        QVERIFY2(status.state == RunState::Succeeded,
                 qPrintable(status.detail + u" / "_s + (status.exit ? status.exit->error : QString()) + u"\n"_s +
                            QString::fromUtf8(logOf(runDir))));
        QCOMPARE(status.exit->exitCode, 0);
        QVERIFY(status.archived);
        const RunDirectory dir(runDir);
        QVERIFY(archiveEntries(dir.modelArchive())->contains(u"model.pth"_s));
        QVERIFY(!readArchiveFile(dir.modelArchive(), u"model.pth"_s)->isEmpty());
        QCOMPARE(*archiveEntries(dir.outputArchive()), QStringList{u"metrics.json"_s});
        QVERIFY(QFileInfo::exists(runDir + u"/checkpoints/last.ckpt"_s));
        QVERIFY(logOf(runDir).contains("epoch=3 loss="));
        QVERIFY(logOf(runDir).contains("Step 1/"));
        // The build's output is Ferry's notes, not the script's: no metric is read from it.
        for (const QByteArray &line : logOf(runDir).split('\n')) {
            if (line.contains("Step ") || line.contains("DOCKER_BUILDKIT"))
                QVERIFY2(line.startsWith("ferry: "), line.constData());
        }
        QVERIFY(containersLabelled(spec.id).isEmpty()); // removed once its exit code was recorded
    }

    // The same environment again: its image is there, so no build step at all; arguments and
    // variables reach the script verbatim (no shell in between).
    void unchangedEnvironmentStartsWithoutBuild()
    {
        const QString src = m_ws.filePath(u"src"_s);
        QVERIFY(QDir().mkpath(src));
        QVERIFY(writeFile(src + u"/show.py"_s, "import os, sys\n"
                                               "print('argv=' + repr(sys.argv[1:]))\n"
                                               "print('model_dir=' + os.environ['SM_MODEL_DIR'])\n"
                                               "print('var=' + os.environ['FERRY_TEST_VAR'])\n"
                                               "print('cwd=' + os.getcwd())\n"
                                               "open(os.path.join(os.environ['SM_MODEL_DIR'], 'model.pth'), 'w')"
                                               ".write('x')\n"));
        RunSpec spec = specFor(u"second-%1"_s.arg(QCoreApplication::applicationPid()), src, u"show.py"_s);
        spec.hyperparameters = {{u"text"_s, u"a b; echo \"$HOME\" `id`"_s}};
        const QString runDir = RunDirectory::pathFor(m_ws.filePath(u"b"_s), spec.id);
        QElapsedTimer clock;
        clock.start();
        const auto started = ContainerTarget().start(runDir, spec);
        const qint64 startMs = clock.elapsed();
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        const QJsonObject record = ContainerTarget::readRecord(runDir);
        qInfo("relaunch with unchanged environment: container started in %lld ms, %d build steps", startMs,
              record.value(u"buildSteps"_s).toInt());
        QCOMPARE(record.value(u"built"_s).toBool(true), false);
        QCOMPARE(record.value(u"buildSteps"_s).toInt(-1), 0);
        QVERIFY(waitFor([&] { return containerProbe(runDir).finished(); }, 300000, 100));
        const RunProbe status = containerProbe(runDir);
        const QByteArray log = logOf(runDir);
        QVERIFY2(status.state == RunState::Succeeded, log.constData());
        QVERIFY(log.contains("no build"));
        QVERIFY(!log.contains("Step 1/"));
        QVERIFY2(log.contains("argv=['--text', 'a b; echo \"$HOME\" `id`']"), log.constData());
        QVERIFY(log.contains("model_dir=/opt/ml/model\n"));
        QVERIFY(log.contains("var=hello world; $(echo no)\n"));
        QVERIFY(log.contains("cwd=/opt/ml/code\n"));
        QVERIFY(archiveEntries(RunDirectory(runDir).modelArchive())->contains(u"model.pth"_s));
        QVERIFY(containersLabelled(spec.id).isEmpty());
    }

    // A script that writes lightning_logs/ in its working folder (the source mount is
    // read-only): the files land in this run's code/, not in the source folder, and are read
    // into metrics as a local run's are. The event file is a real one of the corpus, handed in
    // as a data channel and written in pieces as Lightning's logger does.
    void scriptWritesItsLogFoldersInTheContainer()
    {
        const QString src = m_ws.filePath(u"lightning"_s);
        QVERIFY(QDir().mkpath(src));
        QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/runs/scripts/replay.py"), src + u"/replay.py"_s));
        const QString events =
            corpusPath(u"logs/tfevents/Abdul-AA__Text-Generation-With-LSTM/lightning_logs/version_0"_s);
        const QString name = u"events.out.tfevents.1716735746.99c8c45923de.3769.0"_s;
        RunSpec spec = specFor(u"tb-%1"_s.arg(QCoreApplication::applicationPid()), src, u"replay.py"_s);
        spec.channels = {{u"events"_s, events}};
        spec.hyperparameters = {{u"copy"_s, u"/opt/ml/input/data/events/%1=lightning_logs/version_0/%1"_s.arg(name)}};
        const QString runDir = RunDirectory::pathFor(m_ws.filePath(u"tb"_s), spec.id);
        QVERIFY(ContainerTarget().start(runDir, spec));
        QVERIFY(waitFor([&] { return containerProbe(runDir).finished(); }, 300000, 100));
        QVERIFY2(containerProbe(runDir).state == RunState::Succeeded, logOf(runDir).constData());
        QVERIFY(!QDir(src + u"/lightning_logs"_s).exists());
        const QString written = runDir + u"/code/lightning_logs/version_0/"_s + name;
        QFile copy(written), original(events + u'/' + name);
        QVERIFY(copy.open(QIODevice::ReadOnly) && original.open(QIODevice::ReadOnly));
        QCOMPARE(copy.readAll(), original.readAll());
        auto store = RunStore::open(m_ws.filePath(u"tb.sqlite"_s));
        QVERIFY(store);
        (*store)->createRun(newRunRecord(spec));
        MetricSources sources(**store, runDir, spec.id);
        const auto read = sources.poll(true);
        QVERIFY(read);
        original.seek(0);
        const auto expected = EventFileReader().read(original.readAll());
        QVERIFY(expected);
        QVERIFY(read->problems.isEmpty());
        // The watcher beside the script dated the log and sampled the container (the first
        // block at once): log.times and system.samples came out through their file mounts.
        QVERIFY(QFileInfo(RunDirectory(runDir).logTimesFile()).size() > 0);
        qsizetype system = 0;
        for (const MetricPoint &p : read->points)
            system += p.name.startsWith(u"system/"_s) ? 1 : 0;
        QVERIFY(system >= 1);
        QCOMPARE(read->points.size() - system, expected->size());
    }

    // A failing script: its exit code and failure file are recorded.
    void failingScriptFails()
    {
        const QString src = m_ws.filePath(u"fail"_s);
        QVERIFY(QDir().mkpath(src));
        QVERIFY(writeFile(src + u"/fail.py"_s, "import os, sys\n"
                                               "open(os.environ['SM_OUTPUT_DIR'] + '/failure', 'w').write('bad data')\n"
                                               "sys.exit(3)\n"));
        const RunSpec spec = specFor(u"fail-%1"_s.arg(QCoreApplication::applicationPid()), src, u"fail.py"_s);
        const QString runDir = RunDirectory::pathFor(m_ws.filePath(u"c"_s), spec.id);
        QVERIFY(ContainerTarget().start(runDir, spec));
        QVERIFY(waitFor([&] { return containerProbe(runDir).finished(); }, 300000, 100));
        const RunProbe status = containerProbe(runDir);
        QCOMPARE(status.state, RunState::Failed);
        QCOMPARE(status.exit->exitCode, 3);
        QCOMPARE(status.exit->error, u"bad data"_s);
        QVERIFY(containersLabelled(spec.id).isEmpty());
    }

    // Cancel stops the container and removes it; the run is cancelled and archived.
    void cancelStopsAndRemovesContainer()
    {
        const QString src = m_ws.filePath(u"wait"_s);
        QVERIFY(QDir().mkpath(src));
        QVERIFY(writeFile(src + u"/wait.py"_s, "import subprocess, time\n"
                                               "subprocess.Popen(['sleep', '1000'])\n"
                                               "print('waiting', flush=True)\n"
                                               "while True:\n    time.sleep(1)\n"));
        const RunSpec spec = specFor(u"cancel-%1"_s.arg(QCoreApplication::applicationPid()), src, u"wait.py"_s);
        const QString runDir = RunDirectory::pathFor(m_ws.filePath(u"d"_s), spec.id);
        QVERIFY(ContainerTarget().start(runDir, spec));
        QVERIFY(waitFor([&] { return logOf(runDir).contains("waiting\n"); }, 60000, 100));
        QCOMPARE(containerProbe(runDir).state, RunState::Running);
        QVERIFY(containerProbe(runDir).heartbeatMs.has_value());
        QCOMPARE(containersLabelled(spec.id).size(), 1);

        const auto cancelled = ContainerTarget().cancel(runDir, 2000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QVERIFY(cancelled->archived);
        QVERIFY(containersLabelled(spec.id).isEmpty());
        QCOMPARE(containerProbe(runDir).state, RunState::Cancelled);
    }

    // GPU on, but no GPU runtime in the engine: a clear error before anything is built or run.
    void gpuOnWithoutRuntimeIsRefused()
    {
        if (docker({u"info"_s, u"--format"_s, u"{{json .Runtimes}}"_s}).out.contains(u"nvidia"_s))
            QSKIP("this engine has the NVIDIA runtime");
        QFile plain(m_envFile);
        QVERIFY(plain.open(QIODevice::ReadOnly));
        const QString gpuEnv = m_ws.filePath(u"gpu.yml"_s);
        QVERIFY(writeFile(gpuEnv, plain.readAll().replace("gpu: \"off\"", "gpu: \"on\"")));
        RunSpec spec =
            specFor(u"gpu-%1"_s.arg(QCoreApplication::applicationPid()), m_ws.filePath(u"wait"_s), u"wait.py"_s);
        spec.environmentFile = gpuEnv;
        const QString runDir = RunDirectory::pathFor(m_ws.filePath(u"f"_s), spec.id);
        const auto started = ContainerTarget().start(runDir, spec);
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"no GPU runtime"_s), qPrintable(started.error().toString()));
        const RunProbe status = containerProbe(runDir);
        QCOMPARE(status.state, RunState::Failed);
        QVERIFY(status.exit->error.contains(u"no GPU runtime"_s));
        QVERIFY(containersLabelled(spec.id).isEmpty());
    }

    // Review L15: an environment's run arguments that undo the isolation (a host folder mounted)
    // are refused by the target itself unless the run allows them; allowed, they are used.
    void isolationBreakingRunArgumentsNeedTheRunsAllowance()
    {
        QFile plain(m_envFile);
        QVERIFY(plain.open(QIODevice::ReadOnly));
        const QString breaking = m_ws.filePath(u"breaking.yml"_s);
        QVERIFY(
            writeFile(breaking, plain.readAll().replace("  gpu: \"off\"\n", "  gpu: \"off\"\n  run_arguments: [\"-v\", "
                                                                            "\"/etc:/host-etc:ro\"]\n")));
        const QString src = m_ws.filePath(u"breaking"_s);
        QVERIFY(QDir().mkpath(src));
        QVERIFY(writeFile(src + u"/look.py"_s, "import os\n"
                                               "print('host etc:', os.path.exists('/host-etc/os-release'))\n"));
        RunSpec spec = specFor(u"breaking-%1"_s.arg(QCoreApplication::applicationPid()), src, u"look.py"_s);
        spec.environmentFile = breaking;
        const QString refusedDir = RunDirectory::pathFor(m_ws.filePath(u"g"_s), spec.id);
        const auto refused = ContainerTarget().start(refusedDir, spec);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(u"-v /etc:/host-etc:ro"_s), qPrintable(refused.error().toString()));
        QCOMPARE(containerProbe(refusedDir).state, RunState::Failed);
        QVERIFY(containersLabelled(spec.id).isEmpty());
        QVERIFY(!logOf(refusedDir).contains("host etc:"));

        spec.id += u"-allowed"_s;
        m_runIds << spec.id;
        spec.target.options[ferry::run::kAllowRunArgumentsOption] = true;
        const QString allowedDir = RunDirectory::pathFor(m_ws.filePath(u"g"_s), spec.id);
        const auto started = ContainerTarget().start(allowedDir, spec);
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        QVERIFY(waitFor([&] { return containerProbe(allowedDir).finished(); }, 120000, 100));
        QCOMPARE(containerProbe(allowedDir).state, RunState::Succeeded);
        QVERIFY2(logOf(allowedDir).contains("host etc: True"), logOf(allowedDir).constData());
    }

    // A run whose container vanished without an exit record is lost, never running.
    void removedContainerIsLost()
    {
        const QString src = m_ws.filePath(u"wait"_s);
        const RunSpec spec = specFor(u"lost-%1"_s.arg(QCoreApplication::applicationPid()), src, u"wait.py"_s);
        const QString runDir = RunDirectory::pathFor(m_ws.filePath(u"e"_s), spec.id);
        QVERIFY(ContainerTarget().start(runDir, spec));
        QCOMPARE(docker({u"rm"_s, u"-f"_s, u"ferry-"_s + spec.id}).exitCode, 0);
        const RunProbe status = containerProbe(runDir);
        QCOMPARE(status.state, RunState::Lost);
        QVERIFY(!status.exit.has_value());
    }
};

FERRY_TEST_GUILESS_MAIN(TestContainerTarget)
#include "tst_containertarget.moc"
