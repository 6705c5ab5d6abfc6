// The local process target with real processes: the SageMaker contract seen from inside a
// script, runs that outlive their starter, lost runs and reused pids, failures.
#include "run/archive.h"
#include "run/rundirectory.h"
#include "support/targets.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/localtarget.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ferry::run;
using namespace ferry::targets;

namespace {

using ferry::test::kSageMaker;
using ferry::test::kScripts;
using ferry::test::localTarget;

using ferry::test::waitFor;

RunSpec specFor(const QString &sourceDir, const QString &script, QList<Hyperparameter> hps = {})
{
    RunSpec spec;
    spec.id = newRunId(script);
    spec.script = script;
    spec.sourceDir = sourceDir;
    spec.interpreter = u"/usr/bin/python3"_s;
    spec.hyperparameters = std::move(hps);
    return spec;
}

// The state, or Lost with the error as detail when probing failed.
RunProbe probe(const QString &runDir)
{
    return ferry::test::probeOf(localTarget(), runDir);
}

bool finishedAndArchived(const QString &runDir)
{
    const RunProbe s = probe(runDir);
    return s.finished() && s.archived;
}

SupervisorRecord supervisorOf(const QString &runDir)
{
    const auto record = RunDirectory(runDir).readSupervisor();
    return record && record->has_value() ? **record : SupervisorRecord{};
}

void touch(const QString &path)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
}

// Runs in a child copy of this test binary: starts a run, says so, then hangs until killed.
int startRunAndHang(const QString &runDir, const QString &goFile)
{
    if (::setpgid(0, 0) != 0) // a group of its own, so the test can kill it and its group
        return 3;
    const RunSpec spec = specFor(kScripts, u"waiter.py"_s, {{u"go-file"_s, goFile}});
    const auto started = localTarget().start(runDir, spec);
    if (!started) {
        std::fprintf(stderr, "%s\n", qPrintable(started.error().toString()));
        return 2;
    }
    std::printf("started\n");
    std::fflush(stdout);
    for (;;)
        ::pause();
}

} // namespace

