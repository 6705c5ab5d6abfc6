#include "cli/runexport.h"

#include "cloud/cloudhandoff.h"
#include "env/formats.h"
#include "env/spechash.h"

#include <QFileInfo>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace ferry::cli {

void addExportOptions(QCommandLineParser &parser)
{
    parser.addOption(
        {u"to"_s, u"export: azureml (CLI v2 command job YAML) or sagemaker (SDK launcher script)."_s, u"SERVICE"_s});
    parser.addOption({{u"o"_s, u"output"_s}, u"export: the file to write (default: print it)."_s, u"PATH"_s});
    parser.addOption({u"compute"_s, u"export azureml: the compute target, e.g. gpu-cluster."_s, u"NAME"_s});
    parser.addOption({u"experiment"_s, u"export azureml: the experiment name."_s, u"NAME"_s});
    parser.addOption({u"environment"_s, u"export azureml: a registered environment instead of the inline one."_s,
                      u"azureml:NAME@latest"_s});
    parser.addOption({u"instance-type"_s, u"export sagemaker: e.g. ml.g5.xlarge."_s, u"TYPE"_s});
    parser.addOption({u"instance-count"_s, u"export: instances (default 1)."_s, u"N"_s, u"1"_s});
    parser.addOption({u"framework-version"_s, u"export sagemaker: PyTorch container version (default 2.1)."_s,
                      u"VERSION"_s, u"2.1"_s});
    parser.addOption({u"py-version"_s, u"export sagemaker: e.g. py310."_s, u"VERSION"_s, u"py310"_s});
    parser.addOption({u"role"_s, u"export sagemaker: the execution role ARN."_s, u"ARN"_s});
    parser.addOption({u"channel-uri"_s, u"export: a cloud URI for a data channel (repeatable)."_s, u"NAME=URI"_s});
    parser.addOption({u"name"_s, u"export: job display name / base job name."_s, u"NAME"_s});
}

int exportRun(const QCommandLineParser &parser, const run::RunRecord &record, Io &io)
{
    const QString to = parser.value(u"to"_s);
    if (to != "azureml"_L1 && to != "sagemaker"_L1) {
        io.err << "ferry runs export: say where to, --to azureml or --to sagemaker" << Qt::endl;
        return kExitUserError;
    }
    const auto spec = run::RunSpec::fromJson(record.spec);
    if (!spec) {
        io.err << "ferry runs export: run " << record.id << ": " << spec.error().toString() << Qt::endl;
        return kExitUserError;
    }
    std::optional<env::Environment> environment;
    if (!spec->environmentFile.isEmpty()) {
        const env::EnvironmentRead read = env::readEnvironment(spec->environmentFile);
        if (env::hasErrors(read.diagnostics)) {
            for (const env::Diagnostic &d : read.diagnostics) {
                if (d.isError())
                    io.err << d.toString() << Qt::endl;
            }
            io.err << "ferry runs export: run " << record.id << " needs its environment file to describe its image"
                   << Qt::endl;
            return kExitUserError;
        }
        if (env::imageTag(read.environment) != spec->environmentTag)
            io.err << "ferry runs export: note: " << spec->environmentFile << " has changed since run " << record.id
                   << " started (image " << spec->environmentTag << ", now " << env::imageTag(read.environment)
                   << "); exporting it as it is now" << Qt::endl;
        environment = read.environment;
    }
    run::HandoffOptions options;
    options.outputPath = parser.value(u"output"_s);
    options.jobName = parser.value(u"name"_s);
    options.experiment = parser.value(u"experiment"_s);
    options.compute = parser.value(u"compute"_s);
    options.environmentReference = parser.value(u"environment"_s);
    options.instanceType = parser.value(u"instance-type"_s);
    bool ok = false;
    options.instanceCount = parser.value(u"instance-count"_s).toInt(&ok);
    if (!ok || options.instanceCount < 1) {
        io.err << "ferry runs export: --instance-count takes a whole number of at least 1" << Qt::endl;
        return kExitUserError;
    }
    options.frameworkVersion = parser.value(u"framework-version"_s);
    options.pyVersion = parser.value(u"py-version"_s);
    options.role = parser.value(u"role"_s);
    for (const QString &pair : parser.values(u"channel-uri"_s)) {
        const qsizetype eq = pair.indexOf(u'=');
        const QString name = pair.left(eq);
        const bool known = std::any_of(spec->channels.begin(), spec->channels.end(),
                                       [&](const run::DataChannel &c) { return c.name == name; });
        if (eq <= 0 || !known) {
            io.err << "ferry runs export: --channel-uri takes NAME=URI for a channel of the run, not '" << pair << "'"
                   << Qt::endl;
            return kExitUserError;
        }
        options.channels.insert(name, pair.mid(eq + 1));
    }
    const Expected<QString> text = to == "azureml"_L1 ? run::writeAzureMlCommandJob(*spec, environment, options)
                                                      : run::writeSageMakerLauncher(*spec, environment, options);
    if (!text) {
        io.err << "ferry runs export: " << text.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (options.outputPath.isEmpty()) {
        io.out << *text;
        return kExitOk;
    }
    QSaveFile file(options.outputPath);
    if (!file.open(QIODevice::WriteOnly) || file.write(text->toUtf8()) < 0 || !file.commit()) {
        io.err << "ferry runs export: " << options.outputPath << ": " << file.errorString() << Qt::endl;
        return kExitUserError;
    }
    if (to == "sagemaker"_L1)
        QFile::setPermissions(options.outputPath, QFile::permissions(options.outputPath) | QFile::ExeOwner);
    io.err << "wrote " << options.outputPath
           << (to == "azureml"_L1 ? u"; submit it with: az ml job create --file "_s + options.outputPath
                                  : u"; submit it with: python3 "_s + options.outputPath)
           << Qt::endl;
    return kExitOk;
}

} // namespace ferry::cli
