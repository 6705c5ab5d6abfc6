// `ferry runs tag`, `ferry runs note` and `ferry runs list --where` through the built `ferry`, on
// a workspace of real local runs (tests/data/runs/scripts/metrics.py: loss 1/(step+1) and
// acc step/steps for --steps steps).
#include "support/cli.h"
#include "support/process.h"
#include "support/testmain.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

using ferry::test::runFerry;
using Result = ferry::test::CliResult;

// Starts metrics.py for `steps` steps and waits until it succeeded; its id.
QString finishedRun(const QString &workspace, int steps)
{
    const Result started = runFerry(workspace, {u"run"_s, QStringLiteral(FERRY_TEST_DATA "/runs/scripts/metrics.py"),
                                                u"--hp"_s, u"steps=%1"_s.arg(steps), u"--hp"_s, u"delay=0"_s});
    if (started.exitCode != 0) {
        qWarning("ferry run: %s", qUtf8Printable(started.err));
        return {};
    }
    const QString id = started.out.trimmed();
    const bool over = ferry::test::waitFor(
        [&] { return ferry::test::shownRun(workspace, id)[u"status"_s].toString() == "succeeded"_L1; }, 120000, 200);
    return over ? id : QString();
}

QStringList idsOf(const Result &listed)
{
    QStringList ids;
    for (const QJsonValue &run : ferry::test::jsonArray(listed))
        ids << run[u"id"_s].toString();
    ids.sort();
    return ids;
}

} // namespace

class TestRunsQueryCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_ws;
    QString m_short, m_long; // runs of 4 and of 10 steps

