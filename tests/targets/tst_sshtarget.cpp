// The SSH target against a real sshd on 127.0.0.1: host keys (unknown and changed refused),
// the host probe, the SageMaker-style script unchanged in the host's Python with its
// model.tar.gz fetched back, cancel (no process of the run left, found by its marker), a
// follower killed with SIGKILL and a cut connection (ControlMaster killed, sshd stopped and
// restarted): every metric point exactly once.
#include "targets/hostprobe.h"
#include "targets/sshtarget.h"

#include "run/archive.h"
#include "support/cli.h"
#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <tuple>

using namespace Qt::StringLiterals;
using namespace ferry::targets;
using ferry::run::RunDirectory;
using ferry::run::RunSpec;
using namespace ferry::test;

namespace {

RunSpec sshSpec(const QString &sourceDir, const QString &script, const QString &remoteRoot)
{
    return ferry::test::remoteSpec(u"ssh:"_s + kHost, sourceDir, script, remoteRoot);
}

// A waiter.py run (it waits for a file that never comes) started on the host and seen there:
// its runner and its script, both carrying the run's marker.
struct WaitingRun {
    const SshSandbox sandbox;
    QTemporaryDir ws;
    QString runDir = ws.filePath(u"run"_s);
    SshTarget target{kHost, sandbox.options()};
    SshShell shell = sandbox.shell();
    RemoteRun remote{shell, runDir};
    RemoteRecord record;

    bool start()
    {
        RunSpec spec = sshSpec(kScripts, u"waiter.py"_s, ws.filePath(u"on-the-host"_s));
        spec.hyperparameters = {{u"go-file"_s, ws.filePath(u"never"_s)}};
        if (!target.start(runDir, spec))
            return false;
        record = **RemoteRecord::read(runDir);
        return ferry::test::waitFor([&] { return remote.markedProcesses(record)->size() >= 2; }, 30000, 100);
    }
    std::tuple<SshTarget &, SshShell &, RemoteRun &, const RemoteRecord &, const QString &> parts()
    {
        return {target, shell, remote, record, runDir};
    }
};

} // namespace

