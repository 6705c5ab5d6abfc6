// `ferry runs watch ID [--until-done] [--alert RULE]` on real local runs, inside a private D-Bus
// session with a real notification server (tests/services/notifications.sh): each alert printed
// and notified (a crossing, NaN, a stall), the run's end notified, the exit code its status's
// (succeeded, failed, lost, cancelled), the first alert ending a watch without --until-done, bad
// rules refused with their column, and nothing extra said where no service or no bus is.
#include "run/rundirectory.h"
#include "support/cli.h"
#include "support/notifications.h"

#include <QDir>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;

namespace {

QString watchScript()
{
    return QStringLiteral(FERRY_TEST_DATA "/runs/scripts/alerts.py");
}

} // namespace

class TestRunsWatch : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_ws;
    ferry::test::NotificationServer m_server;

    // `ferry run alerts.py --hp ...`: the new run's id.
    QString start(const QStringList &hps)
    {
        QStringList arguments{u"run"_s, watchScript()};
        for (const QString &hp : hps)
            arguments << u"--hp"_s << hp;
        const ferry::test::CliResult started = ferry::test::runFerry(m_ws.path(), arguments);
        if (started.exitCode != 0)
            qWarning("ferry run: %s", qPrintable(started.err));
        return started.out.trimmed();
    }
    ferry::test::CliResult watch(const QString &id, const QStringList &more)
    {
        return ferry::test::runFerry(m_ws.path(), QStringList{u"runs"_s, u"watch"_s, id} + more, 60000);
    }

