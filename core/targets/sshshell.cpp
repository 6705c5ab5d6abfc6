#include "targets/sshshell.h"

#include "common/privatedir.h"
#include "targets/shellquote.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUrl>

#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

constexpr int kSocketPathLimit = 100; // sun_path is 108 bytes; ssh adds a suffix while it binds

QString firstLines(const QByteArray &text, int lines)
{
    QStringList kept;
    for (const QString &line : QString::fromUtf8(text).split(u'\n')) {
        const QString t = line.trimmed();
        if (!t.isEmpty() && !t.startsWith(u"@@@"_s) && !t.startsWith(u"Warning: Permanently added"_s))
            kept << t;
        if (kept.size() == lines)
            break;
    }
    return kept.join(u"; "_s);
}

// `ssh -G host`: the settings ssh would use, as "key value" lines.
QHash<QString, QString> resolvedConfig(const SshOptions &options, const QString &host)
{
    QStringList args;
    if (!options.configFile.isEmpty())
        args << u"-F"_s << options.configFile;
    args << u"-G"_s << u"--"_s << host;
    QHash<QString, QString> config;
    const ShellResult r = runProcess(u"ssh"_s, args, {}, 10000);
    for (const QString &line : QString::fromUtf8(r.out).split(u'\n')) {
        const qsizetype space = line.indexOf(u' ');
        if (space > 0 && !config.contains(line.left(space)))
            config.insert(line.left(space), line.mid(space + 1).trimmed());
    }
    return config;
}

// Settings keys cannot hold '/' or '\\': the host's name is percent-encoded.
QString keyGroup(const QString &host)
{
    return u"remote/keys/"_s + QString::fromLatin1(QUrl::toPercentEncoding(host));
}

} // namespace

SshKeySetting sshKeySetting(const QSettings &settings, const QString &host)
{
    const QString group = keyGroup(host);
    return {settings.value(group + u"/identityFile"_s).toString(),
            settings.value(group + u"/passphraseSecret"_s).toString()};
}

void setSshKeySetting(QSettings &settings, const QString &host, const SshKeySetting &key)
{
    const QString group = keyGroup(host);
    settings.remove(group);
    if (key.isEmpty())
        return;
    settings.setValue(group + u"/identityFile"_s, key.identityFile);
    settings.setValue(group + u"/passphraseSecret"_s, key.passphraseSecret);
}

SshOptions SshOptions::forHost(const QString &host, const QJsonObject &targetOptions, const QString &ferryBinary)
{
    SshOptions o = defaults();
    const QSettings settings;
    o.key = sshKeySetting(settings, host);
    if (targetOptions.contains(u"identityFile"_s))
        o.key.identityFile = targetOptions.value(u"identityFile"_s).toString();
    if (targetOptions.contains(u"passphraseSecret"_s))
        o.key.passphraseSecret = targetOptions.value(u"passphraseSecret"_s).toString();
    o.askpassProgram = ferryBinary;
    return o;
}

SshOptions SshOptions::defaults()
{
    SshOptions o;
    o.configFile = qEnvironmentVariable("FERRY_SSH_CONFIG");
    o.knownHostsFile =
        QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/ferry/known_hosts"_s;
    // A mux client hands its command and stdin (secrets included) to whatever listens at the
    // socket: the folder is the user's own, checked (M9), never a shared name in /tmp.
    auto base = privateRuntimeDir();
    // %C is 40 hex digits; a long runtime folder would not leave room for it.
    if (base && (*base + u"/ferry-ssh"_s).toUtf8().size() + 41 > kSocketPathLimit)
        base = privateTempDir();
    if (base)
        o.controlDir = *base + u"/ferry-ssh"_s;
    else // no private folder: every command logs in anew, and no socket is shared
        qWarning("ssh connections are not shared: %s", qPrintable(base.error().toString()));
    return o;
}

SshShell::SshShell(QString host, SshOptions options) : m_host(std::move(host)), m_options(std::move(options)) {}

QString SshShell::place() const
{
    return u"host '%1'"_s.arg(m_host);
}

QStringList sshArguments(const SshOptions &options)
{
    QStringList args;
    if (!options.configFile.isEmpty())
        args << u"-F"_s << options.configFile;
    // Never a prompt, never an unknown or changed key: those are the user's decision. With a
    // passphrase from the keychain, only the passphrase question may be asked (SshOptions).
    if (options.key.passphraseSecret.isEmpty()) {
        args << u"-o"_s << u"BatchMode=yes"_s;
    } else {
        args << u"-o"_s << u"BatchMode=no"_s << u"-o"_s << u"PasswordAuthentication=no"_s << u"-o"_s
             << u"KbdInteractiveAuthentication=no"_s << u"-o"_s << u"NumberOfPasswordPrompts=1"_s;
    }
    if (!options.key.identityFile.isEmpty())
        args << u"-o"_s << u"IdentitiesOnly=yes"_s << u"-i"_s << options.key.identityFile;
    args << u"-o"_s << u"StrictHostKeyChecking=yes"_s;
    args << u"-o"_s << u"UserKnownHostsFile=\"%1\" \"~/.ssh/known_hosts\""_s.arg(options.knownHostsFile);
    if (!options.controlDir.isEmpty()) {
        args << u"-o"_s << u"ControlMaster=auto"_s << u"-o"_s << u"ControlPath=%1/%C"_s.arg(options.controlDir)
             << u"-o"_s << u"ControlPersist=60"_s;
    }
    args << u"-o"_s << u"ServerAliveInterval=%1"_s.arg(options.aliveIntervalS) << u"-o"_s << u"ServerAliveCountMax=3"_s
         << u"-o"_s << u"ConnectTimeout=%1"_s.arg(options.connectTimeoutS);
    return args;
}

