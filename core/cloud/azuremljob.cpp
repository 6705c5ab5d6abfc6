// AzureML CLI v2 command job YAML for a run (see cloudhandoff.h).
#include "cloud/azuremlparts.h"
#include "cloud/cloudhandoff.h"

#include "env/condafile.h"
#include "env/yamlsupport.h"
#include "run/contract.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace azureml {

QString inputName(const QString &name, const QStringList &taken)
{
    QString key = name;
    static const QRegularExpression other(u"[^A-Za-z0-9_]"_s);
    key.replace(other, u"_"_s);
    if (key.isEmpty() || key.front().isDigit())
        key.prepend(u'_');
    QString unique = key;
    for (int i = 2; taken.contains(unique); ++i)
        unique = key + u'_' + QString::number(i);
    return unique;
}

void emitHyperparameter(YAML::Emitter &out, const QString &value)
{
    const QJsonValue decoded = decodedHyperparameter(value);
    if (decoded.isDouble()) {
        out << value.toStdString(); // the user's own spelling of the number
        return;
    }
    env::yaml::emitString(out, value);
}

QString shellWord(const QString &word)
{
    static const QRegularExpression plain(u"^[A-Za-z0-9_@%+=:,./{}$-]+$"_s);
    if (plain.match(word).hasMatch() && !word.contains(u"${{inputs."_s))
        return word;
    return u'\'' + QString(word).replace(u"'"_s, u"'\\''"_s) + u'\'';
}

QString relativeTo(const QString &dir, const QString &path)
{
    const QString relative = QDir(dir).relativeFilePath(QFileInfo(path).absoluteFilePath());
    return relative.isEmpty() ? u"."_s : relative;
}

JobInputs jobInputs(const RunSpec &spec)
{
    JobInputs inputs;
    QStringList inputNames;
    for (const Hyperparameter &hp : spec.hyperparameters) {
        inputs.hyper.append({hp.name, inputName(hp.name, inputNames)});
        inputNames << inputs.hyper.back().second;
    }
    for (const DataChannel &channel : spec.channels) {
        inputs.channels.append({&channel, inputName(channel.name, inputNames)});
        inputNames << inputs.channels.back().second;
    }
    return inputs;
}

JobCommand jobCommand(const RunSpec &spec, const std::optional<env::Environment> &environment, const JobInputs &inputs)
{
    ContractPaths paths;
    paths.modelDir = u"${{outputs.model}}"_s;
    paths.outputDataDir = u"${{outputs.output_data}}"_s;
    paths.outputDir = u"./outputs"_s;
    paths.inputDir = u"./inputs"_s;
    paths.inputConfigDir = u"./inputs/config"_s;
    paths.checkpointsDir = u"./outputs/checkpoints"_s;
    paths.codeDir = u"."_s;
    for (const auto &[channel, input] : inputs.channels)
        paths.channelDirs.append({channel->name, u"${{inputs.%1}}"_s.arg(input)});
    JobCommand job;
    QStringList &command = job.words;
    command << u"env"_s;
    for (const auto &[name, value] : contractEnvironment(spec, paths, Resources{})) {
        if (name == "SM_NUM_GPUS"_L1)
            continue;
        if (value.contains(u"${{"_s))
            command << shellWord(name + u'=' + value);
        else
            job.variables.append({name, value});
    }
    job.variables.append(spec.variables);
    command << u"SM_NUM_GPUS=$(nvidia-smi -L 2>/dev/null | wc -l)"_s;
    command << (environment && !environment->python.interpreterPath.isEmpty() ? environment->python.interpreterPath
                                                                              : u"python"_s);
    command << shellWord(spec.script);
    for (const QString &argument : spec.arguments)
        command << shellWord(argument);
    for (const auto &[name, input] : inputs.hyper)
        command << shellWord(u"--"_s + name) << shellWord(u"${{inputs.%1}}"_s.arg(input));
    return job;
}

void emitInputs(YAML::Emitter &out, const RunSpec &spec, const JobInputs &inputs, const HandoffOptions &options,
                const QString &base)
{
    if (inputs.hyper.isEmpty() && inputs.channels.isEmpty())
        return;
    out << YAML::Key << "inputs" << YAML::Value << YAML::BeginMap;
    for (qsizetype i = 0; i < inputs.hyper.size(); ++i) {
        env::yaml::emitKey(out, inputs.hyper[i].second);
        out << YAML::Value;
        emitHyperparameter(out, spec.hyperparameters[i].value);
    }
    for (const auto &[channel, input] : inputs.channels) {
        const QString uri = options.channels.value(channel->name);
        const bool file = QFileInfo(channel->path).isFile();
        env::yaml::emitKey(out, input);
        out << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "type" << YAML::Value << (file ? "uri_file" : "uri_folder");
        out << YAML::Key << "path" << YAML::Value;
        env::yaml::emitString(out, uri.isEmpty() ? relativeTo(base, channel->path) : uri);
        out << YAML::EndMap;
    }
    out << YAML::EndMap;
}