class TestLocalTarget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A script as SageMaker users write it runs unchanged; it checks every contract
    // variable and config file itself and fails (with the reason) if one is wrong.
    void sageMakerScriptRunsUnchanged()
    {
        QTemporaryDir ws;
        RunSpec spec = specFor(kSageMaker, u"train.py"_s);
        const QString runDir = RunDirectory::pathFor(ws.path(), spec.id);
        const QString training = kSageMaker + u"/data/training"_s;
        const QString validation = kSageMaker + u"/data/validation"_s;
        spec.channels = {{u"training"_s, training}, {u"validation"_s, validation}};
        spec.hyperparameters = ferry::test::sageMakerHyperparameters(runDir, training, validation);
        const auto started = localTarget().start(runDir, spec);
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        QVERIFY(waitFor([&] { return finishedAndArchived(runDir); }));
        const RunProbe status = probe(runDir);
        QVERIFY2(status.state == RunState::Succeeded, qPrintable(status.exit->error));
        QCOMPARE(status.exit->exitCode, 0);

        const RunDirectory dir(runDir);
        QVERIFY(archiveEntries(dir.modelArchive())->contains(u"model.pth"_s));
        QVERIFY(!readArchiveFile(dir.modelArchive(), u"model.pth"_s)->isEmpty());
        QCOMPARE(*archiveEntries(dir.outputArchive()), QStringList{u"metrics.json"_s});
        QProcess tar; // what a user would run on it
        tar.start(u"tar"_s, {u"tzf"_s, dir.modelArchive()});
        QVERIFY(tar.waitForFinished(60000));
        QCOMPARE(tar.readAllStandardOutput(), QByteArray("model.pth\n"));
        const auto log = localTarget().readLog(runDir, 0, {});
        QVERIFY(log);
        QCOMPARE(log->lines.size(), 3);
        QVERIFY(log->lines.at(2).text.startsWith("epoch=3 loss="));
        QVERIFY(status.heartbeatMs.has_value());
        QVERIFY(QFileInfo::exists(runDir + u"/checkpoints/last.ckpt"_s));
    }

    // Killing whatever started the run (with its whole process group) leaves the run going,
    // and it completes.
    void runSurvivesItsStarter()
    {
        QTemporaryDir ws;
        const QString runDir = RunDirectory::pathFor(ws.path(), u"survivor"_s);
        const QString go = ws.filePath(u"go"_s);
        QProcess starter;
        starter.start(QCoreApplication::applicationFilePath(),
                      ferry::test::testArguments({u"--start-run"_s, runDir, go}));
        QVERIFY(waitFor([&] {
            starter.waitForReadyRead(100);
            return starter.canReadLine() || starter.state() == QProcess::NotRunning;
        }));
        QCOMPARE(starter.readLine(), QByteArray("started\n"));

        const SupervisorRecord s = supervisorOf(runDir);
        const auto supervisorState = processState(s.supervisorPid);
        QVERIFY(supervisorState.has_value());
        QVERIFY(supervisorState->session != ::getsid(static_cast<pid_t>(starter.processId())));
        QVERIFY(supervisorState->processGroup != starter.processId());
        QCOMPARE(::kill(-static_cast<pid_t>(starter.processId()), SIGKILL), 0);
        QVERIFY(starter.waitForFinished(60000));
        QCOMPARE(starter.exitStatus(), QProcess::CrashExit);

        QCOMPARE(probe(runDir).state, RunState::Running);
        touch(go);
        QVERIFY(waitFor([&] { return finishedAndArchived(runDir); }));
        QCOMPARE(probe(runDir).state, RunState::Succeeded);
        QVERIFY(archiveEntries(RunDirectory(runDir).modelArchive())->contains(u"model.pth"_s));
    }

    // A run whose processes vanished without an exit record is lost, never running.
    void killedRunIsLost()
    {
        QTemporaryDir ws;
        const RunSpec spec = specFor(kScripts, u"waiter.py"_s, {{u"go-file"_s, ws.filePath(u"never"_s)}});
        const QString runDir = RunDirectory::pathFor(ws.path(), spec.id);
        QVERIFY(localTarget().start(runDir, spec));
        QCOMPARE(probe(runDir).state, RunState::Running);
        const SupervisorRecord s = supervisorOf(runDir);
        QCOMPARE(::kill(static_cast<pid_t>(s.supervisorPid), SIGKILL), 0);
        QCOMPARE(::kill(-static_cast<pid_t>(s.processGroup), SIGKILL), 0);
        QVERIFY(waitFor([&] { return !supervisorAlive(s); }));
        // Running while any of its group lives (M4); lost once the last one is gone.
        QVERIFY(waitFor([&] { return liveGroupMembers(s.processGroup, s.supervisorPid).isEmpty(); }));
        const RunProbe status = probe(runDir);
        QCOMPARE(status.state, RunState::Lost);
        QVERIFY2(status.detail.contains(u"is gone and left no exit record"_s), qPrintable(status.detail));
        QVERIFY(!status.exit);
    }

    // supervisor.json naming a live process that is not ours (its pid was reused: other
    // start ticks, or another boot) means lost.
    void reusedPidIsNotTakenForTheRun()
    {
        QTemporaryDir ws;
        const RunSpec spec = specFor(kScripts, u"waiter.py"_s, {{u"go-file"_s, u"x"_s}});
        const RunDirectory dir(RunDirectory::pathFor(ws.path(), spec.id));
        QVERIFY(QDir().mkpath(dir.path()));
        QVERIFY(dir.writeSpec(spec));
        SupervisorRecord fake;
        fake.supervisorPid = ::getpid(); // alive: this test
        fake.supervisorStartTicks = processState(::getpid())->startTicks;
        fake.childPid = fake.processGroup = ::getpid();
        fake.bootId = currentBootId();
        QVERIFY(dir.writeSupervisor(fake));
        QCOMPARE(probe(dir.path()).state, RunState::Running); // the check itself: same ticks, same boot

        fake.supervisorStartTicks += 1;
        QVERIFY(dir.writeSupervisor(fake));
        QCOMPARE(probe(dir.path()).state, RunState::Lost);

        fake.supervisorStartTicks -= 1;
        fake.bootId = u"00000000-0000-0000-0000-000000000000"_s;
        QVERIFY(dir.writeSupervisor(fake));
        QCOMPARE(probe(dir.path()).state, RunState::Lost);
    }

    void failureFileBecomesTheError()
    {
        QTemporaryDir ws;
        const RunSpec spec = specFor(kScripts, u"fail.py"_s);
        const QString runDir = RunDirectory::pathFor(ws.path(), spec.id);
        QVERIFY(localTarget().start(runDir, spec));
        QVERIFY(waitFor([&] { return finishedAndArchived(runDir); }));
        const RunProbe status = probe(runDir);
        QCOMPARE(status.state, RunState::Failed);
        QCOMPARE(status.exit->exitCode, 3);
        QCOMPARE(status.exit->error,
                 u"CUDA out of memory: tried to allocate 12.00 GiB (GPU 0; 7.79 GiB total capacity)"_s);
    }

    void missingInterpreterIsAClearError()
    {
        QTemporaryDir ws;
        RunSpec spec = specFor(kScripts, u"report.py"_s);
        spec.interpreter = u"/opt/nowhere/bin/python3.99"_s;
        const QString runDir = RunDirectory::pathFor(ws.path(), spec.id);
        const auto started = localTarget().start(runDir, spec);
        QVERIFY(!started);
        QVERIFY2(started.error().toString().contains(u"cannot start the interpreter '/opt/nowhere/bin/python3.99'"_s),
                 qPrintable(started.error().toString()));
        QVERIFY(started.error().toString().contains(u"install it"_s));
        const RunProbe status = probe(runDir); // recorded, not vanished
        QCOMPARE(status.state, RunState::Failed);
        QVERIFY(status.exit->error.contains(u"python3.99"_s));
    }

    void missingFerryBinaryIsAClearError()
    {
        QTemporaryDir ws;
        const RunSpec spec = specFor(kScripts, u"report.py"_s);
        const QString runDir = RunDirectory::pathFor(ws.path(), spec.id);
        const auto started = LocalTarget(ws.filePath(u"no-ferry"_s)).start(runDir, spec);
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"cannot start the run supervisor"_s),
                 qPrintable(started.error().toString()));
        QCOMPARE(probe(runDir).state, RunState::Failed);
    }

    // The supervisor runs in the run folder, so a source folder given relative to where
    // Ferry was started must still be found.
    void relativeSourceFolder()
    {
        QTemporaryDir ws;
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(QStringLiteral(FERRY_TEST_DATA "/runs")));
        const RunSpec spec = specFor(u"scripts"_s, u"report.py"_s);
        const QString runDir = RunDirectory::pathFor(ws.path(), spec.id);
        const auto started = localTarget().start(runDir, spec);
        QVERIFY(QDir::setCurrent(before));
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        QVERIFY(waitFor([&] { return finishedAndArchived(runDir); }));
        QCOMPARE(probe(runDir).state, RunState::Succeeded);
        QCOMPARE(RunDirectory(runDir).readSpec()->sourceDir, kScripts);
    }

    void badSpecsAreRefusedBeforeLaunch()
    {
        QTemporaryDir ws;
        RunSpec spec = specFor(kScripts, u"no-such.py"_s);
        const QString runDir = RunDirectory::pathFor(ws.path(), spec.id);
        auto started = localTarget().start(runDir, spec);
        QVERIFY(!started);
        QCOMPARE(started.error().message, u"no such script"_s);
        QVERIFY(!QFileInfo::exists(runDir));

        spec = specFor(kScripts, u"report.py"_s);
        spec.target = *TargetSpec::parse(u"container"_s);
        QVERIFY(!localTarget().start(runDir, spec));

        spec.target = TargetSpec{};
        QVERIFY(localTarget().start(runDir, spec));
        started = localTarget().start(runDir, spec); // the same folder twice
        QVERIFY(!started);
        QVERIFY(started.error().message.contains(u"holds a run already"_s));
        QVERIFY(waitFor([&] { return finishedAndArchived(runDir); }));
        QVERIFY(!localTarget().probe(ws.path())); // not a run folder
    }
};

// QTEST_GUILESS_MAIN, and the child that starts a run (runSurvivesItsStarter).
static int localTargetMain(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc == 4 && qstrcmp(argv[1], "--start-run") == 0)
        return startRunAndHang(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    TestLocalTarget test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
FERRY_TEST_MAIN_FUNCTION(localTargetMain)

#include "tst_localtarget.moc"
