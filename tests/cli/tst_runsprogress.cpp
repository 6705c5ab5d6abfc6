// `ferry runs list --json`'s progress, ETA and cost so far (docs/cost.md, *While it runs*) for
// real local runs of progress.py under Debian's Python and its real tqdm: a Hugging Face
// Trainer's output held at step 50 of 200 (0.25, from the steps), a plain bar held mid-loop
// (seen as it redraws), and a bar without a total (no progress, no ETA); the cost at the rate set.
#include "support/cli.h"
#include "support/files.h"
#include "support/testmain.h"
#include "support/wait.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestRunsProgress : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_config; // the settings `ferry` reads: never the user's
    QTemporaryDir m_ws;
    QTemporaryDir m_bin; // python3: Debian's, which has tqdm

    QString ws() const { return m_ws.path(); }

    // Starts progress.py with these hyperparameters; the run's id.
    QString start(const QStringList &hps)
    {
        QStringList arguments{u"run"_s, QStringLiteral(FERRY_TEST_DATA "/runs/scripts/progress.py")};
        for (const QString &hp : hps)
            arguments << u"--hp"_s << hp;
        const auto started = ferry::test::runFerry(ws(), arguments);
        if (started.exitCode != 0)
            qWarning("ferry run: %s", qPrintable(started.err));
        return started.out.trimmed();
    }
    // The run as `ferry runs list --json` lists it now; empty when it is not listed.
    QJsonObject listed(const QString &id) const
    {
        const auto r = ferry::test::runFerry(ws(), {u"runs"_s, u"list"_s, u"--json"_s});
        for (const QJsonValue &v : QJsonDocument::fromJson(r.out.toUtf8()).array()) {
            if (v[u"id"_s].toString() == id)
                return v.toObject();
        }
        return {};
    }
    // Waits until the listed run has this progress (or, with -1, its log says `said`).
    QJsonObject waitForProgress(const QString &id, double fraction)
    {
        QJsonObject last;
        ferry::test::waitFor(
            [&] {
                last = listed(id);
                return last[u"progress"_s].toDouble(-1) == fraction;
            },
            60000, 200);
        return last;
    }
    QJsonObject waitForEnd(const QString &id)
    {
        QJsonObject last;
        ferry::test::waitFor(
            [&] {
                last = listed(id);
                return last[u"status"_s].toString() == u"succeeded"_s;
            },
            60000, 200);
        return last;
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
        QVERIFY(QFile::link(u"/usr/bin/python3"_s, m_bin.filePath(u"python3"_s)));
        qputenv("PATH", m_bin.path().toLocal8Bit() + ':' + qgetenv("PATH"));
        QVERIFY(QDir(ws()).mkpath(u".ferry"_s));
        QCOMPARE(ferry::test::runFerry(ws(), {u"rates"_s, u"set"_s, u"local"_s, u"3.60/h"_s}).exitCode, 0);
    }

    void huggingFaceStepsHeldAtAQuarter()
    {
        const QString go = m_ws.filePath(u"go-hf"_s);
        const QString id = start({u"mode=hf"_s, u"steps=200"_s, u"stop-at=50"_s, u"go-file="_s + go});
        QVERIFY(!id.isEmpty());
        const QJsonObject mid = waitForProgress(id, 0.25);
        QVERIFY2(mid[u"progress"_s].toDouble() == 0.25, QJsonDocument(mid).toJson().constData());
        QCOMPARE(mid[u"status"_s].toString(), u"running"_s);
        QCOMPARE(mid[u"progressSource"_s].toString(), u"steps"_s);
        QVERIFY(mid[u"etaSeconds"_s].isDouble());
        QVERIFY(mid[u"etaSeconds"_s].toDouble() >= 0);
        const QJsonObject cost = mid[u"costSoFar"_s].toObject();
        QCOMPARE(cost[u"currency"_s].toString(), u"USD"_s);
        QVERIFY(cost[u"amount"_s].isDouble());
        QVERIFY(ferry::test::writeFile(go, "go\n"));
        const QJsonObject end = waitForEnd(id);
        QCOMPARE(end[u"status"_s].toString(), u"succeeded"_s);
        QVERIFY(end[u"progress"_s].isNull()); // over: its duration says the rest
        QVERIFY(end[u"etaSeconds"_s].isNull());
        // Its whole cost at 3.60 an hour: its seconds / 1000.
        const double seconds = double(end[u"finishedMs"_s].toInteger() - end[u"startedMs"_s].toInteger()) / 1000.0;
        QVERIFY2(qAbs(end[u"costSoFar"_s][u"amount"_s].toDouble() - seconds / 1000.0) < 1e-5,
                 QJsonDocument(end).toJson().constData());
    }

    // A plain tqdm loop writes no newline until it ends: the bar is read as it redraws (the
    // follower's look at the log's unfinished line).
    void aBarIsSeenWhileItIsDrawn()
    {
        const QString go = m_ws.filePath(u"go-bar"_s);
        const QString id = start({u"mode=bar"_s, u"steps=80"_s, u"stop-at=20"_s, u"go-file="_s + go});
        QVERIFY(!id.isEmpty());
        const QJsonObject mid = waitForProgress(id, 0.25);
        QVERIFY2(mid[u"progress"_s].toDouble() == 0.25, QJsonDocument(mid).toJson().constData());
        // Its --steps 80 is a steps work parameter, the bar's total: the rule says steps.
        QCOMPARE(mid[u"progressSource"_s].toString(), u"steps"_s);
        QVERIFY(ferry::test::writeFile(go, "go\n"));
        QCOMPARE(waitForEnd(id)[u"status"_s].toString(), u"succeeded"_s);
    }

    void noTotalNoProgressNorETA()
    {
        const QString go = m_ws.filePath(u"go-nototal"_s);
        const QString id = start({u"mode=nototal"_s, u"steps=50"_s, u"stop-at=20"_s, u"go-file="_s + go});
        QVERIFY(!id.isEmpty());
        QJsonObject mid;
        // Running, and its log has its bar ("20it [...]"): still no progress.
        QVERIFY(ferry::test::waitFor(
            [&] {
                mid = listed(id);
                return mid[u"status"_s].toString() == u"running"_s &&
                       QFile(ws() + u"/.ferry/runs/"_s + id + u"/log"_s).size() > 0;
            },
            60000, 200));
        mid = listed(id);
        QVERIFY(mid.contains(u"progress"_s));
        QVERIFY(mid[u"progress"_s].isNull());
        QVERIFY(mid[u"etaSeconds"_s].isNull());
        QVERIFY(mid[u"costSoFar"_s].isObject()); // a rate is set: a cost, progress or not
        QVERIFY(ferry::test::writeFile(go, "go\n"));
        QCOMPARE(waitForEnd(id)[u"status"_s].toString(), u"succeeded"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunsProgress)
#include "tst_runsprogress.moc"
