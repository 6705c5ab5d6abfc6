// Ferry's own environment format: every field, unknown keys kept, positioned errors, and
// what it writes loads in PyYAML as intended.
#include "env/environmentfile.h"
#include "env/formats.h"
#include "support/env.h"
#include "support/testmain.h"

#include "common/textfile.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::env;
using ferry::test::dataPath;
using ferry::test::describe;

class TestEnvironmentFile : public QObject {
    Q_OBJECT

    static EnvironmentRead readData(const QString &name)
    {
        const auto text = ferry::readTextFile(dataPath(name));
        if (!text)
            qFatal("cannot read test data %s", qPrintable(name));
        return parseEnvironmentYaml(*text, dataPath(name));
    }

private Q_SLOTS:
    void readsEveryField()
    {
        const EnvironmentRead read = readData(u"ferry/full.yml"_s);
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        const Environment &env = read.environment;
        QCOMPARE(env.name, u"mnist"_s);
        QCOMPARE(env.version, u"3"_s);
        QCOMPARE(env.description, u"MNIST classifier with PyTorch"_s);
        QCOMPARE(env.docker.baseImage, u"python:3.11-slim"_s);
        QCOMPARE(env.docker.registry.address, u"myregistry.azurecr.io"_s);
        QCOMPARE(env.docker.registry.username, u"ci-bot"_s);
        QCOMPARE(env.docker.registry.passwordSecret, u"acr-ci-bot"_s);
        QCOMPARE(env.docker.runArguments, (QStringList{u"--ipc=host"_s, u"--ulimit"_s, u"memlock=-1"_s}));
        QCOMPARE(env.docker.shmSize, u"2g"_s);
        QCOMPARE(env.docker.gpu, GpuMode::On);
        QCOMPARE(env.docker.systemPackages, (QStringList{u"git"_s, u"libgl1"_s}));
        QCOMPARE(env.docker.dockerfileSteps, u"RUN echo \"custom step\"\nRUN mkdir -p /data\n"_s);
        QCOMPARE(env.docker.remoteUser, u"vscode"_s);
        QCOMPARE(env.python.version, u"3.11"_s);
        QCOMPARE(env.python.interpreterPath, u"python3"_s);
        QCOMPARE(env.python.channels, (QStringList{u"conda-forge"_s, u"defaults"_s}));
        QCOMPARE(env.python.condaDependencies.size(), 2);
        QCOMPARE(env.python.condaDependencies.at(1).channel, u"conda-forge"_s);
        QCOMPARE(env.python.condaDependencies.at(1).name, u"pandas"_s);
        QCOMPARE(env.python.pipRequirements.size(), 3);
        QCOMPARE(env.python.pipRequirements.at(1).requirement.extras, QStringList{u"socks"_s});
        QCOMPARE(env.python.pipRequirements.at(2).kind, PipRequirement::Kind::Editable);
        QCOMPARE(env.python.pipConstraints.size(), 1);
        QCOMPARE(env.python.pipOptions.indexUrl, u"https://pypi.example/simple"_s);
        QCOMPARE(env.python.pipOptions.findLinks, QStringList{u"../wheels"_s});
        QVERIFY(env.python.pipOptions.pre);
        QCOMPARE(env.python.devTools, (QStringList{u"black"_s, u"pytest"_s, u"pylint"_s}));
        QCOMPARE(env.variables.size(), 3);
        QCOMPARE(env.variables.at(2), (std::pair{u"DEBUG"_s, u"no"_s})); // a string, not a YAML 1.1 boolean
        // Unknown keys are kept where they were.
        QCOMPARE(env.extra["owner"].get<std::string>(), std::string("vision-team"));
        QCOMPARE(env.docker.extra["cache_from"][0].get<std::string>(), std::string("ferry:mnist-2"));
        QCOMPARE(env.python.extra["solver"].get<std::string>(), std::string("libmamba"));
    }

    void roundTripLosesNothing()
    {
        const EnvironmentRead first = readData(u"ferry/full.yml"_s);
        const QString written = writeEnvironmentYaml(first.environment);
        const EnvironmentRead second = parseEnvironmentYaml(written, u"written.yml"_s);
        QVERIFY2(!hasErrors(second.diagnostics), qPrintable(describe(second.diagnostics) + u'\n' + written));
        QVERIFY2(first.environment == second.environment, qPrintable(written));
        QCOMPARE(writeEnvironmentYaml(second.environment), written); // stable output
    }

