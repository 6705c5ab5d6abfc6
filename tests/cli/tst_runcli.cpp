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
#include <tuple>

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

    // Review 2026-12-06, findings 1 and 14: the end of an id that the window's legends show names
    // the run (an ambiguous end is refused with the runs it could be); `runs list` shows the
    // parameters that differ and the key metrics.
    void runsAreFoundByTheirEndAndListedWithParametersAndMetrics()
    {
        QTemporaryDir ws;
        {
            auto opened = ferry::run::RunStore::open(ferry::run::RunStore::pathInWorkspace(ws.path()));
            QVERIFY(opened);
            std::unique_ptr<ferry::run::RunStore> store = std::move(*opened);
            const QList<std::tuple<QString, QString, double>> runs{{u"20261206-101530-train-0eaa"_s, u"0.01"_s, 0.51},
                                                                   {u"20261206-101541-train-cfbb"_s, u"0.03"_s, 0.25},
                                                                   {u"20261206-101552-train-1eaa"_s, u"0.1"_s, 0.75}};
            qint64 at = 1'700'000'000'000;
            for (const auto &[id, lr, loss] : runs) {
                ferry::run::RunRecord record;
                record.id = id;
                record.name = u"train"_s;
                record.target = u"local"_s;
                record.status = ferry::run::RunStatus::Succeeded;
                record.createdMs = record.startedMs = at += 1000;
                record.finishedMs = at + 500;
                store->createRun(record);
                store->setParams(id, {{u"lr"_s, lr}, {u"epochs"_s, u"60"_s}});
                store->appendMetrics(id, {{u"val_loss"_s, 0, loss, at}, {u"samples_per_s"_s, 0, 900, at}}, 10);
            }
            store->close();
        }
        const Result shown = runFerry(ws.path(), {u"runs"_s, u"show"_s, u"cfbb"_s});
        QCOMPARE(shown.exitCode, 0);
        QVERIFY2(shown.out.contains(u"run:       20261206-101541-train-cfbb"_s), qPrintable(shown.out));
        const Result ambiguous = runFerry(ws.path(), {u"runs"_s, u"show"_s, u"eaa"_s});
        QCOMPARE(ambiguous.exitCode, 1);
        QVERIFY2(ambiguous.err.contains(u"'eaa' matches 2 runs: "_s), qPrintable(ambiguous.err));
        QVERIFY(ambiguous.err.contains(u"20261206-101530-train-0eaa"_s));
        QVERIFY(ambiguous.err.contains(u"20261206-101552-train-1eaa"_s));
        QVERIFY(ambiguous.err.contains(u"give more of the id"_s));
        QVERIFY(ambiguous.out.isEmpty());

        const Result list = runFerry(ws.path(), {u"runs"_s, u"list"_s});
        QCOMPARE(list.exitCode, 0);
        const QStringList lines = list.out.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        const QStringList header = lines.first().split(u' ', Qt::SkipEmptyParts);
        // lr differs, epochs does not; the key metrics after it.
        QVERIFY2(header.mid(header.size() - 3) == (QStringList{u"lr"_s, u"val_loss"_s, u"samples_per_s"_s}),
                 qPrintable(lines.first()));
        QVERIFY(!header.contains(u"epochs"_s));
        const auto lineOf = [&](const QString &id) {
            for (const QString &line : lines) {
                if (line.startsWith(id))
                    return line.split(u' ', Qt::SkipEmptyParts);
            }
            return QStringList();
        };
        const QStringList cfbb = lineOf(u"20261206-101541-train-cfbb"_s);
        QVERIFY2(cfbb.mid(cfbb.size() - 3) == (QStringList{u"0.03"_s, u"0.25"_s, u"900"_s}), qPrintable(list.out));
        // The same as JSON, with every parameter and every last value.
        const QJsonArray json =
            QJsonDocument::fromJson(runFerry(ws.path(), {u"runs"_s, u"list"_s, u"--json"_s}).out.toUtf8()).array();
        QCOMPARE(json.size(), 3);
        for (const QJsonValue &run : json) {
            QCOMPARE(run[u"params"_s][u"epochs"_s].toString(), u"60"_s);
            QCOMPARE(run[u"lastMetrics"_s][u"samples_per_s"_s].toDouble(), 900.0);
        }
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
