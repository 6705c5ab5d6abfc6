// `ferry env` as a user runs it.
#include "support/cli.h"
#include "support/corpus.h"
#include "support/env.h"
#include "support/files.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::test::readFile;

namespace {

using Result = ferry::test::CliResult;

Result runCli(const QStringList &arguments, const QString &workingDir = {})
{
    return ferry::test::runFerry(workingDir, arguments, 120000);
}

} // namespace

class TestEnvCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void importWritesAFerryEnvironment()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(u"environments/nested.yml"_s);
        QVERIFY(QDir().mkpath(dir.filePath(u"environments"_s)));
        const Result r =
            runCli({u"env"_s, u"import"_s, ferry::test::dataPath(u"conda/nested-pip.yml"_s), u"-o"_s, out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.contains(u"wrote "_s + out));
        const Result check = runCli({u"env"_s, u"check"_s, out});
        QVERIFY2(check.exitCode == 0, qPrintable(check.err));
        QVERIFY(check.out.startsWith(out + u": ok"_s));
    }

    // What a kernel that lacks ipykernel is offered: the package added as a new version, the
    // earlier one kept, the change named; one named already changes nothing; a bad line is refused.
    void addMakesANewVersion()
    {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath(u"environments"_s)));
        const QString env = dir.filePath(u"environments/demo.yml"_s);
        QFile file(env);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("name: demo\nversion: 1\npython:\n  interpreter: python3\n  pip:\n    - numpy\n");
        file.close();
        const Result added = runCli({u"env"_s, u"add"_s, env, u"ipykernel"_s, u"NumPy"_s});
        QVERIFY2(added.exitCode == 0, qPrintable(added.err));
        QVERIFY2(added.out.contains(u"version 1 -> 2"_s) && added.out.contains(u"added pip ipykernel"_s),
                 qPrintable(added.out));
        QVERIFY(added.err.contains(u"NumPy is there already"_s));
        const QByteArray text = readFile(env);
        QVERIFY(text.contains("- ipykernel") && text.contains("version: \"2\""));
        QVERIFY(readFile(dir.filePath(u"environments/.versions/demo/1.yml"_s)).contains("- numpy"));
        const Result again = runCli({u"env"_s, u"add"_s, env, u"ipykernel"_s});
        QCOMPARE(again.exitCode, 0);
        QVERIFY(again.out.isEmpty());
        QCOMPARE(readFile(env), text);
        const Result bad = runCli({u"env"_s, u"add"_s, env, u"not a requirement!"_s});
        QCOMPARE(bad.exitCode, 1);
        QCOMPARE(readFile(env), text);
    }

    void checkListsEveryError()
    {
        const QString file = ferry::test::dataPath(u"ferry/errors.yml"_s);
        const Result r = runCli({u"env"_s, u"check"_s, file});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.count(u": error: "_s) >= 5, qPrintable(r.err));
        QVERIFY(r.err.contains(file + u":7:8: error: gpu must be auto, on or off"_s));
    }

    void hashIsStableAndMachineReadable()
    {
        const QString file = ferry::test::dataPath(u"ferry/full.yml"_s);
        const Result plain = runCli({u"env"_s, u"hash"_s, file});
        QCOMPARE(plain.exitCode, 0);
        const Result json = runCli({u"env"_s, u"hash"_s, file, u"--json"_s});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject object = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QString hash = object[u"hash"_s].toString();
        QCOMPARE(hash.size(), 64);
        QCOMPARE(plain.out, hash + u"  mnist-3-"_s + hash.left(8) + u'\n');
        QCOMPARE(object[u"image"_s].toString(), u"ferry:mnist-3-"_s + hash.left(8));
        QVERIFY(object[u"canonical"_s].toObject().contains(u"pip"_s));
    }

    void exportEveryFormat_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expected");
        QTest::newRow("conda") << u"conda"_s << u"dependencies:"_s;
        QTest::newRow("pip") << u"pip"_s << u"torch==2.1.0"_s;
        QTest::newRow("azureml-v1") << u"azureml-v1"_s << u"\"condaDependencies\""_s;
        QTest::newRow("azureml-v2") << u"azureml-v2"_s << u"conda_file: mnist.conda.yml"_s;
        QTest::newRow("dockerfile") << u"dockerfile"_s << u"FROM myregistry.azurecr.io/python:3.11-slim AS runtime"_s;
        QTest::newRow("devcontainer") << u"devcontainer"_s << u"\"dockerfile\": \"Dockerfile\""_s;
        QTest::newRow("ferry") << u"ferry"_s << u"ferry: 1"_s;
    }
    void exportEveryFormat()
    {
        QFETCH(QString, format);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath(u"wheels"_s)));
        QVERIFY(QDir().mkpath(dir.filePath(u"environments"_s)));
        const QString env = dir.filePath(u"environments/mnist.yml"_s);
        QVERIFY(QFile::copy(ferry::test::dataPath(u"ferry/full.yml"_s), env));
        const Result r = runCli({u"env"_s, u"export"_s, env, u"--format"_s, format});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(expected), qPrintable(r.out));
    }

    void exportDevcontainerWritesTheFolder()
    {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath(u"wheels"_s)));
        QFile wheel(dir.filePath(u"wheels/x-1.0-py3-none-any.whl"_s));
        QVERIFY(wheel.open(QIODevice::WriteOnly));
        wheel.close();
        QVERIFY(QDir().mkpath(dir.filePath(u"environments"_s)));
        const QString env = dir.filePath(u"environments/mnist.yml"_s);
        QVERIFY(QFile::copy(ferry::test::dataPath(u"ferry/full.yml"_s), env));
        const Result r = runCli(
            {u"env"_s, u"export"_s, env, u"--format"_s, u"devcontainer"_s, u"-o"_s, dir.filePath(u".devcontainer"_s)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const QString &file :
             {u"devcontainer.json"_s, u"Dockerfile"_s, u"wheelhouse/wheels/x-1.0-py3-none-any.whl"_s})
            QVERIFY2(QFile::exists(dir.filePath(u".devcontainer/"_s + file)), qPrintable(file));
        // The dependency files are written by the Dockerfile's own steps, not copied beside it.
        for (const QString &file :
             {u"environment.yml"_s, u"requirements.txt"_s, u"constraints.txt"_s, u"dev-requirements.txt"_s})
            QVERIFY2(!QFile::exists(dir.filePath(u".devcontainer/"_s + file)), qPrintable(file));
    }

    // hi-ml's `name: AzureML_SDK` (issue 15): imported as written, and every export works.
    void corpusNameWithCapitalsExports()
    {
        QTemporaryDir dir;
        const QString env = dir.filePath(u"hi-ml.yml"_s);
        const QString corpus = corpusPath(u"env/conda/hi-ml_azureml-env_CRLF.yml"_s);
        const Result imported = runCli({u"env"_s, u"import"_s, corpus, u"-o"_s, env});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        QVERIFY2(!imported.err.contains(u"not a valid environment name"_s), qPrintable(imported.err));
        QVERIFY(readFile(env).contains("\nname: AzureML_SDK\n"));
        for (const QString &format :
             {u"ferry"_s, u"conda"_s, u"pip"_s, u"azureml-v1"_s, u"azureml-v2"_s, u"dockerfile"_s, u"devcontainer"_s}) {
            const Result exported =
                runCli({u"env"_s, u"export"_s, env, u"--format"_s, format, u"-o"_s, dir.filePath(u"out-"_s + format)});
            QVERIFY2(exported.exitCode == 0, qPrintable(format + u": "_s + exported.err));
        }
        const Result hash = runCli({u"env"_s, u"hash"_s, env});
        QVERIFY2(hash.exitCode == 0 && hash.out.contains(u"  azureml_sdk-1-"_s), qPrintable(hash.out + hash.err));
    }

    // An AzureML job's inline environment imports; a registered one or none says what to do.
    void importsWhatAnAzureMlJobHolds_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("inline, conda file beside it") << ferry::test::dataPath(u"azureml-jobs/tiny-job.yml"_s) << 0
                                                      << u"its environment is imported, not its command"_s;
        QTest::newRow("corpus: inline image") << corpusPath(u"env/azureml/v2_job_hello-world-env-var.yml"_s) << 0
                                              << u"its environment is imported, not its command"_s;
        QTest::newRow("corpus: registered")
            << corpusPath(u"env/azureml/v2_job_pytorch_word-language-model.yml"_s) << 1
            << u"error: the job's environment azureml:AzureML-acpt-pytorch-2.8-cuda12.6@latest is registered in "
               "AzureML"_s;
        QTest::newRow("none") << ferry::test::dataPath(u"azureml-jobs/no-environment.yml"_s) << 1
                              << u"error: this AzureML job holds no environment"_s;
        QTest::newRow("v1 inference config") << ferry::test::dataPath(u"azureml-jobs/inferenceconfig.json"_s) << 0
                                             << u"its environment is imported, not entryScript"_s;
    }
    void importsWhatAnAzureMlJobHolds()
    {
        QFETCH(QString, file);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString out = dir.filePath(u"env.yml"_s);
        const Result r = runCli({u"env"_s, u"import"_s, file, u"-o"_s, out});
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        if (exitCode == 0) {
            const Result check = runCli({u"env"_s, u"check"_s, out});
            QVERIFY2(check.exitCode == 0, qPrintable(check.err));
            QVERIFY(readFile(out).contains("base_image: "));
        }
    }

    // `-r URL [--no-deps]` in a conda pip list (azureml-examples' AutoML environment): pip
    // ignores the stray word, so does the import, with a warning.
    void condaPipListWithAStrayWord()
    {
        QTemporaryDir dir;
        QFile conda(dir.filePath(u"environment.yml"_s));
        QVERIFY(conda.open(QIODevice::WriteOnly));
        conda.write("name: automl\ndependencies:\n  - python=3.9\n  - pip:\n    - azureml-defaults~=1.55.0\n"
                    "    - -r https://example.com/validated_requirements.txt [--no-deps]\n");
        conda.close();
        const QString out = dir.filePath(u"automl.yml"_s);
        const Result r = runCli({u"env"_s, u"import"_s, conda.fileName(), u"-o"_s, out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(u"warning: '[--no-deps]' after the options is ignored"_s), qPrintable(r.err));
        const Result check = runCli({u"env"_s, u"check"_s, out});
        QVERIFY2(check.exitCode == 0, qPrintable(check.err));
    }

    // `ferry run --from-azureml`: the job runs here, on the local target, as its command says.
    void runsAnAzureMlJobHere()
    {
        QTemporaryDir workspace;
        const QString job = ferry::test::dataPath(u"azureml-jobs/tiny-job.yml"_s);
        const Result cluster = runCli({u"run"_s, u"--from-azureml"_s, job, u"--workspace"_s, workspace.path()});
        QCOMPARE(cluster.exitCode, 1);
        QVERIFY2(cluster.err.contains(u"the job runs on the AzureML compute 'azureml:cpu-cluster'"_s),
                 qPrintable(cluster.err));

        const Result r = runCli({u"run"_s, u"--from-azureml"_s, job, u"--target"_s, u"local"_s, u"--hp"_s,
                                 u"epochs=3"_s, u"--workspace"_s, workspace.path(), u"--follow"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QDirIterator found(workspace.filePath(u".ferry/runs"_s), {u"seen.json"_s}, QDir::Files,
                           QDirIterator::Subdirectories);
        QVERIFY2(found.hasNext(), qPrintable(r.err));
        const QJsonObject seen = QJsonDocument::fromJson(readFile(found.next())).object();
        const QJsonObject args = seen[u"args"_s].toObject();
        QCOMPARE(args[u"epochs"_s].toInt(), 3);
        QCOMPARE(args[u"lr"_s].toDouble(), 0.5);
        QCOMPARE(args[u"data"_s].toString(), ferry::test::dataPath(u"azureml-jobs/data"_s));
        QCOMPARE(args[u"seed"_s].toInt(), -1); // an optional input the job does not give
        QCOMPARE(args[u"tag"_s].toString(), u"tiny Tiny"_s);
        QVERIFY(args[u"verbose"_s].toBool());
        QCOMPARE(seen[u"files"_s].toArray().first().toString(), u"values.csv"_s);
        QCOMPARE(seen[u"channel"_s].toString(), ferry::test::dataPath(u"azureml-jobs/data"_s));
        QCOMPARE(seen[u"hps"_s].toObject()[u"epochs"_s].toInt(), 3);
        QCOMPARE(seen[u"mode"_s].toString(), u"fast"_s); // the job's environment_variables
        QVERIFY2(r.out.contains(u"\"loss\": 0.5"_s) || r.err.contains(u"\"loss\": 0.5"_s), qPrintable(r.out));
    }

    void userErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no action") << QStringList{u"env"_s} << u"ferry env: say what to do"_s;
        QTest::newRow("bad action") << QStringList{u"env"_s, u"frob"_s} << u"unknown action 'frob'"_s;
        QTest::newRow("no format") << QStringList{u"env"_s, u"export"_s, ferry::test::dataPath(u"ferry/full.yml"_s)}
                                   << u"give --format"_s;
        QTest::newRow("bad format") << QStringList{u"env"_s, u"export"_s, ferry::test::dataPath(u"ferry/full.yml"_s),
                                                   u"--format"_s, u"toml"_s}
                                    << u"unknown format 'toml'"_s;
        QTest::newRow("missing file") << QStringList{u"env"_s, u"check"_s, u"/nonexistent/env.yml"_s}
                                      << u"/nonexistent/env.yml: error: no such file"_s;
        QTest::newRow("import nothing") << QStringList{u"env"_s, u"import"_s} << u"name the file(s) to import"_s;
    }
    void userErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const Result r = runCli(arguments);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

FERRY_TEST_GUILESS_MAIN(TestEnvCli)
#include "tst_envcli.moc"
