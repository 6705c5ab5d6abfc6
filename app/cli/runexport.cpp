#include "cli/runexport.h"

#include "cloud/cloudhandoff.h"
#include "cloud/handoffscale.h"
#include "cloud/sweepexport.h"
#include "cost/budget.h"
#include "env/formats.h"
#include "env/spechash.h"

#include <QFileInfo>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace ferry::cli {

void addExportOptions(QCommandLineParser &parser, const QString &command)
{
    const bool sweep = command == u"sweep"_s;
    parser.addOption({u"to"_s,
                      sweep ? u"export: azureml (CLI v2 sweep job YAML) or sagemaker (SDK tuner launcher)."_s
                            : u"export: azureml (CLI v2 command job YAML) or sagemaker (SDK launcher script)."_s,
                      u"SERVICE"_s});
    parser.addOption({{u"o"_s, u"output"_s},
                      u"export: the file to write (default: print it); images: the folder to write them into."_s,
                      u"PATH"_s});
    parser.addOption({u"compute"_s, u"export azureml: the compute target, e.g. gpu-cluster."_s, u"NAME"_s});
    parser.addOption({u"experiment"_s, u"export azureml: the experiment name."_s, u"NAME"_s});
    parser.addOption({u"environment"_s, u"export azureml: a registered environment instead of the inline one."_s,
                      u"azureml:NAME@latest"_s});
    parser.addOption({u"instance-type"_s, u"export sagemaker: e.g. ml.g5.xlarge."_s, u"TYPE"_s});
    parser.addOption({u"instance-count"_s, u"export: instances (default 1; a run across nodes: its nodes)."_s, u"N"_s});
    parser.addOption({u"framework-version"_s, u"export sagemaker: PyTorch container version (default 2.1)."_s,
                      u"VERSION"_s, u"2.1"_s});
    parser.addOption({u"py-version"_s, u"export sagemaker: e.g. py310."_s, u"VERSION"_s, u"py310"_s});
    parser.addOption({u"role"_s, u"export sagemaker: the execution role ARN."_s, u"ARN"_s});
    parser.addOption({u"max-time"_s, u"export sagemaker: the job's time cap instead of the run's caps (its max_run)."_s,
                      u"H:MM:SS"_s});
    parser.addOption({u"max-cost"_s,
                      u"export sagemaker: the job's money cap instead of the run's caps, priced at the "
                      u"instances' catalog price."_s,
                      u"AMOUNT"_s});
    parser.addOption({u"channel-uri"_s, u"export: a cloud URI for a data channel (repeatable)."_s, u"NAME=URI"_s});
    parser.addOption({u"name"_s, u"export: job display name / base job name."_s, u"NAME"_s});
}

