#include "targets/remoterun.h"

#include "run/distribution.h"
#include "run/hostfacts.h"
#include "run/supervisor.h"
#include "run/workfolder.h"
#include "targets/containersecrets.h"
#include "targets/remotescripts.h"
#include "targets/shellquote.h"

#include "common/safefile.h"
#include "common/textfile.h"
#include "common/untrustedtree.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <fcntl.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

// The contract's names a rank of a run across nodes sets itself (scripts::ranks).
const QStringList kPerRankNames{u"SM_CURRENT_HOST"_s, u"SM_HOSTS"_s, u"SM_NUM_GPUS"_s, u"SM_TRAINING_ENV"_s};

const QStringList kCollectOptions{u"-a"_s, u"--no-links"_s, u"--no-D"_s, u"--no-inc-recursive"_s};

QString remoteFile(const QString &runDir)
{
    return run::RunDirectory(runDir).remoteRecordFile();
}

} // namespace

run::RunSpec RemoteRun::contractSpec(const run::RunSpec &spec)
{
    run::RunSpec s = spec;
    const QJsonObject remote = spec.target.options.value(u"remoteChannels"_s).toObject();
    for (auto it = remote.begin(); it != remote.end(); ++it)
        s.channels << run::DataChannel{it.key(), it.value().toString()};
    return s;
}

namespace {

Expected<std::optional<run::ExitRecord>> exitFromJson(const QByteArray &json)
{
    QJsonParseError error{};
    const QJsonObject o = QJsonDocument::fromJson(json, &error).object();
    if (error.error != QJsonParseError::NoError)
        return Error{u"the run's exit.json on the host is not JSON: "_s + error.errorString(), {}, 0, 0, {}};
    run::ExitRecord r;
    r.exitCode = o[u"exitCode"_s].toInt(-1);
    r.signal = o[u"signal"_s].toInt();
    r.finishedMs = o[u"finishedMs"_s].toInteger();
    r.cancelled = o[u"cancelled"_s].toBool();
    r.error = o[u"error"_s].toString();
    return std::optional<run::ExitRecord>(r);
}

} // namespace

Expected<void> RemoteRecord::write(const QString &runDir) const
{
    const QJsonObject json{{u"host"_s, host}, {u"dir"_s, dir}, {u"jobId"_s, jobId}};
    return writeTextFileAtomically(remoteFile(runDir), QString::fromUtf8(QJsonDocument(json).toJson()));
}

Expected<std::optional<RemoteRecord>> RemoteRecord::read(const QString &runDir)
{
    QFile f(remoteFile(runDir));
    if (!f.exists())
        return std::optional<RemoteRecord>();
    if (!f.open(QIODevice::ReadOnly))
        return Error{u"cannot read: "_s + f.errorString(), f.fileName(), 0, 0, {}};
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    RemoteRecord r{o[u"host"_s].toString(), o[u"dir"_s].toString(), o[u"jobId"_s].toString()};
    if (r.host.isEmpty() || r.dir.isEmpty())
        return Error{u"remote.json names no host or folder"_s, f.fileName(), 0, 0, {}};
    return std::optional<RemoteRecord>(r);
}

RemoteRun::RemoteRun(RemoteShell &shell, const QString &localRunDir) : m_shell(shell), m_dir(localRunDir) {}

Expected<QString> RemoteRun::createRemoteDir(const QString &givenRoot, const QString &runId)
{
    // The root is quoted there, so a shell never expands a '~' (review L9: `~/x` would make a
    // folder named '~' in the home). A leading `~/` means the home, as typed: commands start
    // there, so it is dropped; `~user/` is refused rather than guessed.
    QString root = givenRoot;
    if (root == u"~"_s)
        root = u"."_s;
    else if (root.startsWith(u"~/"_s))
        root = root.mid(2).isEmpty() ? u"."_s : root.mid(2);
    else if (root.startsWith(u'~'))
        return Error{u"the run folder '%1' on %2 starts with '~' but not '~/'"_s.arg(givenRoot, m_shell.place()),
                     {},
                     0,
                     0,
                     u"write it relative to the home folder (.ferry/runs) or as an absolute path"_s};
    // Private: the runner script holds the run's environment variables (secrets among them).
    const QByteArray script = "mkdir -p -- \"$1\" && cd -- \"$1\" && mkdir -m 700 -- \"$2\" && cd -- \"$2\" && pwd\n";
    const ShellResult r = m_shell.runScript(script, {root, runId});
    if (!r.ok())
        return Error{u"cannot create the run folder %1/%2 on %3: %4"_s.arg(root, runId, m_shell.place(), r.errorText()),
                     {},
                     0,
                     0,
                     u"check free disk space and permissions there"_s};
    const QString dir = QString::fromUtf8(r.out).trimmed();
    if (!dir.startsWith(u'/'))
        return Error{u"%1 did not name the run folder it made (got '%2')"_s.arg(m_shell.place(), dir), {}, 0, 0, {}};
    return dir;
}

