// AzureML command jobs and inference configs as environment files (issue 15): the environment
// they hold is imported (the conda file found beside the job), a registered one or none is an
// error saying what to import instead; and the command's placeholders and words as a run takes
// them. The corpus files are azureml-examples' own (../shared/corpus/env/azureml).
#include "common/textfile.h"
#include "env/azuremlcommandjob.h"
#include "env/formats.h"
#include "support/env.h"
#include "support/testmain.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::env;
using ferry::test::corpusPath;
using ferry::test::dataPath;
using ferry::test::describe;

namespace {

QString firstError(const Diagnostics &diagnostics)
{
    for (const Diagnostic &d : diagnostics)
        if (d.isError())
            return d.where.message + u" | "_s + d.where.hint;
    return {};
}

} // namespace

class TestAzureMlCommandJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsTheJob()
    {
        const AzureMlCommandJob job = readAzureMlCommandJob(dataPath(u"azureml-jobs/tiny-job.yml"_s));
        QVERIFY2(!hasErrors(job.diagnostics), qPrintable(describe(job.diagnostics)));
        QCOMPARE(job.codeDir, dataPath(u"azureml-jobs/src"_s));
        QVERIFY(job.command.startsWith(u"python train.py --epochs ${{inputs.epochs}} --lr=${{inputs.lr}}"_s));
        QCOMPARE(job.inputs.size(), 5);
        QCOMPARE(job.input(u"epochs"_s)->value, u"2"_s);
        QVERIFY(!job.input(u"epochs"_s)->isPath());
        const AzureMlJobInput *training = job.input(u"training"_s);
        QVERIFY(training && training->isPath() && !training->isRemote());
        QCOMPARE(training->path, dataPath(u"azureml-jobs/data"_s));
        QCOMPARE(training->type, u"uri_folder"_s);
        QCOMPARE(job.compute, u"azureml:cpu-cluster"_s);
        QVERIFY(job.hasClusterCompute());
        QCOMPARE(job.instanceCount, 2);
        QVERIFY(job.environmentReference.isEmpty());
        QVERIFY(job.environment);
    }

    // `ferry env import job.yml`: the inline environment, its conda file read beside the job.
    void importsTheInlineEnvironment()
    {
        const QString path = dataPath(u"azureml-jobs/tiny-job.yml"_s);
        QCOMPARE(detectFormat(path, *ferry::readTextFile(path)), Format::AzureMlV2);
        const EnvironmentRead read = readEnvironment(path);
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        const Environment &env = read.environment;
        QCOMPARE(env.name, u"tiny-job"_s); // from display_name: the job names no environment
        QCOMPARE(env.docker.baseImage, u"mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04"_s);
        QCOMPARE(env.python.version, u"3.11"_s);
        QCOMPARE(env.python.channels, QStringList{u"conda-forge"_s});
        QCOMPARE(env.python.pipRequirements.size(), 1);
        QCOMPARE(env.variables, (QList<std::pair<QString, QString>>{{u"TINY_MODE"_s, u"fast"_s}}));
        QVERIFY(!env.extra.is_object() || !env.extra.contains("x-azureml-v2")); // the job's keys are no environment
        QVERIFY(describe(read.diagnostics).contains(u"its environment is imported, not its command"_s));
    }

    void corpusJobs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("image");   // the imported base image; empty: an error
        QTest::addColumn<QString>("problem"); // the error (message | hint), when there is one
        QTest::newRow("hello world, inline image")
            << u"env/azureml/v2_job_hello-world-env-var.yml"_s << u"library/python:latest"_s << QString();
        QTest::newRow("word language model, registered environment")
            << u"env/azureml/v2_job_pytorch_word-language-model.yml"_s << QString()
            << u"the job's environment azureml:AzureML-acpt-pytorch-2.8-cuda12.6@latest is registered in AzureML: "
               "Ferry cannot read it offline | import the environment's own file"_s;
    }
    void corpusJobs()
    {
        QFETCH(QString, file);
        QFETCH(QString, image);
        QFETCH(QString, problem);
        const EnvironmentRead read = readEnvironment(corpusPath(file));
        if (image.isEmpty()) {
            QVERIFY2(firstError(read.diagnostics).startsWith(problem), qPrintable(describe(read.diagnostics)));
            return;
        }
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        QCOMPARE(read.environment.docker.baseImage, image);
        QCOMPARE(read.environment.variables.value(0).first, u"hello_env_var"_s);
    }

    void aJobWithoutEnvironmentSaysSo()
    {
        const EnvironmentRead read = readEnvironment(dataPath(u"azureml-jobs/no-environment.yml"_s));
        QCOMPARE(firstError(read.diagnostics),
                 u"this AzureML job holds no environment | add environment: with image: and conda_file: to the job, "
                 "or import the environment file it uses"_s);
    }

    // An AzureML v1 inference config nests its environment.
    void inferenceConfig()
    {
        const EnvironmentRead read = readEnvironment(dataPath(u"azureml-jobs/inferenceconfig.json"_s));
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        const Environment &env = read.environment;
        QCOMPARE(env.name, u"tiny-inference"_s);
        QCOMPARE(env.version, u"2"_s);
        QCOMPARE(env.docker.shmSize, u"1g"_s);
        QCOMPARE(env.python.version, u"3.10"_s);
        QCOMPARE(env.python.condaDependencies.value(0).name, u"scikit-learn"_s);
        QCOMPARE(env.variables.value(0).first, u"MODEL_NAME"_s);
        QVERIFY(
            describe(read.diagnostics).contains(u"its environment is imported, not entryScript, sourceDirectory"_s));

        const EnvironmentRead none = readEnvironment(dataPath(u"azureml-jobs/inferenceconfig-no-environment.json"_s));
        QCOMPARE(firstError(none.diagnostics), u"this AzureML inference config holds no \"environment\" | import its "
                                               "conda file instead: ferry env import myenv.yml"_s);
    }

    void placeholders_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("expected"); // or "error: MESSAGE"
        QTest::newRow("inputs") << u"python t.py --epochs ${{inputs.epochs}} --data ${{ inputs.data }}"_s
                                << u"python t.py --epochs 10 --data /d"_s;
        QTest::newRow("inside a word") << u"--tag=run-${{inputs.epochs}}x"_s << u"--tag=run-10x"_s;
        QTest::newRow("optional given") << u"a $[[--lr ${{inputs.lr}}]] b"_s << u"a --lr 0.1 b"_s;
        QTest::newRow("optional missing") << u"a $[[--seed ${{inputs.seed}}]] b"_s << u"a  b"_s;
        QTest::newRow("missing input") << u"--seed ${{inputs.seed}}"_s
                                       << u"error: the command uses ${{inputs.seed}}, which has no value"_s;
        QTest::newRow("output") << u"--save ${{outputs.model}}"_s
                                << u"error: the command uses ${{outputs.model}}: Ferry fills only ${{inputs.NAME}}"_s;
        QTest::newRow("nothing to fill") << u"python t.py"_s << u"python t.py"_s;
    }
    void placeholders()
    {
        QFETCH(QString, command);
        const QMap<QString, QString> values{{u"epochs"_s, u"10"_s}, {u"data"_s, u"/d"_s}, {u"lr"_s, u"0.1"_s}};
        const auto filled = fillAzureMlPlaceholders(command, values);
        QTEST(filled ? *filled : u"error: "_s + filled.error().message, "expected");
    }

    void commands_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("script");
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("hyperparameters"); // NAME=VALUE; for an error, the message
        QTest::newRow("pairs become hyperparameters")
            << u"python main.py --cuda --epochs ${{inputs.epochs}} --lr=${{inputs.lr}} --data ${{inputs.corpus}}"_s
            << u"main.py"_s << QStringList{u"--cuda"_s, u"--data"_s, u"/data/corpus"_s}
            << QStringList{u"epochs=1"_s, u"lr=5"_s};
        QTest::newRow("quotes and -u") << u"python3 -u 'my script.py' --name \"a ${{inputs.model}}\" \\\n --x"_s
                                       << u"my script.py"_s << QStringList{u"--name"_s, u"a Transformer"_s, u"--x"_s}
                                       << QStringList();
        QTest::newRow("a literal used alone")
            << u"python t.py ${{inputs.model}}"_s << u"t.py"_s << QStringList{u"Transformer"_s} << QStringList();
        QTest::newRow("not python") << u"echo hello"_s << QString() << QStringList()
                                    << QStringList{u"the command 'echo hello' does not start a Python script"_s};
        QTest::newRow("a module") << u"python -m torch.distributed.run t.py"_s << QString() << QStringList()
                                  << QStringList{u"the command 'python -m torch.distributed.run t.py' names no script "
                                                 "file"_s};
        QTest::newRow("a list") << u"python t.py && python u.py"_s << QString() << QStringList()
                                << QStringList{
                                       u"the command holds '&': a list, pipeline or redirection needs a shell"_s};
        QTest::newRow("a pipeline") << u"python t.py | tee log"_s << QString() << QStringList()
                                    << QStringList{
                                           u"the command holds '|': a list, pipeline or redirection needs a shell"_s};
        QTest::newRow("a variable") << u"python t.py --x $HOME"_s << QString() << QStringList()
                                    << QStringList{u"the command expands $HOME: a variable or command substitution "
                                                   "needs a shell"_s};
        QTest::newRow("two lines") << u"python a.py\npython b.py\n"_s << QString() << QStringList()
                                   << QStringList{u"the command holds more than one line"_s};
        QTest::newRow("one line and its newline") << u"python a.py\n"_s << u"a.py"_s << QStringList() << QStringList();
    }
    void commands()
    {
        QFETCH(QString, command);
        QFETCH(QString, script);
        const QMap<QString, QString> literals{{u"epochs"_s, u"1"_s}, {u"lr"_s, u"5"_s}, {u"model"_s, u"Transformer"_s}};
        const QMap<QString, QString> paths{{u"corpus"_s, u"/data/corpus"_s}};
        const auto split = splitAzureMlCommand(command, literals, paths);
        if (script.isEmpty()) {
            QVERIFY(!split);
            QTEST(QStringList{split.error().message}, "hyperparameters");
            return;
        }
        QVERIFY2(split, qPrintable(split ? QString() : split.error().message));
        QCOMPARE(split->script, script);
        QTEST(split->arguments, "arguments");
        QStringList hps;
        for (const auto &[name, value] : split->hyperparameters)
            hps << name + u'=' + value;
        QTEST(hps, "hyperparameters");
    }
};

FERRY_TEST_APPLESS_MAIN(TestAzureMlCommandJob)
#include "tst_azuremlcommandjob.moc"
