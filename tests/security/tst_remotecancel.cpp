// M1 (review security-2026-12-01, issue 14 "cancel is final"): a run cancelled while it is
// still uploading or being submitted never starts on the host. Against the real test sshd and
// the real Slurm: start() is held in its data upload (or right before the launch, or inside
// sbatch) while another target cancels it, as a second Ferry process would; then no runner, no
// job and no line of the script ever runs there, and the run is Cancelled.
#include "targets/slurmtarget.h"
#include "targets/sshtarget.h"

#include "remotegate.h"
#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::targets;
using ferry::run::RunDirectory;
using ferry::run::RunSpec;
using ferry::test::HeldStart;
using ferry::test::kHost;
using ferry::test::probeOf;
using ferry::test::SshSandbox;

namespace {

constexpr qint64 kBigData = 48 * 1024 * 1024;

// A marker.py run with a big data channel, its folder on the host under ws/host.
RunSpec heldSpec(const QString &target, const QTemporaryDir &ws)
{
    QDir().mkpath(ws.filePath(u"src"_s));
    ferry::test::writeMarkerScript(ws.filePath(u"src"_s));
    ferry::test::writeBigFile(ws.filePath(u"big.bin"_s), kBigData);
    RunSpec spec = ferry::test::remoteSpec(target, ws.filePath(u"src"_s), u"marker.py"_s, ws.filePath(u"host"_s));
    spec.hyperparameters = {{u"marker"_s, ws.filePath(u"script-ran"_s)}};
    spec.channels = {{u"training"_s, ws.filePath(u"big.bin"_s)}};
    return spec;
}

QString hostDir(const QTemporaryDir &ws, const RunSpec &spec)
{
    return ws.filePath(u"host/"_s + spec.id);
}

// Nothing of the run appears on the host within a few seconds after start() returned (a
// launched runner writes its pid at once, the script its marker within a second).
void verifyNeverStarted(const QTemporaryDir &ws, const RunSpec &spec)
{
    const QString dir = hostDir(ws, spec);
    QVERIFY2(QDir(dir).exists(), "the start got as far as the host");
    QVERIFY(!ferry::test::waitFor(
        [&] { return QFile::exists(dir + u"/pid"_s) || QFile::exists(ws.filePath(u"script-ran"_s)); }, 5000, 100));
    const QStringList jobOutputs = QDir(dir).entryList({u"slurm-*.out"_s});
    QVERIFY2(jobOutputs.isEmpty(), qPrintable(jobOutputs.join(u' ')));
    // No process carries the run's marker.
    const ShellResult marked = LocalShell().runScript(
        "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -qxF \"FERRY_RUN_ID=$1\" && echo "
        "${p#/proc/}; done; exit 0\n",
        {spec.id});
    QVERIFY(marked.ok());
    QCOMPARE(marked.out.trimmed(), QByteArray());
}

QByteArray squeueByName(const RunSpec &spec)
{
    const ShellResult r =
        runProcess(u"squeue"_s, {u"-h"_s, u"-n"_s, u"ferry-"_s + spec.id.left(100), u"-o"_s, u"%i"_s}, {}, 30000);
    return r.out.trimmed();
}

} // namespace