private Q_SLOTS:
    void aFinishedRunAndARuleCrossingAreSaid()
    {
        const QString id = start({u"losses=3:2:0.4:0.3"_s});
        QVERIFY(!id.isEmpty());
        const auto r = watch(id, {u"--until-done"_s, u"--alert"_s, u"loss<0.5"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, u"alert: run alerts (%1): loss = 0.4 at step 2 (rule loss < 0.5)\n"_s.arg(id));
        QVERIFY2(r.err.contains(u"run %1: succeeded (exit code 0)"_s.arg(id)), qPrintable(r.err));
        const QJsonObject crossed = m_server.waitForCall(id + u"): loss = 0.4"_s);
        QVERIFY2(!crossed.isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(crossed[u"body"_s].toString(), u"rule loss &lt; 0.5"_s);
        QCOMPARE(crossed[u"app_name"_s].toString(), u"Ferry"_s);
        // The command may be gone by the click: its notifications offer no action.
        QVERIFY(crossed[u"actions"_s].toArray().isEmpty());
        const QJsonObject ended = m_server.waitForCall(id + u") succeeded"_s);
        QVERIFY2(!ended.isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(ended[u"hints"_s].toObject()[u"urgency"_s].toInt(), 1);
    }

    void aFailedRunExitsWithThree()
    {
        const QString id = start({u"code=7"_s});
        const auto r = watch(id, {u"--until-done"_s});
        QCOMPARE(r.exitCode, 3);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(u"run %1: failed (exit code 7)"_s.arg(id)), qPrintable(r.err));
        const QJsonObject failed = m_server.waitForCall(id + u") failed"_s);
        QVERIFY2(!failed.isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(failed[u"body"_s].toString(), u"exit code 7"_s);
        QCOMPARE(failed[u"hints"_s].toObject()[u"urgency"_s].toInt(), 2);
        // Watching an ended run says its end again, with the same code.
        QCOMPARE(watch(id, {u"--until-done"_s}).exitCode, 3);
    }

    void nanAndAStallAreSaid()
    {
        const QString id = start({u"losses=1:nan:inf:0.5"_s, u"pause=2.5"_s});
        const auto r = watch(id, {u"--until-done"_s, u"--alert"_s, u"loss:nan, stalled:1s"_s});
        QCOMPARE(r.exitCode, 0);
        const QStringList lines = r.out.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines[0].startsWith(u"alert: run alerts (%1): no new point for 1s (rule stalled:1s; "_s.arg(id)),
                 qPrintable(r.out));
        QCOMPARE(lines[1], u"alert: run alerts (%1): loss is nan at step 1 (rule loss:nan)"_s.arg(id));
        QVERIFY2(!m_server.waitForCall(id + u"): loss is nan at step 1"_s).isEmpty(), qPrintable(m_server.summaries()));
        QVERIFY2(!m_server.waitForCall(id + u"): no new point for 1s"_s).isEmpty(), qPrintable(m_server.summaries()));
        QVERIFY(!m_server.waitForCall(id + u") succeeded"_s).isEmpty());
    }

    void withoutUntilDoneTheFirstAlertEndsTheWatch()
    {
        const QString id = start({u"losses=1:0.9:0.1:0.05:0.01"_s, u"delay=30"_s});
        const auto r = watch(id, {u"--alert"_s, u"loss < 0.95"_s});
        QCOMPARE(r.exitCode, 10);
        QCOMPARE(r.out, u"alert: run alerts (%1): loss = 0.9 at step 1 (rule loss < 0.95)\n"_s.arg(id));
        QVERIFY2(r.err.contains(u"run %1 goes on; watch it again with 'ferry runs watch %1'"_s.arg(id)),
                 qPrintable(r.err));
        QCOMPARE(ferry::test::shownRun(m_ws.path(), id)[u"status"_s].toString(), u"running"_s);
        // A cancelled run: 5.
        QProcess watcher;
        watcher.setWorkingDirectory(m_ws.path());
        watcher.start(ferry::test::ferryBinary(), {u"runs"_s, u"watch"_s, id, u"--until-done"_s});
        QVERIFY(watcher.waitForStarted());
        QCOMPARE(ferry::test::runFerry(m_ws.path(), {u"runs"_s, u"cancel"_s, id}).exitCode, 0);
        QVERIFY(watcher.waitForFinished(60000));
        QCOMPARE(watcher.exitCode(), 5);
        QVERIFY(!m_server.waitForCall(id + u") was cancelled"_s).isEmpty());
    }

    void aLostRunExitsWithFour()
    {
        const QString id = start({u"losses=1:0.5"_s, u"delay=60"_s});
        const ferry::run::RunDirectory dir(QDir(m_ws.filePath(u".ferry/runs"_s)).filePath(id));
        QVERIFY(QTest::qWaitFor(
            [&] {
                const auto s = dir.readSupervisor();
                return s && s->has_value() && (*s)->childPid > 0;
            },
            20000));
        QProcess watcher;
        watcher.setWorkingDirectory(m_ws.path());
        watcher.start(ferry::test::ferryBinary(), {u"runs"_s, u"watch"_s, id, u"--until-done"_s});
        QVERIFY(watcher.waitForStarted());
        // The supervisor and the script killed outright: no exit record will ever come.
        const ferry::run::SupervisorRecord s = **dir.readSupervisor();
        ::kill(static_cast<pid_t>(s.supervisorPid), SIGKILL);
        ::kill(-static_cast<pid_t>(s.processGroup), SIGKILL);
        QVERIFY(watcher.waitForFinished(60000));
        QCOMPARE(watcher.exitCode(), 4);
        QVERIFY2(QString::fromUtf8(watcher.readAllStandardError()).contains(u"run %1: lost"_s.arg(id)),
                 "the end is said");
        const QJsonObject lost = m_server.waitForCall(id + u") was lost"_s);
        QVERIFY2(!lost.isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(lost[u"hints"_s].toObject()[u"urgency"_s].toInt(), 2);
    }

    void badRulesAreRefusedWithTheirColumn_data()
    {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("said");
        QTest::newRow("a word for a number") << u"loss>high"_s
                                             << u"ferry runs watch: --alert: column 6: expected a number after '>', "
                                                u"not 'high'\n  loss>high\n       ^\n"_s;
        QTest::newRow("equals") << u"val_loss, loss=2"_s
                                << u"column 9: expected > NUMBER, < NUMBER or :nan after 'val_loss'"_s;
        QTest::newRow("a stall in days") << u"stalled:2d"_s << u"column 10: expected the duration's unit"_s;
    }
    void badRulesAreRefusedWithTheirColumn()
    {
        QFETCH(QString, rule);
        QFETCH(QString, said);
        // Refused before the run is looked for: there is none.
        const auto r = watch(u"no-such-run"_s, {u"--until-done"_s, u"--alert"_s, rule});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(said), qPrintable(r.err));
        QVERIFY(r.err.contains(u"docs/metrics.md"_s));
    }

    // Over SSH or on a headless machine there is no notification service, or no session bus: the
    // watch says what it says anyway, and not a word more.
    void noServiceAndNoBusAddNothing_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("a bus without the service") << u"no-service"_s;
        QTest::newRow("no bus") << u"no-bus"_s;
    }
    void noServiceAndNoBusAddNothing()
    {
        QFETCH(QString, mode);
        const QString id = start({u"losses=3:0.4"_s});
        const ferry::test::CliResult r =
            ferry::test::runProgram(u"bash"_s,
                                    {QStringLiteral(FERRY_NOTIFICATIONS_SCRIPT), mode, ferry::test::ferryBinary(),
                                     u"runs"_s, u"watch"_s, id, u"--until-done"_s, u"--alert"_s, u"loss<0.5"_s},
                                    m_ws.path(), 60000);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, u"alert: run alerts (%1): loss = 0.4 at step 1 (rule loss < 0.5)\n"_s.arg(id));
        QStringList said = r.err.split(u'\n', Qt::SkipEmptyParts);
        said.removeIf([](const QString &line) { return line.startsWith(u"dbus-daemon["_s); }); // its fd limit, as root
        QCOMPARE(said, QStringList{u"run %1: succeeded (exit code 0)"_s.arg(id)});
        QVERIFY(m_server.callsSaying(id).isEmpty()); // this session's server heard nothing of it
    }
};

FERRY_NOTIFICATIONS_TEST_MAIN(TestRunsWatch)
#include "tst_runswatch.moc"
