// `ferry notebook convert` as a user runs it, and the script it writes run by `ferry run` on the
// local target with --hp values: the argparse cell really takes them, and the contract's
// SM_MODEL_DIR really is where the model goes.
#include "support/cli.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::test::CliResult;
using ferry::test::runFerry;
using ferry::test::testData;

namespace {

QString readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

class TestNotebookCli : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void convertsBesideTheNotebook()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(testData(u"notebooks/linear_regression.ipynb"_s), dir.filePath(u"nb.ipynb"_s)));
        const CliResult r = runFerry(dir.path(), {u"notebook"_s, u"convert"_s, u"nb.ipynb"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.contains(u"nb.ipynb: cell 2, line 5: warning: magic '%matplotlib inline' is IPython syntax"_s));
        QVERIFY(r.err.contains(u"wrote "_s));
        QVERIFY(readAll(dir.filePath(u"nb.py"_s)).startsWith(u"# Converted from nb.ipynb"_s));
    }

    void dryRunAndJsonWriteNothing()
    {
        QTemporaryDir dir;
        const CliResult json =
            runFerry(dir.path(), {u"notebook"_s, u"convert"_s, testData(u"notebooks/rich_outputs.ipynb"_s), u"-o"_s,
                                  u"train.py"_s, u"--dry-run"_s, u"--json"_s});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject proposal = QJsonDocument::fromJson(json.out.toUtf8()).object();
        const QJsonArray hps = proposal[u"hyperparameters"_s].toArray();
        QCOMPARE(hps.size(), 4);
        QCOMPARE(hps[1][u"name"_s].toString(), u"hidden_units"_s);
        QCOMPARE(hps[1][u"default"_s].toInt(), 1024);
        QCOMPARE(hps[2][u"default"_s].toBool(), false);
        QCOMPARE(hps[3][u"default"_s].toDouble(), -0.5);
        QVERIFY(proposal[u"script"_s].isNull());
        QVERIFY(!QFile::exists(dir.filePath(u"train.py"_s)));

        const CliResult text = runFerry(
            dir.path(), {u"notebook"_s, u"convert"_s, testData(u"notebooks/rich_outputs.ipynb"_s), u"--dry-run"_s});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains(u"1:3  hidden_units  int  1_024"_s), qPrintable(text.out));
        QVERIFY(QDir(dir.path()).isEmpty());
    }

    void userErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no action") << QStringList{u"notebook"_s} << u"say what to do: convert"_s;
        QTest::newRow("no notebook") << QStringList{u"notebook"_s, u"convert"_s} << u"name the notebook"_s;
        QTest::newRow("missing") << QStringList{u"notebook"_s, u"convert"_s, u"nope.ipynb"_s}
                                 << u"nope.ipynb: no such notebook"_s;
        QTest::newRow("v3") << QStringList{u"notebook"_s, u"convert"_s, testData(u"notebooks/nbformat3.ipynb"_s)}
                            << u"nbformat 3 notebooks are not supported"_s;
        QTest::newRow("broken") << QStringList{u"notebook"_s, u"convert"_s, testData(u"notebooks/broken_json.ipynb"_s)}
                                << u"broken_json.ipynb:4:27: not a Jupyter notebook"_s;
        QTest::newRow("R") << QStringList{u"notebook"_s, u"convert"_s, testData(u"notebooks/r_kernel.ipynb"_s)}
                           << u"r_kernel.ipynb: the notebook's language is R; only Python notebooks"_s;
    }
    void userErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const CliResult r = runFerry(dir.path(), arguments);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(QDir(dir.path()).isEmpty());
    }

    // The converted notebook is a training script: `ferry run --hp` sets its constants, and the
    // model lands in the run's SM_MODEL_DIR.
    void convertedScriptRunsWithHyperparameters()
    {
        QTemporaryDir ws;
        const CliResult converted =
            runFerry(ws.path(), {u"notebook"_s, u"convert"_s, testData(u"notebooks/linear_regression.ipynb"_s), u"-o"_s,
                                 u"train.py"_s});
        QVERIFY2(converted.exitCode == 0, qPrintable(converted.err));
        // One more cell, as a user would add: what the contract gave the script.
        QFile script(ws.filePath(u"train.py"_s));
        QVERIFY(script.open(QIODevice::Append));
        script.write("\n# %%\nprint(json.dumps({\"contract\": {\"channels\": channels, \"model_dir\": model_dir}}))\n");
        script.close();
        QVERIFY(QDir().mkpath(ws.filePath(u"data"_s)));
        const CliResult run =
            runFerry(ws.path(), {u"run"_s, u"train.py"_s, u"--hp"_s, u"epochs=3"_s, u"--hp"_s, u"lr=0.2"_s, u"--hp"_s,
                                 u"optimizer=momentum"_s, u"--data"_s, u"training=data"_s, u"--follow"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err + run.out));
        const QString id = run.out.section(u'\n', 0, 0).trimmed();
        const QJsonObject show =
            QJsonDocument::fromJson(runFerry(ws.path(), {u"runs"_s, u"show"_s, id, u"--json"_s}).out.toUtf8()).object();
        QCOMPARE(show[u"status"_s].toString(), u"succeeded"_s);
        const QString runDir = ws.filePath(u".ferry/runs/"_s + id);
        QVERIFY2(QFile::exists(runDir + u"/model.tar.gz"_s), qPrintable(runDir));
        const QString log = readAll(runDir + u"/log"_s);
        QCOMPARE(log.count(u"\"epoch\""_s), 3); // --epochs 3, not the notebook's 20
        QVERIFY2(!log.contains(u"\"epoch\": 3"_s), qPrintable(log));
        const qsizetype at = log.indexOf(u"{\"contract\""_s);
        QVERIFY2(at >= 0, qPrintable(log));
        const QJsonObject contract =
            QJsonDocument::fromJson(log.mid(at).section(u'\n', 0, 0).toUtf8()).object()[u"contract"_s].toObject();
        QCOMPARE(QDir(contract[u"channels"_s][u"training"_s].toString()).canonicalPath(),
                 QDir(ws.filePath(u"data"_s)).canonicalPath());
        QVERIFY2(contract[u"model_dir"_s].toString().endsWith(u".ferry/runs/"_s + id + u"/model"_s),
                 qPrintable(contract[u"model_dir"_s].toString()));
        // The model file the notebook writes into model_dir, which the contract set.
        const CliResult metrics = runFerry(ws.path(), {u"runs"_s, u"metrics"_s, id, u"--json"_s});
        QVERIFY2(metrics.out.contains(u"loss"_s), qPrintable(metrics.out));
        QTemporaryDir unpacked;
        QProcess tar;
        tar.start(u"tar"_s, {u"-xzf"_s, runDir + u"/model.tar.gz"_s, u"-C"_s, unpacked.path()});
        QVERIFY(tar.waitForFinished() && tar.exitCode() == 0);
        const QJsonObject model =
            QJsonDocument::fromJson(readAll(unpacked.filePath(u"model.json"_s)).toUtf8()).object();
        QCOMPARE(model[u"epochs"_s].toInt(), 3);
        QCOMPARE(model[u"optimizer"_s].toString(), u"momentum"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestNotebookCli)
#include "tst_notebookcli.moc"
