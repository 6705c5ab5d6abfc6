// A sweep handed to a cloud's own tuner: the AzureML CLI v2 sweep job (read back with yaml-cpp)
// and the SageMaker HyperparameterTuner launcher (read back with Python's ast module; its
// objective regex run by Python's re on the lines Ferry reads), each mapping checked and each
// thing dropped said; and `ferry sweep export` on a sweep file and on a sweep that ran.
#include "support/cli.h"
#include "support/files.h"
#include "support/testmain.h"

#include "cloud/sweepexport.h"
#include "env/formats.h"
#include "sweep/sweepcontroller.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <yaml-cpp/yaml.h>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

const char *const kTuneEnvironment = "ferry: 1\nname: tune\nversion: \"1\"\ndocker:\n  base_image: python:3.11-slim\n"
                                     "python:\n  version: \"3.11\"\n  pip: [\"numpy\"]\n";

const char *const kScript = "import argparse\np = argparse.ArgumentParser()\n"
                            "for n in ('--lr', '--layers', '--dropout', '--batch-size', '--width', '--steps'):\n"
                            "    p.add_argument(n)\nprint(vars(p.parse_args()))\n";

QString sweepYaml(const QString &method, const QString &stopping)
{
    return uR"(ferry-sweep: 1
script: train.py
environment: env.yml
target: slurm:local
hyperparameters: {steps: 300}
method: %1
metric: {name: val_loss, goal: minimize}
parameters:
  lr: {distribution: log_uniform, min: 1.0e-5, max: 1.0e-1}
  layers: {values: ["64,32", "128,64", "256,128"]}
  dropout: {distribution: uniform, min: 0.0, max: 0.5}
  batch-size: {distribution: int_uniform, min: 16, max: 256}
  width: {distribution: log_int_uniform, min: 8, max: 512}
max_trials: 40
max_parallel: 4
early_stopping: %2
seed: 7
)"_s.arg(method, stopping);
}

// The tuner launcher's ranges and HyperparameterTuner(...) keywords, and which of the lines
// Ferry reads a metric from its objective regex reads, with the value it reads.
const char *const kReadTuner = R"(
import ast, json, re, sys
tree = ast.parse(open(sys.argv[1]).read())
out = {"ranges": {}, "tuner": {}}
for node in tree.body:
    if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
        continue
    name = node.targets[0].id
    if name == "HYPERPARAMETER_RANGES":
        for k, v in zip(node.value.keys, node.value.values):
            out["ranges"][ast.literal_eval(k)] = {
                "type": v.func.id, "args": [ast.literal_eval(a) for a in v.args],
                "keywords": {kw.arg: ast.literal_eval(kw.value) for kw in v.keywords}}
    elif name == "METRIC_DEFINITIONS":
        out["metrics"] = ast.literal_eval(node.value)
    elif isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "HyperparameterTuner":
        for kw in node.value.keywords:
            try:
                out["tuner"][kw.arg] = ast.literal_eval(kw.value)
            except ValueError:
                out["tuner"][kw.arg] = ast.unparse(kw.value)
regex = [m["Regex"] for m in out["metrics"] if m["Name"] == "val_loss"][0]
lines = ['{"step": 3, "val_loss": 0.25}', "val_loss=1.5e-3", "epoch 2 val_loss: 7", "train_loss=9"]
out["read"] = [float(m.group(1)) if m else None for m in (re.search(regex, l) for l in lines)]
print(json.dumps(out))
)";

struct Workspace {
    QTemporaryDir dir;
    QString file;
    Workspace(const QString &method, const QString &stopping)
    {
        QDir().mkpath(dir.filePath(u"sweeps"_s));
        test::writeFileOrStop(dir.filePath(u"env.yml"_s), kTuneEnvironment);
        test::writeFileOrStop(dir.filePath(u"train.py"_s), kScript);
        file = dir.filePath(u"sweeps/tune.yml"_s);
        test::writeFileOrStop(file, sweepYaml(method, stopping).toUtf8());
    }
    sweep::SweepSpec spec() const { return sweep::readSweepFile(file).spec; }
    run::RunSpec trial() const
    {
        auto t = sweep::trialTemplate(spec(), file, dir.path());
        if (!t)
            qFatal("%s", qPrintable(t.error().toString()));
        t->id = u"tune"_s;
        return *t;
    }
    std::optional<env::Environment> environment() const
    {
        return env::readEnvironment(dir.filePath(u"env.yml"_s)).environment;
    }
};

