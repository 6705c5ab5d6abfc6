// A container run's budget against the real Docker engine of the `docker` fixture (`ferry run
// --target container --max-time`, docs/cost.md): held by its detached watcher (`ferry
// __container-budget`, targets/containerbudget.h) with Ferry closed. At the cap the script gets the
// grace signal and saves a checkpoint into its model folder, the container is removed, the record
// says why, and 80 % and the stop reach the desktop (a real notification server); a script that
// ignores the grace signal is killed once the grace has passed; a container whose watcher is gone
// stops itself (its backstop); a run that ends before its cap is recorded and packed by the watcher
// alone.
#include "support/cli.h"
#include "support/container.h"
#include "support/files.h"
#include "support/notifications.h"
#include "targets/containertarget.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;

class TestContainerBudget : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_ws;
    QString m_image;
    QStringList m_runs;
    ferry::test::NotificationServer m_server;

    // `ferry run budget.py --target container ARGS...`: the new run's id (empty when it did not start).
    QString start(const QStringList &arguments)
    {
        const auto started = ferry::test::runFerry(
            m_ws.path(),
            QStringList{u"run"_s, u"budget.py"_s, u"--target"_s, u"container"_s, u"--env"_s, u"env.yml"_s} + arguments,
            600000);
        if (started.exitCode != 0)
            qWarning("ferry run: %s", qPrintable(started.err));
        const QString id = started.exitCode == 0 ? started.out.trimmed() : QString();
        if (!id.isEmpty())
            m_runs << id;
        return id;
    }
    QString runDir(const QString &id) const { return m_ws.filePath(u".ferry/runs/"_s + id); }
    QString log(const QString &id) const { return QString::fromUtf8(ferry::test::readFile(runDir(id) + u"/log"_s)); }
    // Kills the run's budget watcher (SIGKILL) and waits until it is gone; its pid (0: none named).
    pid_t killWatcher(const QString &id) const
    {
        const auto watcher = static_cast<pid_t>(
            ferry::targets::ContainerTarget::readRecord(runDir(id)).value(u"budgetWatcherPid"_s).toDouble());
        if (watcher <= 0 || ::kill(watcher, SIGKILL) != 0)
            return 0;
        return ferry::test::waitFor([&] { return ::kill(watcher, 0) != 0; }, 10000) ? watcher : 0;
    }
    // Waits until the run's archives are packed (nothing of Ferry's runs meanwhile but the
    // watcher); its record as `runs show` gives it.
    QJsonObject ended(const QString &id)
    {
        if (!ferry::test::waitFor([&] { return QFile::exists(runDir(id) + u"/model.tar.gz"_s); }, 120000))
            return {};
        return ferry::test::shownRun(m_ws.path(), id);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_ws.isValid());
        const QString missing = ferry::test::connectToDocker();
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        m_image = ferry::test::writeTestEnvironment(m_ws.filePath(u"env.yml"_s),
                                                    u"tst-budget-%1"_s.arg(QCoreApplication::applicationPid()));
        QVERIFY(!m_image.isEmpty());
        QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/runs/scripts/budget.py"), m_ws.filePath(u"budget.py"_s)));
    }

    void cleanupTestCase()
    {
        for (const QString &id : std::as_const(m_runs)) {
            if (const QStringList left = ferry::test::containersLabelled(id); !left.isEmpty())
                ferry::test::docker(QStringList{u"rm"_s, u"-f"_s} + left);
        }
        if (!m_image.isEmpty())
            ferry::test::docker({u"rmi"_s, u"-f"_s, m_image});
    }

    // Done when (issue 38), in a container: stopped at the cap after the grace signal, the
    // checkpoint saved, the record saying why, the container gone; Ferry was closed all along.
    void aContainerPastItsCapIsStoppedAfterTheGraceSignal()
    {
        const QString id = start({u"--max-time"_s, u"0:00:03"_s, u"--grace"_s, u"20"_s});
        QVERIFY(!id.isEmpty());
        const QJsonObject run = ended(id);
        QCOMPARE(run.value(u"status"_s).toString(), u"cancelled"_s);
        QCOMPARE(run.value(u"error"_s).toString(), u"budget: max-time 0:00:03 reached"_s);
        QVERIFY(QFile::exists(runDir(id) + u"/model/checkpoint.txt"_s));
        const QString text = log(id);
        QVERIFY2(text.contains(u"checkpoint written"_s), qPrintable(text));
        QVERIFY2(text.contains(u"80 % of the budget used: max-time 0:00:03"_s), qPrintable(text));
        QVERIFY2(text.contains(u"budget: max-time 0:00:03 reached: stopping the run (SIGTERM now, SIGKILL in 20 s)"_s),
                 qPrintable(text));
        QVERIFY2(!text.contains(u"SIGKILL\n"_s), qPrintable(text)); // it ended within its grace
        QVERIFY(ferry::test::containersLabelled(id).isEmpty());
        QVERIFY(!m_server.waitForCall(u"Run %1: 80 % of its budget used"_s.arg(id)).isEmpty());
        QVERIFY(!m_server.waitForCall(u"Run %1 stopped: its budget is spent"_s.arg(id)).isEmpty());
    }

    // A script that keeps on after SIGTERM is killed by the engine once the grace has passed.
    void aContainerIgnoringTheGraceSignalIsKilledAfterTheGrace()
    {
        const QString id = start({u"--max-time"_s, u"2"_s, u"--grace"_s, u"1"_s, u"--hp"_s, u"ignore-term=1"_s});
        QVERIFY(!id.isEmpty());
        const QJsonObject run = ended(id);
        QCOMPARE(run.value(u"status"_s).toString(), u"cancelled"_s);
        QCOMPARE(run.value(u"error"_s).toString(), u"budget: max-time 0:00:02 reached"_s);
        QVERIFY(QFile::exists(runDir(id) + u"/model/checkpoint.txt"_s));
        const QString text = log(id);
        QVERIFY2(text.contains(u"the budget's grace of 1 s has passed: SIGKILL"_s), qPrintable(text));
        QVERIFY2(!text.contains(u"\ndone"_s), qPrintable(text));
        QVERIFY(ferry::test::containersLabelled(id).isEmpty());
    }

    // A watcher that is gone (killed, once it said the 80 % word) is started again by the next
    // probe (`ferry runs show` here), on the container's clock: the cap still holds, and the word
    // is not said again.
    void aWatcherThatIsGoneIsStartedAgainByAProbe()
    {
        const QString id = start({u"--max-time"_s, u"0:00:10"_s, u"--grace"_s, u"20"_s});
        QVERIFY(!id.isEmpty());
        const auto started = ferry::targets::ContainerTarget().scriptStartedMs(runDir(id));
        QVERIFY2(started, started ? "" : qPrintable(started.error().toString()));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QVERIFY2(*started <= now && *started > now - 60000, qPrintable(QString::number(now - *started)));
        const QString word = u"80 % of the budget used: max-time 0:00:10"_s;
        QVERIFY2(ferry::test::waitFor([&] { return log(id).contains(word); }, 20000), qPrintable(log(id)));
        const pid_t first = killWatcher(id);
        QVERIFY(first > 0);
        QCOMPARE(ferry::test::shownRun(m_ws.path(), id).value(u"status"_s).toString(), u"running"_s);
        const auto second = static_cast<pid_t>(
            ferry::targets::ContainerTarget::readRecord(runDir(id)).value(u"budgetWatcherPid"_s).toDouble());
        QVERIFY(second > 0 && second != first);
        const QJsonObject run = ended(id);
        QCOMPARE(run.value(u"error"_s).toString(), u"budget: max-time 0:00:10 reached"_s);
        QVERIFY(QFile::exists(runDir(id) + u"/model/checkpoint.txt"_s));
        const QString text = log(id);
        QVERIFY2(text.contains(u"the budget's watcher was gone: started again"_s), qPrintable(text));
        QVERIFY2(text.count(word) == 1, qPrintable(text));
    }

    // The container's own backstop (targets/containerbudget.h): its watcher killed at once and
    // nothing of Ferry's looking at the run, the container stops itself once the cap, the grace and
    // the slack have passed (12 s here): the script gets SIGTERM and saves its checkpoint; the next
    // look records the run cancelled with the budget's reason.
    void aContainerWhoseWatcherIsGoneStopsItself()
    {
        const QString id = start({u"--max-time"_s, u"5"_s, u"--grace"_s, u"2"_s});
        QVERIFY(!id.isEmpty());
        QVERIFY(killWatcher(id) > 0);
        const auto stopped = [&] { // the engine lists no running container of the run
            const auto listed = ferry::test::docker({u"ps"_s, u"-q"_s, u"--filter"_s, u"label=ferry.run-id="_s + id});
            return listed.exitCode == 0 && listed.out.trimmed().isEmpty();
        };
        QVERIFY2(ferry::test::waitFor(stopped, 90000), qPrintable(log(id)));
        const QString text = log(id);
        QVERIFY2(text.contains(u"ferry: budget: max-time 0:00:05 reached: its watcher did not stop it, the container "
                               u"stops itself (SIGTERM now, SIGKILL in 2 s)"_s),
                 qPrintable(text));
        QVERIFY2(text.contains(u"checkpoint written"_s) && !text.contains(u"\ndone"_s), qPrintable(text));
        const QJsonObject run = ferry::test::shownRun(m_ws.path(), id);
        QCOMPARE(run.value(u"status"_s).toString(), u"cancelled"_s);
        QCOMPARE(run.value(u"error"_s).toString(), u"budget: max-time 0:00:05 reached"_s);
        QVERIFY(QFile::exists(runDir(id) + u"/model/checkpoint.txt"_s));
        QVERIFY(ferry::test::containersLabelled(id).isEmpty());
    }

    // A run that ends before its cap: its watcher records the end and packs the archives (no
    // Ferry process probes it meanwhile), removes the container, and ends too.
    void aRunWithinItsCapEndsAsItWould()
    {
        const QString id = start({u"--max-time"_s, u"1:00:00"_s, u"--hp"_s, u"seconds=0"_s});
        QVERIFY(!id.isEmpty());
        const qint64 watcher = static_cast<qint64>(
            ferry::targets::ContainerTarget::readRecord(runDir(id)).value(u"budgetWatcherPid"_s).toDouble());
        QVERIFY(watcher > 0);
        const QJsonObject run = ended(id);
        QCOMPARE(run.value(u"status"_s).toString(), u"succeeded"_s);
        QVERIFY2(log(id).contains(u"\ndone"_s), qPrintable(log(id)));
        QVERIFY(ferry::test::containersLabelled(id).isEmpty());
        QVERIFY(ferry::test::waitFor([&] { return ::kill(static_cast<pid_t>(watcher), 0) != 0; }, 20000));
        QVERIFY(m_server.callsSaying(id).isEmpty()); // nothing to say
    }
};

FERRY_NOTIFICATIONS_TEST_MAIN(TestContainerBudget)
#include "tst_containerbudget.moc"