namespace {

// The contract's paths in the run folder on the host: uploaded channels under input/data,
// those already there (remoteChannels) where they are.
run::ContractPaths hostContractPaths(const run::RunSpec &spec, const run::RunSpec &contract, const QString &remoteDir)
{
    run::ContractPaths paths = run::localContractPaths(remoteDir, run::RunSpec{});
    paths.codeDir = remoteDir + u"/code"_s;
    for (const run::DataChannel &c : contract.channels) {
        const bool uploaded = spec.channels.contains(c);
        paths.channelDirs.append({c.name, uploaded ? remoteDir + u"/input/data/"_s + c.name : c.path});
    }
    return paths;
}

} // namespace

QStringList RemoteRun::hostCommand(const run::RunSpec &spec, const QString &remoteDir, const run::Resources &resources)
{
    const run::RunSpec s = contractSpec(spec);
    const run::ContractPaths paths = hostContractPaths(spec, s, remoteDir);
    QStringList command{u"env"_s, u"--"_s};
    for (const auto &[name, value] : spec.variables)
        command << name + u'=' + value;
    // A run across nodes: each rank sets its own host, hosts, GPUs and training env (scripts::ranks).
    const bool distributed = run::Distribution::orSingle(spec.target).isDistributed();
    for (const auto &[name, value] : run::contractEnvironment(s, paths, resources)) {
        if (!distributed || !kPerRankNames.contains(name))
            command << name + u'=' + value;
    }
    // A kernel's run starts its keeper on the keeper's folder in the run folder (run::runCommand).
    command << u"FERRY_RUN_ID="_s + spec.id
            << run::runCommand(spec, spec.interpreter, remoteDir + u'/' + run::kKeeperFolder);
    if (spec.secretVariables.isEmpty())
        return command;
    const QString secrets = remoteDir + u'/' + QString::fromUtf16(kRemoteSecretsFolder) + u'/';
    return QStringList{spec.interpreter, remoteDir + u'/' + ContainerSecrets::kEntryFile,
                       secrets + QString::fromUtf16(kRemoteSecretsAttempt), u"-"_s, paths.failureFile()} +
           command;
}

namespace {

// The runner's cap (scripts::runnerBody): an SSH or Slurm run's budget is held by its runner on the
// host, in seconds of the script's time, with the texts the local supervisor writes (run::RunBudget).
// A Slurm run's --time (cap and grace, slurmtarget.h) stays Slurm's backstop. A run across nodes
// gets its grace signal through Slurm, every rank at once (scripts::ranks).
Expected<QByteArray> budgetLines(const run::RunSpec &spec)
{
    const run::RunBudget &b = spec.budget;
    if (!spec.target.onHost() || b.limitSeconds() <= 0)
        return QByteArray("BUDGET_S=0\n");
    const QString reasonJson =
        QString::fromUtf8(QJsonDocument(QJsonArray{b.reachedText()}).toJson(QJsonDocument::Compact));
    const auto reason = shellQuote(b.reachedText());
    const auto warning = shellQuote(b.warningText());
    const auto json = shellQuote(reasonJson.mid(1, reasonJson.size() - 2)); // the string, quoted for JSON
    if (!reason || !warning || !json)
        return Error{u"the run's budget cannot be written on a command line"_s, {}, 0, 0, {}};
    return QByteArray("BUDGET_S=" + QByteArray::number(b.limitSeconds()) +
                      " BUDGET_WARN_MS=" + QByteArray::number(b.warningMs()) +
                      " BUDGET_GRACE_S=" + QByteArray::number(std::max(0, b.graceSeconds)) + '\n' +
                      "BUDGET_REASON=" + reason->toUtf8() + '\n' + "BUDGET_WARNING=" + warning->toUtf8() + '\n' +
                      "BUDGET_REASON_JSON=" + json->toUtf8() + '\n');
}

} // namespace

