// `ferry secret set|get|delete|list|askpass`: secrets in the OS keychain. Values come from a
// prompt without echo or from standard input, never from an argument (arguments show up in
// `ps`, shell history and logs).
#include "cli/command.h"

#include "secrets/secretbinding.h"
#include "secrets/secretstore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QSettings>

#include <cstdio>
#include <iostream>
#include <string>
#include <termios.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// The variable naming the secret that `ferry secret askpass` prints (SSH_ASKPASS helper mode).
constexpr auto kAskpassVariable = "FERRY_ASKPASS_SECRET"_L1;

bool stdinIsTerminal()
{
    return isatty(STDIN_FILENO) == 1;
}

// One line from the terminal with echo off; the prompt goes to stderr.
std::optional<QString> promptHidden(const QString &prompt, Io &io)
{
    termios saved{};
    const bool haveTerminal = tcgetattr(STDIN_FILENO, &saved) == 0;
    if (haveTerminal) {
        termios silent = saved;
        silent.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent);
    }
    // Only now: whatever is typed after the prompt shows is not echoed (and nothing typed is lost).
    io.err << prompt << Qt::flush;
    std::string line;
    const bool got = static_cast<bool>(std::getline(std::cin, line));
    if (haveTerminal)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    io.err << Qt::endl;
    if (!got)
        return std::nullopt;
    return QString::fromStdString(line);
}

// A secret is a password, a token or a key: anything larger is a mistake (a file piped in).
constexpr qint64 kMaxSecretBytes = 64 * 1024;

// Everything on standard input, one trailing line break removed (`echo TOKEN | ferry secret set`);
// nullopt when it is larger than a secret can be.
std::optional<QString> readStandardInput()
{
    QFile in;
    if (!in.open(stdin, QIODevice::ReadOnly))
        return QString();
    // A pipe hands over what has arrived so far: read until the end, or past the limit.
    QByteArray bytes;
    while (bytes.size() <= kMaxSecretBytes) {
        const QByteArray chunk = in.read(kMaxSecretBytes + 1 - bytes.size());
        if (chunk.isEmpty())
            break;
        bytes += chunk;
    }
    if (bytes.size() > kMaxSecretBytes)
        return std::nullopt;
    if (bytes.endsWith('\n'))
        bytes.chop(1);
    if (bytes.endsWith('\r'))
        bytes.chop(1);
    return QString::fromUtf8(bytes);
}

