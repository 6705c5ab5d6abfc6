// `ferry run --from-azureml` (issue 15): an AzureML command job as a run spec — the code folder,
// the script and its arguments, literal inputs as hyperparameters, path inputs as channels with
// their placeholders filled for the target, and what only AzureML can resolve asked for.
#include "cloud/azuremlrun.h"
#include "support/env.h"
#include "support/files.h"
#include "support/testmain.h"

#include "run/distribution.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::corpusPath;
using ferry::test::dataPath;

namespace {

cloud::AzureMlRunRequest request(const QString &target = u"local"_s)
{
    cloud::AzureMlRunRequest r;
    r.jobFile = dataPath(u"azureml-jobs/tiny-job.yml"_s);
    r.target = *run::TargetSpec::parse(target);
    r.targetChosen = true;
    return r;
}

QStringList hyperparameters(const run::RunSpec &spec)
{
    QStringList out;
    for (const run::Hyperparameter &hp : spec.hyperparameters)
        out << hp.name + u'=' + hp.value;
    return out;
}

QString message(const Expected<cloud::AzureMlRunDraft> &draft)
{
    return draft ? QString() : draft.error().message + u" | "_s + draft.error().hint;
}

} // namespace

class TestAzureMlRun : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aLocalRun()
    {
        const auto draft = cloud::runFromAzureMlJob(request());
        QVERIFY2(draft, qPrintable(message(draft)));
        const run::RunSpec &spec = draft->spec;
        const QString data = dataPath(u"azureml-jobs/data"_s);
        QCOMPARE(spec.sourceDir, dataPath(u"azureml-jobs/src"_s));
        QCOMPARE(spec.script, u"train.py"_s);
        QVERIFY(spec.interpreter.startsWith(u"python"_s));
        QCOMPARE(spec.arguments, (QStringList{u"--data"_s, data, u"--tag"_s, u"tiny Tiny"_s, u"--verbose"_s}));
        QCOMPARE(hyperparameters(spec), (QStringList{u"epochs=2"_s, u"lr=0.5"_s}));
        QCOMPARE(spec.channels, (QList<run::DataChannel>{{u"training"_s, data}}));
        QCOMPARE(spec.environmentFile, dataPath(u"azureml-jobs/tiny-job.yml"_s)); // its inline environment
        QCOMPARE(spec.target.kind, run::TargetKind::Local);
        QCOMPARE(draft->warnings.size(), 2); // two instances; input `unused`
        QVERIFY(draft->warnings.at(1).where.message.startsWith(u"input unused is not in the command"_s));
    }

    // Inside a container the data is at the contract's path.
    void aContainerRun()
    {
        const auto draft = cloud::runFromAzureMlJob(request(u"container"_s));
        QVERIFY2(draft, qPrintable(message(draft)));
        QCOMPARE(draft->spec.arguments.mid(0, 2), (QStringList{u"--data"_s, u"/opt/ml/input/data/training"_s}));
        QCOMPARE(draft->spec.interpreter, u"python"_s); // the image's, as the job says
    }

    void anSshRunCannotFillADataPath()
    {
        const auto draft = cloud::runFromAzureMlJob(request(u"ssh:gpu-box"_s));
        QVERIFY(!draft);
        QVERIFY2(message(draft).startsWith(u"the command passes input training by its path, which an ssh:gpu-box run "
                                           "knows only on the host | run it with --target local or container"_s),
                 qPrintable(message(draft)));
    }

    // --hp and --data set the job's inputs of their names; others are added.
    void hpAndDataSetTheInputs()
    {
        cloud::AzureMlRunRequest r = request();
        const QString other = dataPath(u"azureml-jobs/src"_s);
        r.hyperparameters = {{u"epochs"_s, u"7"_s}, {u"seed"_s, u"3"_s}, {u"momentum"_s, u"0.9"_s}};
        r.channels = {{u"training"_s, other}, {u"extra"_s, other}};
        const auto draft = cloud::runFromAzureMlJob(r);
        QVERIFY2(draft, qPrintable(message(draft)));
        QCOMPARE(hyperparameters(draft->spec),
                 (QStringList{u"epochs=7"_s, u"lr=0.5"_s, u"seed=3"_s, u"momentum=0.9"_s}));
        QCOMPARE(draft->spec.arguments.mid(0, 2), (QStringList{u"--data"_s, other}));
        QCOMPARE(draft->spec.channels, (QList<run::DataChannel>{{u"training"_s, other}, {u"extra"_s, other}}));
    }

    // A PyTorch job across instances (issue 20): on Slurm a run across as many nodes with the
    // job's processes on each, unless --nodes says otherwise; elsewhere one process, warned.
    void aDistributedJobOnSlurm()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkpath(u"src"_s));
        test::writeFileOrStop(dir.filePath(u"src/train.py"_s), "print('hi')\n");
        test::writeFileOrStop(dir.filePath(u"job.yml"_s),
                              "code: src\ncommand: python train.py --epochs ${{inputs.epochs}}\n"
                              "inputs: {epochs: 3}\nenvironment: {image: python:3.11}\n"
                              "compute: azureml:gpu\nresources: {instance_count: 2}\n"
                              "distribution: {type: pytorch, process_count_per_instance: 4}\n");
        cloud::AzureMlRunRequest r = request(u"slurm:cluster"_s);
        r.jobFile = dir.filePath(u"job.yml"_s);
        r.target.options.insert(run::kGpusPerNodeOption, 4);
        const auto draft = cloud::runFromAzureMlJob(r);
        QVERIFY2(draft, qPrintable(message(draft)));
        QVERIFY2(draft->warnings.isEmpty(), qPrintable(draft->warnings.value(0).toString()));
        const auto distribution = run::Distribution::of(draft->spec.target);
        QVERIFY(distribution);
        QCOMPARE(distribution->nodes, 2);
        QCOMPARE(distribution->tasksPerNode, 4);
        QCOMPARE(distribution->gpusPerNode, 4); // the command line's, kept

        r.target.options.insert(run::kNodesOption, 3); // --nodes 3: the command line's own
        const auto given = cloud::runFromAzureMlJob(r);
        QVERIFY(given);
        QCOMPARE(run::Distribution::of(given->spec.target)->nodes, 3);
        QCOMPARE(run::Distribution::of(given->spec.target)->tasksPerNode, 1);

        r.target = *run::TargetSpec::parse(u"local"_s);
        const auto local = cloud::runFromAzureMlJob(r);
        QVERIFY(local);
        QVERIFY(!run::Distribution::of(local->spec.target)->isDistributed());
        QCOMPARE(local->warnings.size(), 1);
        QCOMPARE(local->warnings[0].where.message, u"the job asks for 2 instances; the run is one process"_s);
        QVERIFY2(local->warnings[0].where.hint.contains(u"--target slurm:HOST"_s),
                 qPrintable(local->warnings[0].where.hint));
    }

    void whatOnlyAzureMlKnows_data()
    {
        QTest::addColumn<QString>("job");
        QTest::addColumn<bool>("targetChosen");
        QTest::addColumn<bool>("localEnvironment");
        QTest::addColumn<QString>("problem");
        QTest::newRow("a cluster")
            << dataPath(u"azureml-jobs/tiny-job.yml"_s) << false << false
            << u"the job runs on the AzureML compute 'azureml:cpu-cluster', which Ferry cannot "
               "use | choose where to run it: --target local, container, ssh:HOST or slurm:HOST"_s;
        const QString corpus = corpusPath(u"env/azureml/v2_job_pytorch_word-language-model.yml"_s);
        QTest::newRow("a registered environment")
            << corpus << true << false
            << u"the job's environment azureml:AzureML-acpt-pytorch-2.8-cuda12.6@latest is registered in AzureML: "
               "Ferry cannot read it offline | give a local environment with --env ENV.yml"_s;
        // With both given, what is left is the job's own code folder, which is not in the corpus.
        QTest::newRow("its code folder") << corpus << true << true
                                         << u"the job's code folder %1 is not a folder here"_s.arg(
                                                QFileInfo(corpus).absolutePath() + u"/src"_s);
        QTest::newRow("not a Python script")
            << corpusPath(u"env/azureml/v2_job_hello-world-env-var.yml"_s) << true << false
            << u"the command 'echo $hello_env_var' does not start a Python script"_s;
    }
    void whatOnlyAzureMlKnows()
    {
        QFETCH(QString, job);
        QFETCH(bool, targetChosen);
        QFETCH(bool, localEnvironment);
        QFETCH(QString, problem);
        cloud::AzureMlRunRequest r = request();
        r.jobFile = job;
        r.targetChosen = targetChosen;
        r.localEnvironment = localEnvironment;
        const auto draft = cloud::runFromAzureMlJob(r);
        QVERIFY2(message(draft).startsWith(problem), qPrintable(message(draft)));
    }
};

FERRY_TEST_APPLESS_MAIN(TestAzureMlRun)
#include "tst_azuremlrun.moc"
