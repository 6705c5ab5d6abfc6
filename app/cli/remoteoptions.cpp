#include "cli/remoteoptions.h"

#include "run/distribution.h"
#include "secrets/secretstore.h"
#include "targets/remotetarget.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace ferry::cli {

void addRemoteOptions(QCommandLineParser &parser)
{
    parser.addOption({u"accept-host-key"_s,
                      u"ssh/slurm: trust the host key with this fingerprint (Ferry shows it on first contact)."_s,
                      u"SHA256:..."_s});
    parser.addOption(
        {u"remote-dir"_s, u"ssh/slurm: where run folders go on the host (default ~/.ferry/runs)."_s, u"DIR"_s});
    parser.addOption({u"exclude"_s,
                      u"ssh/slurm: leave this out of the source upload (repeatable; .git and .ferry "
                      u"always are)."_s,
                      u"PATTERN"_s});
    parser.addOption(
        {u"remote-data"_s, u"ssh/slurm: a data channel already on the host (repeatable)."_s, u"NAME=PATH"_s});
    parser.addOption({u"host-python"_s, u"ssh: run in the host's Python even with --env (default: in the "
                                        u"environment's image, built on the host)."_s});
    parser.addOption({u"identity"_s,
                      u"ssh/slurm: log in with this private key (default: the keys ~/.ssh/config names, or the "
                      u"host's key in Ferry's settings)."_s,
                      u"KEY"_s});
    parser.addOption({u"passphrase-secret"_s,
                      u"ssh/slurm: the keychain secret holding the key's passphrase (ferry secret set NAME); ssh "
                      u"asks Ferry for it, never the terminal."_s,
                      u"NAME"_s});
    parser.addOption({u"gpus"_s, u"ssh: SM_NUM_GPUS (default: the host's); slurm: --gres=gpu:N."_s, u"N"_s});
    parser.addOption({u"partition"_s, u"slurm: the partition."_s, u"P"_s});
    parser.addOption({u"time"_s, u"slurm: the time limit."_s, u"HH:MM:SS"_s});
    parser.addOption({u"cpus"_s, u"slurm: CPUs per task."_s, u"N"_s});
    parser.addOption({u"mem"_s, u"slurm: memory, e.g. 16G."_s, u"SIZE"_s});
    parser.addOption({u"requeue"_s, u"slurm: let Slurm requeue the job (preemption, node failure)."_s});
    parser.addOption({u"nodes"_s,
                      u"slurm: one run across N nodes, one job whose ranks get RANK, WORLD_SIZE, MASTER_ADDR, "
                      u"SM_HOSTS... (default 1)."_s,
                      u"N"_s});
    parser.addOption({u"tasks-per-node"_s, u"slurm: ranks on each node (default 1)."_s, u"T"_s});
    parser.addOption({u"gpus-per-node"_s, u"slurm: --gres=gpu:G on each node of the run."_s, u"G"_s});
}

bool applyRemoteOptions(const QCommandLineParser &parser, run::TargetSpec &target, Io &io)
{
    const bool remote = target.onHost();
    const bool slurm = target.kind == run::TargetKind::Slurm;
    const QStringList remoteOnly{
        u"accept-host-key"_s, u"remote-dir"_s, u"exclude"_s,          u"remote-data"_s, u"gpus"_s,
        u"host-python"_s,     u"identity"_s,   u"passphrase-secret"_s};
    const QStringList slurmOnly{u"partition"_s, u"time"_s,  u"cpus"_s,           u"mem"_s,
                                u"requeue"_s,   u"nodes"_s, u"tasks-per-node"_s, u"gpus-per-node"_s};
    for (const QString &name : remoteOnly + slurmOnly) {
        if (!parser.isSet(name))
            continue;
        if (!remote || (!slurm && slurmOnly.contains(name))) {
            io.err << "ferry run: --" << name << " is for " << (slurmOnly.contains(name) ? "slurm" : "ssh and slurm")
                   << " targets, not " << target.toString() << Qt::endl;
            return false;
        }
    }
    QJsonObject &o = target.options;
    for (const auto &[option, key] :
         {std::pair{u"accept-host-key"_s, u"acceptHostKey"_s}, std::pair{u"remote-dir"_s, u"remoteDir"_s},
          std::pair{u"partition"_s, u"partition"_s}, std::pair{u"time"_s, u"time"_s}, std::pair{u"mem"_s, u"mem"_s}}) {
        if (parser.isSet(option))
            o[key] = parser.value(option);
    }
    for (const QString &count : {u"gpus"_s, u"cpus"_s}) {
        if (!parser.isSet(count))
            continue;
        bool ok = false;
        const int n = parser.value(count).toInt(&ok);
        if (!ok || n < 0) {
            io.err << "ferry run: --" << count << " takes a count, not '" << parser.value(count) << "'" << Qt::endl;
            return false;
        }
        o[count] = n;
    }
    for (const auto &[option, key] :
         {std::pair{u"nodes"_s, run::kNodesOption}, std::pair{u"tasks-per-node"_s, run::kTasksPerNodeOption},
          std::pair{u"gpus-per-node"_s, run::kGpusPerNodeOption}}) {
        if (!parser.isSet(option))
            continue;
        bool ok = false;
        const int n = parser.value(option).toInt(&ok);
        o[key] = ok ? QJsonValue(n) : QJsonValue(parser.value(option)); // checked below, with the others
    }
    if (const auto distribution = run::Distribution::of(target); !distribution) {
        io.err << "ferry run: " << distribution.error().toString() << Qt::endl;
        return false;
    }
    if (parser.isSet(u"identity"_s)) {
        const QFileInfo key(parser.value(u"identity"_s));
        if (!key.isFile() || !key.isReadable()) {
            io.err << "ferry run: --identity " << parser.value(u"identity"_s)
                   << ": no readable private key there (make one with ssh-keygen, or name the one you log in with)"
                   << Qt::endl;
            return false;
        }
        o[u"identityFile"_s] = key.absoluteFilePath();
    }
    if (parser.isSet(u"passphrase-secret"_s))
        o[u"passphraseSecret"_s] = parser.value(u"passphrase-secret"_s);
    if (parser.isSet(u"requeue"_s))
        o[u"requeue"_s] = true;
    if (parser.isSet(u"host-python"_s))
        o[u"hostPython"_s] = true;
    if (parser.isSet(u"exclude"_s))
        o[u"exclude"_s] = QJsonArray::fromStringList(parser.values(u"exclude"_s));
    QJsonObject channels;
    for (const QString &value : parser.values(u"remote-data"_s)) {
        const qsizetype eq = value.indexOf(u'=');
        if (eq <= 0 || !value.mid(eq + 1).startsWith(u'/')) {
            io.err << "ferry run: --remote-data takes NAME=/ABSOLUTE/PATH on the host, not '" << value << "'"
                   << Qt::endl;
            return false;
        }
        channels[value.left(eq)] = value.mid(eq + 1);
    }
    if (!channels.isEmpty())
        o[u"remoteChannels"_s] = channels;
    return true;
}