class SecretCommand final : public Command {
public:
    QString name() const override { return u"secret"_s; }
    QString summary() const override { return u"store, read, delete and list secrets in the OS keychain"_s; }
    // Checked here, not by the dispatcher, so that a value given by mistake is never quoted back.
    int maxPositionalArguments() const override { return -1; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"Secrets (registry passwords, tokens, SSH passphrases) live in the OS keychain (Secret Service,\n"
            u"e.g. GNOME Keyring or KWallet), never in a file. A value is never given as an argument.\n\n"
            u"  ferry secret set NAME       read the value from a hidden prompt (asked twice) or from standard input\n"
            u"  ferry secret get NAME       print the value (on a terminal only with --reveal)\n"
            u"  ferry secret delete NAME    remove it from the keychain\n"
            u"  ferry secret list [--json]  the names Ferry has stored (never the values)\n"
            u"  ferry secret bind NAME --registry ADDRESS\n"
            u"                              let NAME go to that registry as its password (an environment\n"
            u"                              naming a secret sends it only to registries it is bound to)\n\n"
            u"Without a working keychain every action fails with exit code 1 and says what is missing."_s);
        parser.addPositionalArgument(u"action"_s, u"set, get, delete or list"_s, u"ACTION"_s);
        parser.addPositionalArgument(u"name"_s, u"The secret's name, e.g. HF_TOKEN."_s, u"NAME"_s);
        parser.addOption({u"reveal"_s, u"get: print the value even when standard output is a terminal."_s});
        parser.addOption({u"json"_s, u"list: print a JSON array of names."_s});
        parser.addOption({u"registry"_s,
                          u"bind, set: the registry (e.g. ghcr.io; docker.io for Docker Hub) the "
                          u"secret may be sent to."_s,
                          u"ADDRESS"_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        const QString action = args.value(0);
        const QString secretName = args.value(1);
        QSettings settings;
        secrets::SecretStore store(settings);
        if (action == "list"_L1) {
            if (args.size() != 1)
                return usage(u"'ferry secret list' takes no name"_s, io);
            return list(store, parser.isSet(u"json"_s), io);
        }
        if (action == "askpass"_L1)
            return askpass(store, args.value(1), io); // ssh's prompt, when ssh asks
        if (args.size() > 2)
            return usage(u"'ferry secret %1' takes only the secret's name: a value is read from a prompt or standard "
                         u"input, never from an argument (arguments show in ps and shell history)"_s.arg(action),
                         io);
        static const QStringList withName{u"set"_s, u"get"_s, u"delete"_s, u"bind"_s};
        if (!withName.contains(action)) {
            return usage(action.isEmpty() ? u"say what to do: set, get, delete or list"_s
                                          : u"unknown action '%1' (set, get, delete, list or bind)"_s.arg(action),
                         io);
        }
        if (args.size() != 2)
            return usage(u"'ferry secret %1' takes the secret's name (the value is never an argument)"_s.arg(action),
                         io);
        if (const auto named = secrets::SecretStore::checkName(secretName); !named)
            return fail(named.error(), io);
        if (action == "bind"_L1 || (action == "set"_L1 && parser.isSet(u"registry"_s))) {
            const QString registry = parser.value(u"registry"_s).trimmed();
            if (registry.isEmpty() || registry.contains(u'/') || registry.contains(u' '))
                return usage(
                    u"'ferry secret %1' binds a secret with --registry ADDRESS (a host such as ghcr.io)"_s.arg(action),
                    io);
            if (action == "set"_L1) {
                if (const int stored = set(store, secretName, io); stored != kExitOk)
                    return stored;
            }
            const QString destination = secrets::registryDestination(registry);
            secrets::bindSecret(settings, secretName, destination);
            io.err << "secret " << secretName << " may go to " << destination << Qt::endl;
            return kExitOk;
        }
        if (action == "set"_L1)
            return set(store, secretName, io);
        if (action == "get"_L1)
            return get(store, secretName, parser.isSet(u"reveal"_s), io);
        // The keychain reports deleting a missing item as success: say so instead.
        if (const auto existing = store.readNow(secretName); !existing)
            return fail(existing.error(), io);
        const auto removed = store.removeNow(secretName);
        if (!removed)
            return fail(removed.error(), io);
        io.err << "deleted secret " << secretName << Qt::endl;
        return kExitOk;
    }

private:
    static int usage(const QString &message, Io &io) { return usageError(u"secret"_s, message, io); }

    static int fail(const Error &error, Io &io)
    {
        io.err << "ferry secret: " << error.toString() << Qt::endl;
        return kExitUserError;
    }

    static int set(secrets::SecretStore &store, const QString &secretName, Io &io)
    {
        QString value;
        if (stdinIsTerminal()) {
            const auto first = promptHidden(u"Value for %1: "_s.arg(secretName), io);
            const auto again = first ? promptHidden(u"Repeat the value: "_s, io) : std::nullopt;
            if (!first || !again)
                return usage(u"no value entered"_s, io);
            if (*first != *again)
                return usage(u"the two values differ; nothing was stored"_s, io);
            value = *first;
        } else {
            const auto piped = readStandardInput();
            if (!piped)
                return usage(u"standard input holds more than %1 KiB; a secret is a password, token or key, not "
                             u"a file"_s.arg(kMaxSecretBytes / 1024),
                             io);
            value = *piped;
        }
        if (value.isEmpty())
            return usage(u"the value is empty; nothing was stored (pipe the value in or type it at the prompt)"_s, io);
        const auto written = store.writeNow(secretName, value);
        if (!written)
            return fail(written.error(), io);
        io.err << "stored secret " << secretName << " in the keychain" << Qt::endl;
        return kExitOk;
    }

    static int get(secrets::SecretStore &store, const QString &secretName, bool reveal, Io &io)
    {
        if (isatty(STDOUT_FILENO) == 1 && !reveal)
            return usage(u"this would show the value on the terminal: add --reveal, or pipe the output"_s, io);
        const auto value = store.readNow(secretName);
        if (!value)
            return fail(value.error(), io);
        io.out << *value << Qt::endl;
        return kExitOk;
    }

    static int list(const secrets::SecretStore &store, bool json, Io &io)
    {
        const QStringList names = store.names();
        if (json) {
            io.out << QJsonDocument(QJsonArray::fromStringList(names)).toJson(QJsonDocument::Compact) << Qt::endl;
            return kExitOk;
        }
        for (const QString &secretName : names)
            io.out << secretName << Qt::endl;
        return kExitOk;
    }

    // SSH_ASKPASS / GIT_ASKPASS helper: prints the secret the environment names; nothing but
    // the value reaches standard output. It answers a key's passphrase question only: a host
    // asking for a password (or a yes/no) never gets the passphrase.
    static int askpass(secrets::SecretStore &store, const QString &prompt, Io &io)
    {
        const QString secretName = QProcessEnvironment::systemEnvironment().value(kAskpassVariable);
        if (secretName.isEmpty()) {
            io.err << "ferry secret askpass: set " << kAskpassVariable
                   << " to the name of the secret to answer with (Ferry does this when it runs ssh)" << Qt::endl;
            return kExitUserError;
        }
        if (!prompt.isEmpty() && !prompt.contains(u"passphrase"_s, Qt::CaseInsensitive)) {
            io.err << "ferry: not answering '" << prompt.trimmed() << "' with keychain secret " << secretName
                   << ": it holds a key's passphrase, and this is not a passphrase question" << Qt::endl;
            return kExitUserError;
        }
        const auto value = store.readNow(secretName);
        if (!value)
            return fail(value.error(), io);
        io.out << *value << Qt::endl;
        return kExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeSecretCommand()
{
    return std::make_unique<SecretCommand>();
}

} // namespace ferry::cli
