// The run query's grammar (tracking/runquery.h, docs/run-queries.md) on a table of cases over a
// real store of three runs: what each field matches, numbers against text, missing fields,
// precedence, and every error with its column.
#include "support/testmain.h"
#include "tracking/runquery.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

qint64 at(const QString &localTime)
{
    return QDateTime::fromString(localTime, Qt::ISODate).toMSecsSinceEpoch();
}

// The runs' ids, sorted, one space apart.
QString ids(const QList<RunRecord> &runs)
{
    QStringList names;
    for (const RunRecord &r : runs)
        names << r.id;
    names.sort();
    return names.join(u' ');
}

QList<MetricPoint> series(const QString &name, const QList<double> &values)
{
    QList<MetricPoint> points;
    for (qsizetype i = 0; i < values.size(); ++i)
        points << MetricPoint{name, double(i), values[i], 1000 + i};
    return points;
}

} // namespace

class TestRunQuery : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<RunStore> m_store;

    RunRecord run(const QString &id, RunStatus status, const QString &created, const QString &started)
    {
        RunRecord r;
        r.id = id;
        r.name = u"train"_s;
        r.target = u"local"_s;
        r.status = status;
        r.createdMs = at(created);
        r.startedMs = started.isEmpty() ? 0 : at(started);
        r.spec = QJsonObject{{u"script"_s, u"train.py"_s}};
        return r;
    }

