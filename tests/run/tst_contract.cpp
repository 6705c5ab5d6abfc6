// The SageMaker training contract, the same for every target.
#include "run/contract.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

RunSpec sample(const QString &dataDir)
{
    RunSpec spec;
    spec.id = u"20261130-000000-train-abcd"_s;
    spec.script = u"train.py"_s;
    spec.sourceDir = u"/src/project"_s;
    spec.hyperparameters = {{u"epochs"_s, u"3"_s},
                            {u"learning-rate"_s, u"0.01"_s},
                            {u"optimizer"_s, u"adam"_s},
                            {u"layers"_s, u"[64, 32]"_s}};
    spec.channels = {{u"training"_s, dataDir}, {u"validation"_s, dataDir}};
    return spec;
}

QString value(const QList<std::pair<QString, QString>> &env, const QString &name)
{
    for (const auto &[key, v] : env)
        if (key == name)
            return v;
    return u"<unset>"_s;
}

} // namespace

class TestContract : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void argumentsAreSageMakers()
    {
        QCOMPARE(scriptArguments(sample(u"/data"_s)),
                 (QStringList{u"--epochs"_s, u"3"_s, u"--learning-rate"_s, u"0.01"_s, u"--optimizer"_s, u"adam"_s,
                              u"--layers"_s, u"[64, 32]"_s}));
    }

    // An imported AzureML job's fixed words (`--cuda`, a data path) come before the hyperparameters.
    void fixedArgumentsComeFirst()
    {
        RunSpec spec = sample(u"/data"_s);
        spec.arguments = {u"--cuda"_s, u"--data"_s, u"/data"_s};
        QCOMPARE(scriptArguments(spec).mid(0, 5),
                 (QStringList{u"--cuda"_s, u"--data"_s, u"/data"_s, u"--epochs"_s, u"3"_s}));
    }

    void containerVariables()
    {
        const RunSpec spec = sample(u"/data"_s);
        const auto env = contractEnvironment(spec, containerContractPaths(spec), Resources{1, 8, u"algo-1"_s});
        QCOMPARE(value(env, u"SM_MODEL_DIR"_s), u"/opt/ml/model"_s);
        QCOMPARE(value(env, u"SM_OUTPUT_DATA_DIR"_s), u"/opt/ml/output/data"_s);
        QCOMPARE(value(env, u"SM_INPUT_DIR"_s), u"/opt/ml/input"_s);
        QCOMPARE(value(env, u"SM_INPUT_CONFIG_DIR"_s), u"/opt/ml/input/config"_s);
        QCOMPARE(value(env, u"SM_CHANNEL_TRAINING"_s), u"/opt/ml/input/data/training"_s);
        QCOMPARE(value(env, u"SM_CHANNEL_VALIDATION"_s), u"/opt/ml/input/data/validation"_s);
        QCOMPARE(value(env, u"SM_CHANNELS"_s), u"[\"training\",\"validation\"]"_s);
        QCOMPARE(value(env, u"SM_HPS"_s),
                 u"{\"epochs\":3,\"layers\":[64,32],\"learning-rate\":0.01,\"optimizer\":\"adam\"}"_s);
        QCOMPARE(value(env, u"SM_HP_LEARNING-RATE"_s), u"0.01"_s); // upper-cased, hyphen kept
        QCOMPARE(value(env, u"SM_HP_OPTIMIZER"_s), u"adam"_s);
        QCOMPARE(value(env, u"SM_NUM_GPUS"_s), u"1"_s);
        QCOMPARE(value(env, u"SM_NUM_CPUS"_s), u"8"_s);
        QCOMPARE(value(env, u"SM_CURRENT_HOST"_s), u"algo-1"_s);
        QCOMPARE(value(env, u"SM_HOSTS"_s), u"[\"algo-1\"]"_s);
        QCOMPARE(
            value(env, u"SM_USER_ARGS"_s),
            u"[\"--epochs\",\"3\",\"--learning-rate\",\"0.01\",\"--optimizer\",\"adam\",\"--layers\",\"[64, 32]\"]"_s);
        QCOMPARE(value(env, u"SM_MODULE_DIR"_s), u"/opt/ml/code"_s);
    }

    void localVariablesPointIntoTheRunFolder()
    {
        QTemporaryDir data;
        const RunSpec spec = sample(data.path());
        const auto env = contractEnvironment(spec, localContractPaths(u"/ws/.ferry/runs/r1"_s, spec), Resources{});
        QCOMPARE(value(env, u"SM_MODEL_DIR"_s), u"/ws/.ferry/runs/r1/model"_s);
        QCOMPARE(value(env, u"SM_OUTPUT_DATA_DIR"_s), u"/ws/.ferry/runs/r1/output/data"_s);
        QCOMPARE(value(env, u"SM_CHANNEL_TRAINING"_s), data.path()); // data is read where it is
        // The run's own working folder, which links into the source folder (run/workfolder.h).
        QCOMPARE(value(env, u"SM_MODULE_DIR"_s), u"/ws/.ferry/runs/r1/code"_s);
    }

    void configFilesAreWritten()
    {
        QTemporaryDir run;
        const RunSpec spec = sample(u"/data"_s);
        QVERIFY(prepareContractFolders(run.path(), spec, Resources{}));
        // output/tensorboard: where SageMaker's TensorBoardOutputConfig expects event files.
        for (const QString &dir :
             {u"model"_s, u"output/data"_s, u"output/tensorboard"_s, u"checkpoints"_s, u"input/config"_s})
            QVERIFY2(QFileInfo(run.filePath(dir)).isDir(), qPrintable(dir));
        auto read = [&](const QString &name) {
            QFile f(run.filePath(u"input/config/"_s + name));
            return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
        };
        const QJsonObject hps = read(u"hyperparameters.json"_s);
        QCOMPARE(hps[u"epochs"_s].toString(), u"3"_s); // SageMaker writes every value as a string
        QCOMPARE(read(u"inputdataconfig.json"_s)[u"training"_s].toObject()[u"TrainingInputMode"_s].toString(),
                 u"File"_s);
        QCOMPARE(read(u"resourceconfig.json"_s)[u"current_host"_s].toString(), u"algo-1"_s);
    }

    void specRoundTripsThroughJson()
    {
        RunSpec spec = sample(u"/data"_s);
        spec.target = *TargetSpec::parse(u"ssh:gpu-box"_s);
        spec.target.options = QJsonObject{{u"gpus"_s, 2}};
        spec.metricDefinitions = {{u"loss"_s, u"loss=([0-9.]+)"_s}};
        spec.variables = {{u"Z_FIRST"_s, u"1"_s}, {u"A_SECOND"_s, u"2"_s}}; // order kept
        spec.arguments = {u"--cuda"_s, u"a b"_s};
        const auto back = RunSpec::fromJson(spec.toJson());
        QVERIFY(back);
        QVERIFY(*back == spec);
    }

    void targets_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::newRow("local") << u"local"_s << true;
        QTest::newRow("container") << u"container"_s << true;
        QTest::newRow("ssh") << u"ssh:gpu-box"_s << true;
        QTest::newRow("slurm") << u"slurm:cluster"_s << true;
        QTest::newRow("ssh without host") << u"ssh"_s << false;
        QTest::newRow("local with host") << u"local:x"_s << false;
        QTest::newRow("unknown") << u"cloud"_s << false;
    }
    void targets()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        const auto target = TargetSpec::parse(text);
        QCOMPARE(bool(target), valid);
        if (valid)
            QCOMPARE(target->toString(), text);
    }

    void validationFindsEveryProblem()
    {
        QTemporaryDir source;
        QFile script(source.filePath(u"train.py"_s));
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.close();
        RunSpec spec;
        spec.script = u"train.py"_s;
        spec.sourceDir = source.path();
        spec.channels = {{u"Training Data"_s, source.path()}, {u"test"_s, source.filePath(u"missing"_s)}};
        spec.hyperparameters = {{u"lr"_s, u"1"_s}, {u"lr"_s, u"2"_s}, {u"1bad"_s, u"x"_s}};
        const QList<ferry::Error> errors = validateRunSpec(spec);
        QCOMPARE(errors.size(), 4);
        spec.script = u"nope.py"_s;
        QCOMPARE(validateRunSpec(spec).size(), 5);
    }
};

FERRY_TEST_APPLESS_MAIN(TestContract)
#include "tst_contract.moc"