QStringList SshShell::sshOptions() const
{
    return sshArguments(m_options);
}

namespace {

// sshArguments() after `control`, Ferry's shared connection left out: ssh takes the first value
// of an option, so neither it nor a ControlPath of ~/.ssh/config applies.
QStringList ownConnectionArguments(SshOptions options, QStringList control)
{
    options.controlDir.clear();
    return control << sshArguments(options);
}

} // namespace

QStringList sshForwardArguments(SshOptions options, const QString &host,
                                const QList<std::pair<QString, QString>> &sockets)
{
    QStringList args =
        ownConnectionArguments(std::move(options), {u"-o"_s, u"ControlPath=none"_s, u"-o"_s, u"ControlMaster=no"_s});
    args << u"-o"_s << u"ExitOnForwardFailure=yes"_s << u"-o"_s << u"StreamLocalBindUnlink=yes"_s << u"-N"_s;
    for (const auto &[local, remote] : sockets)
        args << u"-L"_s << local + u':' + remote;
    return args << u"--"_s << host;
}

QStringList sshSessionArguments(SshOptions options, const QString &controlPath, int persistS)
{
    if (controlPath.isEmpty())
        return ownConnectionArguments(std::move(options),
                                      {u"-o"_s, u"ControlPath=none"_s, u"-o"_s, u"ControlMaster=no"_s});
    return ownConnectionArguments(std::move(options),
                                  {u"-o"_s, u"ControlPath="_s + controlPath, u"-o"_s, u"ControlMaster=auto"_s, u"-o"_s,
                                   u"ControlPersist=%1"_s.arg(persistS)});
}

Expected<QStringList> SshShell::commandArguments(const QStringList &argv) const
{
    const auto line = loginShellCommandLine(argv);
    if (!line)
        return line.error();
    if (!m_options.controlDir.isEmpty()) {
        if (const auto own = ensurePrivateDir(m_options.controlDir); !own)
            return Error{u"the SSH control folder is unsafe: "_s + own.error().toString(), {}, 0, 0, {}};
    }
    return sshOptions() << u"--"_s << m_host << *line;
}

ShellResult SshShell::run(const QStringList &argv, const QByteArray &input, int timeoutMs)
{
    const auto args = commandArguments(argv);
    if (!args)
        return ShellResult{false, false, -1, {}, {}, args.error().toString()};
    ShellResult result = runProcess(u"ssh"_s, *args, input, timeoutMs, {}, processEnvironment());
    interpret(result);
    return result;
}

QProcessEnvironment SshShell::processEnvironment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!m_options.key.passphraseSecret.isEmpty()) {
        env.insert(u"SSH_ASKPASS"_s, m_options.askpassProgram);
        env.insert(u"SSH_ASKPASS_REQUIRE"_s, u"force"_s); // the helper, never a terminal
        env.insert(u"FERRY_ASKPASS_SECRET"_s, m_options.key.passphraseSecret);
    }
    return env;
}

void SshShell::interpret(ShellResult &result) const
{
    if (!result.reached || result.exitCode != 255)
        return;
    // 255 is ssh's own failure (our remote commands never exit with it).
    result.reached = false;
    if (result.err.contains("Host key verification failed")) {
        result.hostKeyRefused = true;
        result.failure = hostKeyMessage(result);
        return;
    }
    if (!m_options.key.passphraseSecret.isEmpty() && result.err.contains("Permission denied")) {
        const QString key = m_options.key.identityFile.isEmpty() ? u"the key ~/.ssh/config names"_s
                                                                 : u"the key "_s + m_options.key.identityFile;
        result.failure = u"cannot log in to %1 with %2 unlocked by keychain secret %3: %4 (check the secret "
                         "holds the key's passphrase: ferry secret set %3; and that the host accepts the key)"_s.arg(
                             place(), key, m_options.key.passphraseSecret, firstLines(result.err, 3));
        return;
    }
    result.failure = u"cannot reach %1: %2"_s.arg(place(), firstLines(result.err, 2));
}

QString SshShell::remotePath(const QString &path) const
{
    return m_host + u':' + path;
}