class TestSshTarget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void unknownHostKeyIsRefusedUntilAccepted()
    {
        const SshSandbox sandbox(false);
        SshShell shell = sandbox.shell();
        const ShellResult refused = shell.run({u"true"_s});
        QVERIFY(!refused.reached);
        QVERIFY(refused.hostKeyRefused);
        const QString fingerprint = ferry::test::hostFingerprint();
        QVERIFY(fingerprint.startsWith(u"SHA256:"_s));
        QVERIFY2(refused.failure.contains(u"unknown"_s), qPrintable(refused.failure));
        QVERIFY2(refused.failure.contains(u"--accept-host-key "_s + fingerprint), qPrintable(refused.failure));

        const auto wrong = shell.acceptHostKey(u"SHA256:AAAAnotthekeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"_s);
        QVERIFY(!wrong);
        QVERIFY2(wrong.error().message.contains(u"offers no host key"_s), qPrintable(wrong.error().message));
        QVERIFY(!shell.run({u"true"_s}).reached);

        const auto accepted = shell.acceptHostKey(fingerprint);
        QVERIFY2(accepted, qPrintable(accepted ? QString() : accepted.error().toString()));
        const ShellResult now = shell.run({u"echo"_s, u"hello"_s});
        QVERIFY2(now.ok(), qPrintable(now.errorText()));
        QCOMPARE(now.out, QByteArray("hello\n"));
        QFile known(sandbox.knownHosts());
        QVERIFY(known.open(QIODevice::ReadOnly));
        QCOMPARE(known.readAll().count('\n'), 1);
        QCOMPARE(known.permissions() & (QFile::ReadOther | QFile::ReadGroup), QFile::Permissions());
    }

    void changedHostKeyIsRefused()
    {
        const SshSandbox sandbox(false);
        // Another key recorded for this host: what a man in the middle would look like.
        QProcess keygen;
        keygen.start(u"ssh-keygen"_s,
                     {u"-q"_s, u"-t"_s, u"ed25519"_s, u"-N"_s, u""_s, u"-f"_s, sandbox.state.filePath(u"other"_s)});
        QVERIFY(keygen.waitForFinished());
        QFile pub(sandbox.state.filePath(u"other.pub"_s));
        QVERIFY(pub.open(QIODevice::ReadOnly));
        const QList<QByteArray> key = pub.readAll().split(' ');
        QFile real(ferry::test::sshdDir() + u"/known_hosts"_s);
        QVERIFY(real.open(QIODevice::ReadOnly));
        const QByteArray hostField = real.readAll().split(' ').first();
        QFile known(sandbox.knownHosts());
        QVERIFY(known.open(QIODevice::WriteOnly));
        known.write(hostField + ' ' + key.at(0) + ' ' + key.at(1) + '\n');
        known.close();

        SshShell shell = sandbox.shell();
        const ShellResult refused = shell.run({u"true"_s});
        QVERIFY(!refused.reached);
        QVERIFY(refused.hostKeyRefused);
        QVERIFY2(refused.failure.contains(u"CHANGED"_s), qPrintable(refused.failure));
        QVERIFY2(refused.failure.contains(ferry::test::hostFingerprint()), qPrintable(refused.failure));
        QVERIFY2(refused.failure.contains(sandbox.knownHosts()), qPrintable(refused.failure));
        // The target refuses to start a run there, with the same message.
        QTemporaryDir ws;
        SshTarget target(kHost, sandbox.options());
        const RunSpec spec = sshSpec(kScripts, u"metrics.py"_s, ws.filePath(u"remote"_s));
        const auto started = target.start(ws.filePath(u"run"_s), spec);
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"CHANGED"_s), qPrintable(started.error().message));
    }

    void probesTheHost()
    {
        const SshSandbox sandbox;
        SshShell shell = sandbox.shell();
        const auto info = probeHost(shell);
        QVERIFY2(info, qPrintable(info ? QString() : info.error().toString()));
        QVERIFY(!info->os.isEmpty());
        QVERIFY(info->kernel.startsWith(u"Linux"_s));
        QVERIFY(info->python.startsWith(u"3."_s));
        QVERIFY(info->cpus >= 1);
        QVERIFY(info->diskFreeKiB > 0);
        QVERIFY(info->gpus.isEmpty()); // no nvidia-smi on the test machine
        QVERIFY(info->gpuProblem.isEmpty());
    }

    void sageMakerScriptRunsUnchanged()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString root = ws.filePath(u"on-the-host"_s);
        RunSpec spec = sshSpec(kSageMaker, u"train.py"_s, root);
        const QString runDir = RunDirectory::pathFor(ws.filePath(u"ws"_s), spec.id);
        const QString remoteDir = root + u'/' + spec.id;
        const QString training = kSageMaker + u"/data/training"_s;
        const QString validation = kSageMaker + u"/data/validation"_s;
        spec.channels = {{u"training"_s, training}, {u"validation"_s, validation}};
        spec.hyperparameters = sageMakerHyperparameters(remoteDir, remoteDir + u"/input/data/training"_s,
                                                        remoteDir + u"/input/data/validation"_s);
        SshTarget target(kHost, sandbox.options());
        const auto started = target.start(runDir, spec);
        QVERIFY2(started, qPrintable(errorOf(started)));
        QVERIFY(ferry::test::waitFor([&] { return probeOf(target, runDir).finished(); }, 120000, 100));
        const RunProbe status = probeOf(target, runDir);
        QVERIFY2(status.state == RunState::Succeeded, qPrintable(status.exit ? status.exit->error : status.detail));
        QVERIFY(status.archived);
        const RunDirectory dir(runDir);
        QVERIFY(ferry::run::archiveEntries(dir.modelArchive())->contains(u"model.pth"_s));
        QCOMPARE(*ferry::run::archiveEntries(dir.outputArchive()), QStringList{u"metrics.json"_s});
        QFile log(dir.logFile());
        QVERIFY(log.open(QIODevice::ReadOnly));
        QCOMPARE(log.readAll().count("epoch="), 3);
        // The source went over without .git and .ferry, the data next to it.
        QVERIFY(QFile::exists(remoteDir + u"/code/train.py"_s));
        QVERIFY(QFile::exists(remoteDir + u"/input/data/training/train.csv"_s));
    }

    // A script on the host writing TensorBoard event files: they come back with the log.
    void eventFilesComeBackFromTheHost()
    {
        ferry::test::eventFilesComeBackFromTheHost(u"ssh:"_s + kHost, [](const SshSandbox &sandbox) {
            return std::make_unique<SshTarget>(kHost, sandbox.options());
        });
    }

    // Images and histograms written on the host: indexed once the run is collected.
    void mediaComesBackFromTheHost()
    {
        ferry::test::mediaComesBackFromTheHost(u"ssh:"_s + kHost, [](const SshSandbox &sandbox) {
            return std::make_unique<SshTarget>(kHost, sandbox.options());
        });
    }

    void cancelLeavesNoRemoteProcess()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString root = ws.filePath(u"on-the-host"_s);
        RunSpec spec = sshSpec(kScripts, u"waiter.py"_s, root);
        spec.hyperparameters = {{u"go-file"_s, ws.filePath(u"never"_s)}};
        const QString runDir = ws.filePath(u"run"_s);
        SshTarget target(kHost, sandbox.options());
        const auto started = target.start(runDir, spec);
        QVERIFY2(started, qPrintable(errorOf(started)));
        QCOMPARE(probeOf(target, runDir).state, RunState::Running);
        SshShell shell = sandbox.shell();
        RemoteRun remote(shell, runDir);
        const RemoteRecord record = **RemoteRecord::read(runDir);
        QVERIFY(ferry::test::waitFor([&] { return remote.markedProcesses(record)->size() >= 2; }, 30000, 100));

        const auto cancelled = target.cancel(runDir, 2000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QVERIFY(cancelled->exit->cancelled);
        QCOMPARE(*remote.markedProcesses(record), QList<qint64>{});
        // Nothing runs from the run's folder either (the runner, the script).
        // "[/]x" matches "/x" but not itself, so the shell running pgrep is not found.
        const ShellResult pgrep = shell.run({u"pgrep"_s, u"-f"_s, u"[/]"_s + record.dir.mid(1)});
        QVERIFY(pgrep.reached);
        QCOMPARE(pgrep.exitCode, 1);
        QCOMPARE(probeOf(target, runDir).state, RunState::Cancelled);
    }

    // A start not confirmed yet (M4, issue 14): the runner lives but its pid file is not there (as
    // in the moment before it writes it, or when the start timed out). The run is running,
    // "starting", never lost, and a cancel stops every process of it by its marker.
    void unconfirmedStartIsRunningAndCancellable()
    {
        WaitingRun run;
        QVERIFY(run.start());
        auto [target, shell, remote, record, runDir] = run.parts();
        QVERIFY(shell.run({u"rm"_s, u"-f"_s, u"--"_s, record.dir + u"/pid"_s}).ok());
        const RunProbe starting = probeOf(target, runDir);
        QCOMPARE(starting.state, RunState::Running);
        QVERIFY2(starting.detail.contains(u"starting"_s), qPrintable(starting.detail));

        const auto cancelled = target.cancel(runDir, 2000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QVERIFY(ferry::test::waitFor([&] { return remote.markedProcesses(record)->isEmpty(); }, 30000, 100));
        QCOMPARE(probeOf(target, runDir).state, RunState::Cancelled);
    }

    // Everything of the run killed on the host (as a reboot would): lost, never left running.
    void runGoneWithoutExitRecordIsLost()
    {
        WaitingRun run;
        QVERIFY(run.start());
        auto [target, shell, remote, record, runDir] = run.parts();
        // The runner first (its pid file), so it cannot record the script's end; then the rest.
        QVERIFY(shell.runScript("kill -KILL \"$(cat \"$1/pid\")\"\n", {record.dir}).ok());
        const auto marked = remote.markedProcesses(record); // kept: a range-for over *temporary dangles
        QVERIFY(marked);
        QStringList pids;
        for (const qint64 pid : *marked)
            pids << QString::number(pid);
        if (!pids.isEmpty())
            QVERIFY(shell.run(QStringList{u"kill"_s, u"-KILL"_s} + pids).reached);
        QVERIFY(ferry::test::waitFor([&] { return remote.markedProcesses(record)->isEmpty(); }, 30000, 100));
        const RunProbe lost = probeOf(target, runDir);
        QCOMPARE(lost.state, RunState::Lost);
        QVERIFY2(lost.detail.contains(u"gone and left no exit record"_s), qPrintable(lost.detail));
    }

    void followerKilledMidRunLosesNothing() { ferry::test::followerKilledMidRunLosesNothing(u"ssh:"_s + kHost); }

    void cutConnectionResumesWithoutGaps() { ferry::test::cutConnectionResumesWithoutGaps(u"ssh:"_s + kHost); }
};

FERRY_TEST_GUILESS_MAIN(TestSshTarget)
#include "tst_sshtarget.moc"