run::HandoffOptions azureOptions(const QString &dir)
{
    run::HandoffOptions options;
    options.compute = u"gpu-cluster"_s;
    options.outputPath = dir + u"/sweep.yml"_s;
    return options;
}

bool mentions(const QStringList &dropped, const QString &what)
{
    return std::any_of(dropped.cbegin(), dropped.cend(), [&](const QString &l) { return l.contains(what); });
}

} // namespace

class TestSweepExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void azureMlSweepJobMapsTheSearchSpace()
    {
        const Workspace ws(u"random"_s, u"{type: median, min_steps: 200}"_s);
        const auto written =
            cloud::writeAzureMlSweepJob(ws.spec(), ws.trial(), ws.environment(), azureOptions(ws.dir.path()));
        QVERIFY2(written, qPrintable(written ? QString() : written.error().toString()));
        const YAML::Node job = YAML::Load(written->text.toStdString());
        QCOMPARE(job["type"].as<std::string>(), "sweep");
        QCOMPARE(job["compute"].as<std::string>(), "azureml:gpu-cluster");
        const QString command = QString::fromStdString(job["trial"]["command"].as<std::string>());
        for (const QString &p : {u"lr"_s, u"layers"_s, u"dropout"_s, u"width"_s})
            QVERIFY2(command.contains(u"--%1 ${{search_space.%1}}"_s.arg(p)), qPrintable(command));
        // A search-space name is an AzureML name: letters, digits and '_'.
        QVERIFY2(command.contains(u"--batch-size ${{search_space.batch_size}}"_s), qPrintable(command));
        QVERIFY2(command.contains(u"--steps '${{inputs.steps}}'"_s), qPrintable(command)); // fixed: an input
        QVERIFY(command.contains(u" train.py "_s));
        QCOMPARE(job["inputs"]["steps"].as<int>(), 300);
        QVERIFY(!job["inputs"]["lr"]);
        QCOMPARE(job["trial"]["environment"]["image"].as<std::string>(), "python:3.11-slim");
        QCOMPARE(job["trial"]["code"].as<std::string>(), ".");

        const YAML::Node space = job["search_space"];
        // loguniform takes natural-log bounds.
        QCOMPARE(space["lr"]["type"].as<std::string>(), "loguniform");
        QVERIFY(std::abs(space["lr"]["min_value"].as<double>() - std::log(1e-5)) < 1e-9);
        QVERIFY(std::abs(space["lr"]["max_value"].as<double>() - std::log(1e-1)) < 1e-9);
        QCOMPARE(space["layers"]["type"].as<std::string>(), "choice");
        QCOMPARE(space["layers"]["values"][1].as<std::string>(), "128,64");
        QCOMPARE(space["dropout"]["type"].as<std::string>(), "uniform");
        QCOMPARE(space["dropout"]["max_value"].as<double>(), 0.5);
        // randint has only an upper bound: 16..256 is every whole number as a choice.
        QCOMPARE(space["batch_size"]["type"].as<std::string>(), "choice");
        QCOMPARE(space["batch_size"]["values"].size(), std::size_t(241));
        QCOMPARE(space["batch_size"]["values"][0].as<int>(), 16);
        QCOMPARE(space["batch_size"]["values"][240].as<int>(), 256);
        QCOMPARE(space["width"]["type"].as<std::string>(), "qloguniform");
        QVERIFY(std::abs(space["width"]["max_value"].as<double>() - std::log(512.0)) < 1e-9);
        QVERIFY(mentions(written->dropped, u"width"_s));

        QCOMPARE(job["sampling_algorithm"]["type"].as<std::string>(), "random");
        QCOMPARE(job["sampling_algorithm"]["seed"].as<int>(), 7);
        QCOMPARE(job["objective"]["goal"].as<std::string>(), "minimize");
        QCOMPARE(job["objective"]["primary_metric"].as<std::string>(), "val_loss");
        QCOMPARE(job["limits"]["max_total_trials"].as<int>(), 40);
        QCOMPARE(job["limits"]["max_concurrent_trials"].as<int>(), 4);
        QCOMPARE(job["early_termination"]["type"].as<std::string>(), "median_stopping");
        QCOMPARE(job["early_termination"]["delay_evaluation"].as<int>(), 200);
        // What AzureML does otherwise is said.
        QVERIFY(mentions(written->dropped, u"mlflow.log_metric"_s));
        QVERIFY(mentions(written->dropped, u"delay_evaluation"_s));
        QVERIFY(mentions(written->dropped, u"slurm:local"_s));
    }

    void azureMlSaysWhatItCannotDo()
    {
        const Workspace asha(u"random"_s, u"{type: asha, min_steps: 10}"_s);
        auto written =
            cloud::writeAzureMlSweepJob(asha.spec(), asha.trial(), asha.environment(), azureOptions(asha.dir.path()));
        QVERIFY(written);
        QVERIFY(!YAML::Load(written->text.toStdString())["early_termination"]);
        QVERIFY(mentions(written->dropped, u"no ASHA"_s));

        const Workspace bandit(u"random"_s, u"{type: bandit, slack: 0.2, min_steps: 0}"_s);
        written = cloud::writeAzureMlSweepJob(bandit.spec(), bandit.trial(), bandit.environment(),
                                              azureOptions(bandit.dir.path()));
        QVERIFY(written);
        const YAML::Node policy = YAML::Load(written->text.toStdString())["early_termination"];
        QCOMPARE(policy["type"].as<std::string>(), "bandit");
        QCOMPARE(policy["slack_factor"].as<double>(), 0.2);

        const Workspace bayes(u"bayes"_s, u"{type: median, min_steps: 10}"_s);
        written = cloud::writeAzureMlSweepJob(bayes.spec(), bayes.trial(), bayes.environment(),
                                              azureOptions(bayes.dir.path()));
        QVERIFY(written);
        const YAML::Node job = YAML::Load(written->text.toStdString());
        QCOMPARE(job["sampling_algorithm"].as<std::string>(), "bayesian");
        QVERIFY(!job["early_termination"]); // AzureML's Bayesian sampling takes no policy
        QVERIFY(mentions(written->dropped, u"Bayesian sampling supports no early termination"_s));

        // No compute: refused with how to give one.
        run::HandoffOptions none;
        const auto refused = cloud::writeAzureMlSweepJob(bayes.spec(), bayes.trial(), bayes.environment(), none);
        QVERIFY(!refused);
        QVERIFY(refused.error().toString().contains(u"--compute"_s));
    }

    void sageMakerTunerMapsTheSearchSpace()
    {
        const Workspace ws(u"random"_s, u"{type: asha, min_steps: 50}"_s);
        run::HandoffOptions options;
        options.outputPath = ws.dir.filePath(u"tune.py"_s);
        const auto written = cloud::writeSageMakerTuner(ws.spec(), ws.trial(), ws.environment(), options);
        QVERIFY2(written, qPrintable(written ? QString() : written.error().toString()));
        QVERIFY(test::writeFile(options.outputPath, written->text.toUtf8()));
        QProcess python;
        python.start(u"/usr/bin/python3"_s, {u"-c"_s, QString::fromUtf8(kReadTuner), options.outputPath});
        QVERIFY(python.waitForFinished(30000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QJsonObject read = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
        const QJsonObject ranges = read[u"ranges"_s].toObject();
        QCOMPARE(ranges[u"lr"_s][u"type"_s].toString(), u"ContinuousParameter"_s);
        QCOMPARE(ranges[u"lr"_s][u"args"_s].toArray(), (QJsonArray{1e-5, 0.1}));
        QCOMPARE(ranges[u"lr"_s][u"keywords"_s][u"scaling_type"_s].toString(), u"Logarithmic"_s);
        QCOMPARE(ranges[u"layers"_s][u"type"_s].toString(), u"CategoricalParameter"_s);
        QCOMPARE(ranges[u"layers"_s][u"args"_s][0].toArray(), (QJsonArray{u"64,32"_s, u"128,64"_s, u"256,128"_s}));
        QCOMPARE(ranges[u"dropout"_s][u"args"_s].toArray(), (QJsonArray{0, 0.5}));
        QVERIFY(ranges[u"dropout"_s][u"keywords"_s].toObject().isEmpty());
        QCOMPARE(ranges[u"batch-size"_s][u"type"_s].toString(), u"IntegerParameter"_s);
        QCOMPARE(ranges[u"batch-size"_s][u"args"_s].toArray(), (QJsonArray{16, 256}));
        QCOMPARE(ranges[u"width"_s][u"keywords"_s][u"scaling_type"_s].toString(), u"Logarithmic"_s);
        const QJsonObject tuner = read[u"tuner"_s].toObject();
        QCOMPARE(tuner[u"objective_metric_name"_s].toString(), u"val_loss"_s);
        QCOMPARE(tuner[u"objective_type"_s].toString(), u"Minimize"_s);
        QCOMPARE(tuner[u"strategy"_s].toString(), u"Random"_s);
        QCOMPARE(tuner[u"max_jobs"_s].toInt(), 40);
        QCOMPARE(tuner[u"max_parallel_jobs"_s].toInt(), 4);
        QCOMPARE(tuner[u"random_seed"_s].toInt(), 7);
        QCOMPARE(tuner[u"early_stopping_type"_s].toString(), u"Auto"_s);
        QVERIFY(mentions(written->dropped, u"early_stopping asha"_s));
        QVERIFY(mentions(written->dropped, u"min_steps 50"_s));
        // The objective is read from the lines Ferry reads it from, and no other metric.
        QCOMPARE(read[u"read"_s].toArray(), (QJsonArray{0.25, 1.5e-3, 7, QJsonValue()}));
        // The fixed hyperparameter is the estimator's.
        QVERIFY(written->text.contains(u"\"steps\": 300,"_s));
    }

    // Trials across 2 nodes with 2 tasks each (issue 20): each AzureML trial a PyTorch
    // distribution of 2 processes on 2 instances, the SageMaker estimator torch_distributed on
    // 2 instances; an --instance-count given is honoured and said.
    void trialsAcrossNodesExportDistributed()
    {
        const Workspace ws(u"random"_s, u"none"_s);
        test::writeFileOrStop(ws.dir.filePath(u"sweeps/multi.yml"_s), R"(ferry-sweep: 1
script: train.py
environment: env.yml
target: slurm:local
target_options: {nodes: 2, tasks-per-node: 2, gpus-per-node: 2}
method: grid
metric: val_loss
parameters:
  lr: [0.1, 0.01]
)");
        const auto azure = test::runFerry(ws.dir.path(), {u"sweep"_s, u"export"_s, u"sweeps/multi.yml"_s, u"--to"_s,
                                                          u"azureml"_s, u"--compute"_s, u"gpu"_s});
        QVERIFY2(azure.exitCode == 0, qPrintable(azure.err));
        const YAML::Node job = YAML::Load(azure.out.toStdString());
        QCOMPARE(job["trial"]["distribution"]["type"].as<std::string>(), "pytorch");
        QCOMPARE(job["trial"]["distribution"]["process_count_per_instance"].as<int>(), 2);
        QCOMPARE(job["resources"]["instance_count"].as<int>(), 2);
        QVERIFY(!job["distribution"]);

        const QString out = ws.dir.filePath(u"multi.py"_s);
        const auto sagemaker =
            test::runFerry(ws.dir.path(), {u"sweep"_s, u"export"_s, u"sweeps/multi.yml"_s, u"--to"_s, u"sagemaker"_s,
                                           u"--instance-count"_s, u"3"_s, u"-o"_s, out});
        QVERIFY2(sagemaker.exitCode == 0, qPrintable(sagemaker.err));
        QVERIFY2(sagemaker.err.contains(u"note: tune runs on 2 node(s) with 2 task(s) each; the job asks for 3 "_s) ||
                     sagemaker.err.contains(u"runs on 2 node(s) with 2 task(s) each; the job asks for 3 instance(s) "
                                            u"(--instance-count), each starting 2 process(es): 6 in all"_s),
                 qPrintable(sagemaker.err));
        QProcess python; // the PyTorch(...) keywords, as Python reads them
        python.start(u"python3"_s, {u"-c"_s,
                                    u"import ast, json, sys\n"
                                    u"for n in ast.walk(ast.parse(open(sys.argv[1]).read())):\n"
                                    u"    if isinstance(n, ast.Call) and getattr(n.func, 'id', '') == 'PyTorch':\n"
                                    u"        print(json.dumps({k.arg: ast.literal_eval(k.value) for k in n.keywords\n"
                                    u"                          if k.arg in ('instance_count', 'distribution')}))\n"_s,
                                    out});
        QVERIFY(python.waitForFinished(60000));
        QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
        const QJsonObject estimator = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
        QCOMPARE(estimator.value(u"instance_count"_s).toInt(), 3);
        QCOMPARE(estimator.value(u"distribution"_s).toObject(),
                 (QJsonObject{{u"torch_distributed"_s, QJsonObject{{u"enabled"_s, true}}}}));
    }

    void exportCommandOnAFileAndOnASweep()
    {
        const Workspace ws(u"grid"_s, u"{type: median, min_steps: 1}"_s);
        // A grid needs values everywhere: a file of its own.
        test::writeFileOrStop(ws.dir.filePath(u"sweeps/grid.yml"_s), R"(ferry-sweep: 1
script: train.py
environment: env.yml
method: grid
metric: val_loss
parameters:
  lr: [0.1, 0.01]
  layers: ["64", "128"]
max_parallel: 2
)");
        const auto file = test::runFerry(ws.dir.path(), {u"sweep"_s, u"export"_s, u"sweeps/grid.yml"_s, u"--to"_s,
                                                         u"azureml"_s, u"--compute"_s, u"cpu"_s});
        QVERIFY2(file.exitCode == 0, qPrintable(file.err));
        const YAML::Node job = YAML::Load(file.out.toStdString());
        QCOMPARE(job["sampling_algorithm"].as<std::string>(), "grid");
        QCOMPARE(job["limits"]["max_total_trials"].as<int>(), 4);
        QCOMPARE(job["display_name"].as<std::string>(), "grid");
        QVERIFY2(file.err.contains(u"note: metric val_loss: AzureML reads it"_s), qPrintable(file.err));

        // A sweep that ran, by its id: its own copy of the file.
        const auto started = test::runFerry(ws.dir.path(), {u"sweep"_s, u"start"_s, u"sweeps/grid.yml"_s, u"--wait"_s});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();
        test::writeFileOrStop(ws.dir.filePath(u"sweeps/grid.yml"_s), "changed after the sweep: not read\n");
        const QString out = ws.dir.filePath(u"tune.py"_s);
        const auto saved =
            test::runFerry(ws.dir.path(), {u"sweep"_s, u"export"_s, id, u"--to"_s, u"sagemaker"_s, u"-o"_s, out});
        QVERIFY2(saved.exitCode == 0, qPrintable(saved.err));
        QVERIFY(saved.err.contains(u"submit it with: python3 "_s + out));
        const QString text = QString::fromUtf8(test::readFile(out));
        QVERIFY(text.contains(u"strategy=\"Grid\","_s));
        QVERIFY(text.contains(u"\"lr\": CategoricalParameter([\"0.1\", \"0.01\"]),"_s));
        QVERIFY(text.contains(u"# Submits Ferry sweep %1 to SageMaker"_s.arg(id)));

        // Bad requests say what to do.
        const auto noService = test::runFerry(ws.dir.path(), {u"sweep"_s, u"export"_s, id});
        QCOMPARE(noService.exitCode, 1);
        QVERIFY(noService.err.contains(u"--to azureml or --to sagemaker"_s));
        const auto noCompute = test::runFerry(ws.dir.path(), {u"sweep"_s, u"export"_s, id, u"--to"_s, u"azureml"_s});
        QCOMPARE(noCompute.exitCode, 1);
        QVERIFY(noCompute.err.contains(u"--compute"_s));
    }
};

FERRY_TEST_GUILESS_MAIN(TestSweepExport)
#include "tst_sweepexport.moc"
