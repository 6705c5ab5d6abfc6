// DesktopNotifier (notify/desktopnotifier.h) against a real notification server on a private
// session bus (tests/services/notifications.sh): what the server receives for a run's alerts, the
// click on a notification coming back as the run's id, and no bus at all.
#include "notify/alertnotification.h"
#include "notify/desktopnotifier.h"
#include "support/notifications.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::notify::DesktopNotifier;
using ferry::run::Alert;

namespace {

Alert endOf(const QString &runId, ferry::run::RunStatus status, const QString &detail = {})
{
    Alert alert;
    alert.kind = Alert::Kind::Ended;
    alert.runId = runId;
    alert.runName = u"train"_s;
    alert.status = status;
    alert.detail = detail;
    return alert;
}

} // namespace

class TestDesktopNotifier : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theServerGetsWhatTheAlertSays()
    {
        ferry::test::NotificationServer server;
        DesktopNotifier notifier;
        QVERIFY(notifier.available());
        QSignalSpy sent(&notifier, &DesktopNotifier::sent);
        notifier.send(ferry::notify::alertNotification(
            endOf(u"r-failed"_s, ferry::run::RunStatus::Failed, u"exit code 3: CUDA <out> of memory & more"_s), true));
        QVERIFY(notifier.waitForAnswers(10000));
        QCOMPARE(sent.size(), 1);
        const QJsonObject call = server.waitForCall(u"r-failed"_s);
        QVERIFY2(!call.isEmpty(), qPrintable(server.summaries()));
        QCOMPARE(call[u"app_name"_s].toString(), u"Ferry"_s);
        QCOMPARE(call[u"app_icon"_s].toString(), u"dev.ferry.Ferry"_s);
        QCOMPARE(call[u"summary"_s].toString(), u"run train (r-failed) failed"_s);
        // Markup-capable servers read the body as markup: the error's < > & come through as text.
        QCOMPARE(call[u"body"_s].toString(), u"exit code 3: CUDA &lt;out&gt; of memory &amp; more"_s);
        QCOMPARE(call[u"actions"_s].toArray(), (QJsonArray{u"default"_s, u"Open in Ferry"_s}));
        const QJsonObject hints = call[u"hints"_s].toObject();
        QCOMPARE(hints[u"urgency"_s].toInt(), 2); // critical: a failed run
        QCOMPARE(hints[u"desktop-entry"_s].toString(), u"dev.ferry.Ferry"_s);
        QCOMPARE(hints[u"category"_s].toString(), u"x-ferry.run.ended"_s);
        QCOMPARE(uint(call[u"id"_s].toInt()), sent.first().at(0).toUInt());

        // A succeeded run: normal urgency; one without a click offers no action.
        notifier.send(ferry::notify::alertNotification(endOf(u"r-ok"_s, ferry::run::RunStatus::Succeeded), false));
        QVERIFY(notifier.waitForAnswers(10000));
        const QJsonObject ok = server.waitForCall(u"r-ok"_s);
        QCOMPARE(ok[u"hints"_s].toObject()[u"urgency"_s].toInt(), 1);
        QVERIFY(ok[u"actions"_s].toArray().isEmpty());
    }

    void aClickOpensTheRunItWasAbout()
    {
        ferry::test::NotificationServer server;
        DesktopNotifier notifier;
        QSignalSpy activated(&notifier, &DesktopNotifier::activated);
        Alert crossed;
        crossed.kind = Alert::Kind::Crossed;
        crossed.runId = u"r-click"_s;
        crossed.metric = u"loss"_s;
        crossed.value = 0.4;
        crossed.step = 3;
        crossed.rule = u"loss < 0.5"_s;
        notifier.send(ferry::notify::alertNotification(crossed, true));
        notifier.send(ferry::notify::alertNotification(endOf(u"r-other"_s, ferry::run::RunStatus::Lost), true));
        QVERIFY(notifier.waitForAnswers(10000));
        const QJsonObject call = server.waitForCall(u"r-click"_s);
        QCOMPARE(call[u"summary"_s].toString(), u"run r-click: loss = 0.4 at step 3"_s);
        QCOMPARE(call[u"hints"_s].toObject()[u"category"_s].toString(), u"x-ferry.alert"_s);
        const uint id = uint(call[u"id"_s].toInt());
        // Another action than the default one, and another notification's id: not a click on it.
        QVERIFY(server.invoke(id, u"snooze"_s));
        QVERIFY(server.invoke(id + 1000));
        QVERIFY(server.invoke(id));
        QVERIFY(ferry::test::waitFor([&] { return !activated.isEmpty(); }, 10000));
        QTest::qWait(100); // anything more would have come by now
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated.first().at(0).toString(), u"r-click"_s);
    }

    void withoutABusNothingIsSentAndNothingWaits()
    {
        DesktopNotifier notifier(QDBusConnection(u"ferry-no-bus"_s)); // never connected
        QVERIFY(!notifier.available());
        QSignalSpy failed(&notifier, &DesktopNotifier::failed);
        notifier.send(ferry::notify::alertNotification(endOf(u"r"_s, ferry::run::RunStatus::Succeeded), true));
        QVERIFY(notifier.waitForAnswers(0));
        QVERIFY(failed.isEmpty());
    }
};

FERRY_NOTIFICATIONS_TEST_MAIN(TestDesktopNotifier)
#include "tst_desktopnotifier.moc"
