#pragma once

// What the SSH and Slurm tests share: the private sshd and Slurm started by the fixtures
// (tests/services/sshd.sh, slurm.sh), SSH options that point Ferry at them, the environment
// for a `ferry` process, and commands on the host.
#include "run/rundirectory.h"
#include "targets/sshshell.h"
#include "targets/target.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

namespace ferry::testing {

inline const QString kSshdDir = QStringLiteral(FERRY_SSHD_DIR);
inline const QString kHost = QStringLiteral("ferrytest"); // the Host in kSshdDir/config

inline QString sshdScript()
{
    return QStringLiteral(FERRY_SOURCE_DIR "/tests/services/sshd.sh");
}

inline bool sshdCommand(const QString &command)
{
    return QProcess::execute(QStringLiteral("bash"), {sshdScript(), command, kSshdDir}) == 0;
}

// The SHA256 fingerprint of the test sshd's host key.
inline QString hostFingerprint()
{
    QProcess p;
    p.start(QStringLiteral("ssh-keygen"), {QStringLiteral("-l"), QStringLiteral("-E"), QStringLiteral("sha256"),
                                           QStringLiteral("-f"), kSshdDir + QStringLiteral("/host_ed25519.pub")});
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
            QFile::copy(kSshdDir + QStringLiteral("/known_hosts"), knownHosts());
    }
    ~SshSandbox() { shell().closeMaster(); }
    SshSandbox(const SshSandbox &) = delete;
    SshSandbox &operator=(const SshSandbox &) = delete;

    QString knownHosts() const { return state.filePath(QStringLiteral("config/ferry/known_hosts")); }

    targets::SshOptions options() const
    {
        targets::SshOptions o;
        o.configFile = kSshdDir + QStringLiteral("/config");
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
        env.insert(QStringLiteral("FERRY_SSH_CONFIG"), kSshdDir + QStringLiteral("/config"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), state.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), state.filePath(QStringLiteral("rt")));
        return env;
    }
    targets::SshShell shell() const { return targets::SshShell(kHost, options()); }
};

// The target's probe of a run, or a lost probe whose detail says why there was none.
inline targets::RunProbe probeOf(targets::Target &target, const QString &runDir)
{
    const auto p = target.probe(runDir);
    if (!p) {
        targets::RunProbe lost;
        lost.detail = p.error().toString();
        return lost;
    }
    return *p;
}

inline QString errorOf(const Expected<bool> &e)
{
    return e ? QString() : e.error().toString();
}

// The run's log as it is now in its local folder.
inline QByteArray logOf(const QString &runDir)
{
    QFile f(run::RunDirectory(runDir).logFile());
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace ferry::testing