    void writtenYamlLoadsInPyYaml()
    {
        const Environment env = readData(u"ferry/full.yml"_s).environment;
        QString error;
        const QJsonObject root = ferry::test::loadWithPyYaml(writeEnvironmentYaml(env), &error).object();
        QVERIFY2(!root.isEmpty(), qPrintable(error));
        QCOMPARE(root[u"ferry"_s].toInt(), 1);
        QCOMPARE(root[u"version"_s].toString(), u"3"_s);
        const QJsonObject python = root[u"python"_s].toObject();
        QCOMPARE(python[u"version"_s].toString(), u"3.11"_s); // not the float 3.11
        QCOMPARE(python[u"pip"_s].toArray().at(1).toString(), env.python.pipRequirements.at(1).toLine());
        const QJsonObject variables = root[u"variables"_s].toObject();
        QCOMPARE(variables[u"OMP_NUM_THREADS"_s].toString(), u"1"_s);
        QCOMPARE(variables[u"DEBUG"_s].toString(), u"no"_s);
        QCOMPARE(root[u"docker"_s].toObject()[u"gpu"_s].toString(), u"on"_s);
        QCOMPARE(root[u"owner"_s].toString(), u"vision-team"_s);
    }

    void reportsEveryErrorWithItsPosition()
    {
        const EnvironmentRead read = readData(u"ferry/errors.yml"_s);
        const QString text = describe(read.diagnostics);
        const QString path = dataPath(u"ferry/errors.yml"_s);
        // Format errors carry line:column; later checks are about the whole file.
        QVERIFY2(text.contains(path + u":7:8: error: gpu must be auto, on or off, not 'sometimes'"_s),
                 qPrintable(text));
        QVERIFY2(text.contains(path + u":9:15: error: a password does not belong in an environment file"_s),
                 qPrintable(text));
        QVERIFY2(text.contains(path + u":12:"_s), qPrintable(text)); // conda spec
        QVERIFY2(text.contains(path + u":14:"_s), qPrintable(text)); // pip requirement
        QVERIFY2(text.contains(path + u":15:13: error: 'channels' must be a list"_s), qPrintable(text));
        QVERIFY(ferry::test::count(read.diagnostics, Diagnostic::Severity::Error) >= 5);
    }

    void validationNamesTheProblem_data()
    {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bad name") << u"ferry: 1\nname: Bad Name!\n"_s
                                  << u"name 'Bad Name!' cannot be part of an image tag"_s;
        QTest::newRow("no name") << u"ferry: 1\nversion: \"2\"\n"_s << u"the environment has no name"_s;
        QTest::newRow("bad shm") << u"ferry: 1\nname: a\ndocker: {shm_size: lots}\n"_s
                                 << u"shm_size 'lots' is not a size"_s;
        QTest::newRow("bad variable") << u"ferry: 1\nname: a\nvariables: {1BAD: x}\n"_s
                                      << u"variable name '1BAD' is not a valid environment variable name"_s;
        QTest::newRow("newer format") << u"ferry: 2\nname: a\n"_s << u"written by a newer Ferry (format 2"_s;
        QTest::newRow("not a map") << u"- a\n- b\n"_s << u"an environment file is a mapping"_s;
        QTest::newRow("empty") << u""_s << u"the file is empty"_s;
        QTest::newRow("syntax") << u"ferry: 1\nname: x\ndocker:\n  base_image: [unclosed\n"_s << u"YAML syntax"_s;
        QTest::newRow("docker not a map") << u"ferry: 1\nname: a\ndocker: [1]\n"_s << u"'docker' must be a mapping"_s;
        QTest::newRow("user_managed not bool")
            << u"ferry: 1\nname: a\npython: {user_managed: maybe}\n"_s << u"'user_managed' must be true or false"_s;
    }
    void validationNamesTheProblem()
    {
        QFETCH(QString, yaml);
        QFETCH(QString, expected);
        const EnvironmentRead read = parseEnvironmentYaml(yaml, u"e.yml"_s);
        QVERIFY(hasErrors(read.diagnostics));
        QVERIFY2(describe(read.diagnostics).contains(expected), qPrintable(describe(read.diagnostics)));
    }

    void missingFormatKeyIsAWarning()
    {
        const EnvironmentRead read =
            parseEnvironmentYaml(u"name: a\ndocker: {base_image: python:3.11}\n"_s, u"e.yml"_s);
        QVERIFY(!hasErrors(read.diagnostics));
        QVERIFY(describe(read.diagnostics).contains(u"e.yml:1:1: warning: no format version"_s));
    }

    // Regression (found by fuzz_environment_yaml): a value ending in blanks and a CR was written
    // as a plain scalar, which loses them when read back.
    void trailingBlanksSurviveTheRoundTrip()
    {
        const EnvironmentRead read = parseEnvironmentYaml(u"ferry: 1\nname: a\nowner: \"team   \\r\"\n"_s, u"a.yml"_s);
        QVERIFY(!hasErrors(read.diagnostics));
        const EnvironmentRead again = parseEnvironmentYaml(writeEnvironmentYaml(read.environment), u"b.yml"_s);
        QVERIFY(read.environment == again.environment);
        QCOMPARE(again.environment.extra["owner"].get<std::string>(), std::string("team   \r"));
    }

