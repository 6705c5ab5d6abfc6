#include "run/contract.h"

#include "common/textfile.h"
#include "run/distribution.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>

#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

QString compact(const QJsonArray &array)
{
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

QString compact(const QJsonObject &object)
{
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

ContractPaths pathsUnder(const QString &root, const RunSpec &spec)
{
    ContractPaths p;
    p.modelDir = root + u"/model"_s;
    p.outputDir = root + u"/output"_s;
    p.outputDataDir = root + u"/output/data"_s;
    p.inputDir = root + u"/input"_s;
    p.inputConfigDir = root + u"/input/config"_s;
    p.checkpointsDir = root + u"/checkpoints"_s;
    for (const DataChannel &c : spec.channels)
        p.channelDirs.append({c.name, root + u"/input/data/"_s + c.name});
    return p;
}

} // namespace

ContractPaths localContractPaths(const QString &runDir, const RunSpec &spec)
{
    ContractPaths p = pathsUnder(QDir::cleanPath(runDir), spec);
    p.codeDir = QDir::cleanPath(runDir) + u"/code"_s; // the run's working folder (run/workfolder.h)
    // A local process reads the data where it is.
    for (qsizetype i = 0; i < spec.channels.size(); ++i)
        p.channelDirs[i].second = QDir::cleanPath(QFileInfo(spec.channels.at(i).path).absoluteFilePath());
    return p;
}

ContractPaths containerContractPaths(const RunSpec &spec)
{
    ContractPaths p = pathsUnder(u"/opt/ml"_s, spec);
    p.codeDir = u"/opt/ml/code"_s;
    return p;
}

QStringList scriptArguments(const RunSpec &spec)
{
    QStringList args = spec.arguments;
    for (const Hyperparameter &hp : spec.hyperparameters)
        args << u"--"_s + hp.name << hp.value;
    return args;
}

QJsonValue decodedHyperparameter(const QString &value)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(u"[%1]"_s.arg(value).toUtf8(), &error);
    if (error.error == QJsonParseError::NoError && doc.array().size() == 1) {
        const QJsonValue v = doc.array().at(0);
        if (!v.isString() && !v.isNull())
            return v;
    }
    return value;
}

QList<std::pair<QString, QString>> contractEnvironment(const RunSpec &spec, const ContractPaths &paths,
                                                       const Resources &resources)
{
    QList<std::pair<QString, QString>> env;
    QJsonObject hps;
    for (const Hyperparameter &hp : spec.hyperparameters)
        hps[hp.name] = decodedHyperparameter(hp.value);
    QJsonArray channels;
    for (const DataChannel &c : spec.channels)
        channels.append(c.name);
    QJsonArray userArgs;
    for (const QString &arg : scriptArguments(spec))
        userArgs.append(arg);

    env.append({u"SM_MODEL_DIR"_s, paths.modelDir});
    env.append({u"SM_OUTPUT_DIR"_s, paths.outputDir});
    env.append({u"SM_OUTPUT_DATA_DIR"_s, paths.outputDataDir});
    env.append({u"SM_INPUT_DIR"_s, paths.inputDir});
    env.append({u"SM_INPUT_CONFIG_DIR"_s, paths.inputConfigDir});
    env.append({u"SM_CHECKPOINT_DIR"_s, paths.checkpointsDir});
    env.append({u"SM_MODULE_DIR"_s, paths.codeDir});
    env.append({u"SM_CHANNELS"_s, compact(channels)});
    for (const auto &[name, dir] : paths.channelDirs)
        env.append({u"SM_CHANNEL_"_s + name.toUpper(), dir});
    env.append({u"SM_HPS"_s, compact(hps)});
    for (const Hyperparameter &hp : spec.hyperparameters)
        env.append({u"SM_HP_"_s + hp.name.toUpper(), hp.value}); // hyphens kept, as SageMaker does
    env.append({u"SM_USER_ARGS"_s, compact(userArgs)});
    env.append({u"SM_NUM_GPUS"_s, QString::number(resources.gpus)});
    env.append({u"SM_NUM_CPUS"_s, QString::number(resources.cpus)});
    env.append({u"SM_CURRENT_HOST"_s, resources.currentHost});
    env.append({u"SM_HOSTS"_s, compact(QJsonArray{resources.currentHost})});
    // The distribution, as SageMaker's toolkit passes it ({} for one process).
    env.append({u"SM_FRAMEWORK_PARAMS"_s, compact(Distribution::orSingle(spec.target).frameworkParams())});
    env.append({u"SM_TRAINING_ENV"_s, compact(QJsonObject{{u"hyperparameters"_s, hps},
                                                          {u"channel_input_dirs"_s,
                                                           [&] {
                                                               QJsonObject o;
                                                               for (const auto &[name, dir] : paths.channelDirs)
                                                                   o[name] = dir;
                                                               return o;
                                                           }()},
                                                          {u"model_dir"_s, paths.modelDir},
                                                          {u"output_data_dir"_s, paths.outputDataDir},
                                                          {u"current_host"_s, resources.currentHost},
                                                          {u"hosts"_s, QJsonArray{resources.currentHost}},
                                                          {u"num_gpus"_s, resources.gpus},
                                                          {u"num_cpus"_s, resources.cpus},
                                                          {u"user_entry_point"_s, spec.script},
                                                          {u"job_name"_s, spec.id}})});
    env.append({u"PYTHONUNBUFFERED"_s, u"1"_s}); // the log is followed live
    return env;
}