void emitEnvironment(YAML::Emitter &out, const std::optional<env::Environment> &environment,
                     const HandoffOptions &options)
{
    out << YAML::Key << "environment" << YAML::Value;
    if (!options.environmentReference.isEmpty()) {
        env::yaml::emitString(out, options.environmentReference);
        return;
    }
    out << YAML::BeginMap;
    out << YAML::Key << "image" << YAML::Value;
    env::yaml::emitString(out, environment->docker.baseImage.isEmpty() ? u"python:3.11-slim"_s
                                                                       : environment->docker.baseImage);
    if (!environment->python.userManaged) {
        // The conda file inline (the environment schema takes a path or the file's content).
        YAML::Node conda = YAML::Load(env::writeCondaYaml(*environment).toStdString());
        conda.remove("variables"); // given to the job as environment_variables
        conda.remove("name");
        out << YAML::Key << "conda_file" << YAML::Value << conda;
    }
    out << YAML::EndMap;
}

Expected<void> checkJob(const RunSpec &spec, const std::optional<env::Environment> &environment,
                        const HandoffOptions &options)
{
    if (options.compute.isEmpty())
        return Error{u"name the AzureML compute target the job runs on"_s,
                     {},
                     0,
                     0,
                     u"name a compute cluster of your AzureML workspace, e.g. gpu-cluster (--compute)"_s};
    if (!environment && options.environmentReference.isEmpty())
        return Error{u"run %1 has no environment file to describe its image"_s.arg(spec.id),
                     {},
                     0,
                     0,
                     u"start the run with an environment file (--env), or name an environment registered in AzureML, "
                     u"e.g. azureml:NAME@latest (--environment)"_s};
    return {};
}

QString jobBase(const HandoffOptions &options)
{
    return QFileInfo(options.outputPath.isEmpty() ? u"job.yml"_s : options.outputPath).absolutePath();
}

void emitNames(YAML::Emitter &out, const RunSpec &spec, const HandoffOptions &options)
{
    out << YAML::Key << "display_name" << YAML::Value;
    env::yaml::emitString(out, options.jobName.isEmpty() ? spec.id : options.jobName);
    out << YAML::Key << "experiment_name" << YAML::Value;
    env::yaml::emitString(out,
                          options.experiment.isEmpty() ? QFileInfo(spec.sourceDir).fileName() : options.experiment);
}

void emitOutputs(YAML::Emitter &out)
{
    out << YAML::Key << "outputs" << YAML::Value << YAML::BeginMap;
    for (const char *name : {"model", "output_data"})
        out << YAML::Key << name << YAML::Value << YAML::BeginMap << YAML::Key << "type" << YAML::Value << "uri_folder"
            << YAML::EndMap;
    out << YAML::EndMap;
}

void emitVariables(YAML::Emitter &out, const JobCommand &command)
{
    out << YAML::Key << "environment_variables" << YAML::Value << YAML::BeginMap;
    for (const auto &[name, value] : command.variables) {
        env::yaml::emitKey(out, name);
        out << YAML::Value;
        env::yaml::emitString(out, value);
    }
    out << YAML::EndMap;
}

void emitCompute(YAML::Emitter &out, const HandoffOptions &options)
{
    out << YAML::Key << "compute" << YAML::Value;
    env::yaml::emitString(out, options.compute.startsWith(u"azureml:"_s) || options.compute == "local"_L1
                                   ? options.compute
                                   : u"azureml:"_s + options.compute);
}

void emitResources(YAML::Emitter &out, const HandoffScale &scale)
{
    out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap << YAML::Key << "instance_count" << YAML::Value
        << scale.instances << YAML::EndMap;
}

void emitDistribution(YAML::Emitter &out, const HandoffScale &scale)
{
    if (!scale.distributed)
        return;
    out << YAML::Key << "distribution" << YAML::Value << YAML::BeginMap << YAML::Key << "type" << YAML::Value
        << "pytorch" << YAML::Key << "process_count_per_instance" << YAML::Value << scale.processesPerInstance
        << YAML::EndMap;
}

} // namespace azureml

Expected<QString> writeAzureMlCommandJob(const RunSpec &spec, const std::optional<env::Environment> &environment,
                                         const HandoffOptions &options)
{
    using namespace azureml;
    if (const auto checked = checkJob(spec, environment, options); !checked)
        return checked.error();
    const QString base = jobBase(options);
    const JobInputs inputs = jobInputs(spec);
    const JobCommand command = jobCommand(spec, environment, inputs);

    YAML::Emitter out;
    out.SetIndent(2);
    out << YAML::BeginMap;
    out << YAML::Key << "$schema" << YAML::Value
        << "https://azuremlschemas.azureedge.net/latest/commandJob.schema.json";
    out << YAML::Key << "type" << YAML::Value << "command";
    emitNames(out, spec, options);
    out << YAML::Key << "code" << YAML::Value;
    env::yaml::emitString(out, relativeTo(base, spec.sourceDir));
    out << YAML::Key << "command" << YAML::Value;
    env::yaml::emitString(out, command.words.join(u' '));
    emitInputs(out, spec, inputs, options, base);
    emitOutputs(out);
    emitEnvironment(out, environment, options);
    emitVariables(out, command);
    emitCompute(out, options);
    const HandoffScale scale = handoffScale(spec, options);
    emitDistribution(out, scale);
    emitResources(out, scale);
    out << YAML::EndMap;
    return QString(env::yaml::toText(out) + u'\n');
}

} // namespace ferry::run