private Q_SLOTS:
    // r1: succeeded, tagged baseline, noted, lr 0.1 adam 3 layers, loss 0.9 0.5 0.4, val_acc
    // 0.5 0.8 0.7. r2: failed, baseline and paper, lr 0.01 sgd 12 layers, loss 0.8 0.2 0.3.
    // r3: stopped early (a sweep's trial on ssh:gpu1), lr 1e-3 adamw, no tags, no metrics, not started.
    void initTestCase()
    {
        auto opened = RunStore::open(RunStore::pathInWorkspace(m_dir.path()));
        QVERIFY(opened);
        m_store = std::move(*opened);
        RunRecord r1 = run(u"r1"_s, RunStatus::Succeeded, u"2026-12-01T10:00:00"_s, u"2026-12-01T10:01:00"_s);
        r1.tags = {u"baseline"_s};
        r1.note = u"First try: LR too high"_s;
        RunRecord r2 = run(u"r2"_s, RunStatus::Failed, u"2026-12-03T10:00:00"_s, u"2026-12-03T10:01:00"_s);
        r2.tags = {u"baseline"_s, u"paper"_s};
        RunRecord r3 = run(u"r3"_s, RunStatus::Cancelled, u"2026-12-04T10:00:00"_s, {});
        r3.error = u"stopped early: val_loss 0.9 at step 3"_s;
        r3.target = u"ssh:gpu1"_s;
        r3.experiment = u"sweepA"_s;
        r3.spec = QJsonObject{{u"script"_s, u"sweep.py"_s}, {u"sweep"_s, QJsonObject{{u"id"_s, u"sw1"_s}}}};
        for (const RunRecord &r : {r1, r2, r3})
            m_store->createRun(r);
        m_store->setParams(u"r1"_s, {{u"lr"_s, u"0.1"_s}, {u"opt"_s, u"adam"_s}, {u"layers"_s, u"3"_s}});
        m_store->setParams(u"r2"_s, {{u"lr"_s, u"0.01"_s}, {u"opt"_s, u"sgd"_s}, {u"layers"_s, u"12"_s}});
        m_store->setParams(u"r3"_s, {{u"lr"_s, u"1e-3"_s}, {u"opt"_s, u"adamw"_s}});
        m_store->appendMetrics(u"r1"_s, series(u"loss"_s, {0.9, 0.5, 0.4}) + series(u"val_acc"_s, {0.5, 0.8, 0.7}), 1);
        m_store->appendMetrics(u"r2"_s, series(u"loss"_s, {0.8, 0.2, 0.3}), 1);
        m_store->flush();
        QCOMPARE(m_store->runs().size(), 3);
    }

    void queriesSelectTheRunsTheySay_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("runs"); // the ids that match, sorted
        const std::pair<const char *, const char *> rows[]{
            {"", "r1 r2 r3"},
            // hp: numbers when both sides are numbers, else text; missing is false
            {"hp.lr < 0.05", "r2 r3"},
            {"hp.lr<0.05", "r2 r3"},
            {"hp.lr = 1e-1", "r1"},
            {"hp.lr = '0.1'", "r1"},
            {"hp.opt = adam", "r1"},
            {"hp.opt ~ ADAM", "r1 r3"},
            {"hp.opt < b", "r1 r3"},
            {"hp.layers > 5", "r2"},
            {"hp.layers < 5", "r1"},
            {"hp.layers > 2a", "r1"}, // text: "3" > "2a", "12" is not
            {"hp.missing = 1", ""},
            {"hp.missing != 1", ""},
            {"not hp.missing = 1", "r1 r2 r3"},
            {"hp.layers != 3", "r2"},
            // metrics: last, best (least for a loss, most for an accuracy), min, max
            {"metrics.loss.last < 0.35", "r2"},
            {"metrics.loss.min < 0.25", "r2"},
            {"metrics.loss.best <= 0.2", "r2"},
            {"metrics.loss.max >= 0.9", "r1"},
            {"metrics.val_acc.best >= 0.8", "r1"},
            {"metrics.val_acc.min = 0.5", "r1"},
            {"metrics.val_acc.last = 0.7", "r1"},
            {"metrics.nothing.last < 1", ""},
            {"not metrics.loss.last > 0", "r3"},
            // tags, status and the text fields
            {"tag = baseline", "r1 r2"},
            {"tag != baseline", "r3"},
            {"tag ~ pap", "r2"},
            {"status = failed", "r2"},
            {"status = cancelled", "r3"},
            {"status = 'stopped early'", "r3"},
            {"status != succeeded", "r2 r3"},
            {"status ~ early", "r3"},
            {"target ~ ssh", "r3"},
            {"target = local", "r1 r2"},
            {"id = r2", "r2"},
            {"name = train", "r1 r2 r3"},
            {"script = train.py", "r1 r2"},
            {"sweep = sw1", "r3"},
            {"sweep != sw1", ""},
            {"experiment = sweepA", "r3"},
            {"note ~ \"lr too\"", "r1"},
            {"note = x", ""},
            {"created >= 2026-12-03", "r2 r3"},
            {"started < 2026-12-02", "r1"},
            {"started > 2026-12-01T10:00:30", "r1 r2"},
            // precedence: not, then and, then or; parentheses group; keywords in any case
            {"tag = paper or hp.opt = adam and hp.lr > 0.05", "r1 r2"},
            {"(tag = paper or hp.opt = adam) and hp.lr > 0.05", "r1"},
            {"not tag = baseline or status = failed", "r2 r3"},
            {"not (tag = baseline or status = failed)", "r3"},
            {"not not tag = paper", "r2"},
            {"tag = baseline AND hp.opt = sgd", "r2"},
            {"hp.lr < 0.05 and (metrics.loss.last < 0.35 or sweep = sw1)", "r2 r3"},
        };
        for (const auto &[query, runs] : rows)
            QTest::newRow(*query ? query : "(empty)") << QString::fromUtf8(query) << QString::fromUtf8(runs);
    }

    void queriesSelectTheRunsTheySay()
    {
        QFETCH(QString, query);
        QFETCH(QString, runs);
        const auto parsed = RunQuery::parse(query);
        QVERIFY2(parsed, qPrintable(parsed ? QString() : RunQuery::errorText(parsed.error())));
        QCOMPARE(ids(parsed->filter(*m_store, m_store->runs())), runs);
    }

    void badQueriesSayWhereAndWhat_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        const std::tuple<const char *, int, const char *> rows[]{
            {"hp.lr <", 8, "expected a value after '<'"},
            {"hp.lr 0.1", 7, "expected an operator (= != < <= > >= ~) after 'hp.lr'"},
            {"foo = 1", 1, "unknown field 'foo'"},
            {"hp. = 1", 1, "unknown field 'hp.'"},
            {"metrics.loss < 1", 1, "expected metrics.NAME.last, .best, .min or .max"},
            {"metrics.loss.avg < 1", 1, "expected metrics.NAME.last, .best, .min or .max"},
            {"metrics.loss.last < high", 21, "expected a number after '<', not 'high'"},
            {"metrics.loss.last ~ 1", 19, "'~' compares text"},
            {"tag < a", 5, "tag takes = != or ~"},
            {"status >= failed", 8, "status takes = != or ~"},
            {"status = done", 10, "expected a status"},
            {"created > yesterday", 11, "expected a date or a time"},
            {"started ~ 2026", 9, "'~' compares text"},
            {"(tag = a", 9, "expected ')' to close the '(' at column 1"},
            {"tag = a)", 8, "unexpected ')'"},
            {"tag = a and", 12, "expected a condition"},
            {"not", 4, "expected a condition"},
            {"tag = a or or", 12, "expected a field"},
            {"= 1", 1, "expected a field"},
            {"tag = a tag = b", 9, "expected 'and', 'or' or the end"},
            {"note = \"open", 8, "expected a closing \""},
            {"tag = a & b", 9, "unexpected '&'"},
            {"tag = =", 7, "expected a value after '='"},
        };
        for (const auto &[query, column, message] : rows)
            QTest::newRow(query) << QString::fromUtf8(query) << column << QString::fromUtf8(message);
    }

    void badQueriesSayWhereAndWhat()
    {
        QFETCH(QString, query);
        QFETCH(int, column);
        QFETCH(QString, message);
        const auto parsed = RunQuery::parse(query);
        QVERIFY(!parsed);
        QVERIFY2(parsed.error().message.contains(message), qPrintable(parsed.error().message));
        QCOMPARE(parsed.error().column, column);
        QVERIFY(RunQuery::errorText(parsed.error()).startsWith(u"column %1: "_s.arg(column)));
    }

    // A pasted or crafted query nested or chained beyond reason is refused at the column where
    // it goes too far; before, its recursive parse overflowed the stack (SIGSEGV) in
    // `ferry runs list --where` and in the runs view's filter box.
    void deepQueriesAreRefusedNotCrashed()
    {
        const QString condition = u"tag = a"_s;
        const auto deepNot = RunQuery::parse(u"not "_s.repeated(200000) + condition);
        QVERIFY(!deepNot);
        QCOMPARE(deepNot.error().column, 64 * 4 + 1);
        QVERIFY2(deepNot.error().message.contains(u"more than 64 nested"_s), qPrintable(deepNot.error().message));
        const auto deepParentheses = RunQuery::parse(u"("_s.repeated(200000) + condition + u")"_s.repeated(200000));
        QVERIFY(!deepParentheses);
        QCOMPARE(deepParentheses.error().column, 65);
        QStringList many(5000, condition);
        const auto longChain = RunQuery::parse(many.join(u" and "_s));
        QVERIFY(!longChain);
        QVERIFY(longChain.error().message.contains(u"more than 1000 conditions"_s));
        QCOMPARE(longChain.error().column, 1000 * 12 + 1);
        // Up to the limits a query still parses and runs.
        const auto deepest = RunQuery::parse(u"not "_s.repeated(64) + u"tag = paper"_s);
        QVERIFY2(deepest, deepest ? "" : qPrintable(deepest.error().message));
        QCOMPARE(ids(deepest->filter(*m_store, m_store->runs())), u"r2"_s); // an even number of nots
        const auto longest = RunQuery::parse(QStringList(1000, u"tag = baseline"_s).join(u" or "_s));
        QVERIFY(longest);
        QCOMPARE(ids(longest->filter(*m_store, m_store->runs())), u"r1 r2"_s);
    }

    void blankQueryMatchesEveryRun()
    {
        const auto parsed = RunQuery::parse(u"   "_s);
        QVERIFY(parsed);
        QVERIFY(parsed->isEmpty());
        QCOMPARE(parsed->filter(*m_store, m_store->runs()).size(), 3);
    }
};

FERRY_TEST_APPLESS_MAIN(TestRunQuery)
#include "tst_runquery.moc"