void addGrantOptions(QCommandLineParser &parser)
{
    parser.addOption({u"data"_s, u"A data channel, e.g. training=./data (repeatable)."_s, u"NAME=PATH"_s});
    parser.addOption({u"secret-env"_s,
                      u"Give the script environment variable NAME the keychain secret SECRET (default: NAME); "
                      u"local and container runs (repeatable). See 'ferry secret'."_s,
                      u"NAME[=SECRET]"_s});
    parser.addOption({u"allow-run-arguments"_s,
                      u"Use the environment's docker.run_arguments even where they undo the container's "
                      u"isolation (--privileged, host mounts, a network, another user): only for an "
                      u"environment you trust."_s});
}

std::optional<QList<std::pair<QString, QString>>> optionPairs(const QStringList &values, const QString &option,
                                                              const QString &command, Io &io)
{
    QList<std::pair<QString, QString>> result;
    for (const QString &value : values) {
        const qsizetype eq = value.indexOf(u'=');
        if (eq <= 0) {
            io.err << "ferry " << command << ": --" << option << " takes NAME=VALUE, not '" << value << "'" << Qt::endl;
            return std::nullopt;
        }
        result.append({value.left(eq), value.mid(eq + 1)});
    }
    return result;
}

std::optional<Grants> grantOptions(const QCommandLineParser &parser, run::TargetSpec &target, const QString &command,
                                   Io &io)
{
    Grants grants;
    if (parser.isSet(u"allow-run-arguments"_s))
        target.options[run::kAllowRunArgumentsOption] = true;
    const auto data = optionPairs(parser.values(u"data"_s), u"data"_s, command, io);
    if (!data)
        return std::nullopt;
    for (const auto &[name, path] : *data)
        grants.channels << run::DataChannel{name, QFileInfo(path).absoluteFilePath()};
    const QStringList secrets = parser.values(u"secret-env"_s);
    if (secrets.isEmpty())
        return grants;
    QSettings settings;
    secrets::SecretStore store(settings);
    for (const QString &value : secrets) {
        const qsizetype eq = value.indexOf(u'=');
        const QString variable = eq < 0 ? value : value.left(eq);
        const QString secret = eq < 0 ? value : value.mid(eq + 1);
        if (const auto named = secrets::SecretStore::checkName(secret); !named) {
            io.err << "ferry " << command << ": --secret-env " << value << ": " << named.error().toString() << Qt::endl;
            return std::nullopt;
        }
        if (const auto found = store.readNow(secret); !found) {
            io.err << "ferry " << command << ": --secret-env " << variable << ": " << found.error().toString()
                   << Qt::endl;
            return std::nullopt;
        }
        grants.secretVariables.append({variable, secret});
    }
    return grants;
}

void reportProgress(targets::Target &target, Io &io)
{
    if (auto *remote = dynamic_cast<targets::RemoteTarget *>(&target))
        remote->setProgress([&io](const QString &text) { io.err << text << Qt::endl; });
}

} // namespace ferry::cli
