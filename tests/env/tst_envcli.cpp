// `ferry env` as a user runs it.
#include "support/testenv.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

struct Result {
    int exitCode = -1;
    QString out;
    QString err;
};

Result runCli(const QStringList &arguments, const QString &workingDir = {})
{
    QProcess process;
    if (!workingDir.isEmpty())
        process.setWorkingDirectory(workingDir);
    process.start(ferry::test::ferryBinary(), arguments);
    process.waitForFinished(120000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

QString data(const QString &relative)
{
    return QStringLiteral(FERRY_TEST_DATA "/env/") + relative;
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
        const Result r = runCli({u"env"_s, u"import"_s, data(u"conda/nested-pip.yml"_s), u"-o"_s, out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.contains(u"wrote "_s + out));
        const Result check = runCli({u"env"_s, u"check"_s, out});
        QVERIFY2(check.exitCode == 0, qPrintable(check.err));
        QVERIFY(check.out.startsWith(out + u": ok"_s));
    }

    void checkListsEveryError()
    {
        const QString file = data(u"ferry/errors.yml"_s);
        const Result r = runCli({u"env"_s, u"check"_s, file});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.count(u": error: "_s) >= 5, qPrintable(r.err));
        QVERIFY(r.err.contains(file + u":7:8: error: gpu must be auto, on or off"_s));
    }

    void hashIsStableAndMachineReadable()
    {
        const QString file = data(u"ferry/full.yml"_s);
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
        QVERIFY(QFile::copy(data(u"ferry/full.yml"_s), env));
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
        QVERIFY(QFile::copy(data(u"ferry/full.yml"_s), env));
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

    void userErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no action") << QStringList{u"env"_s} << u"ferry env: say what to do"_s;
        QTest::newRow("bad action") << QStringList{u"env"_s, u"frob"_s} << u"unknown action 'frob'"_s;
        QTest::newRow("no format") << QStringList{u"env"_s, u"export"_s, data(u"ferry/full.yml"_s)}
                                   << u"give --format"_s;
        QTest::newRow("bad format") << QStringList{u"env"_s, u"export"_s, data(u"ferry/full.yml"_s), u"--format"_s,
                                                   u"toml"_s}
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

QTEST_GUILESS_MAIN(TestEnvCli)
#include "tst_envcli.moc"
