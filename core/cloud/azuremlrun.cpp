#include "cloud/azuremlrun.h"

#include "env/azuremlcommandjob.h"
#include "run/contract.h"
#include "run/distribution.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace ferry::cloud {

namespace {

Error jobError(const env::AzureMlCommandJob &job, const QString &message, const QString &hint)
{
    return Error{message, job.path, 0, 0, hint};
}

// What only AzureML can resolve, when nothing local is given in its place.
Expected<void> checkOfflineParts(const env::AzureMlCommandJob &job, const AzureMlRunRequest &request)
{
    if (job.command.trimmed().isEmpty())
        return jobError(job, u"the job has no command"_s,
                        u"a command job says what to run: command: python train.py"_s);
    if (job.hasClusterCompute() && !request.targetChosen)
        return jobError(job, u"the job runs on the AzureML compute '%1', which Ferry cannot use"_s.arg(job.compute),
                        u"choose where to run it: --target local, container, ssh:HOST or slurm:HOST"_s);
    if (!job.environmentReference.isEmpty() && !request.localEnvironment)
        return jobError(job,
                        u"the job's environment %1 is registered in AzureML: Ferry cannot read it offline"_s.arg(
                            job.environmentReference),
                        u"give a local environment with --env ENV.yml (ferry env import its conda file to make one)"_s);
    if (QFileInfo(job.codeDir).isRelative() || !QFileInfo(job.codeDir).isDir())
        return jobError(job, u"the job's code folder %1 is not a folder here"_s.arg(job.codeDir),
                        u"code: names the folder of the script, relative to the job file"_s);
    return {};
}

QString channelName(const QString &input)
{
    return input.toLower();
}

// The data channels: the job's path inputs (or what --data gives for them), then --data's others.
Expected<QList<run::DataChannel>> channelsOf(const env::AzureMlCommandJob &job, const AzureMlRunRequest &request)
{
    QList<run::DataChannel> channels;
    QList<run::DataChannel> extra = request.channels;
    for (const env::AzureMlJobInput &input : job.inputs) {
        if (!input.isPath())
            continue;
        const QString name = channelName(input.name);
        const auto given = std::find_if(extra.begin(), extra.end(), [&](const auto &c) { return c.name == name; });
        if (given != extra.end()) {
            channels << *given;
            extra.erase(given);
        } else if (input.isRemote()) {
            return jobError(
                job, u"input %1 is in the cloud (%2): Ferry cannot read it offline"_s.arg(input.name, input.path),
                u"give a local copy with --data %1=PATH"_s.arg(name));
        } else {
            channels << run::DataChannel{name, input.path};
        }
    }
    return channels + extra;
}

// How the script finds each channel's data on the target, for `${{inputs.x}}` of a path input.
Expected<QMap<QString, QString>> channelPaths(const env::AzureMlCommandJob &job, const run::RunSpec &spec)
{
    QMap<QString, QString> paths;
    const run::ContractPaths inside = run::containerContractPaths(spec);
    for (const env::AzureMlJobInput &input : job.inputs) {
        if (!input.isPath())
            continue;
        const QString name = channelName(input.name);
        const auto channel =
            std::find_if(spec.channels.cbegin(), spec.channels.cend(), [&](const auto &c) { return c.name == name; });
        switch (spec.target.kind) {
        case run::TargetKind::Local: // a local run reads the data where it is (localContractPaths)
            paths.insert(input.name, channel->path);
            break;
        case run::TargetKind::Container:
            for (const auto &[channelNamed, dir] : inside.channelDirs)
                if (channelNamed == name)
                    paths.insert(input.name, dir);
            break;
        default: // where the data lands on the host is known only when the run starts there
            static const QRegularExpression any(u"\\$\\{\\{\\s*inputs\\.([A-Za-z0-9_.-]+)\\s*\\}\\}"_s);
            for (const QRegularExpressionMatch &m : any.globalMatch(job.command))
                if (m.captured(1) == input.name)
                    return jobError(job,
                                    u"the command passes input %1 by its path, which an %2 run knows only on the "
                                    u"host"_s.arg(input.name, spec.target.toString()),
                                    u"run it with --target local or container, or let the script read "
                                    u"$SM_CHANNEL_%1"_s.arg(name.toUpper()));
        }
    }
    return paths;
}

// The literal inputs, with what --hp gives for them; --hp's others become hyperparameters of their own.
QMap<QString, QString> literalsOf(const env::AzureMlCommandJob &job, QList<run::Hyperparameter> &extra)
{
    QMap<QString, QString> literals;
    for (const env::AzureMlJobInput &input : job.inputs)
        if (!input.isPath())
            literals.insert(input.name, input.value);
    extra.removeIf([&](const run::Hyperparameter &hp) {
        if (!literals.contains(hp.name))
            return false;
        literals.insert(hp.name, hp.value);
        return true;
    });
    return literals;
}

// A bare `python` where the machine has only python3 (Debian): the same interpreter.
QString interpreterFor(const QString &interpreter, run::TargetKind target)
{
    if (target == run::TargetKind::Local && interpreter == "python"_L1 &&
        QStandardPaths::findExecutable(interpreter).isEmpty() &&
        !QStandardPaths::findExecutable(u"python3"_s).isEmpty())
        return u"python3"_s;
    return interpreter;
}

// A PyTorch job across instances on a Slurm target: a run across as many nodes, with the
// job's processes on each (run/distribution.h), unless --nodes or --tasks-per-node say otherwise.
// True when the run takes the job's distribution.
bool takeDistribution(const env::AzureMlCommandJob &job, run::TargetSpec &target)
{
    const bool pytorch = job.distributionType == "pytorch"_L1;
    if (target.kind != run::TargetKind::Slurm || (job.distributed ? !pytorch : job.instanceCount == 1))
        return false;
    if (target.options.contains(run::kNodesOption) || target.options.contains(run::kTasksPerNodeOption))
        return true; // --nodes, --tasks-per-node: the command line's own
    auto distribution = run::Distribution::of(target);
    if (!distribution)
        return false; // the start says why
    distribution->nodes = job.instanceCount;
    distribution->tasksPerNode = job.processesPerInstance;
    run::TargetSpec taken = target;
    distribution->writeTo(taken.options);
    if (!run::Distribution::of(taken))
        return false; // more than a run takes: one process, warned
    target = taken;
    return true;
}

void warnAboutWhatStaysWithAzureMl(const env::AzureMlCommandJob &job, const env::AzureMlJobCommand &command,
                                   bool distributionTaken, env::Diagnostics &warnings)
{
    auto warn = [&](const QString &message, const QString &hint) {
        warnings << env::Diagnostic{env::Diagnostic::Severity::Warning, Error{message, job.path, 0, 0, hint}};
    };
    const QString acrossNodes = u"run it across nodes on Slurm: --target slurm:HOST (the job's instances as "
                                u"--nodes, its processes per instance as --tasks-per-node)"_s;
    if (job.distributed && !distributionTaken && job.distributionType != "pytorch"_L1)
        warn(u"the job's %1 distribution is left out: the run is one process"_s.arg(job.distributionType),
             u"Ferry runs PyTorch's (RANK, WORLD_SIZE, MASTER_ADDR) on Slurm"_s);
    else if (!distributionTaken && job.instanceCount > 1)
        warn(u"the job asks for %1 instances; the run is one process"_s.arg(job.instanceCount), acrossNodes);
    else if (!distributionTaken && job.distributed)
        warn(u"the job's distribution is left out: the run is one process"_s, acrossNodes);
    for (const env::AzureMlJobInput &input : job.inputs)
        if (!input.isPath() && !command.inputsUsed.contains(input.name))
            warn(u"input %1 is not in the command: left out, as AzureML leaves it out"_s.arg(input.name),
                 u"pass it in the command as --%1 ${{inputs.%1}}"_s.arg(input.name));
}

} // namespace

