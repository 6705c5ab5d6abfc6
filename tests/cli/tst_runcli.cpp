// `ferry run` and `ferry runs` as a user drives them, with the follower killed mid-run:
// every metric point is stored exactly once and the database stays intact.
#include "store/runstore.h"
#include "support/cli.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;

namespace {

using ferry::test::runFerry;
using ferry::test::waitFor;
using Result = ferry::test::CliResult;

QString script(const QString &name)
{
    return QStringLiteral(FERRY_TEST_DATA "/runs/scripts/") + name;
}

QJsonArray metricsOf(const QString &workspace, const QString &id)
{
    return QJsonDocument::fromJson(runFerry(workspace, {u"runs"_s, u"metrics"_s, id, u"--json"_s}).out.toUtf8())
        .array();
}

// Every (name, step) at most once, and the expected count per metric.
void verifyExactlyOnce(const QJsonArray &points, int steps)
{
    QSet<QString> seen;
    int loss = 0;
    int acc = 0;
    int system = 0; // the supervisor's samples of the script's CPU and memory (system/...)
    for (const QJsonValue &v : points) {
        const QJsonObject p = v.toObject();
        system += p[u"name"_s].toString().startsWith("system/"_L1);
        const QString key = p[u"name"_s].toString() + u'@' + QString::number(p[u"step"_s].toDouble());
        QVERIFY2(!seen.contains(key), qPrintable(u"doubled: "_s + key));
        seen.insert(key);
        loss += p[u"name"_s].toString() == "loss"_L1;
        acc += p[u"name"_s].toString() == "acc"_L1;
    }
    QCOMPARE(loss, steps);
    QCOMPARE(acc, steps);
    QCOMPARE(points.size() - system, 2 * steps);
}

} // namespace

class TestRunCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void followerKilledMidRunLosesNothing()
    {
        QTemporaryDir ws;
        constexpr int kSteps = 60;
        QProcess follower;
        follower.setWorkingDirectory(ws.path());
        follower.start(ferry::test::ferryBinary(),
                       {u"run"_s, script(u"metrics.py"_s), u"--hp"_s, u"steps=%1"_s.arg(kSteps), u"--hp"_s,
                        u"delay=0.05"_s, u"--follow"_s});
        QVERIFY(follower.waitForStarted());
        // Wait until the follower has printed some lines (and so stored some points), then kill it.
        QVERIFY(waitFor(
            [&] {
                return follower.readAllStandardOutput().count('\n') > 0 || follower.state() == QProcess::NotRunning;
            },
            120000, 100));
        QTest::qWait(600);
        ::kill(static_cast<pid_t>(follower.processId()), SIGKILL);
        QVERIFY(follower.waitForFinished());

        const QJsonArray runs =
            QJsonDocument::fromJson(runFerry(ws.path(), {u"runs"_s, u"list"_s, u"--json"_s}).out.toUtf8()).array();
        QCOMPARE(runs.size(), 1);
        const QString id = runs.first().toObject()[u"id"_s].toString();
        // The follower really died mid-run: the run had not ended yet.
        QVERIFY(!QFile::exists(ws.filePath(u".ferry/runs/"_s + id + u"/exit.json"_s)));
        const Result attach = runFerry(ws.path(), {u"runs"_s, u"attach"_s, id});
        QCOMPARE(attach.exitCode, 0);
        QVERIFY2(attach.err.contains(u"succeeded"_s), qPrintable(attach.err));

        verifyExactlyOnce(metricsOf(ws.path(), id), kSteps);
        const QJsonObject show = ferry::test::shownRun(ws.path(), id);
        QCOMPARE(show[u"status"_s].toString(), u"succeeded"_s);
        QStringList artifacts;
        for (const QJsonValue &a : show[u"artifacts"_s].toArray())
            artifacts << a[u"path"_s].toString();
        QVERIFY(artifacts.contains(u"model.tar.gz"_s));

        auto store = ferry::run::RunStore::open(ws.filePath(u".ferry/runs.sqlite"_s));
        QVERIFY(store);
        QVERIFY((*store)->integrityCheck());
    }

    void runEndingWhileFerryIsDownIsCollected()
    {
        QTemporaryDir ws;
        const Result started = runFerry(
            ws.path(), {u"run"_s, script(u"metrics.py"_s), u"--hp"_s, u"steps=10"_s, u"--hp"_s, u"delay=0.01"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = started.out.trimmed();
        // Over once its supervisor is done: the exit record, then the archives it packs after it.
        const QString dir = ws.filePath(u".ferry/runs/"_s + id + u'/');
        QVERIFY(waitFor(
            [&] {
                return QFile::exists(dir + u"exit.json"_s) && QFile::exists(dir + u"model.tar.gz"_s) &&
                       QFile::exists(dir + u"output.tar.gz"_s);
            },
            120000, 100));
        QCOMPARE(ferry::test::shownRun(ws.path(), id)[u"status"_s].toString(), u"succeeded"_s);
        verifyExactlyOnce(metricsOf(ws.path(), id), 10);
        verifyExactlyOnce(metricsOf(ws.path(), id), 10); // reading again changes nothing
    }

    void cancelStopsTheRun()
    {
        QTemporaryDir ws;
        const Result started = runFerry(ws.path(), {u"run"_s, script(u"metrics.py"_s), u"--hp"_s, u"steps=100000"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = started.out.trimmed();
        const Result cancelled = runFerry(ws.path(), {u"runs"_s, u"cancel"_s, id.left(20)});
        QCOMPARE(cancelled.exitCode, 0);
        QCOMPARE(ferry::test::shownRun(ws.path(), id)[u"status"_s].toString(), u"cancelled"_s);
    }

    void userErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no script") << QStringList{u"run"_s} << u"name the script to run"_s;
        QTest::newRow("missing script") << QStringList{u"run"_s, u"nope.py"_s} << u"nope.py: no such script"_s;
        QTest::newRow("bad hp") << QStringList{u"run"_s, script(u"metrics.py"_s), u"--hp"_s, u"epochs"_s}
                                << u"--hp takes NAME=VALUE, not 'epochs'"_s;
        QTest::newRow("bad channel") << QStringList{u"run"_s, script(u"metrics.py"_s), u"--data"_s, u"Train Set=/tmp"_s}
                                     << u"channel name 'Train Set' is not allowed"_s;
        QTest::newRow("bad target") << QStringList{u"run"_s, script(u"metrics.py"_s), u"--target"_s, u"cloud"_s}
                                    << u"unknown target 'cloud'"_s;
        QTest::newRow("unknown run") << QStringList{u"runs"_s, u"show"_s, u"nope"_s} << u"no run 'nope'"_s;
        QTest::newRow("bad action") << QStringList{u"runs"_s, u"frob"_s} << u"unknown action 'frob'"_s;
    }
    void userErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        QTemporaryDir ws;
        const Result r = runFerry(ws.path(), arguments);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunCli)
#include "tst_runcli.moc"
