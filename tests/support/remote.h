// What the SSH and Slurm tests share: the fixtures' sshd and Slurm, SSH options for them, and
// commands on the host.
#pragma once

// What the SSH and Slurm tests share: the private sshd and Slurm started by the fixtures
// (tests/services/sshd.sh, slurm.sh), SSH options that point Ferry at them, the environment
// for a `ferry` process, and commands on the host.
#include "run/rundirectory.h"
#include "run/runspec.h"
#include "store/runstore.h"
#include "support/cli.h"
#include "support/targets.h"
#include "support/testenv.h"
#include "targets/sshshell.h"
#include "tracking/runfollower.h"
#include "tracking/runlauncher.h"
#include "tracking/runmedia.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

namespace ferry::test {

inline const QString kHost = QStringLiteral("ferrytest"); // the Host in sshdDir()/config

inline QString sshdScript()
{
    return QStringLiteral(FERRY_SOURCE_DIR "/tests/services/sshd.sh");
}

inline bool sshdCommand(const QString &command)
{
    return QProcess::execute(QStringLiteral("bash"), {sshdScript(), command, sshdDir()}) == 0;
}

// The SHA256 fingerprint of the test sshd's host key.
inline QString hostFingerprint()
{
    QProcess p;
    p.start(QStringLiteral("ssh-keygen"), {QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"),
                                           QStringLiteral("-f"), sshdDir() + QStringLiteral("/host_ed25519.pub")});
    p.waitForFinished();
    return QString::fromUtf8(p.readAllStandardOutput()).section(QLatin1Char(' '), 1, 1);
}

// Ferry's state for one test: its own known_hosts (with the host key accepted when `trusted`)
// and its own ControlMaster folder, so no test reuses another's connection.
struct SshSandbox {
    QTemporaryDir state{QStringLiteral("/tmp/ferry-ssh-test-XXXXXX")};

    explicit SshSandbox(bool trusted = true)
    {
        QDir().mkpath(state.filePath(QStringLiteral("config/ferry")));
        QDir().mkpath(state.filePath(QStringLiteral("rt")));
        QFile::setPermissions(state.filePath(QStringLiteral("rt")),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        if (trusted)
            QFile::copy(sshdDir() + QStringLiteral("/known_hosts"), knownHosts());
    }
    ~SshSandbox() { shell().closeMaster(); }
    SshSandbox(const SshSandbox &) = delete;
    SshSandbox &operator=(const SshSandbox &) = delete;

    QString knownHosts() const { return state.filePath(QStringLiteral("config/ferry/known_hosts")); }

    targets::SshOptions options() const
    {
        targets::SshOptions o;
        o.configFile = sshdDir() + QStringLiteral("/config");
        o.knownHostsFile = knownHosts();
        o.controlDir = state.filePath(QStringLiteral("rt/ferry-ssh")); // as SshOptions::defaults() finds it
        o.aliveIntervalS = 2;
        o.connectTimeoutS = 5;
        return o;
    }
    // For a `ferry` process: the same known_hosts and sockets through the standard folders.
    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("FERRY_SSH_CONFIG"), sshdDir() + QStringLiteral("/config"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), state.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), state.filePath(QStringLiteral("rt")));
        return env;
    }
    targets::SshShell shell() const { return targets::SshShell(kHost, options()); }
    // The shared ControlMaster's pid (`ssh -O check`), 0 when none runs.
    qint64 controlMaster() const
    {
        QProcess check;
        check.start(QStringLiteral("ssh"), shell().sshOptions() << QStringLiteral("-O") << QStringLiteral("check")
                                                                << QStringLiteral("--") << kHost);
        check.waitForFinished(10000);
        const QString said = QString::fromUtf8(check.readAllStandardError());
        const qsizetype at = said.indexOf(QStringLiteral("pid="));
        if (at < 0)
            return 0;
        qsizetype end = at + 4;
        while (end < said.size() && said.at(end).isDigit())
            ++end;
        return said.mid(at + 4, end - at - 4).toLongLong();
    }
};

// A run of `script` in `sourceDir` on `target` ("ssh:HOST", "slurm:HOST"), its folders on the
// host under `remoteRoot`.
inline run::RunSpec remoteSpec(const QString &target, const QString &sourceDir, const QString &script,
                               const QString &remoteRoot)
{
    run::RunSpec spec;
    spec.id = run::newRunId(script);
    spec.script = script;
    spec.sourceDir = sourceDir;
    spec.target = *run::TargetSpec::parse(target);
    spec.target.options[QStringLiteral("remoteDir")] = remoteRoot;
    return spec;
}

// A `ferry` command with the sandbox's SSH settings.
inline CliResult ferryCli(const SshSandbox &sandbox, const QString &dir, const QStringList &args)
{
    return textOf(runCommand(ferryBinary(), args, dir, {}, sandbox.environment()));
}