Expected<AzureMlRunDraft> runFromAzureMlJob(const AzureMlRunRequest &request)
{
    const env::AzureMlCommandJob job = env::readAzureMlCommandJob(request.jobFile);
    for (const env::Diagnostic &d : job.diagnostics)
        if (d.isError())
            return d.where;
    if (const auto offline = checkOfflineParts(job, request); !offline)
        return offline.error();

    AzureMlRunDraft draft;
    run::RunSpec &spec = draft.spec;
    spec.target = request.target;
    spec.sourceDir = job.codeDir;
    const auto channels = channelsOf(job, request);
    if (!channels)
        return channels.error();
    spec.channels = *channels;
    QList<run::Hyperparameter> extraHyperparameters = request.hyperparameters;
    const QMap<QString, QString> literals = literalsOf(job, extraHyperparameters);
    const auto paths = channelPaths(job, spec);
    if (!paths)
        return paths.error();
    const auto command = env::splitAzureMlCommand(job.command, literals, *paths);
    if (!command) {
        Error e = command.error();
        e.path = job.path;
        return e;
    }
    spec.script = command->script;
    spec.interpreter = interpreterFor(command->interpreter, spec.target.kind);
    spec.arguments = command->arguments;
    for (const auto &[name, value] : command->hyperparameters)
        spec.hyperparameters << run::Hyperparameter{name, value};
    spec.hyperparameters << extraHyperparameters;
    if (job.environment && !request.localEnvironment)
        spec.environmentFile = job.path;
    const bool distributionTaken = takeDistribution(job, spec.target);
    warnAboutWhatStaysWithAzureMl(job, *command, distributionTaken, draft.warnings);
    return draft;
}

} // namespace ferry::cloud
