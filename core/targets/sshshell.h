#pragma once

#include "targets/remoteshell.h"

#include <QList>
#include <QString>

namespace ferry::targets {

// How Ferry calls the system OpenSSH client: ~/.ssh/config (or `configFile`), agents and jump
// hosts work as in a terminal. Ferry adds BatchMode (never a prompt), strict host key checking
// against its own known_hosts beside the user's, a ControlMaster socket per host (one
// connection for many commands) and ServerAliveInterval (a dead link is noticed in seconds).
struct SshOptions {
    QString configFile;     // passed as `ssh -F`; empty: the user's ~/.ssh/config
    QString knownHostsFile; // where accepted keys go (besides ~/.ssh/known_hosts, read only)
    QString controlDir;     // the ControlMaster sockets' folder (short: sockets are limited to ~100 bytes)
    int aliveIntervalS = 5; // ServerAliveInterval; 3 unanswered probes end the connection
    int connectTimeoutS = 10;

    // configFile from FERRY_SSH_CONFIG, known_hosts in Ferry's config folder
    // (XDG_CONFIG_HOME/ferry/known_hosts), sockets in the runtime folder.
    static SshOptions defaults();
};

// A host key as ssh-keyscan reads it from the host, with its SHA256 fingerprint.
struct HostKey {
    QString knownHostsLine; // "[127.0.0.1]:2222 ssh-ed25519 AAAA..."
    QString type;           // "ED25519"
    QString fingerprint;    // "SHA256:..."
};

class SshShell final : public RemoteShell {
public:
    explicit SshShell(QString host, SshOptions options = SshOptions::defaults());

    QString place() const override;
    ShellResult run(const QStringList &argv, const QByteArray &input = {}, int timeoutMs = 60000) override;
    QString remotePath(const QString &path) const override;
    const QString &host() const { return m_host; }
    const SshOptions &options() const { return m_options; }

    // The keys the host offers now (ssh-keyscan on the name and port ssh would use).
    Expected<QList<HostKey>> scanHostKeys() const;
    // Adds the host's key with this fingerprint to Ferry's known_hosts. Refused when the host
    // offers no such key (the fingerprint was mistyped, or someone else answers).
    Expected<HostKey> acceptHostKey(const QString &fingerprint) const;
    // Ends the ControlMaster connection, if one runs (the next command opens a new one).
    void closeMaster() const;

    // ssh's arguments before the host: options Ferry always passes.
    QStringList sshOptions() const;

protected:
    Expected<QString> rsyncShell() const override;
    void interpret(ShellResult &result) const override;

private:
    QString hostKeyMessage(const ShellResult &result) const;

    QString m_host;
    SshOptions m_options;
};

} // namespace ferry::targets