Expected<QByteArray> RemoteRun::runnerScript(const run::RunSpec &spec, const QString &remoteDir,
                                             const run::Resources &resources, const RunnerParts &parts)
{
    const QStringList command = parts.command.isEmpty() ? hostCommand(spec, remoteDir, resources) : parts.command;
    const auto quotedCommand = shellCommandLine(command);
    const auto quotedRun = shellQuote(remoteDir);
    const auto quotedId = shellQuote(spec.id);
    if (!quotedCommand)
        return quotedCommand.error();
    if (!quotedRun || !quotedId)
        return Error{u"the run folder's name cannot be written on a command line"_s, remoteDir, 0, 0, {}};
    QByteArray script = "#!/bin/bash\n";
    for (const QString &line : parts.sbatchLines)
        script += "#SBATCH " + line.toUtf8() + '\n';
    script += "# Ferry run " + spec.id.toUtf8() + " (written by Ferry: core/targets/remotescripts.cpp)\n";
    script += "RUN=" + quotedRun->toUtf8() + '\n';
    script += "export FERRY_RUN_ID=" + quotedId->toUtf8() + '\n';
    script += "COMMAND=(" + quotedCommand->toUtf8() + ")\n";
    const auto budget = budgetLines(spec);
    if (!budget)
        return budget.error();
    script += *budget;
    script += scripts::watcher;
    script += run::kHostFactsScript;
    const auto distribution = run::Distribution::of(spec.target);
    if (!distribution)
        return distribution.error();
    if (distribution->isDistributed()) {
        if (parts.sbatchLines.isEmpty() || !parts.command.isEmpty())
            return Error{u"a run across nodes runs on a Slurm cluster, with the host's Python"_s, {}, 0, 0, {}};
        // SM_TRAINING_ENV as a template the ranks fill in (their host, the job's hosts, their GPUs).
        run::Resources template_ = resources;
        template_.currentHost = u"@FERRY_CURRENT_HOST@"_s;
        template_.gpus = 0;
        QString trainingEnv;
        const run::RunSpec contract = contractSpec(spec);
        for (const auto &[name, value] :
             run::contractEnvironment(contract, hostContractPaths(spec, contract, remoteDir), template_))
            if (name == u"SM_TRAINING_ENV"_s)
                trainingEnv = value;
        const auto quotedEnv = shellQuote(trainingEnv);
        if (!quotedEnv)
            return quotedEnv.error();
        script += "export FERRY_NODES=" + QByteArray::number(distribution->nodes) +
                  " FERRY_TASKS_PER_NODE=" + QByteArray::number(distribution->tasksPerNode) + '\n';
        script += "export FERRY_TRAINING_ENV=" + quotedEnv->toUtf8() + '\n';
        script += scripts::ranks;
    }
    script += scripts::runnerBody;
    return script;
}

