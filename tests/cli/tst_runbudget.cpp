// A run's budget on real local runs (`ferry run --max-time / --max-cost`, docs/cost.md): stopped
// at its cap by its detached supervisor, the script given SIGTERM (it writes a checkpoint) and
// SIGKILL after the grace, the record saying why; 80 % and the stop notified on a real
// notification server (tests/services/notifications.sh); the rate at launch kept on the record;
// a launch refused once the workspace's month is spent.
#include "run/rundirectory.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/notifications.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

QString budgetScript()
{
    return QStringLiteral(FERRY_TEST_DATA "/runs/scripts/budget.py");
}

} // namespace

class TestRunBudget : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_config; // Ferry's settings: the rates and the month's budget, this test's own
    QTemporaryDir m_ws;
    ferry::test::NotificationServer m_server;

    ferry::test::CliResult ferry(const QStringList &arguments) { return ferry::test::runFerry(m_ws.path(), arguments); }
    // `ferry run budget.py ARGS...`: the new run's id (empty when it did not start).
    QString start(const QStringList &arguments)
    {
        const auto started = ferry(QStringList{u"run"_s, budgetScript()} + arguments);
        if (started.exitCode != 0)
            qWarning("ferry run: %s", qPrintable(started.err));
        return started.exitCode == 0 ? started.out.trimmed() : QString();
    }
    QString runDir(const QString &id) const { return m_ws.filePath(u".ferry/runs/"_s + id); }
    // Waits until the run has ended and its archives are packed; its record as `runs show` gives it.
    QJsonObject ended(const QString &id)
    {
        const QString dir = runDir(id);
        if (!ferry::test::waitFor([&] { return QFile::exists(dir + u"/model.tar.gz"_s); }, 60000))
            return {};
        QJsonObject shown;
        ferry::test::waitFor(
            [&] {
                shown = ferry::test::shownRun(m_ws.path(), id);
                return shown.value(u"status"_s).toString() != u"running"_s;
            },
            20000);
        return shown;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_config.isValid() && m_ws.isValid());
        qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
    }

    // Done when (issue 38): a run far longer than its cap is stopped at the cap, its script gets
    // the grace signal and saves a checkpoint, and its record says why.
    void aRunPastItsTimeCapIsStoppedAfterTheGraceSignal()
    {
        const QString id = start({u"--max-time"_s, u"0:00:02"_s, u"--grace"_s, u"10"_s});
        QVERIFY(!id.isEmpty());
        const QJsonObject run = ended(id);
        QCOMPARE(run.value(u"status"_s).toString(), u"cancelled"_s);
        QCOMPARE(run.value(u"error"_s).toString(), u"budget: max-time 0:00:02 reached"_s);
        QVERIFY(QFile::exists(runDir(id) + u"/model/checkpoint.txt"_s));
        const QString log = QString::fromUtf8(ferry::test::readFile(runDir(id) + u"/log"_s));
        QVERIFY2(log.contains(u"checkpoint written"_s), qPrintable(log));
        QVERIFY2(log.contains(u"80 % of the budget used: max-time 0:00:02"_s), qPrintable(log));
        QVERIFY2(!log.contains(u"SIGKILL\n"_s), qPrintable(log)); // it ended within its grace
        // `runs list --json` says the same.
        const auto listed = ferry({u"runs"_s, u"list"_s, u"--json"_s});
        bool found = false;
        for (const QJsonValue &v : ferry::test::jsonArray(listed)) {
            if (v[u"id"_s].toString() != id)
                continue;
            found = true;
            QCOMPARE(v[u"error"_s].toString(), u"budget: max-time 0:00:02 reached"_s);
        }
        QVERIFY2(found, qPrintable(listed.out));
        // 80 % and the stop reached the desktop, from the detached supervisor.
        QVERIFY(!m_server.waitForCall(u"Run %1: 80 % of its budget used"_s.arg(id)).isEmpty());
        QVERIFY(!m_server.waitForCall(u"Run %1 stopped: its budget is spent"_s.arg(id)).isEmpty());
    }

    // A script that keeps on after SIGTERM is killed once the grace has passed.
    void aScriptThatIgnoresTheGraceSignalIsKilledAfterTheGrace()
    {
        const QString id = start({u"--max-time"_s, u"1"_s, u"--grace"_s, u"1"_s, u"--hp"_s, u"ignore-term=1"_s});
        QVERIFY(!id.isEmpty());
        const QJsonObject run = ended(id);
        QCOMPARE(run.value(u"status"_s).toString(), u"cancelled"_s);
        QCOMPARE(run.value(u"error"_s).toString(), u"budget: max-time 0:00:01 reached"_s);
        QVERIFY(QFile::exists(runDir(id) + u"/model/checkpoint.txt"_s));
        const QString log = QString::fromUtf8(ferry::test::readFile(runDir(id) + u"/log"_s));
        QVERIFY2(log.contains(u"the budget's grace of 1 s has passed: SIGKILL"_s), qPrintable(log));
        QVERIFY2(!log.contains(u"\ndone"_s), qPrintable(log));
    }

    // A money cap is a time at the run's rate (here 1 USD a second); the rate is kept on the record,
    // and a later change of the rates does not reprice the run.
    void aMoneyCapStopsAtTheRateInForceWhichTheRecordKeeps()
    {
        QCOMPARE(ferry({u"rates"_s, u"set"_s, u"local"_s, u"3600/h"_s}).exitCode, 0);
        const QString id = start({u"--max-cost"_s, u"2"_s, u"--grace"_s, u"10"_s});
        QVERIFY(!id.isEmpty());
        const QJsonObject run = ended(id);
        QCOMPARE(run.value(u"status"_s).toString(), u"cancelled"_s);
        QCOMPARE(run.value(u"error"_s).toString(), u"budget: max-cost 2.00 USD reached (0:00:02 at 3600.00 USD/h)"_s);
        const QJsonObject rate = run[u"spec"_s][u"rate"_s].toObject();
        QCOMPARE(rate.value(u"amount"_s).toDouble(), 3600.0);
        QCOMPARE(rate.value(u"target"_s).toString(), u"local"_s);
        QVERIFY(QFile::exists(runDir(id) + u"/model/checkpoint.txt"_s));

        QCOMPARE(ferry({u"rates"_s, u"set"_s, u"local"_s, u"7200/h"_s}).exitCode, 0);
        const auto report = ferry({u"cost"_s, u"report"_s, u"--csv"_s});
        QCOMPARE(report.exitCode, 0);
        QString row;
        for (const QString &line : report.out.split(u'\n'))
            if (line.startsWith(id + u','))
                row = line;
        QVERIFY2(row.section(u',', 3, 3) == u"3600"_s, qPrintable(report.out)); // the rate at its launch
        QCOMPARE(ferry({u"rates"_s, u"unset"_s, u"local"_s}).exitCode, 0);
    }

    // A money cap needs a rate: an SSH host without one is refused before anything starts.
    void aMoneyCapWithoutARateIsRefused()
    {
        const auto r =
            ferry({u"run"_s, budgetScript(), u"--target"_s, u"slurm:no-such-host.invalid"_s, u"--max-cost"_s, u"5"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"--max-cost needs a rate for slurm:no-such-host.invalid"_s), qPrintable(r.err));
    }

    void badCapsAreRefused_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("said");
        QTest::newRow("a negative cost") << QStringList{u"--max-cost"_s, u"-1"_s} << u"--max-cost '-1'"_s;
        QTest::newRow("minutes past 59") << QStringList{u"--max-time"_s, u"1:75:00"_s} << u"--max-time '1:75:00'"_s;
        QTest::newRow("no time") << QStringList{u"--max-time"_s, u"0"_s} << u"--max-time '0'"_s;
        QTest::newRow("grace alone") << QStringList{u"--grace"_s, u"5"_s} << u"--grace goes with"_s;
    }
    void badCapsAreRefused()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, said);
        const auto r = ferry(QStringList{u"run"_s, budgetScript()} + arguments);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(said), qPrintable(r.err));
    }

    // The grace when --grace does not say: `ferry budget set grace`, kept in the run's spec.
    void theGraceComesFromTheSettingsUnlessGiven()
    {
        QCOMPARE(ferry({u"budget"_s, u"set"_s, u"grace"_s, u"3"_s}).out, u"grace: 3 s\n"_s);
        QCOMPARE(ferry({u"budget"_s, u"set"_s, u"grace"_s, u"-1"_s}).exitCode, 1);
        const QString id = start({u"--max-time"_s, u"1:00:00"_s, u"--hp"_s, u"seconds=0"_s});
        QVERIFY(!id.isEmpty());
        QCOMPARE(ended(id)[u"spec"_s][u"budget"_s][u"graceSeconds"_s].toInt(), 3);
        QCOMPARE(ferry({u"budget"_s, u"unset"_s, u"grace"_s}).out, u"grace: 30 s\n"_s);
    }

    // The month's budget: once this month's runs have cost it, a launch (and a kernel's start) is
    // refused with the numbers; raised, it starts again.
    void aLaunchIsRefusedOnceTheMonthIsSpent()
    {
        QCOMPARE(ferry({u"rates"_s, u"set"_s, u"local"_s, u"3600/h"_s}).exitCode, 0);
        QCOMPARE(ferry({u"budget"_s, u"set"_s, u"month"_s, u"0.5"_s}).out, u"month: 0.50 USD\n"_s);
        // The runs above cost more than 0.50 USD (2 s and more at 1 USD a second, some at the old rate).
        const auto shown = ferry({u"budget"_s, u"show"_s, u"--json"_s});
        QVERIFY2(ferry::test::jsonObject(shown).value(u"spent"_s).toBool(), qPrintable(shown.out));
        const auto refused = ferry({u"run"_s, budgetScript(), u"--hp"_s, u"seconds=0"_s});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(u"the workspace's budget for the month is spent: "_s) &&
                     refused.err.contains(u" USD of 0.50 USD spent in "_s),
                 qPrintable(refused.err));
        // A kernel spends the month as a run does: none starts either.
        const auto kernel = ferry({u"kernel"_s, u"start"_s});
        QCOMPARE(kernel.exitCode, 1);
        QVERIFY2(kernel.err.contains(u"the workspace's budget for the month is spent: "_s), qPrintable(kernel.err));
        QCOMPARE(ferry({u"budget"_s, u"set"_s, u"month"_s, u"1000h"_s}).out, u"month: 1000 h\n"_s);
        const QString id = start({u"--hp"_s, u"seconds=0"_s});
        QVERIFY(!id.isEmpty());
        QCOMPARE(ended(id).value(u"status"_s).toString(), u"succeeded"_s);
        QCOMPARE(ferry({u"budget"_s, u"unset"_s, u"month"_s}).exitCode, 0);
        QCOMPARE(ferry({u"rates"_s, u"unset"_s, u"local"_s}).exitCode, 0);
    }

    // Each workspace its own month: Ferry's settings hold the default for every workspace without
    // one; a workspace's own (kept in it, .ferry/budget.json) wins, "none" included; a file that
    // cannot be read refuses launches, naming it.
    void eachWorkspaceHasItsOwnMonth()
    {
        QCOMPARE(ferry({u"rates"_s, u"set"_s, u"local"_s, u"3600/h"_s}).exitCode, 0);
        QCOMPARE(ferry({u"budget"_s, u"set"_s, u"month"_s, u"0.5"_s, u"--default"_s}).out,
                 u"month (default): 0.50 USD\n"_s);
        const auto shown = ferry({u"budget"_s, u"show"_s, u"--json"_s});
        QCOMPARE(ferry::test::jsonObject(shown).value(u"source"_s).toString(), u"default"_s);
        QVERIFY2(ferry::test::jsonObject(shown).value(u"spent"_s).toBool(), qPrintable(shown.out));
        QVERIFY(ferry({u"run"_s, budgetScript(), u"--hp"_s, u"seconds=0"_s})
                    .err.contains(u"budget for the month is spent"_s));
        // Another workspace, nothing spent: the same default, not spent there.
        QTemporaryDir other;
        const auto there = ferry::test::runFerry(other.path(), {u"budget"_s, u"show"_s});
        QVERIFY2(there.out.contains(u"month (the default): 0.00 USD of 0.50 USD spent in "_s),
                 qPrintable(there.out + there.err));
        // This workspace's own: none, whatever the default.
        QCOMPARE(ferry({u"budget"_s, u"set"_s, u"month"_s, u"none"_s}).out, u"month: none\n"_s);
        QVERIFY(QFile::exists(m_ws.filePath(u".ferry/budget.json"_s)));
        const QString id = start({u"--hp"_s, u"seconds=0"_s});
        QVERIFY(!id.isEmpty());
        QCOMPARE(ended(id).value(u"status"_s).toString(), u"succeeded"_s);
        // Unset: the default holds again.
        QCOMPARE(ferry({u"budget"_s, u"unset"_s, u"month"_s}).out, u"month: 0.50 USD (the default)\n"_s);
        // A file that cannot be read: said with its path, and no run starts on a guess.
        QVERIFY(ferry::test::writeFile(m_ws.filePath(u".ferry/budget.json"_s), "{\"month\": \"lots\"}"));
        const auto broken = ferry({u"run"_s, budgetScript(), u"--hp"_s, u"seconds=0"_s});
        QCOMPARE(broken.exitCode, 1);
        QVERIFY2(broken.err.contains(u"'lots' is not a month's budget"_s) && broken.err.contains(u"budget.json"_s),
                 qPrintable(broken.err));
        QCOMPARE(ferry({u"budget"_s, u"unset"_s, u"month"_s}).exitCode, 0);
        QCOMPARE(ferry({u"budget"_s, u"unset"_s, u"month"_s, u"--default"_s}).out, u"month (default): none\n"_s);
        QCOMPARE(ferry({u"rates"_s, u"unset"_s, u"local"_s}).exitCode, 0);
    }
};

FERRY_NOTIFICATIONS_TEST_MAIN(TestRunBudget)
#include "tst_runbudget.moc"