QJsonObject hyperparametersJson(const RunSpec &spec)
{
    QJsonObject object;
    for (const Hyperparameter &hp : spec.hyperparameters)
        object[hp.name] = hp.value;
    return object;
}

QJsonObject inputDataConfigJson(const RunSpec &spec)
{
    QJsonObject object;
    for (const DataChannel &c : spec.channels)
        object[c.name] = QJsonObject{{u"TrainingInputMode"_s, u"File"_s},
                                     {u"S3DistributionType"_s, u"FullyReplicated"_s},
                                     {u"RecordWrapperType"_s, u"None"_s}};
    return object;
}

QJsonObject resourceConfigJson(const Resources &resources)
{
    return QJsonObject{{u"current_host"_s, resources.currentHost},
                       {u"hosts"_s, QJsonArray{resources.currentHost}},
                       {u"network_interface_name"_s, u"eth0"_s}};
}

Expected<void> prepareContractFolders(const QString &runDir, const RunSpec &spec, const Resources &resources)
{
    const ContractPaths p = pathsUnder(runDir, spec);
    for (const QString &dir : {p.modelDir, p.outputDataDir, p.tensorboardDir(), p.inputConfigDir, p.checkpointsDir}) {
        if (!QDir().mkpath(dir))
            return Error{u"cannot create the folder"_s, dir, 0, 0, u"check free disk space and permissions"_s};
    }
    const QList<std::pair<QString, QJsonObject>> files{
        {u"hyperparameters.json"_s, hyperparametersJson(spec)},
        {u"inputdataconfig.json"_s, inputDataConfigJson(spec)},
        {u"resourceconfig.json"_s, resourceConfigJson(resources)},
    };
    for (const auto &[name, object] : files) {
        const auto written =
            writeTextFileAtomically(p.inputConfigDir + u'/' + name, QString::fromUtf8(QJsonDocument(object).toJson()));
        if (!written)
            return written.error();
    }
    return {};
}

Resources localResources(const RunSpec &spec)
{
    Resources resources;
    const QJsonValue gpus = spec.target.options.value(u"gpus"_s);
    const QByteArray visible = qgetenv("CUDA_VISIBLE_DEVICES");
    if (gpus.isDouble())
        resources.gpus = gpus.toInt();
    else if (qEnvironmentVariableIsSet("CUDA_VISIBLE_DEVICES")) // what the script's CUDA will see
        resources.gpus = visible.isEmpty() || visible.startsWith('-') || visible == "NoDevFiles"
                             ? 0
                             : static_cast<int>(visible.count(',') + 1);
    else
        resources.gpus =
            static_cast<int>(QDir(u"/proc/driver/nvidia/gpus"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    resources.cpus = cpus > 0 ? static_cast<int>(cpus) : 1;
    return resources;
}

QString hostKernelSocketDir(const QString &id)
{
    return u"/tmp/ferry-k-"_s + id;
}

QStringList runCommand(const RunSpec &spec, const QString &interpreter, const QString &keeperFolder)
{
    if (!spec.isKernel())
        return QStringList{interpreter, spec.script} + scriptArguments(spec);
    QStringList command{interpreter, keeperFolder + u'/' + kKeeperFile};
    for (QString argument : spec.keeperArguments)
        command << argument.replace(u"{kernel}"_s, keeperFolder).replace(u"{interpreter}"_s, interpreter);
    return command;
}

} // namespace ferry::run