Expected<void> RemoteRun::upload(const run::RunSpec &spec, const QString &remoteDir, const run::Resources &resources,
                                 const RunnerParts &parts, const TransferProgress &progress)
{
    // The contract's folders and config files, and the runner, staged here and sent at once.
    const QString stage = m_dir.path() + u"/stage"_s;
    QDir(stage).removeRecursively();
    const auto prepared = run::prepareContractFolders(stage, contractSpec(spec), resources);
    if (!prepared)
        return prepared.error();
    QDir().mkpath(stage + u"/code"_s);
    const auto runner = runnerScript(spec, remoteDir, resources, parts);
    if (!runner)
        return runner.error();
    if (const auto written = writeTextFileAtomically(stage + u"/runner.sh"_s, QString::fromUtf8(*runner)); !written)
        return written.error();
    if (!spec.secretVariables.isEmpty()) { // the entry (no secret in it) and the folder its file will go to
        const QString entry = stage + u'/' + ContainerSecrets::kEntryFile;
        if (const auto written = writeTextFileAtomically(entry, QString::fromUtf8(secretEntryProgram())); !written)
            return written.error();
        const QString folder = stage + u'/' + QString::fromUtf16(kRemoteSecretsFolder);
        QDir().mkpath(folder);
        QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
    if (spec.isKernel()) {
        if (const auto staged = stageKeeperFolder(stage); !staged)
            return staged.error();
    }
    // rsync -a carries modes over: the run folder and its runner stay the user's alone there.
    QFile::setPermissions(stage + u"/runner.sh"_s, QFile::ReadOwner | QFile::WriteOwner);
    QFile::setPermissions(stage, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QStringList sourceOptions{u"-a"_s};
    for (const QString &e : run::sourceExcludes(spec).rsyncPatterns())
        sourceOptions << u"--exclude=%1"_s.arg(e);
    if (!parts.extraLocalDir.isEmpty()) {
        const QString extra = stage + u'/' + parts.extraRemoteName;
        if (!QDir().rename(parts.extraLocalDir, extra))
            return Error{u"cannot stage %1"_s.arg(parts.extraLocalDir), extra, 0, 0, {}};
    }
    const auto staged = m_shell.rsync({u"-a"_s}, {stage + u'/'}, m_shell.remotePath(remoteDir + u'/'));
    QDir(stage).removeRecursively(); // sent or not: the runner (and a kernel's redact file) go
    if (!staged)
        return staged.error();
    if (spec.isKernel()) // the keeper on the host reads (and removes) its own copy
        (void)QFile::remove(m_dir.path() + u'/' + run::kKeeperFolder + u"/redact"_s);
    if (auto sent = m_shell.rsync(sourceOptions, {QDir::cleanPath(spec.sourceDir) + u'/'},
                                  m_shell.remotePath(remoteDir + u"/code/"_s));
        !sent)
        return sent.error();
    for (const run::DataChannel &c : spec.channels) {
        const QFileInfo data(c.path);
        const QString source = data.isDir() ? QDir::cleanPath(data.absoluteFilePath()) + u'/' : data.absoluteFilePath();
        TransferProgress channelProgress;
        if (progress)
            channelProgress = progress;
        if (auto sent =
                m_shell.rsync({u"-a"_s, u"--mkpath"_s}, {source},
                              m_shell.remotePath(remoteDir + u"/input/data/"_s + c.name + u'/'), channelProgress);
            !sent)
            return sent.error();
    }
    return {};
}

Expected<void> RemoteRun::sendSecrets(const QString &remoteDir, const QByteArray &payload)
{
    // Written under a temporary name and renamed: the runner never takes half a file.
    const QByteArray script = "umask 077 && mkdir -p -- \"$1\" && cat > \"$1/variables.json.tmp\" && "
                              "mv -f -- \"$1/variables.json.tmp\" \"$1/variables.json\"";
    const ShellResult r = m_shell.run({u"sh"_s, u"-c"_s, QString::fromUtf8(script), u"sh"_s,
                                       remoteDir + u'/' + QString::fromUtf16(kRemoteSecretsFolder)},
                                      payload);
    if (!r.ok())
        return Error{u"cannot give the run its secret variables on %1: %2"_s.arg(m_shell.place(), r.errorText()),
                     {},
                     0,
                     0,
                     u"check free disk space there, then start the run again"_s};
    return {};
}

// A kernel's run (docs/kernels.md): the keeper's folder Ferry wrote here (keeper.py,
// connection.json, redact) staged as `kernel/`, the folder 0700 and its files 0600 (rsync -a
// keeps the modes), as the keeper wants them. Regular files only, none followed.
Expected<void> RemoteRun::stageKeeperFolder(const QString &stage) const
{
    const QString from = m_dir.path() + u'/' + run::kKeeperFolder;
    const QString to = stage + u'/' + run::kKeeperFolder;
    if (!QDir().mkpath(to) || !QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner))
        return Error{u"cannot stage the kernel's folder"_s, to, 0, 0, {}};
    const QStringList names = QDir(from).entryList(QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDir::Name);
    if (!names.contains(run::kKeeperFile))
        return Error{u"a kernel's run without its keeper (%1)"_s.arg(run::kKeeperFile), from, 0, 0, {}};
    for (const QString &name : names) {
        const auto bytes = readRegularFile(from + u'/' + name, 64 << 20);
        if (!bytes)
            return bytes.error();
        if (!*bytes)
            continue;
        if (const auto written = createNewFile(to + u'/' + name, **bytes, 0600); !written)
            return written.error();
    }
    return {};
}

qint64 RemoteRun::localLogSize() const
{
    return QFileInfo(m_dir.logFile()).size();
}

void RemoteRun::writeLogBytes(qint64 offset, const QByteArray &bytes) const
{
    if (bytes.isEmpty())
        return;
    // Written at the offset they were read from, not appended: two Ferry processes that fetch
    // the same bytes write them to the same place, so the copy stays an exact prefix.
    QFile f(m_dir.logFile());
    if (!f.open(QIODevice::ReadWrite) || !f.seek(offset) || f.write(bytes) != bytes.size())
        qWarning("cannot write the local copy of the log %s: %s", qPrintable(f.fileName()),
                 qPrintable(f.errorString()));
}

// The local copies of the script's metric files, as the status call is told their sizes.
QList<TreeFile> RemoteRun::localMetricFiles() const
{
    QList<TreeFile> files;
    for (const QString &root : run::kMetricFileFolders) {
        for (TreeFile file : listRegularFiles(m_dir.path() + u'/' + root, run::isMetricFileName)) {
            file.path = root + u'/' + file.path;
            files << file;
        }
    }
    return files;
}

// A "file OFFSET PATH BASE64" or "whole SIZE PATH BASE64" value of the status call.
RemoteStatus::MetricFile RemoteRun::metricFileOf(bool whole, const QByteArray &value)
{
    const QList<QByteArray> parts = value.split(' ');
    RemoteStatus::MetricFile file;
    if (parts.size() != 3)
        return file;
    file.whole = whole;
    file.offset = whole ? 0 : parts.at(0).toLongLong();
    file.path = QString::fromUtf8(parts.at(1));
    file.bytes = QByteArray::fromBase64(parts.at(2));
    return file;
}

// Writes what came of the script's metric files into the run folder, where the follower reads
// them as it reads a local run's (tracking/metricsources.h). The host names the paths: only
// plain names inside the folders a run writes are taken, and no link is followed or made.
void RemoteRun::writeMetricFiles(const QList<RemoteStatus::MetricFile> &files) const
{
    for (const RemoteStatus::MetricFile &f : files) {
        const QStringList parts = f.path.split(u'/');
        const bool plain = parts.size() >= 2 && run::kMetricFileFolders.contains(parts.first()) &&
                           run::isMetricFileName(parts.last()) &&
                           std::none_of(parts.begin(), parts.end(),
                                        [](const QString &p) { return p.isEmpty() || p == u"."_s || p == u".."_s; });
        if (!plain)
            continue;
        QString folder = m_dir.path();
        bool safe = true;
        for (qsizetype i = 0; i + 1 < parts.size() && safe; ++i) {
            folder += u'/' + parts.at(i);
            const EntryKind kind = entryKind(folder);
            safe = kind == EntryKind::Directory || (kind == EntryKind::Missing && QDir().mkdir(folder));
        }
        if (!safe)
            continue;
        const QString path = folder + u'/' + parts.last();
        const int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (f.whole ? O_TRUNC : 0);
        const int fd = ::open(QFile::encodeName(path).constData(), flags, 0644);
        if (fd < 0)
            continue;
        // At the offset it was read from: two Ferry processes fetching the same bytes agree.
        if (::pwrite(fd, f.bytes.constData(), size_t(f.bytes.size()), f.offset) != f.bytes.size())
            qWarning("cannot write the local copy of %s", qPrintable(path));
        ::close(fd);
    }
}

Expected<RemoteStatus> RemoteRun::status(const RemoteRecord &record, ShellResult *failure)
{
    const qint64 offset = localLogSize();
    const qint64 timesOffset = QFileInfo(m_dir.logTimesFile()).size();
    const qint64 samplesOffset = QFileInfo(m_dir.systemSamplesFile()).size();
    QStringList args{record.dir,
                     QString::number(offset),
                     QString::number(kChunkBytes),
                     QString::number(timesOffset),
                     QString::number(samplesOffset),
                     record.jobId};
    for (const TreeFile &file : localMetricFiles())
        args << file.path << QString::number(file.size);
    const ShellResult r = m_shell.runScript(scripts::status, args, 120000);
    if (!r.ok()) {
        if (failure)
            *failure = r;
        return Error{u"cannot ask %1 about the run: %2"_s.arg(m_shell.place(), r.errorText()), {}, 0, 0, {}};
    }
    RemoteStatus s;
    // The marker is a line of its own (the values before it are cut to one line each, L6).
    const QByteArray marker = "--ferry-log--\n";
    qsizetype split = r.out.startsWith(marker) ? 0 : r.out.indexOf(QByteArray('\n' + marker));
    if (split < 0)
        return Error{u"%1 answered the status call without its log marker"_s.arg(m_shell.place()), {}, 0, 0, {}};
    if (split > 0)
        split += 1;
    s.logBytes = r.out.mid(split + marker.size());
    for (const QByteArray &line : r.out.left(split).split('\n')) {
        const qsizetype space = line.indexOf(' ');
        const QByteArray key = space < 0 ? line : line.left(space);
        const QByteArray value = space < 0 ? QByteArray() : line.mid(space + 1).trimmed();
        if (key == "folder")
            s.folderExists = value == "1";
        else if (key == "started")
            s.started = true;
        else if (key == "alive")
            s.alive = true;
        else if (key == "attempt")
            s.attempt = value.toInt();
        else if (key == "heartbeat" && !value.isEmpty())
            s.heartbeatMs = value.toLongLong();
        else if (key == "job")
            s.job = QString::fromUtf8(value);
        else if (key == "position")
            s.queuePosition = value.toInt();
        else if (key == "sacct")
            s.accounting = QString::fromUtf8(value);
        else if (key == "times")
            s.logTimes = QByteArray(value).replace(';', '\n');
        else if (key == "samples")
            s.systemSamples = QByteArray(value).replace(';', '\n');
        else if (key == "host")
            s.hostFacts = QByteArray::fromBase64(value);
        else if (key == "file" || key == "whole")
            s.metricFiles << metricFileOf(key == "whole", value);
        else if (key == "exit") {
            const auto exit = exitFromJson(value);
            if (!exit)
                return exit.error();
            s.exit = *exit;
        }
    }
    writeLogBytes(offset, s.logBytes);
    writeMetricFiles(s.metricFiles);
    // The host as the runner saw it (run/hostfacts.h), kept once.
    if (const QString hostFile = m_dir.path() + u'/' + run::kHostFactsFile;
        !s.hostFacts.isEmpty() && !QFileInfo::exists(hostFile)) {
        if (!replaceFileSafely(hostFile, s.hostFacts))
            qWarning("cannot write the local copy of %s", qPrintable(hostFile));
    }
    // Appended as they came: the host's file is only ever appended to.
    for (const auto &[bytes, path] :
         {std::pair{&s.logTimes, m_dir.logTimesFile()}, std::pair{&s.systemSamples, m_dir.systemSamplesFile()}}) {
        if (!bytes->isEmpty() && !appendToFileSafely(path, *bytes))
            qWarning("cannot write the local copy of %s", qPrintable(path));
    }
    return s;
}

Expected<void> RemoteRun::syncLogToEnd(const RemoteRecord &record)
{
    for (;;) {
        const auto s = status(record);
        if (!s)
            return s.error();
        if (s->logBytes.size() < kChunkBytes && s->metricFiles.isEmpty())
            return {};
    }
}

Expected<void> RemoteRun::collect(const RemoteRecord &record, run::ExitRecord exit)
{
    if (const auto synced = syncLogToEnd(record); !synced)
        return synced.error();
    // Whatever is left of the secrets there (a Slurm job keeps them for a requeue): gone now.
    if (const auto spec = m_dir.readSpec(); !spec || !spec->secretVariables.isEmpty())
        (void)m_shell.run({u"rm"_s, u"-rf"_s, u"--"_s, record.dir + u'/' + QString::fromUtf16(kRemoteSecretsFolder)});
    // What the host sends back is the host's (M10, docs/security.md): no link is made here
    // (--no-links: one planted as output/failure -> ~/.aws/credentials, or ../../.., is skipped
    // with rsync's "skipping non-regular file"), nor a fifo or device (--no-D); no incremental
    // recursion, whose file lists a malicious sender has abused (CVE-2024-12087).
    QStringList folders{u"model"_s, u"output"_s};
    if (const auto spec = m_dir.readSpec(); spec && run::Distribution::orSingle(spec->target).isDistributed())
        folders << u"ranks"_s; // every rank's log but rank 0's (the run's log)
    for (const QString &folder : folders) {
        if (auto got = fetchFolder(record, folder); !got)
            return got.error();
    }
    if (exit.error.isEmpty()) // a regular file only, never followed: the one rule of every target
        exit.error = m_dir.failureText();
    if (exit.finishedMs == 0)
        exit.finishedMs = run::nowMs();
    if (const auto written = m_dir.writeExit(exit); !written && !QFileInfo::exists(m_dir.exitFile()))
        return written.error();
    return run::finalize(m_dir.path());
}

Expected<void> RemoteRun::fetchFolder(const RemoteRecord &record, const QString &folder)
{
    QDir().mkpath(m_dir.path() + u'/' + folder);
    if (auto got = m_shell.rsync(kCollectOptions, {m_shell.remotePath(record.dir + u'/' + folder + u'/')},
                                 m_dir.path() + u'/' + folder + u'/');
        !got)
        return got.error();
    return {};
}

Expected<QList<qint64>> RemoteRun::markedProcesses(const RemoteRecord &record)
{
    const auto spec = m_dir.readSpec();
    if (!spec)
        return spec.error();
    const ShellResult r = m_shell.runScript(scripts::marked, {spec->id});
    if (!r.ok())
        return Error{u"cannot list the run's processes on %1: %2"_s.arg(m_shell.place(), r.errorText()), {}, 0, 0, {}};
    Q_UNUSED(record);
    QList<qint64> pids;
    for (const QByteArray &line : r.out.split('\n'))
        if (!line.trimmed().isEmpty())
            pids << line.trimmed().toLongLong();
    return pids;
}

Expected<QList<qint64>> RemoteRun::killRemote(const RemoteRecord &record, int graceMs)
{
    const auto spec = m_dir.readSpec();
    if (!spec)
        return spec.error();
    const int graceS = std::max(1, (graceMs + 999) / 1000);
    const ShellResult r =
        m_shell.runScript(scripts::kill, {record.dir, spec->id, QString::number(graceS)}, (graceS + 30) * 1000);
    if (!r.ok())
        return Error{u"cannot stop the run on %1: %2"_s.arg(m_shell.place(), r.errorText()),
                     {},
                     0,
                     0,
                     u"try again once the host is reachable"_s};
    QList<qint64> left;
    const QString out = QString::fromUtf8(r.out).trimmed();
    if (out.startsWith(u"left"_s)) {
        for (const QString &pid : out.mid(4).split(u' ', Qt::SkipEmptyParts))
            left << pid.toLongLong();
    }
    return left;
}

Expected<RunProbe> probeCollectedRun(const QString &runDir)
{
    const run::RunDirectory dir(runDir);
    const auto exit = dir.readExit();
    if (!exit)
        return exit.error();
    RunProbe p;
    p.heartbeatMs = dir.heartbeatMs();
    if (!exit->has_value())
        return Error{u"the run has not been collected yet"_s, runDir, 0, 0, {}};
    p.exit = **exit;
    p.state = stateOf(**exit);
    p.archived = QFileInfo::exists(dir.modelArchive()) && QFileInfo::exists(dir.outputArchive());
    if (!p.archived) {
        const auto packed = run::finalize(runDir);
        p.archived = packed.hasValue();
        if (!packed)
            p.detail = packed.error().toString();
    }
    return p;
}

} // namespace ferry::targets