class TestRemoteCancel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariableIsEmpty("SLURM_CONF"), "the slurm fixture sets SLURM_CONF"); }

    void sshCancelDuringUploadNeverStarts()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const RunSpec spec = heldSpec(u"ssh:"_s + kHost, ws);
        const QString runDir = ws.filePath(u"run"_s);
        SshTarget target(kHost, sandbox.options());
        HeldStart start(target, runDir, spec, u"uploading data"_s);
        QVERIFY(ferry::test::waitFor([&] { return start.reached(); }, 120000, 50));

        SshTarget other(kHost, sandbox.options()); // as `ferry runs cancel` would
        const auto cancelled = other.cancel(runDir, 2000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);

        const ferry::Expected<void> &started = start.result();
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"cancelled"_s), qPrintable(started.error().toString()));
        verifyNeverStarted(ws, spec);
        QCOMPARE(probeOf(target, runDir).state, RunState::Cancelled);
        // The host has the cancel's record too: a runner started there later would find it.
        QFile remoteExit(hostDir(ws, spec) + u"/exit.json"_s);
        QVERIFY(remoteExit.open(QIODevice::ReadOnly));
        QVERIFY(QJsonDocument::fromJson(remoteExit.readAll()).object().value(u"cancelled"_s).toBool());
    }

    // A cancel that reached the host first (it touches cancel-requested before the local record
    // is written): the launch refuses there, and a runner started by hand runs nothing.
    void sshCancelOnTheHostStopsLaunchAndRunner()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const RunSpec spec = heldSpec(u"ssh:"_s + kHost, ws);
        const QString runDir = ws.filePath(u"run"_s);
        SshTarget target(kHost, sandbox.options());
        HeldStart start(target, runDir, spec, u"starting the run"_s);
        QVERIFY(ferry::test::waitFor([&] { return start.reached(); }, 120000, 50));
        QFile flag(hostDir(ws, spec) + u"/cancel-requested"_s);
        QVERIFY(flag.open(QIODevice::WriteOnly));
        flag.close();

        const ferry::Expected<void> &started = start.result();
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"cancelled"_s), qPrintable(started.error().toString()));
        verifyNeverStarted(ws, spec);
        QCOMPARE(probeOf(target, runDir).state, RunState::Cancelled);

        // The runner itself honours the flag (a launch that passed the check just before it).
        SshShell shell = sandbox.shell();
        const ShellResult runner =
            shell.runScript("FERRY_RUN_ID=\"$2\" bash \"$1/runner.sh\"\n", {hostDir(ws, spec), spec.id}, 60000);
        QVERIFY2(runner.ok(), qPrintable(runner.errorText()));
        QVERIFY(!ferry::test::waitFor([&] { return QFile::exists(ws.filePath(u"script-ran"_s)); }, 3000, 100));
        QFile remoteExit(hostDir(ws, spec) + u"/exit.json"_s);
        QVERIFY(remoteExit.open(QIODevice::ReadOnly));
        const QJsonObject exit = QJsonDocument::fromJson(remoteExit.readAll()).object();
        QVERIFY(exit.value(u"cancelled"_s).toBool());
        QCOMPARE(exit.value(u"error"_s).toString(), u"cancelled before it started"_s);
    }

    void slurmCancelDuringUploadNeverSubmits()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const RunSpec spec = heldSpec(u"slurm:local"_s, ws);
        const QString runDir = ws.filePath(u"run"_s);
        SlurmTarget target(u"local"_s, sandbox.options());
        HeldStart start(target, runDir, spec, u"uploading data"_s);
        QVERIFY(ferry::test::waitFor([&] { return start.reached(); }, 120000, 50));

        SlurmTarget other(u"local"_s, sandbox.options());
        const auto cancelled = other.cancel(runDir, 1000);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);

        const ferry::Expected<void> &started = start.result();
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"cancelled"_s), qPrintable(started.error().toString()));
        QCOMPARE((*RemoteRecord::read(runDir))->jobId, QString()); // never submitted
        QCOMPARE(squeueByName(spec), QByteArray());
        verifyNeverStarted(ws, spec);
        QCOMPARE(probeOf(target, runDir).state, RunState::Cancelled);
    }

    // sbatch has answered, but start() has not recorded the job yet when the cancel comes: the
    // cancel finds no job id, so start() must cancel the job it got. A wrapper in PATH holds
    // the real sbatch's answer until the test has cancelled.
    void slurmCancelRacingSbatchCancelsTheJob()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString realSbatch = QStandardPaths::findExecutable(u"sbatch"_s);
        QVERIFY(!realSbatch.isEmpty());
        QDir().mkpath(ws.filePath(u"bin"_s));
        QFile wrapper(ws.filePath(u"bin/sbatch"_s));
        QVERIFY(wrapper.open(QIODevice::WriteOnly));
        // `sbatch --version` (the host probe) passes; the submission waits for the test, its job
        // held back (--begin) so that it is still queued when the cancel comes.
        const QByteArray real = realSbatch.toUtf8();
        const QByteArray answer = ws.filePath(u"submitted"_s).toUtf8();
        wrapper.write("#!/bin/bash\n"
                      "case \" $* \" in *\" --parsable \"*) ;; *) exec " +
                      real + " \"$@\" ;; esac\n" + "out=$(" + real + " --begin=now+300 \"$@\"); rc=$?\n" +
                      "echo \"$out\" > " + answer + ".tmp && mv " + answer + ".tmp " + answer + "\n" + "while [ ! -e " +
                      ws.filePath(u"go"_s).toUtf8() + " ]; do sleep 0.05; done\n" + "echo \"$out\"; exit $rc\n");
        wrapper.close();
        QVERIFY(wrapper.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const QByteArray path = qgetenv("PATH");
        qputenv("PATH", ws.filePath(u"bin"_s).toUtf8() + ':' + path);

        const RunSpec spec = heldSpec(u"slurm:local"_s, ws);
        const QString runDir = ws.filePath(u"run"_s);
        SlurmTarget target(u"local"_s, sandbox.options());
        HeldStart start(target, runDir, spec, u"nothing holds it"_s);
        const bool submitted =
            ferry::test::waitFor([&] { return QFile::exists(ws.filePath(u"submitted"_s)); }, 120000, 50);
        qputenv("PATH", path);
        QFile answerFile(ws.filePath(u"submitted"_s));
        const QString job = answerFile.open(QIODevice::ReadOnly)
                                ? QString::fromUtf8(answerFile.readAll()).trimmed().section(u';', 0, 0)
                                : QString();
        QVERIFY(submitted);
        QVERIFY2(!job.isEmpty(), "sbatch gave a job id");

        SlurmTarget other(u"local"_s, sandbox.options());
        const auto cancelled = other.cancel(runDir, 1000);
        QFile go(ws.filePath(u"go"_s));
        QVERIFY(go.open(QIODevice::WriteOnly));
        go.close();
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);

        const ferry::Expected<void> &started = start.result();
        const bool gone = ferry::test::waitFor(
            [&] {
                return runProcess(u"squeue"_s, {u"-h"_s, u"-j"_s, job, u"-o"_s, u"%i"_s}, {}, 30000)
                    .out.trimmed()
                    .isEmpty();
            },
            30000, 250);
        if (!gone)
            runProcess(u"scancel"_s, {job}, {}, 30000);
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"cancelled"_s), qPrintable(started.error().toString()));
        QVERIFY2(gone, qPrintable(u"job %1 still queued"_s.arg(job)));
        QVERIFY(!QFile::exists(ws.filePath(u"script-ran"_s)));
        QCOMPARE(probeOf(target, runDir).state, RunState::Cancelled);
    }
};

FERRY_TEST_GUILESS_MAIN(TestRemoteCancel)
#include "tst_remotecancel.moc"