Expected<QString> SshShell::rsyncShell() const
{
    if (!m_options.controlDir.isEmpty()) {
        if (const auto own = ensurePrivateDir(m_options.controlDir); !own)
            return Error{u"the SSH control folder is unsafe: "_s + own.error().toString(), {}, 0, 0, {}};
    }
    return rsyncCommandLine(QStringList{u"ssh"_s} + sshOptions()); // a ' in a path works (L2)
}

void SshShell::closeMaster() const
{
    if (!m_options.controlDir.isEmpty() && !checkPrivateDir(m_options.controlDir))
        return; // no master of ours can be there
    runProcess(u"ssh"_s, sshOptions() << u"-O"_s << u"exit"_s << u"--"_s << m_host, {}, 10000);
}

Expected<QList<HostKey>> SshShell::scanHostKeys() const
{
    const auto config = resolvedConfig(m_options, m_host);
    const QString name = config.value(u"hostname"_s, m_host);
    const QString port = config.value(u"port"_s, u"22"_s);
    QString known = config.value(u"hostkeyalias"_s);
    if (known.isEmpty() || known == u"none"_s)
        known = name;
    if (port != u"22"_s)
        known = u"[%1]:%2"_s.arg(known, port);
    const ShellResult scan = runProcess(u"ssh-keyscan"_s, {u"-T"_s, u"5"_s, u"-p"_s, port, u"--"_s, name}, {}, 20000);
    QList<HostKey> keys;
    for (const QString &line : QString::fromUtf8(scan.out).split(u'\n')) {
        const QStringList fields = line.trimmed().split(u' ', Qt::SkipEmptyParts);
        if (fields.size() < 3 || line.startsWith(u'#'))
            continue;
        HostKey key;
        key.knownHostsLine = known + u' ' + fields.at(1) + u' ' + fields.at(2);
        const ShellResult print = runProcess(u"ssh-keygen"_s, {u"-l"_s, u"-E"_s, u"sha256"_s, u"-f"_s, u"-"_s},
                                             key.knownHostsLine.toUtf8() + '\n', 10000);
        const QStringList parts = QString::fromUtf8(print.out).trimmed().split(u' ', Qt::SkipEmptyParts);
        if (!print.ok() || parts.size() < 2)
            continue;
        key.fingerprint = parts.at(1);
        key.type = QString(parts.last()).remove(u'(').remove(u')');
        keys << key;
    }
    if (keys.isEmpty())
        return Error{u"cannot read the host keys of %1 (%2 port %3): %4"_s.arg(place(), name, port, scan.errorText()),
                     {},
                     0,
                     0,
                     u"check the host name and that its SSH server runs"_s};
    return keys;
}

Expected<HostKey> SshShell::acceptHostKey(const QString &fingerprint) const
{
    const auto keys = scanHostKeys();
    if (!keys)
        return keys.error();
    QStringList offered;
    for (const HostKey &key : *keys) {
        if (key.fingerprint == fingerprint || key.fingerprint == u"SHA256:"_s + fingerprint) {
            QDir().mkpath(QFileInfo(m_options.knownHostsFile).absolutePath());
            QFile file(m_options.knownHostsFile);
            if (!file.open(QIODevice::Append | QIODevice::WriteOnly) ||
                file.write(key.knownHostsLine.toUtf8() + '\n') < 0)
                return Error{u"cannot add the host key: "_s + file.errorString(), m_options.knownHostsFile, 0, 0,
                             u"check permissions"_s};
            file.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
            return key;
        }
        offered << key.type + u' ' + key.fingerprint;
    }
    return Error{
        u"%1 offers no host key with fingerprint %2 (it offers %3)"_s.arg(place(), fingerprint, offered.join(u", "_s)),
        {},
        0,
        0,
        u"compare the fingerprint with the host's administrator; accept only the one they name"_s};
}

QString SshShell::hostKeyMessage(const ShellResult &result) const
{
    const auto keys = scanHostKeys();
    QStringList offered;
    QString first;
    if (keys) {
        for (const HostKey &key : *keys) {
            offered << key.type + u' ' + key.fingerprint;
            if (first.isEmpty() || key.type == u"ED25519"_s)
                first = key.fingerprint;
        }
    }
    const QString offers = keys ? offered.join(u", "_s) : keys.error().message;
    if (result.err.contains("HOST IDENTIFICATION HAS CHANGED") || result.err.contains("Offending")) {
        return u"the host key of %1 has CHANGED since it was accepted (it now offers %2); refused: this may be "
               "someone intercepting the connection. If the host was reinstalled, confirm the new fingerprint with "
               "its administrator, remove the old key from %3 (ssh-keygen -R HOST -f FILE) and accept the new one"_s
                   .arg(place(), offers, m_options.knownHostsFile);
    }
    return u"the host key of %1 is unknown (it offers %2); if that is the host's key, accept it: "
           "ferry run ... --accept-host-key %3"_s.arg(place(), offers, first);
}

} // namespace ferry::targets