// The stored points of tests/data/runs/scripts/metrics.py: a loss and one more per step, each once.
inline void verifyExactlyOnce(const QJsonArray &points, int steps)
{
    QSet<QString> seen;
    int loss = 0;
    int system = 0; // the runner's samples of the script's CPU and memory (system/...)
    for (const QJsonValue &v : points) {
        const QJsonObject p = v.toObject();
        if (p[QStringLiteral("name")].toString().startsWith(QLatin1String("system/")))
            ++system;
        const QString key = p[QStringLiteral("name")].toString() + QLatin1Char('@') +
                            QString::number(p[QStringLiteral("step")].toDouble());
        QVERIFY2(!seen.contains(key), qPrintable(QStringLiteral("doubled: ") + key));
        seen.insert(key);
        loss += p[QStringLiteral("name")].toString() == QLatin1String("loss");
    }
    QCOMPARE(loss, steps);
    QCOMPARE(points.size() - system, 2 * steps);
}

// The same for what the run store in `ws` holds of run `id` (`ferry runs metrics ID --json`).
inline void verifyStoredExactlyOnce(const SshSandbox &sandbox, const QString &ws, const QString &id, int steps)
{
    const auto metrics =
        ferryCli(sandbox, ws, {QStringLiteral("runs"), QStringLiteral("metrics"), id, QStringLiteral("--json")});
    verifyExactlyOnce(QJsonDocument::fromJson(metrics.out.toUtf8()).array(), steps);
}

// `ferry run metrics.py --target TARGET --follow` started in `ws` (run folders on the host in
// ws/host), until it has printed `stepsSeen` steps of the script: the run is going there. Its
// output so far goes to `out`. The caller checks QTest::currentTestFailed() after.
inline void startFollower(QProcess &follower, QByteArray &out, const SshSandbox &sandbox, const QString &ws,
                          const QString &target, int steps, const QString &delay, int stepsSeen)
{
    follower.setProcessEnvironment(sandbox.environment());
    follower.setWorkingDirectory(ws);
    follower.start(ferry::test::ferryBinary(),
                   {QStringLiteral("run"), QStringLiteral(FERRY_TEST_DATA "/runs/scripts/metrics.py"),
                    QStringLiteral("--target"), target, QStringLiteral("--remote-dir"), ws + QStringLiteral("/host"),
                    QStringLiteral("--hp"), QStringLiteral("steps=%1").arg(steps), QStringLiteral("--hp"),
                    QStringLiteral("delay=") + delay, QStringLiteral("--follow")});
    QVERIFY(follower.waitForStarted());
    QVERIFY(waitFor(
        [&] {
            out += follower.readAllStandardOutput();
            return out.count("\"step\"") >= stepsSeen || follower.state() == QProcess::NotRunning;
        },
        120000, 100));
    QCOMPARE(follower.state(), QProcess::Running);
}

// A script on the host (tensorboard_writer.py) writing TensorBoard event files into its working
// folder (runs/, logs/train, logs/validation): they come back piece by piece with the log, are
// read as a local run's, each point once, and every printed point has the time of a stamp the
// host's runner wrote (log.times), not the time Ferry read it. `makeTarget` gives the target.
// `spec` launched on `host` into `runsDir` and followed until it ends, which must be a success
// (the store flushed: its points are there to read).
template <typename Target>
inline void runToItsEnd(run::RunStore &store, Target &host, const QString &runsDir, const run::RunSpec &spec)
{
    const auto launched = run::launchRun(store, host, runsDir, spec);
    QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
    run::RunFollower follower(store, host, runsDir + QLatin1Char('/') + spec.id, *launched);
    QVERIFY(waitFor(
        [&] {
            const auto step = follower.poll();
            return step && step->finished;
        },
        120000, 200));
    store.flush();
    QCOMPARE(store.run(spec.id)->status, run::RunStatus::Succeeded);
}

