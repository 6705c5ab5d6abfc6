// SshShell: Ferry's calls of the system OpenSSH client, with batch mode, its known_hosts, control
// sockets and key passphrases.
#pragma once

#include "targets/remoteshell.h"

#include <QJsonObject>
#include <QList>
#include <QSettings>
#include <QString>

namespace ferry::targets {

// A key for a host whose passphrase is a keychain secret: per host in Ferry's settings
// (Settings → Hosts) or per run (`--identity`, `--passphrase-secret`).
struct SshKeySetting {
    QString identityFile;     // the private key; empty: the keys ~/.ssh/config names
    QString passphraseSecret; // the keychain secret holding its passphrase; empty: none from Ferry

    bool isEmpty() const { return identityFile.isEmpty() && passphraseSecret.isEmpty(); }
    bool operator==(const SshKeySetting &) const = default;
};
SshKeySetting sshKeySetting(const QSettings &settings, const QString &host);
void setSshKeySetting(QSettings &settings, const QString &host, const SshKeySetting &key); // empty: removed

// How Ferry calls the system OpenSSH client: ~/.ssh/config (or `configFile`), agents and jump
// hosts work as in a terminal. Ferry adds BatchMode (never a prompt), strict host key checking
// against its own known_hosts beside the user's, a ControlMaster socket per host (one
// connection for many commands) and ServerAliveInterval (a dead link is noticed in seconds).
// A key's passphrase comes from the keychain when `key.passphraseSecret` is set: ssh asks the
// ferry binary in its SSH_ASKPASS helper mode (forced, never a terminal), which reads the
// secret; then BatchMode is off (it would skip the question) while password and
// keyboard-interactive logins stay off and host keys stay strict, so nothing else can prompt.
struct SshOptions {
    QString configFile;     // passed as `ssh -F`; empty: the user's ~/.ssh/config
    QString knownHostsFile; // where accepted keys go (besides ~/.ssh/known_hosts, read only)
    QString controlDir;     // the ControlMaster sockets' folder (short: sockets are limited to ~100 bytes)
    int aliveIntervalS = 5; // ServerAliveInterval; 3 unanswered probes end the connection
    int connectTimeoutS = 10;
    SshKeySetting key;      // `-i` and the passphrase's keychain secret
    QString askpassProgram; // the ferry binary (SSH_ASKPASS); needed with key.passphraseSecret

    // configFile from FERRY_SSH_CONFIG, known_hosts in Ferry's config folder
    // (XDG_CONFIG_HOME/ferry/known_hosts), sockets in the runtime folder.
    static SshOptions defaults();
    // defaults() with the host's key from the settings, overridden by a run's target options
    // (identityFile, passphraseSecret); `ferryBinary` answers the passphrase question.
    static SshOptions forHost(const QString &host, const QJsonObject &targetOptions, const QString &ferryBinary);
};

// ssh's arguments before the host, the ones Ferry always passes: BatchMode (or, with a passphrase
// from the keychain, the one question allowed), strict host keys in Ferry's known_hosts, the key
// (`-i`, IdentitiesOnly), the shared connection and the keep-alives.
QStringList sshArguments(const SshOptions &options);

// ssh's arguments for a connection of its own that only forwards local Unix sockets to the host's
// (`-N`, each pair `-L LOCAL:REMOTE`): the host-key rules and key of sshArguments(), but no
// ControlMaster (a master would keep the forwards after this ssh ends; here they live and die
// with it), and it ends when a forward cannot be bound. A local socket left at the name is
// replaced. For a kernel's sockets on a host (kernelhost/kernellink.h).
QStringList sshForwardArguments(SshOptions options, const QString &host,
                                const QList<std::pair<QString, QString>> &sockets);

// ssh's arguments for the commands of one long-lived client (a kernel's bridges on a Slurm node,
// kernelhost/kernellink.h): the host-key rules and key of sshArguments(), their sessions sharing a
// connection of the client's own at `controlPath` (not the host's shared one, whose server allows
// only so many sessions, MaxSessions: 10 by default), which ends `persistS` seconds after its
// last session. Empty `controlPath`: each command a connection of its own.
QStringList sshSessionArguments(SshOptions options, const QString &controlPath, int persistS);

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
    // The ssh arguments that run `argv` on the host as run() does, for a caller that keeps the
    // process while it lives (a kernel's journal mirror); the control folder checked as for run().
    Expected<QStringList> commandArguments(const QStringList &argv) const;
    // The environment of the ssh processes (the passphrase helper, when a key needs one).
    QProcessEnvironment environment() const { return processEnvironment(); }
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

    // sshArguments(options()).
    QStringList sshOptions() const;

protected:
    Expected<QString> rsyncShell() const override;
    QProcessEnvironment processEnvironment() const override;
    void interpret(ShellResult &result) const override;

private:
    QString hostKeyMessage(const ShellResult &result) const;

    QString m_host;
    SshOptions m_options;
};

} // namespace ferry::targets
