// conda, AzureML v1/v2 and requirements.txt: what each import gives, round trips in every
// format, merging, format detection, and bad input that must fail cleanly.
#include "env/azureml.h"
#include "env/exportwriter.h"
#include "env/formats.h"
#include "support/env.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ferry::env;
using ferry::test::dataPath;
using ferry::test::describe;

namespace {

QStringList condaNames(const Environment &env)
{
    QStringList names;
    for (const MatchSpec &spec : env.python.condaDependencies)
        names << spec.name;
    return names;
}

QStringList pipNames(const Environment &env)
{
    QStringList names;
    for (const PipRequirement &r : env.python.pipRequirements)
        names << (r.kind == PipRequirement::Kind::Requirement ? r.requirement.name : r.text);
    return names;
}

// Exports into a temporary folder and reads the main file back.
EnvironmentRead exportAndReadBack(const Environment &env, Format format, const QString &dir, const QString &mainName)
{
    Export exported = exportEnvironment(env, format, dir, mainName);
    exported.files.first().name = mainName;
    const auto written = writeGeneratedFiles(exported.files, dir);
    if (!written)
        qFatal("cannot write: %s", qPrintable(written.error().toString()));
    return readEnvironment(QDir(dir).filePath(mainName));
}

} // namespace

class TestEnvFormats : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A dropped file lands in environments/ under a clean name that is not taken yet.
    void importIntoAFolder()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(u"My Env.txt"_s);
        QFile file(source);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write("numpy==1.26.0\n") > 0);
        file.close();
        const QString folder = dir.filePath(u"environments"_s);
        const auto first = importEnvironmentsInto({source}, folder);
        QVERIFY2(first, first ? "" : qPrintable(first.error().toString()));
        QCOMPARE(first->path, folder + u"/my-env.yml"_s);
        QCOMPARE(first->environment.name, u"my-env"_s);
        QVERIFY(readEnvironment(first->path).environment.python.pipRequirements.size() == 1);
        const auto second = importEnvironmentsInto({source}, folder);
        QVERIFY(second);
        QCOMPARE(second->path, folder + u"/my-env-2.yml"_s);
        QCOMPARE(environmentNameFromPath(u"/x/--Odd__Name!.yml"_s), u"odd__name-"_s);
        QCOMPARE(environmentNameFromPath(u"/x/___.yml"_s), u"environment"_s);
    }

    void imports_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("python");
        QTest::addColumn<QStringList>("channels");
        QTest::addColumn<QStringList>("conda");
        QTest::addColumn<QStringList>("pip");
        QTest::addColumn<int>("variables");
        QTest::addColumn<int>("warnings");

        QTest::newRow("conda basic") << u"conda/basic.yml"_s << u"mnist"_s << u"3.10"_s
                                     << QStringList{u"pytorch"_s, u"conda-forge"_s, u"defaults"_s}
                                     << QStringList{u"numpy"_s, u"pytorch"_s, u"torchvision"_s} << QStringList{} << 0
                                     << 0;
        QTest::newRow("conda nested pip")
            << u"conda/nested-pip.yml"_s << u"nested"_s << u"3.11"_s << QStringList{u"conda-forge"_s} << QStringList{}
            << QStringList{u"torch"_s, u"requests"_s, u"fastapi"_s,
                           u"-e git+https://github.com/org/lib.git@v1.0#egg=lib"_s, u"${PRIVATE_INDEX_PKG}"_s}
            << 2 << -1;
        QTest::newRow("conda channel::pkg and builds")
            << u"conda/channel-builds.yml"_s << u"builds"_s << QString() << QStringList{u"conda-forge"_s}
            << QStringList{u"numpy"_s, u"scipy"_s, u"numpy"_s, u"libblas"_s, u"cudatoolkit"_s} << QStringList{} << 0
            << 0;
        QTest::newRow("conda CRLF") << u"conda/crlf.yml"_s << u"crlf"_s << u"3.9"_s << QStringList{u"conda-forge"_s}
                                    << QStringList{u"pandas"_s} << QStringList{} << 0 << 0;
        QTest::newRow("conda BOM") << u"conda/bom.yml"_s << u"bom"_s << QString() << QStringList{}
                                   << QStringList{u"scikit-learn"_s} << QStringList{} << 0 << 0;
        QTest::newRow("conda prefix dropped")
            << u"conda/prefix.yml"_s << u"exported"_s << QString() << QStringList{u"defaults"_s}
            << QStringList{u"python"_s, u"ca-certificates"_s} << QStringList{} << 0 << 1;
        QTest::newRow("azureml v1") << u"azureml-v1/azureml_environment.json"_s << u"sklearn-env"_s << u"3.8.13"_s
                                    << QStringList{u"anaconda"_s, u"conda-forge"_s} << QStringList{u"numpy"_s}
                                    << QStringList{u"azureml-defaults"_s, u"scikit-learn"_s} << 1 << 0;
        QTest::newRow("azureml v2 + conda file")
            << u"azureml-v2/docker-image-plus-conda.yml"_s << u"docker-image-plus-conda-example"_s << u"3.10"_s
            << QStringList{u"conda-forge"_s} << QStringList{u"numpy"_s, u"pandas"_s}
            << QStringList{u"mlflow"_s, u"azureml-mlflow"_s} << 0 << 0;
        QTest::newRow("azureml v2 build context")
            << u"azureml-v2/docker-build.yml"_s << u"docker-context-example"_s << QString() << QStringList{}
            << QStringList{} << QStringList{} << 0 << 1;
    }
    void imports()
    {
        QFETCH(QString, file);
        QFETCH(QString, name);
        QFETCH(QString, python);
        QFETCH(QStringList, channels);
        QFETCH(QStringList, conda);
        QFETCH(QStringList, pip);
        QFETCH(int, variables);
        QFETCH(int, warnings);
        const EnvironmentRead read = readEnvironment(dataPath(file));
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        if (warnings >= 0)
            QCOMPARE(ferry::test::count(read.diagnostics, Diagnostic::Severity::Warning), warnings);
        QCOMPARE(read.environment.name, name);
        QCOMPARE(read.environment.python.version, python);
        QCOMPARE(read.environment.python.channels, channels);
        QCOMPARE(condaNames(read.environment), conda);
        QCOMPARE(pipNames(read.environment), pip);
        QCOMPARE(read.environment.variables.size(), variables);
    }

    void azureMlV1Details()
    {
        const Environment env = readEnvironment(dataPath(u"azureml-v1/azureml_environment.json"_s)).environment;
        QCOMPARE(env.version, u"3"_s);
        QCOMPARE(env.docker.baseImage, u"mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04:20230509.v1"_s);
        QCOMPARE(env.docker.shmSize, u"2g"_s);
        QCOMPARE(env.docker.runArguments, QStringList{u"--ipc=host"_s});
        QCOMPARE(env.python.interpreterPath, u"python"_s);
        QVERIFY(!env.python.userManaged);
        QVERIFY(env.extra["x-azureml-v1"].contains("spark")); // kept for the way back
    }

    void registryPasswordIsNeverCopied()
    {
        const QString path = dataPath(u"azureml-v1/with-password.json"_s);
        const EnvironmentRead read = readEnvironment(path);
        QVERIFY(!hasErrors(read.diagnostics));
        const QString text = describe(read.diagnostics);
        QVERIFY2(text.contains(path + u":13:13: warning: a registry password is in this file"_s), qPrintable(text));
        QVERIFY(text.contains(u"ferry secret set registry/myregistry.azurecr.io"_s));
        QCOMPARE(read.environment.docker.registry.username, u"ci-bot"_s);
        QVERIFY(read.environment.python.userManaged);
        for (const Format format : {Format::Ferry, Format::Conda, Format::AzureMlV1, Format::AzureMlV2,
                                    Format::Dockerfile, Format::Devcontainer}) {
            const Export exported = exportEnvironment(read.environment, format, QDir::tempPath());
            for (const GeneratedFile &file : exported.files)
                QVERIFY2(!file.text.contains(u"hunter2"_s), qPrintable(formatName(format) + u": "_s + file.name));
        }
    }

    // import → export → import gives an equal model, in the file's own format and in Ferry's.
    void roundTrips_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("mainName");
        const QList<std::pair<QString, QString>> sources{
            {u"conda/basic.yml"_s, u"conda"_s},
            {u"conda/nested-pip.yml"_s, u"conda"_s},
            {u"conda/channel-builds.yml"_s, u"conda"_s},
            {u"conda/crlf.yml"_s, u"conda"_s},
            {u"conda/prefix.yml"_s, u"conda"_s},
            {u"azureml-v1/azureml_environment.json"_s, u"azureml-v1"_s},
            {u"azureml-v1/with-password.json"_s, u"azureml-v1"_s},
            {u"azureml-v2/docker-image-plus-conda.yml"_s, u"azureml-v2"_s},
            {u"azureml-v2/docker-build.yml"_s, u"azureml-v2"_s},
            {u"ferry/full.yml"_s, u"ferry"_s},
        };
        for (const auto &[file, format] : sources) {
            const QString main = format == "azureml-v1"_L1 ? u"azureml_environment.json"_s : u"env.yml"_s;
            QTest::newRow(qPrintable(file + u" as "_s + format)) << file << format << main;
            if (format != "ferry"_L1)
                QTest::newRow(qPrintable(file + u" as ferry"_s)) << file << u"ferry"_s << u"env.yml"_s;
        }
        const QDir requirements(dataPath(u"requirements"_s));
        for (const QString &file : requirements.entryList({u"*.txt"_s}, QDir::Files)) {
            const EnvironmentRead read = readEnvironment(requirements.filePath(file));
            if (hasErrors(read.diagnostics))
                continue; // the bad examples are for tst_requirementsfile
            QTest::newRow(qPrintable(u"requirements/"_s + file + u" as pip"_s))
                << u"requirements/"_s + file << u"pip"_s << u"requirements.txt"_s;
        }
    }
    void roundTrips()
    {
        QFETCH(QString, file);
        QFETCH(QString, format);
        QFETCH(QString, mainName);
        const EnvironmentRead first = readEnvironment(dataPath(file));
        QVERIFY2(!hasErrors(first.diagnostics), qPrintable(describe(first.diagnostics)));
        QTemporaryDir dir;
        const EnvironmentRead second =
            exportAndReadBack(first.environment, *formatFromName(format), dir.path(), mainName);
        QVERIFY2(!hasErrors(second.diagnostics), qPrintable(describe(second.diagnostics)));
        Environment expected = first.environment;
        if (format == "pip"_L1 && expected.name.isEmpty())
            expected.name = second.environment.name;
        if (!(expected == second.environment)) {
            QFile written(dir.filePath(mainName));
            QVERIFY(written.open(QIODevice::ReadOnly));
            QFAIL(qPrintable(u"round trip changed the model; written:\n"_s + QString::fromUtf8(written.readAll()) +
                             u"\nferry view before:\n"_s + writeEnvironmentYaml(expected) + u"\nafter:\n"_s +
                             writeEnvironmentYaml(second.environment)));
        }
    }

    void utf16WithByteOrderMarkIsRead()
    {
        QTemporaryDir dir;
        QFile file(dir.filePath(u"environment.yml"_s));
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QString text = u"name: wide\ndependencies:\n  - numpy\n"_s;
        file.write("\xFF\xFE");
        file.write(reinterpret_cast<const char *>(text.utf16()), text.size() * 2);
        file.close();
        const EnvironmentRead read = readEnvironment(file.fileName());
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        QCOMPARE(read.environment.name, u"wide"_s);
    }

    // Regressions found by fuzz_azureml_v1 and fuzz_conda_yaml: a number too large for JSON's
    // reader threw instead of being reported; a `$schema` that is not text threw on export.
    void fuzzFindingsAreReportedNotThrown()
    {
        const EnvironmentRead huge = parseAzureMlV1Json(u"{\"version\": 8888e88888888888}"_s, u"a.json"_s);
        QVERIFY(hasErrors(huge.diagnostics));
        QVERIFY(describe(huge.diagnostics).contains(u"out of range"_s));
        const EnvironmentRead v2 = parseAzureMlV2Yaml(u"name: x\n$schema: [1, 2]\nimage: python:3.11\n"_s, u"v2.yml"_s);
        QVERIFY(!hasErrors(v2.diagnostics));
        const QList<GeneratedFile> files = writeAzureMlV2(v2.environment, u"x.conda.yml"_s);
        QVERIFY(files.first().text.contains(u"environment.schema.json"_s));
    }

    void condaYamlLoadsInPyYaml()
    {
        const Environment env = readEnvironment(dataPath(u"conda/nested-pip.yml"_s)).environment;
        const Export exported = exportEnvironment(env, Format::Conda, {});
        QString error;
        const QJsonObject root = ferry::test::loadWithPyYaml(exported.files.first().text, &error).object();
        QVERIFY2(!root.isEmpty(), qPrintable(error));
        QCOMPARE(root[u"name"_s].toString(), u"nested"_s);
        const QJsonArray deps = root[u"dependencies"_s].toArray();
        QCOMPARE(deps.at(0).toString(), u"python=3.11"_s);
        const QJsonArray pip = deps.last().toObject()[u"pip"_s].toArray();
        QVERIFY(pip.contains(u"--find-links ./wheels"_s) || pip.contains(u"-f ./wheels"_s) ||
                pip.contains(u"--find-links=./wheels"_s));
        QCOMPARE(root[u"variables"_s].toObject()[u"TOKENIZERS_PARALLELISM"_s].toString(), u"false"_s);
    }

    void azureMlV2YamlLoadsInPyYaml()
    {
        const Environment env = readEnvironment(dataPath(u"azureml-v2/docker-image-plus-conda.yml"_s)).environment;
        const Export exported = exportEnvironment(env, Format::AzureMlV2, {}, u"pydata.yml"_s);
        QCOMPARE(exported.files.size(), 2);
        QString error;
        const QJsonObject root = ferry::test::loadWithPyYaml(exported.files.first().text, &error).object();
        QVERIFY2(!root.isEmpty(), qPrintable(error));
        QCOMPARE(root[u"version"_s].toString(), u"2"_s); // a string, as AzureML expects
        QCOMPARE(root[u"image"_s].toString(), u"mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04"_s);
        QCOMPARE(root[u"conda_file"_s].toString(), u"pydata.conda.yml"_s);
        QCOMPARE(root[u"tags"_s].toObject()[u"team"_s].toString(), u"vision"_s);
        const QJsonObject conda = ferry::test::loadWithPyYaml(exported.files.at(1).text, &error).object();
        QCOMPARE(conda[u"dependencies"_s].toArray().first().toString(), u"python=3.10"_s);
    }

    void importMergesFiles()
    {
        QTemporaryDir dir;
        QFile requirements(dir.filePath(u"requirements.txt"_s));
        QVERIFY(requirements.open(QIODevice::WriteOnly));
        requirements.write("requests==2.31.0\nmlflow>=2\n");
        requirements.close();
        const EnvironmentRead read =
            importEnvironments({dataPath(u"azureml-v2/docker-image-plus-conda.yml"_s), requirements.fileName()});
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        QCOMPARE(pipNames(read.environment), (QStringList{u"mlflow"_s, u"azureml-mlflow"_s, u"requests"_s}));
        QCOMPARE(read.environment.python.pipRequirements.first().requirement.specifier, u">=2"_s); // later wins
        QVERIFY(describe(read.diagnostics).contains(u"'mlflow>=2' replaces 'mlflow' from an earlier file"_s));
        QCOMPARE(read.environment.docker.baseImage, u"mcr.microsoft.com/azureml/openmpi4.1.0-ubuntu20.04"_s);
    }

    void detectsFormats_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("format");
        QTest::newRow("conda") << u"conda/basic.yml"_s << u"conda"_s;
        QTest::newRow("ferry") << u"ferry/full.yml"_s << u"ferry"_s;
        QTest::newRow("v1") << u"azureml-v1/azureml_environment.json"_s << u"azureml-v1"_s;
        QTest::newRow("v2") << u"azureml-v2/docker-build.yml"_s << u"azureml-v2"_s;
    }
    void detectsFormats()
    {
        QFETCH(QString, file);
        QFETCH(QString, format);
        QFile f(dataPath(file));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto detected = detectFormat(f.fileName(), QString::fromUtf8(f.readAll()));
        QVERIFY(detected);
        QCOMPARE(formatName(*detected), format);
        QCOMPARE(detectFormat(u"requirements-dev.txt"_s, u"x"_s), std::optional(Format::Pip));
    }

    void badInputFailsCleanly_data()
    {
        QTest::addColumn<QString>("file"); // relative to data, or a special name made at test time
        QTest::addColumn<QString>("message");
        QTest::newRow("folder") << u"@folder"_s << u"is a folder, not a file"_s;
        QTest::newRow("missing") << u"@missing"_s << u"no such file"_s;
        QTest::newRow("binary") << u"@binary"_s << u"binary data"_s;
        QTest::newRow("50 MB") << u"@huge"_s << u"too large"_s;
        QTest::newRow("not UTF-8") << u"@latin1"_s << u"not valid UTF-8"_s;
        QTest::newRow("deep yaml") << u"@deep-yaml"_s << u"nested"_s;
        QTest::newRow("pipe") << u"@fifo"_s << u"not a regular file"_s; // reading it would block forever
        QTest::newRow("deep json") << u"@deep-json"_s << u"nested"_s;
        QTest::newRow("unknown kind") << u"@unknown"_s << u"cannot tell which kind of environment file"_s;
        QTest::newRow("empty conda") << u"conda/empty.yml"_s << u"the file is empty"_s;
        QTest::newRow("tabs") << u"conda/tabs.yml"_s << u"conda/tabs.yml:3:"_s;
        QTest::newRow("bad conda spec") << u"conda/bad-spec.yml"_s << u"conda/bad-spec.yml:4:"_s;
        QTest::newRow("bad pip in conda") << u"conda/bad-spec.yml"_s << u"conda/bad-spec.yml:6:"_s;
        QTest::newRow("broken json") << u"azureml-v1/broken.json"_s << u"azureml-v1/broken.json:3:"_s;
        QTest::newRow("missing conda_file")
            << u"azureml-v2/missing-conda.yml"_s
            << u"missing-conda.yml:4:13: error: conda_file 'not-there.yml': no such file"_s;
    }
    void badInputFailsCleanly()
    {
        QFETCH(QString, file);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QString path = dataPath(file);
        auto make = [&](const QString &name, const QByteArray &bytes) {
            path = dir.filePath(name);
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        };
        if (file == "@folder"_L1)
            path = dir.path();
        else if (file == "@missing"_L1)
            path = dir.filePath(u"nope.yml"_s);
        else if (file == "@binary"_L1)
            make(u"env.yml"_s, QByteArray("name: x\n\0\x01\x02", 12));
        else if (file == "@huge"_L1)
            make(u"env.yml"_s, QByteArray(50 * 1024 * 1024, 'a'));
        else if (file == "@latin1"_L1)
            make(u"env.yml"_s, "name: caf\xe9\n");
        else if (file == "@deep-yaml"_L1)
            make(u"env.yml"_s, "ferry: 1\nname: a\nx: " + QByteArray(100000, '[') + QByteArray(100000, ']'));
        else if (file == "@deep-json"_L1)
            make(u"azureml_environment.json"_s, QByteArray(100000, '[') + QByteArray(100000, ']'));
        else if (file == "@fifo"_L1) {
            path = dir.filePath(u"env.yml"_s);
            QCOMPARE(::mkfifo(path.toLocal8Bit().constData(), 0600), 0);
        } else if (file == "@unknown"_L1)
            make(u"env.yml"_s, "colour: blue\n");

        const EnvironmentRead read = readEnvironment(path); // a hang is caught by CTest's timeout
        QVERIFY(hasErrors(read.diagnostics));
        QVERIFY2(describe(read.diagnostics).contains(message), qPrintable(describe(read.diagnostics)));
    }
};

FERRY_TEST_GUILESS_MAIN(TestEnvFormats)
#include "tst_envformats.moc"