private Q_SLOTS:
    void initTestCase()
    {
        m_short = finishedRun(m_ws.path(), 4);
        m_long = finishedRun(m_ws.path(), 10);
        QVERIFY(!m_short.isEmpty() && !m_long.isEmpty());
    }

    void tagsAreAddedAndRemoved()
    {
        const QString ws = m_ws.path();
        Result r = runFerry(ws, {u"runs"_s, u"tag"_s, m_short, u"baseline"_s, u"+paper"_s, u"+old"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, u"baseline old paper\n"_s);
        // A prefix of the id works: the shortest that tells it from the other run (both may have
        // started in the same second).
        qsizetype common = 0;
        while (common < m_short.size() && common < m_long.size() && m_short[common] == m_long[common])
            ++common;
        r = runFerry(ws, {u"runs"_s, u"tag"_s, m_short.left(common + 1), u"-old"_s, u"keep"_s, u"-paper"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out, u"baseline keep\n"_s);
        r = runFerry(ws, {u"runs"_s, u"tag"_s, m_short, u"--json"_s});
        QCOMPARE(ferry::test::jsonArray(r), (QJsonArray{u"baseline"_s, u"keep"_s}));
        QCOMPARE(ferry::test::shownRun(ws, m_short)[u"tags"_s].toArray(), (QJsonArray{u"baseline"_s, u"keep"_s}));
        const Result shown = runFerry(ws, {u"runs"_s, u"show"_s, m_short});
        QVERIFY2(shown.out.contains(u"tags:      baseline keep\n"_s), qPrintable(shown.out));
        // A bad tag changes nothing.
        r = runFerry(ws, {u"runs"_s, u"tag"_s, m_short, u"+fine"_s, u"two words"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"tag 'two words' has a character a tag cannot have"_s), qPrintable(r.err));
        QCOMPARE(ferry::test::shownRun(ws, m_short)[u"tags"_s].toArray(), (QJsonArray{u"baseline"_s, u"keep"_s}));
        r = runFerry(ws, {u"runs"_s, u"tag"_s, u"nosuchrun"_s, u"x"_s});
        QCOMPARE(r.exitCode, 1);
    }

    void noteIsSetReadFromStdinAndCleared()
    {
        const QString ws = m_ws.path();
        Result r = runFerry(ws, {u"runs"_s, u"note"_s, m_long, u"lr too high; see step 7"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(ferry::test::shownRun(ws, m_long)[u"note"_s].toString(), u"lr too high; see step 7"_s);
        QCOMPARE(runFerry(ws, {u"runs"_s, u"note"_s, m_long}).out, u"lr too high; see step 7\n"_s);
        const Result shown = runFerry(ws, {u"runs"_s, u"show"_s, m_long});
        QVERIFY2(shown.out.contains(u"note:      lr too high; see step 7\n"_s), qPrintable(shown.out));
        r = ferry::test::textOf(ferry::test::runCommand(ferry::test::ferryBinary(),
                                                        {u"runs"_s, u"note"_s, m_long, u"-"_s}, ws, "two\nlines\n"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(ferry::test::shownRun(ws, m_long)[u"note"_s].toString(), u"two\nlines"_s);
        r = runFerry(ws, {u"runs"_s, u"note"_s, m_long, QString()});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(ferry::test::shownRun(ws, m_long)[u"note"_s].toString(), QString());
    }

    void whereSelectsRuns_data()
    {
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("runs"); // s: the short run, l: the long one
        QTest::newRow("hp") << u"hp.steps > 5"_s << u"l"_s;
        QTest::newRow("hp as text") << u"hp.steps ~ 1"_s << u"l"_s;
        QTest::newRow("hp as a number") << u"hp.delay = 0.0"_s << u"l s"_s;
        QTest::newRow("last") << u"metrics.loss.last < 0.2"_s << u"l"_s;
        QTest::newRow("best accuracy") << u"metrics.acc.best >= 0.85"_s << u"l"_s;
        QTest::newRow("max") << u"metrics.loss.max = 1"_s << u"l s"_s;
        QTest::newRow("min") << u"metrics.acc.min = 0"_s << u"l s"_s;
        QTest::newRow("missing metric") << u"metrics.val_loss.last < 1"_s << QString();
        QTest::newRow("status and target") << u"status = succeeded and target = local"_s << u"l s"_s;
        QTest::newRow("script") << u"script ~ metrics.py and not hp.steps = 4"_s << u"l"_s;
    }

    void whereSelectsRuns()
    {
        QFETCH(QString, where);
        QFETCH(QString, runs);
        QStringList expected;
        for (const QString &which : runs.split(u' ', Qt::SkipEmptyParts))
            expected << (which == "s"_L1 ? m_short : m_long);
        expected.sort();
        const Result listed = runFerry(m_ws.path(), {u"runs"_s, u"list"_s, u"--where"_s, where, u"--json"_s});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        QCOMPARE(idsOf(listed), expected);
    }

    void whereFindsTagsAndPrintsTheTable()
    {
        const QString ws = m_ws.path();
        QCOMPARE(runFerry(ws, {u"runs"_s, u"tag"_s, m_long, u"chosen"_s}).exitCode, 0);
        const Result listed = runFerry(ws, {u"runs"_s, u"list"_s, u"--where"_s, u"tag = chosen"_s});
        QCOMPARE(listed.exitCode, 0);
        QVERIFY(listed.out.contains(m_long));
        QVERIFY(!listed.out.contains(m_short));
        const Result none = runFerry(ws, {u"runs"_s, u"list"_s, u"--where"_s, u"tag = nothing"_s});
        QCOMPARE(none.exitCode, 0);
        QVERIFY2(none.err.contains(u"no run matches --where"_s), qPrintable(none.err));
    }

    void badWhereSaysTheColumn()
    {
        const Result r =
            runFerry(m_ws.path(), {u"runs"_s, u"list"_s, u"--where"_s, u"hp.steps > 5 and metrics.loss <"_s});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"--where: column 18: expected metrics.NAME.last, .best, .min or .max"_s),
                 qPrintable(r.err));
        const Result end = runFerry(m_ws.path(), {u"runs"_s, u"list"_s, u"--where"_s, u"hp.steps >"_s});
        QCOMPARE(end.exitCode, 1);
        QVERIFY2(end.err.contains(u"--where: column 11: expected a value after '>'"_s), qPrintable(end.err));
        QVERIFY(end.out.isEmpty());
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunsQueryCli)
#include "tst_runsquerycli.moc"