    // Regression (found by fuzz_environment_yaml): steps with blank lines at the end, or that a
    // literal block cannot hold, changed on the way back.
    void stepsSurviveTheRoundTrip_data()
    {
        QTest::addColumn<QString>("steps");
        QTest::newRow("blank lines at the end") << u"RUN a\n\n\n"_s;
        QTest::newRow("no newline") << u"RUN a"_s;
        QTest::newRow("leading blank") << u"  RUN a\nRUN b\n"_s;
        QTest::newRow("trailing blanks in a line") << u"RUN a   \nRUN b\n"_s;
        QTest::newRow("control character") << u"RUN a\x01\n"_s;
    }
    void stepsSurviveTheRoundTrip()
    {
        QFETCH(QString, steps);
        Environment env;
        env.name = u"a"_s;
        env.docker.dockerfileSteps = steps;
        const EnvironmentRead first = parseEnvironmentYaml(writeEnvironmentYaml(env), u"a.yml"_s);
        QVERIFY(!hasErrors(first.diagnostics));
        const EnvironmentRead second = parseEnvironmentYaml(writeEnvironmentYaml(first.environment), u"b.yml"_s);
        QCOMPARE(second.environment.docker.dockerfileSteps, first.environment.docker.dockerfileSteps);
        QCOMPARE(first.environment.docker.dockerfileSteps.trimmed(), steps.trimmed());
    }

    // Regression (found by fuzz_environment_yaml): an unknown key holding NUL bytes could not be
    // written back and the file came back nearly empty. Such keys are refused.
    void controlCharactersInKeysAreRefused()
    {
        const EnvironmentRead read = parseEnvironmentYaml(u"ferry: 1\nname: a\n\"x\\0y\": 1\n"_s, u"a.yml"_s);
        QVERIFY(hasErrors(read.diagnostics));
        QVERIFY(describe(read.diagnostics).contains(u"a key holds a control character"_s));
    }

    // Regression (found by fuzz_environment_yaml): a key longer than YAML's 1024-character limit
    // for implicit keys was written so that no reader could load the file again.
    void longKeysAreWrittenExplicitly()
    {
        const QString key = QString(1500, u'k');
        const EnvironmentRead read =
            parseEnvironmentYaml(u"ferry: 1\nname: a\ndocker:\n  ? "_s + key + u"\n  : 1\n"_s, u"a.yml"_s);
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        const QString written = writeEnvironmentYaml(read.environment);
        const EnvironmentRead again = parseEnvironmentYaml(written, u"b.yml"_s);
        QVERIFY2(!hasErrors(again.diagnostics), qPrintable(describe(again.diagnostics)));
        QVERIFY(again.environment == read.environment);
        QString error;
        QVERIFY2(!ferry::test::loadWithPyYaml(written, &error).isNull(), qPrintable(error));
    }

    // Regression (found by fuzz_environment_yaml in CI): the limit counts the key as written, so
    // a 907-character key of quotes, 1360 characters once escaped, must take the explicit form.
    void keysLongOnlyOnceEscapedAreWrittenExplicitly()
    {
        QString key = u"  gpu: "_s;
        for (int i = 0; i < 450; ++i)
            key += u"a\""_s;
        const EnvironmentRead read = parseEnvironmentYaml(u"ferry: 1\nname: a\n'"_s + key + u"': 1\n"_s, u"a.yml"_s);
        QVERIFY2(!hasErrors(read.diagnostics), qPrintable(describe(read.diagnostics)));
        QVERIFY(read.environment.extra.contains(key.toStdString()));
        const QString written = writeEnvironmentYaml(read.environment);
        const EnvironmentRead again = parseEnvironmentYaml(written, u"b.yml"_s);
        QVERIFY2(!hasErrors(again.diagnostics), qPrintable(describe(again.diagnostics)));
        QVERIFY(again.environment == read.environment);
        QString error;
        QVERIFY2(!ferry::test::loadWithPyYaml(written, &error).isNull(), qPrintable(error));
    }

    void deepNestingIsRefused()
    {
        const QString deep = u"ferry: 1\nname: a\nx: "_s + QString(5000, u'[') + QString(5000, u']') + u'\n';
        const EnvironmentRead read = parseEnvironmentYaml(deep, u"deep.yml"_s);
        QVERIFY(hasErrors(read.diagnostics));
        QVERIFY2(describe(read.diagnostics).contains(u"nested"_s), qPrintable(describe(read.diagnostics)));

        QString block = u"ferry: 1\nname: a\nx:\n"_s;
        for (int i = 0; i < 3000; ++i)
            block += QString(2 * i + 2, u' ') + u"k:\n"_s;
        const EnvironmentRead blockRead = parseEnvironmentYaml(block, u"deep.yml"_s);
        QVERIFY(hasErrors(blockRead.diagnostics));
    }
};

FERRY_TEST_APPLESS_MAIN(TestEnvironmentFile)
#include "tst_environmentfile.moc"
