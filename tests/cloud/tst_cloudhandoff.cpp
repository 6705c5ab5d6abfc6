// Cloud hand-off: a run written as an AzureML CLI v2 command job (parsed back with yaml-cpp)
// and as a SageMaker SDK launcher (parsed back with Python's own ast module), field by field;
// and `ferry runs export` on a real run.
#include "support/cli.h"
#include "support/testmain.h"

#include "cloud/cloudhandoff.h"
#include "cloud/handoffscale.h"
#include "env/environmentfile.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <yaml-cpp/yaml.h>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

const char *const kMnistEnvironment = R"(ferry: 1
name: mnist
version: "3"
docker:
  base_image: mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04
  gpu: "on"
python:
  version: "3.10"
  channels: [conda-forge]
  conda: ["numpy=1.26"]
  pip: ["torch==2.1.0"]
variables:
  OMP_NUM_THREADS: "4"
)";

// The module-level constants and the PyTorch(...) keywords of a launcher, as JSON.
const char *const kReadLauncher = R"(
import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
out = {}
for node in tree.body:
    if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
        continue
    name = node.targets[0].id
    if name.isupper():
        out[name] = ast.literal_eval(node.value)
    elif isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "PyTorch":
        kw = {}
        for k in node.value.keywords:
            try:
                kw[k.arg] = ast.literal_eval(k.value)
            except ValueError:
                kw[k.arg] = ast.unparse(k.value)
        out["estimator"] = kw
print(json.dumps(out))
)";

QString scalar(const YAML::Node &node)
{
    return QString::fromStdString(node.as<std::string>());
}

// A launcher written to `path` and read back by kReadLauncher ({} when Python fails).
QJsonObject readLauncher(const QString &path, const QString &text)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0)
        return {};
    file.close();
    QProcess python;
    python.start(u"python3"_s, {u"-c"_s, QString::fromUtf8(kReadLauncher), path});
    if (!python.waitForFinished(60000) || python.exitCode() != 0)
        qWarning("%s", python.readAllStandardError().constData());
    return QJsonDocument::fromJson(python.readAllStandardOutput()).object();
}

} // namespace