namespace {

// What every export reads from the command line and the spec: the service, the environment
// file's contents and the hand-off options. Nullopt after saying what is wrong.
struct ExportRequest {
    QString to;
    std::optional<env::Environment> environment;
    run::HandoffOptions options;
    QString note; // an --instance-count that differs from a distributed run's nodes (handoffscale.h)
};

// --max-time and --max-cost: the job's caps, instead of the run's (a money cap the catalog cannot
// price for the instance is replaced by a time). False after saying what is wrong.
bool handoffCaps(const QCommandLineParser &parser, const run::RunSpec &spec, run::HandoffOptions &options,
                 const QString &prefix, Io &io)
{
    if (!parser.isSet(u"max-time"_s) && !parser.isSet(u"max-cost"_s))
        return true;
    run::RunBudget caps;
    caps.graceSeconds = spec.budget.graceSeconds;
    if (parser.isSet(u"max-time"_s)) {
        const auto time = cost::parseMaxTime(parser.value(u"max-time"_s));
        if (!time) {
            io.err << prefix << time.error().toString() << Qt::endl;
            return false;
        }
        caps.maxSeconds = *time;
    }
    if (parser.isSet(u"max-cost"_s)) {
        const auto money = cost::parseMaxCost(parser.value(u"max-cost"_s));
        if (!money) {
            io.err << prefix << money.error().toString() << Qt::endl;
            return false;
        }
        caps.maxCost = *money;
    }
    options.budget = caps;
    return true;
}

std::optional<ExportRequest> exportRequest(const QCommandLineParser &parser, const run::RunSpec &spec,
                                           const QString &what, const QString &command, Io &io)
{
    const QString prefix = u"ferry %1 export: "_s.arg(command);
    ExportRequest request;
    request.to = parser.value(u"to"_s);
    if (request.to != "azureml"_L1 && request.to != "sagemaker"_L1) {
        io.err << prefix << "say where to, --to azureml or --to sagemaker"
               << (command == "runs"_L1 ? " (or --bundle FILE: the run as one file to hand over)" : "") << Qt::endl;
        return std::nullopt;
    }
    if (!spec.environmentFile.isEmpty()) {
        const env::EnvironmentRead read = env::readEnvironment(spec.environmentFile);
        if (env::hasErrors(read.diagnostics)) {
            for (const env::Diagnostic &d : read.diagnostics) {
                if (d.isError())
                    io.err << d.toString() << Qt::endl;
            }
            io.err << prefix << what << " needs its environment file to describe its image" << Qt::endl;
            return std::nullopt;
        }
        if (!spec.environmentTag.isEmpty() && env::imageTag(read.environment) != spec.environmentTag)
            io.err << prefix << "note: " << spec.environmentFile << " has changed since " << what << " started (image "
                   << spec.environmentTag << ", now " << env::imageTag(read.environment)
                   << "); exporting it as it is now" << Qt::endl;
        request.environment = read.environment;
    }
    run::HandoffOptions &options = request.options;
    options.outputPath = parser.value(u"output"_s);
    options.jobName = parser.value(u"name"_s);
    options.experiment = parser.value(u"experiment"_s);
    options.compute = parser.value(u"compute"_s);
    options.environmentReference = parser.value(u"environment"_s);
    options.instanceType = parser.value(u"instance-type"_s);
    if (parser.isSet(u"instance-count"_s)) { // else the run's own: its nodes, or 1
        bool ok = false;
        options.instanceCount = parser.value(u"instance-count"_s).toInt(&ok);
        if (!ok || options.instanceCount < 1) {
            io.err << prefix << "--instance-count takes a whole number of at least 1" << Qt::endl;
            return std::nullopt;
        }
    }
    options.frameworkVersion = parser.value(u"framework-version"_s);
    options.pyVersion = parser.value(u"py-version"_s);
    options.role = parser.value(u"role"_s);
    for (const QString &pair : parser.values(u"channel-uri"_s)) {
        const qsizetype eq = pair.indexOf(u'=');
        const QString name = pair.left(eq);
        const bool known = std::any_of(spec.channels.begin(), spec.channels.end(),
                                       [&](const run::DataChannel &c) { return c.name == name; });
        if (eq <= 0 || !known) {
            io.err << prefix << "--channel-uri takes NAME=URI for a channel of the " << command << ", not '" << pair
                   << "'" << Qt::endl;
            return std::nullopt;
        }
        options.channels.insert(name, pair.mid(eq + 1));
    }
    if (!handoffCaps(parser, spec, options, prefix, io))
        return std::nullopt;
    request.note = run::handoffScale(spec, options).note;
    return request;
}

// The exported text printed, or written to --output (a launcher made executable) with how to
// submit it.
int writeExport(const ExportRequest &request, const Expected<QString> &text, const QString &command, Io &io)
{
    if (!text) {
        io.err << "ferry " << command << " export: " << text.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (!request.note.isEmpty())
        io.err << "ferry " << command << " export: note: " << request.note << Qt::endl;
    const QString &path = request.options.outputPath;
    if (path.isEmpty()) {
        io.out << *text;
        return kExitOk;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text->toUtf8()) < 0 || !file.commit()) {
        io.err << "ferry " << command << " export: " << path << ": " << file.errorString() << Qt::endl;
        return kExitUserError;
    }
    const bool azure = request.to == "azureml"_L1;
    if (!azure)
        QFile::setPermissions(path, QFile::permissions(path) | QFile::ExeOwner);
    io.err << "wrote " << path
           << (azure ? u"; submit it with: az ml job create --file "_s + path : u"; submit it with: python3 "_s + path)
           << Qt::endl;
    return kExitOk;
}

} // namespace

int exportRun(const QCommandLineParser &parser, const run::RunRecord &record, Io &io)
{
    const auto spec = run::RunSpec::fromJson(record.spec);
    if (!spec) {
        io.err << "ferry runs export: run " << record.id << ": " << spec.error().toString() << Qt::endl;
        return kExitUserError;
    }
    const auto request = exportRequest(parser, *spec, u"run "_s + record.id, u"runs"_s, io);
    if (!request)
        return kExitUserError;
    const Expected<QString> text = request->to == "azureml"_L1
                                       ? run::writeAzureMlCommandJob(*spec, request->environment, request->options)
                                       : run::writeSageMakerLauncher(*spec, request->environment, request->options);
    return writeExport(*request, text, u"runs"_s, io);
}

int exportSweep(const QCommandLineParser &parser, const sweep::SweepSpec &sweep, const run::RunSpec &trial, Io &io)
{
    const auto request = exportRequest(parser, trial, u"sweep "_s + trial.id, u"sweep"_s, io);
    if (!request)
        return kExitUserError;
    const auto written = request->to == "azureml"_L1
                             ? cloud::writeAzureMlSweepJob(sweep, trial, request->environment, request->options)
                             : cloud::writeSageMakerTuner(sweep, trial, request->environment, request->options);
    if (written) {
        for (const QString &line : written->dropped)
            io.err << "ferry sweep export: note: " << line << Qt::endl;
    }
    return writeExport(*request, written ? Expected<QString>(written->text) : Expected<QString>(written.error()),
                       u"sweep"_s, io);
}

} // namespace ferry::cli