template <typename MakeTarget> inline void eventFilesComeBackFromTheHost(const QString &target, MakeTarget makeTarget)
{
    const SshSandbox sandbox;
    QTemporaryDir ws;
    run::RunSpec spec = remoteSpec(target, QStringLiteral(FERRY_TEST_DATA "/runs/scripts"),
                                   QStringLiteral("tensorboard_writer.py"), ws.filePath(QStringLiteral("on-the-host")));
    spec.interpreter = QStringLiteral("/usr/bin/python3"); // with python3-protobuf
    spec.hyperparameters = {{QStringLiteral("steps"), QStringLiteral("40")},
                            {QStringLiteral("delay"), QStringLiteral("0.05")}};
    const QString runsDir = ws.filePath(QStringLiteral("ws/.ferry/runs"));
    const QString runDir = runsDir + QLatin1Char('/') + spec.id;
    auto host = makeTarget(sandbox);
    auto store = run::RunStore::open(ws.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(store);
    runToItsEnd(**store, *host, runsDir, spec);
    if (QTest::currentTestFailed())
        return;
    for (const char *name : {"Loss/train", "train/epoch_loss", "validation/epoch_loss", "samples_per_s"})
        QCOMPARE((*store)->metricCount(spec.id, QString::fromLatin1(name)), 40);
    QCOMPARE((*store)->metrics(spec.id, QStringLiteral("Loss/train")).at(39).value, double(1.0f / 40));
    // The runner's watcher sampled the script's process group (its first sample at once).
    QVERIFY((*store)->metricCount(spec.id, QStringLiteral("system/memory_rss_mib")) >= 1);
    QFile times(run::RunDirectory(runDir).logTimesFile());
    QVERIFY(times.open(QIODevice::ReadOnly));
    QSet<qint64> stamps;
    for (const QByteArray &line : times.readAll().split('\n')) {
        if (const QList<QByteArray> f = line.split(' '); f.size() == 2)
            stamps.insert(f.at(1).toLongLong());
    }
    QVERIFY(stamps.size() >= 2);
    for (const run::MetricPoint &p : (*store)->metrics(spec.id, QStringLiteral("samples_per_s")))
        QVERIFY2(stamps.contains(p.wallMs),
                 qPrintable(QStringLiteral("step %1 at %2 is no stamp of log.times:\n").arg(p.step).arg(p.wallMs) +
                            QString::fromUtf8(readFile(run::RunDirectory(runDir).logTimesFile())) +
                            QStringLiteral("log:\n") +
                            QString::fromUtf8(readFile(run::RunDirectory(runDir).logFile()))));
}

// A script on the host writing images and histograms (tests/metrics/media_writer.py's, by
// data/runs/scripts/media_script.py): the event file's images and histograms, histograms.jsonl and
// output/images/<tag>/<step>.png all indexed once the run is collected, an image's bytes as written.
template <typename MakeTarget> inline void mediaComesBackFromTheHost(const QString &target, MakeTarget makeTarget)
{
    const SshSandbox sandbox;
    QTemporaryDir ws;
    const QString written = ws.filePath(QStringLiteral("written"));
    const auto made =
        runCommand(QStringLiteral("/usr/bin/python3"),
                   {QStringLiteral(FERRY_SOURCE_DIR "/tests/metrics/media_writer.py"), QStringLiteral("write"),
                    QStringLiteral(FERRY_SOURCE_DIR "/core/metrics/tensorboard_event.proto"), written});
    QVERIFY2(made.code == 0, made.err.constData());
    // The good images alone: the attacks are tst_runmedia's.
    QVERIFY(QDir(written + QStringLiteral("/run/output/images/attacks")).removeRecursively());
    run::RunSpec spec = remoteSpec(target, QStringLiteral(FERRY_TEST_DATA "/runs/scripts"),
                                   QStringLiteral("media_script.py"), ws.filePath(QStringLiteral("on-the-host")));
    spec.interpreter = QStringLiteral("/usr/bin/python3");
    spec.hyperparameters = {{QStringLiteral("events"), written + QStringLiteral("/media.tfevents")},
                            {QStringLiteral("histograms"), written + QStringLiteral("/histograms.jsonl")},
                            {QStringLiteral("images"), written + QStringLiteral("/run/output/images")}};
    const QString runsDir = ws.filePath(QStringLiteral("ws/.ferry/runs"));
    const QString runDir = runsDir + QLatin1Char('/') + spec.id;
    auto host = makeTarget(sandbox);
    auto store = run::RunStore::open(ws.filePath(QStringLiteral("runs.sqlite")));
    QVERIFY(store);
    runToItsEnd(**store, *host, runsDir, spec);
    if (QTest::currentTestFailed())
        return;

    QFile expectedFile(written + QStringLiteral("/expected.json"));
    QVERIFY(expectedFile.open(QIODevice::ReadOnly));
    const QJsonObject expected = QJsonDocument::fromJson(expectedFile.readAll()).object();
    QMap<QString, QSet<qint64>> want, got; // "kind tag" -> steps
    for (const QJsonArray &list :
         {expected[QStringLiteral("items")].toArray(), expected[QStringLiteral("folder")].toArray()})
        for (const QJsonValue v : list) {
            const QString kind = v[QStringLiteral("kind")].toString();
            if (kind != QStringLiteral("text") &&
                !v[QStringLiteral("tag")].toString().startsWith(QStringLiteral("attacks")))
                want[kind + QLatin1Char(' ') + v[QStringLiteral("tag")].toString()].insert(
                    v[QStringLiteral("step")].toInteger());
        }
    for (const QJsonValue v : expected[QStringLiteral("jsonl")].toArray()) // histograms.jsonl's
        want[QStringLiteral("histogram ") + v[QStringLiteral("tag")].toString()].insert(
            v[QStringLiteral("step")].toInteger());
    const run::RunMedia media(**store, runDir, spec.id);
    for (const run::MediaKind kind : {run::MediaKind::Image, run::MediaKind::Histogram})
        for (const QString &tag : media.tags(kind))
            for (const qint64 step : media.steps(kind, tag))
                got[run::mediaKindText(kind) + QLatin1Char(' ') + tag].insert(step);
    QCOMPARE(got, want);
    // An image of output/images, fetched from the host, read back byte for byte.
    for (const QJsonValue v : expected[QStringLiteral("folder")].toArray()) {
        if (v[QStringLiteral("kind")].toString() != QStringLiteral("image"))
            continue;
        const auto item = media.item(run::MediaKind::Image, v[QStringLiteral("tag")].toString(),
                                     v[QStringLiteral("step")].toInteger());
        QVERIFY(item);
        const auto bytes = media.imageBytes(*item);
        QVERIFY2(bytes, qPrintable(bytes ? QString() : bytes.error().toString()));
        QCOMPARE(bytes->toHex(), v[QStringLiteral("bytes")].toString().toLatin1());
        break;
    }
}

// Kill -9 the following `ferry` mid-run, attach again: the right status, every metric exactly once.
inline void followerKilledMidRunLosesNothing(const QString &target)
{
    const SshSandbox sandbox;
    QTemporaryDir ws;
    constexpr int kSteps = 60;
    QProcess follower;
    QByteArray out;
    startFollower(follower, out, sandbox, ws.path(), target, kSteps, QStringLiteral("0.05"), 1);
    if (QTest::currentTestFailed())
        return;
    ::kill(static_cast<pid_t>(follower.processId()), SIGKILL);
    QVERIFY(follower.waitForFinished());

    const auto list =
        ferryCli(sandbox, ws.path(), {QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--json")});
    const QJsonArray runs = QJsonDocument::fromJson(list.out.toUtf8()).array();
    QCOMPARE(runs.size(), 1);
    const QString id = runs.first().toObject()[QStringLiteral("id")].toString();
    const auto attach = ferryCli(sandbox, ws.path(), {QStringLiteral("runs"), QStringLiteral("attach"), id});
    QCOMPARE(attach.exitCode, 0);
    QVERIFY2(attach.err.contains(QStringLiteral("succeeded")), qPrintable(attach.err));
    verifyStoredExactlyOnce(sandbox, ws.path(), id, kSteps);
    QVERIFY(QFile::exists(ws.filePath(QStringLiteral(".ferry/runs/") + id + QStringLiteral("/model.tar.gz"))));
}

// Cut the connection mid-run (the ControlMaster killed, the sshd stopped until the follower says
// it lost the host): the run goes on, the follower reconnects and resumes; every line printed and
// every metric stored once.
inline void cutConnectionResumesWithoutGaps(const QString &target)
{
    const SshSandbox sandbox;
    QTemporaryDir ws;
    constexpr int kSteps = 100;
    QProcess follower;
    QByteArray out;
    startFollower(follower, out, sandbox, ws.path(), target, kSteps, QStringLiteral("0.06"), 5);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(sshdCommand(QStringLiteral("stop")));
    QProcess::execute(QStringLiteral("ssh"), sandbox.shell().sshOptions()
                                                 << QStringLiteral("-O") << QStringLiteral("exit") << kHost);
    QByteArray errBytes;
    const bool noticed = waitFor(
        [&] {
            out += follower.readAllStandardOutput();
            errBytes += follower.readAllStandardError();
            return errBytes.contains("trying again") || follower.state() == QProcess::NotRunning;
        },
        60000, 50);
    QVERIFY(sshdCommand(QStringLiteral("start"))); // before any check: the next test needs the sshd
    QVERIFY2(noticed && errBytes.contains("trying again"), errBytes.constData()); // it noticed the cut
    QVERIFY(follower.waitForFinished(120000));
    out += follower.readAllStandardOutput();
    const QString err = QString::fromUtf8(errBytes + follower.readAllStandardError());
    QCOMPARE(follower.exitCode(), 0);
    QVERIFY2(err.contains(QStringLiteral("succeeded")), qPrintable(err));
    for (int step = 0; step < kSteps; ++step)
        QCOMPARE(out.count(QByteArray(QByteArray("\"step\": ") + QByteArray::number(step) + ',')), 1);
    const QString id = QString::fromUtf8(out).section(QLatin1Char('\n'), 0, 0).trimmed();
    verifyStoredExactlyOnce(sandbox, ws.path(), id, kSteps);
}

} // namespace ferry::test