class TestCloudHandoff : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    run::RunSpec m_spec;
    env::Environment m_env;
    QString m_command; // the AzureML job's command line

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(QDir(m_dir.path()).mkpath(u"project/data"_s));
        QFile labels(m_dir.filePath(u"labels.csv"_s));
        QVERIFY(labels.open(QIODevice::WriteOnly));
        labels.write("a,b\n");
        m_spec.id = u"20261130-120000-train-ab12"_s;
        m_spec.script = u"train.py"_s;
        m_spec.sourceDir = m_dir.filePath(u"project"_s);
        m_spec.hyperparameters = {{u"epochs"_s, u"10"_s},
                                  {u"lr"_s, u"0.001"_s},
                                  {u"batch-size"_s, u"64"_s},
                                  {u"optimizer"_s, u"adam"_s},
                                  {u"note"_s, u"say \"hi\" \\ then\nleave $(rm -rf /)"_s},
                                  {u"amp"_s, u"true"_s}};
        m_spec.channels = {{u"training"_s, m_dir.filePath(u"project/data"_s)},
                           {u"labels"_s, m_dir.filePath(u"labels.csv"_s)}};
        m_spec.metricDefinitions = {{u"loss"_s, u"loss=([0-9.]+)"_s}};
        const env::EnvironmentRead read =
            env::parseEnvironmentYaml(QString::fromUtf8(kMnistEnvironment), u"mnist.yml"_s);
        QVERIFY(!env::hasErrors(read.diagnostics));
        m_env = read.environment;
        m_spec.variables = m_env.variables;
    }

    void azureMlJobHasEveryField()
    {
        run::HandoffOptions options;
        options.outputPath = m_dir.filePath(u"jobs/job.yml"_s);
        options.compute = u"gpu-cluster"_s;
        options.experiment = u"mnist"_s;
        options.instanceCount = 2;
        const auto text = run::writeAzureMlCommandJob(m_spec, m_env, options);
        QVERIFY2(text, qPrintable(text ? QString() : text.error().toString()));
        const YAML::Node job = YAML::Load(text->toStdString());
        QCOMPARE(scalar(job["$schema"]), u"https://azuremlschemas.azureedge.net/latest/commandJob.schema.json"_s);
        QCOMPARE(scalar(job["type"]), u"command"_s);
        QCOMPARE(scalar(job["display_name"]), m_spec.id);
        QCOMPARE(scalar(job["experiment_name"]), u"mnist"_s);
        QCOMPARE(scalar(job["code"]), u"../project"_s); // relative to the job file
        const QString command = scalar(job["command"]);
        QVERIFY2(
            command.startsWith(u"env SM_MODEL_DIR=${{outputs.model}} SM_OUTPUT_DATA_DIR=${{outputs.output_data}} "_s),
            qPrintable(command));
        QVERIFY(
            command.contains(u" 'SM_CHANNEL_TRAINING=${{inputs.training}}' 'SM_CHANNEL_LABELS=${{inputs.labels}}' "_s));
        QVERIFY2(
            command.endsWith(u" python train.py --epochs '${{inputs.epochs}}' --lr '${{inputs.lr}}' --batch-size "
                             u"'${{inputs.batch_size}}' --optimizer '${{inputs.optimizer}}' --note '${{inputs.note}}' "
                             u"--amp '${{inputs.amp}}'"_s),
            qPrintable(command));
        m_command = command;

        const YAML::Node inputs = job["inputs"];
        QCOMPARE(inputs["epochs"].as<int>(), 10);
        QCOMPARE(inputs["epochs"].Tag(), std::string("?")); // a number, not a quoted string
        QCOMPARE(inputs["lr"].as<double>(), 0.001);
        QCOMPARE(inputs["batch_size"].as<int>(), 64);
        QCOMPARE(scalar(inputs["optimizer"]), u"adam"_s);
        QCOMPARE(scalar(inputs["note"]), m_spec.hyperparameters[4].value);
        QCOMPARE(scalar(inputs["training"]["type"]), u"uri_folder"_s);
        QCOMPARE(scalar(inputs["training"]["path"]), u"../project/data"_s);
        QCOMPARE(scalar(inputs["labels"]["type"]), u"uri_file"_s);
        QCOMPARE(scalar(inputs["labels"]["path"]), u"../labels.csv"_s);
        QCOMPARE(scalar(job["outputs"]["model"]["type"]), u"uri_folder"_s);
        QCOMPARE(scalar(job["outputs"]["output_data"]["type"]), u"uri_folder"_s);

        const YAML::Node environment = job["environment"];
        QCOMPARE(scalar(environment["image"]), u"mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04"_s);
        const YAML::Node conda = environment["conda_file"];
        QVERIFY(conda.IsMap());
        QCOMPARE(scalar(conda["channels"][0]), u"conda-forge"_s);
        QStringList dependencies;
        QStringList pip;
        for (const YAML::Node &d : conda["dependencies"]) {
            if (d.IsMap()) {
                for (const YAML::Node &p : d["pip"])
                    pip << scalar(p);
            } else {
                dependencies << scalar(d);
            }
        }
        QVERIFY2(dependencies.contains(u"python=3.10"_s), qPrintable(dependencies.join(u' ')));
        QVERIFY(dependencies.contains(u"numpy=1.26"_s));
        QCOMPARE(pip, QStringList{u"torch==2.1.0"_s});
        QVERIFY(!conda["variables"]);

        const YAML::Node variables = job["environment_variables"];
        const QJsonObject hps = QJsonDocument::fromJson(scalar(variables["SM_HPS"]).toUtf8()).object();
        QCOMPARE(hps.value(u"epochs"_s).toInt(), 10);
        QCOMPARE(hps.value(u"optimizer"_s).toString(), u"adam"_s);
        QCOMPARE(scalar(variables["SM_HP_BATCH-SIZE"]), u"64"_s); // hyphens kept, as SageMaker does
        QCOMPARE(scalar(variables["SM_USER_ARGS"]).count(u"--"_s), 6);
        QCOMPARE(scalar(variables["SM_CHANNELS"]), u"[\"training\",\"labels\"]"_s);
        QCOMPARE(scalar(variables["OMP_NUM_THREADS"]), u"4"_s);
        QCOMPARE(scalar(job["compute"]), u"azureml:gpu-cluster"_s);
        QCOMPARE(job["resources"]["instance_count"].as<int>(), 2);
    }

    // The command line as AzureML runs it: ${{...}} replaced by the values as text, then bash.
    // Every hyperparameter reaches the script as one argument and the contract is set.
    void azureMlCommandRunsInBash()
    {
        QVERIFY(!m_command.isEmpty());
        QFile script(m_dir.filePath(u"project/train.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("import json, os, sys\n"
                     "print(json.dumps({'argv': sys.argv[1:], 'env': {k: v for k, v in os.environ.items() "
                     "if k.startswith('SM_')}}))\n");
        script.close();
        QString line = m_command;
        line.replace(u" python train.py"_s, u" python3 train.py"_s);
        for (const run::Hyperparameter &hp : m_spec.hyperparameters)
            line.replace(u"${{inputs.%1}}"_s.arg(QString(hp.name).replace(u'-', u'_')), hp.value);
        line.replace(u"${{inputs.training}}"_s, u"/mnt/data dir/training"_s);
        line.replace(u"${{inputs.labels}}"_s, u"/mnt/labels.csv"_s);
        line.replace(u"${{outputs.model}}"_s, u"/mnt/model"_s);
        line.replace(u"${{outputs.output_data}}"_s, u"/mnt/output"_s);
        QProcess bash;
        bash.setWorkingDirectory(m_dir.filePath(u"project"_s));
        bash.start(u"bash"_s, {u"-c"_s, line});
        QVERIFY(bash.waitForFinished(60000));
        QVERIFY2(bash.exitCode() == 0, bash.readAllStandardError().constData());
        const QJsonObject seen = QJsonDocument::fromJson(bash.readAllStandardOutput()).object();
        QStringList expected;
        for (const run::Hyperparameter &hp : m_spec.hyperparameters)
            expected << u"--"_s + hp.name << hp.value;
        QStringList argv;
        for (const QJsonValue &a : seen.value(u"argv"_s).toArray())
            argv << a.toString();
        QCOMPARE(argv, expected);
        const QJsonObject env = seen.value(u"env"_s).toObject();
        QCOMPARE(env.value(u"SM_MODEL_DIR"_s).toString(), u"/mnt/model"_s);
        QCOMPARE(env.value(u"SM_CHANNEL_TRAINING"_s).toString(), u"/mnt/data dir/training"_s);
        QCOMPARE(env.value(u"SM_NUM_GPUS"_s).toString(), u"0"_s); // no nvidia-smi here
        const QJsonObject trainingEnv =
            QJsonDocument::fromJson(env.value(u"SM_TRAINING_ENV"_s).toString().toUtf8()).object();
        QCOMPARE(trainingEnv.value(u"model_dir"_s).toString(), u"/mnt/model"_s);
    }

    void azureMlChannelUrisAndRegisteredEnvironments()
    {
        run::HandoffOptions options;
        options.compute = u"azureml:cpu"_s;
        options.environmentReference = u"azureml:mnist-env@latest"_s;
        options.channels.insert(u"training"_s, u"azureml:mnist-data:2"_s);
        const auto text = run::writeAzureMlCommandJob(m_spec, std::nullopt, options);
        QVERIFY(text);
        const YAML::Node job = YAML::Load(text->toStdString());
        QCOMPARE(scalar(job["environment"]), u"azureml:mnist-env@latest"_s);
        QCOMPARE(scalar(job["inputs"]["training"]["path"]), u"azureml:mnist-data:2"_s);
        QCOMPARE(scalar(job["compute"]), u"azureml:cpu"_s);
    }

    void azureMlRefusesWhatItCannotDescribe()
    {
        run::HandoffOptions options;
        auto noCompute = run::writeAzureMlCommandJob(m_spec, m_env, options);
        QVERIFY(!noCompute);
        QVERIFY(noCompute.error().hint.contains(u"--compute"_s));
        options.compute = u"gpu"_s;
        auto noEnvironment = run::writeAzureMlCommandJob(m_spec, std::nullopt, options);
        QVERIFY(!noEnvironment);
        QVERIFY(noEnvironment.error().hint.contains(u"--environment"_s));
    }

    void sageMakerLauncherHasEveryField()
    {
        run::HandoffOptions options;
        options.outputPath = m_dir.filePath(u"launch.py"_s);
        options.instanceCount = 3;
        options.channels.insert(u"labels"_s, u"s3://bucket/labels.csv"_s);
        const auto text = run::writeSageMakerLauncher(m_spec, m_env, options);
        QVERIFY(text);
        QFile file(options.outputPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(text->toUtf8());
        file.close();

        QProcess python;
        python.start(u"python3"_s, {u"-c"_s, QString::fromUtf8(kReadLauncher), options.outputPath});
        QVERIFY(python.waitForFinished(60000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QJsonObject read = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
        const QJsonObject estimator = read.value(u"estimator"_s).toObject();
        QCOMPARE(estimator.value(u"entry_point"_s).toString(), u"train.py"_s);
        QCOMPARE(estimator.value(u"source_dir"_s).toString(), m_spec.sourceDir);
        QCOMPARE(estimator.value(u"framework_version"_s).toString(), u"2.1"_s);
        QCOMPARE(estimator.value(u"py_version"_s).toString(), u"py310"_s);
        QCOMPARE(estimator.value(u"instance_type"_s).toString(), u"ml.g5.xlarge"_s); // the environment wants a GPU
        QCOMPARE(estimator.value(u"instance_count"_s).toInt(), 3);
        QCOMPARE(estimator.value(u"hyperparameters"_s).toString(), u"HYPERPARAMETERS"_s);
        QCOMPARE(estimator.value(u"metric_definitions"_s).toString(), u"METRIC_DEFINITIONS"_s);
        QCOMPARE(estimator.value(u"environment"_s).toString(), u"ENVIRONMENT"_s);
        QCOMPARE(estimator.value(u"base_job_name"_s).toString(), u"ferry-train"_s);

        QCOMPARE(read.value(u"RUN_ID"_s).toString(), m_spec.id);
        const QJsonObject hps = read.value(u"HYPERPARAMETERS"_s).toObject();
        QCOMPARE(hps.value(u"epochs"_s), QJsonValue(10));
        QVERIFY(hps.value(u"epochs"_s).isDouble());
        QCOMPARE(hps.value(u"lr"_s).toDouble(), 0.001);
        QCOMPARE(hps.value(u"batch-size"_s), QJsonValue(64));
        QCOMPARE(hps.value(u"optimizer"_s).toString(), u"adam"_s);
        QCOMPARE(hps.value(u"note"_s).toString(), m_spec.hyperparameters[4].value); // quotes, backslash, newline
        QCOMPARE(hps.value(u"amp"_s), QJsonValue(true));
        const QJsonArray metrics = read.value(u"METRIC_DEFINITIONS"_s).toArray();
        QCOMPARE(metrics.size(), 1);
        QCOMPARE(metrics[0].toObject().value(u"Regex"_s).toString(), u"loss=([0-9.]+)"_s);
        QCOMPARE(read.value(u"ENVIRONMENT"_s).toObject().value(u"OMP_NUM_THREADS"_s).toString(), u"4"_s);
        const QJsonObject channels = read.value(u"CHANNELS"_s).toObject();
        QCOMPARE(channels.value(u"training"_s).toString(), m_spec.channels[0].path); // uploaded at launch
        QCOMPARE(channels.value(u"labels"_s).toString(), u"s3://bucket/labels.csv"_s);
    }

    // A run across 2 nodes with 2 tasks each (issue 20): AzureML's PyTorch distribution with 2
    // processes on each of 2 instances, SageMaker's torch_distributed on 2 instances; an instance
    // count given is honoured and said; one process has neither.
    void aRunAcrossNodesIsDistributed()
    {
        run::RunSpec spec = m_spec;
        spec.target = *run::TargetSpec::parse(u"slurm:cluster"_s);
        spec.target.options = {{u"nodes"_s, 2}, {u"tasksPerNode"_s, 2}, {u"gpusPerNode"_s, 2}};
        run::HandoffOptions options;
        options.compute = u"gpu-cluster"_s;
        const auto text = run::writeAzureMlCommandJob(spec, m_env, options);
        QVERIFY2(text, qPrintable(text ? QString() : text.error().toString()));
        const YAML::Node job = YAML::Load(text->toStdString());
        QCOMPARE(scalar(job["distribution"]["type"]), u"pytorch"_s);
        QCOMPARE(job["distribution"]["process_count_per_instance"].as<int>(), 2);
        QCOMPARE(job["distribution"].size(), std::size_t(2));
        QCOMPARE(job["resources"]["instance_count"].as<int>(), 2);
        QVERIFY(run::handoffScale(spec, options).note.isEmpty());

        options.outputPath = m_dir.filePath(u"launch-multi.py"_s);
        const auto launcher = run::writeSageMakerLauncher(spec, m_env, options);
        QVERIFY(launcher);
        const QJsonObject estimator = readLauncher(options.outputPath, *launcher).value(u"estimator"_s).toObject();
        QCOMPARE(estimator.value(u"instance_count"_s).toInt(), 2);
        QCOMPARE(estimator.value(u"distribution"_s).toObject(),
                 (QJsonObject{{u"torch_distributed"_s, QJsonObject{{u"enabled"_s, true}}}}));

        options.instanceCount = 4; // given: 4 instances of 2 processes each
        const YAML::Node four = YAML::Load(run::writeAzureMlCommandJob(spec, m_env, options)->toStdString());
        QCOMPARE(four["resources"]["instance_count"].as<int>(), 4);
        QCOMPARE(four["distribution"]["process_count_per_instance"].as<int>(), 2);
        QCOMPARE(readLauncher(options.outputPath, *run::writeSageMakerLauncher(spec, m_env, options))
                     .value(u"estimator"_s)
                     .toObject()
                     .value(u"instance_count"_s)
                     .toInt(),
                 4);
        const QString note = run::handoffScale(spec, options).note;
        QVERIFY2(note.contains(u"runs on 2 node(s) with 2 task(s) each; the job asks for 4 instance(s)"_s),
                 qPrintable(note));

        run::HandoffOptions single; // one process: as before, with no distribution
        single.compute = u"gpu-cluster"_s;
        const YAML::Node one = YAML::Load(run::writeAzureMlCommandJob(m_spec, m_env, single)->toStdString());
        QVERIFY(!one["distribution"]);
        QCOMPARE(one["resources"]["instance_count"].as<int>(), 1);
        const QJsonObject oneEstimator =
            readLauncher(options.outputPath, *run::writeSageMakerLauncher(m_spec, m_env, {}))
                .value(u"estimator"_s)
                .toObject();
        QVERIFY(!oneEstimator.contains(u"distribution"_s));
        QCOMPARE(oneEstimator.value(u"instance_count"_s).toInt(), 1);
    }

    // A run's fixed arguments (from an imported AzureML job) go into the job's command; SageMaker
    // passes hyperparameters only, so its launcher refuses them.
    void fixedArgumentsReachTheCommandOrAreRefused()
    {
        run::RunSpec spec = m_spec;
        spec.arguments = {u"--cuda"_s, u"a b"_s};
        run::HandoffOptions options;
        options.compute = u"gpu"_s;
        const auto job = run::writeAzureMlCommandJob(spec, m_env, options);
        QVERIFY(job);
        QVERIFY2(scalar(YAML::Load(job->toStdString())["command"]).contains(u" train.py --cuda 'a b' --"_s),
                 qPrintable(*job));
        const auto launcher = run::writeSageMakerLauncher(spec, m_env, {});
        QVERIFY(!launcher);
        QVERIFY2(launcher.error().message.contains(u"fixed arguments (--cuda a b)"_s),
                 qPrintable(launcher.error().message));
    }

    // A run's budget (docs/cost.md) is the job's StoppingCondition.MaxRuntimeInSeconds (the SDK's
    // max_run): the cap reached first; none without a cap. A money cap buys time at the catalog's
    // price of the SageMaker instances (instance_type × instance_count), not at the rate recorded for
    // the run's own target, and the line says that price and the catalog's date.
    void aBudgetIsTheSageMakerMaxRuntime()
    {
        run::RunSpec spec = m_spec;
        QTemporaryDir noUserCatalog; // the shipped catalog: resources/catalog/sagemaker.csv
        run::HandoffOptions options;
        options.outputPath = m_dir.filePath(u"budget.py"_s);
        options.catalogDir = noUserCatalog.path();
        const auto maxRun = [&](const run::RunSpec &s, const run::HandoffOptions &o) {
            const auto text = run::writeSageMakerLauncher(s, m_env, o);
            if (!text)
                return QJsonValue(text.error().toString());
            return readLauncher(o.outputPath, *text).value(u"estimator"_s).toObject().value(u"max_run"_s);
        };
        QVERIFY(maxRun(spec, options).isUndefined());
        spec.budget.maxCost = 3;
        spec.budget.costSeconds = 5400; // 3 USD at the run's own 2 USD/h: not what SageMaker charges
        spec.budget.perHour = 2;
        QCOMPARE(maxRun(spec, options), QJsonValue(7671)); // ml.g5.xlarge at 1.408 USD/h: 7670.45 s
        const auto text = run::writeSageMakerLauncher(spec, m_env, options);
        QVERIFY(text);
        QVERIFY2(text->contains(u"    max_run=7671,  # StoppingCondition.MaxRuntimeInSeconds: max-cost 3.00 USD "
                                u"(2:07:51 at 1.41 USD/h); max-cost priced at 1 × ml.g5.xlarge at 1.408 USD/h each: "
                                u"sagemaker ml.g5.xlarge in us-east-1, on demand, catalog of 2026-12-07\n"_s),
                 qPrintable(*text));
        options.instanceCount = 2; // two instances spend twice as fast
        QCOMPARE(maxRun(spec, options), QJsonValue(3836));
        spec.budget.maxSeconds = 3000; // a time cap reached first
        QCOMPARE(maxRun(spec, options), QJsonValue(3000));
        options.instanceCount = 0;

        // An instance the catalog does not price: the money cap is refused, never priced otherwise.
        options.instanceType = u"ml.m5.xlarge"_s;
        const auto refused = run::writeSageMakerLauncher(spec, m_env, options);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(u"no sagemaker instance 'ml.m5.xlarge'"_s),
                 qPrintable(refused.error().message));
        QVERIFY(refused.error().hint.contains(u"--max-time H:MM:SS"_s));
        // The export's own caps replace the run's: a time alone needs no price.
        run::RunBudget timeOnly;
        timeOnly.maxSeconds = 600;
        options.budget = timeOnly;
        QCOMPARE(maxRun(spec, options), QJsonValue(600));
        // A user's newer catalog replaces the shipped one, its date in the comment.
        QFile own(noUserCatalog.filePath(u"sagemaker.csv"_s));
        QVERIFY(own.open(QIODevice::WriteOnly));
        own.write("# date: 2027-01-15\nInstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,Region,Price,"
                  "SpotPrice\nml.m5.xlarge,4,16,,0,us-east-1,0.23,\n");
        own.close();
        run::RunBudget money;
        money.maxCost = 1;
        options.budget = money;
        const auto own23 = run::writeSageMakerLauncher(spec, m_env, options);
        QVERIFY2(own23, own23 ? "" : qPrintable(own23.error().toString()));
        QVERIFY2(own23->contains(u"max_run=15653,"_s) && own23->contains(u"catalog of 2027-01-15"_s),
                 qPrintable(*own23)); // 1 / 0.23 × 3600 = 15652.17...
    }

    void sageMakerRefusesAnUnknownInstanceType()
    {
        run::HandoffOptions options;
        options.instanceType = u"g5.xlarge"_s;
        const auto text = run::writeSageMakerLauncher(m_spec, m_env, options);
        QVERIFY(!text);
        QVERIFY(text.error().message.contains(u"g5.xlarge"_s));
    }

    void exportCommandWritesBothFromARealRun()
    {
        QTemporaryDir ws;
        QVERIFY(QDir(ws.path()).mkpath(u"environments"_s));
        QFile env(ws.filePath(u"environments/mnist.yml"_s));
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write(kMnistEnvironment);
        env.close();
        QFile script(ws.filePath(u"train.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("print('loss=0.5')\n");
        script.close();
        const auto started =
            test::runFerry(ws.path(), {u"run"_s, u"train.py"_s, u"--env"_s, u"environments/mnist.yml"_s, u"--hp"_s,
                                       u"epochs=5"_s, u"--max-cost"_s, u"1"_s}); // never reached here (local: 0)
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();

        const auto azure = test::runFerry(ws.path(), {u"runs"_s, u"export"_s, id, u"--to"_s, u"azureml"_s,
                                                      u"--compute"_s, u"gpu"_s, u"-o"_s, u"job.yml"_s});
        QVERIFY2(azure.exitCode == 0, qPrintable(azure.err));
        QVERIFY(azure.err.contains(u"az ml job create --file job.yml"_s));
        const YAML::Node job = YAML::LoadFile(ws.filePath(u"job.yml"_s).toStdString());
        QCOMPARE(job["inputs"]["epochs"].as<int>(), 5);
        QCOMPARE(scalar(job["code"]), u"."_s);

        const auto sagemaker = test::runFerry(ws.path(), {u"runs"_s, u"export"_s, id, u"--to"_s, u"sagemaker"_s});
        QVERIFY2(sagemaker.exitCode == 0, qPrintable(sagemaker.err));
        QVERIFY(sagemaker.out.contains(u"entry_point=\"train.py\""_s));
        // Its money cap buys time at ml.g5.xlarge's price on SageMaker: 1 / 1.408 × 3600 = 2556.8 s.
        QVERIFY2(sagemaker.out.contains(u"max_run=2557,"_s) && sagemaker.out.contains(u"catalog of 2026-12-07"_s),
                 qPrintable(sagemaker.out));
        const auto unpriced = test::runFerry(ws.path(), {u"runs"_s, u"export"_s, id, u"--to"_s, u"sagemaker"_s,
                                                         u"--instance-type"_s, u"ml.m5.xlarge"_s});
        QCOMPARE(unpriced.exitCode, 1);
        QVERIFY2(unpriced.err.contains(u"no sagemaker instance 'ml.m5.xlarge'"_s), qPrintable(unpriced.err));
        const auto timed =
            test::runFerry(ws.path(), {u"runs"_s, u"export"_s, id, u"--to"_s, u"sagemaker"_s, u"--instance-type"_s,
                                       u"ml.m5.xlarge"_s, u"--max-time"_s, u"0:10:00"_s});
        QVERIFY2(timed.exitCode == 0, qPrintable(timed.err));
        QVERIFY2(timed.out.contains(u"max_run=600,  # StoppingCondition.MaxRuntimeInSeconds: max-time 0:10:00\n"_s),
                 qPrintable(timed.out));

        const auto noTarget = test::runFerry(ws.path(), {u"runs"_s, u"export"_s, id});
        QCOMPARE(noTarget.exitCode, 1);
        QVERIFY(noTarget.err.contains(u"--to azureml"_s));
        const auto badChannel = test::runFerry(
            ws.path(), {u"runs"_s, u"export"_s, id, u"--to"_s, u"sagemaker"_s, u"--channel-uri"_s, u"nope=s3://x"_s});
        QCOMPARE(badChannel.exitCode, 1);
        QVERIFY(badChannel.err.contains(u"nope=s3://x"_s));
    }
};

FERRY_TEST_GUILESS_MAIN(TestCloudHandoff)
#include "tst_cloudhandoff.moc"
