// The alert rules' syntax (tracking/alertrule.h, docs/metrics.md *Alerts*): every form read, written
// back and read again to the same rule, and bad rules refused at the column where they break with
// what was expected there.
#include "support/testmain.h"
#include "tracking/alertrule.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::run;

class TestAlertRule : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rulesReadAsWritten_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("metric");
        QTest::addColumn<double>("threshold");
        QTest::addColumn<qint64>("stallMs");
        QTest::addColumn<QString>("written"); // AlertRule::text()
        using K = AlertRule::Kind;
        QTest::newRow("above") << u"val_loss>2.5"_s << int(K::Above) << u"val_loss"_s << 2.5 << 0LL
                               << u"val_loss > 2.5"_s;
        QTest::newRow("spaces") << u"  val_loss  >  2.5 "_s << int(K::Above) << u"val_loss"_s << 2.5 << 0LL
                                << u"val_loss > 2.5"_s;
        QTest::newRow("below") << u"loss<0.01"_s << int(K::Below) << u"loss"_s << 0.01 << 0LL << u"loss < 0.01"_s;
        QTest::newRow("at least") << u"acc>=0.9"_s << int(K::AtLeast) << u"acc"_s << 0.9 << 0LL << u"acc >= 0.9"_s;
        QTest::newRow("at most") << u"loss <= -1e-3"_s << int(K::AtMost) << u"loss"_s << -1e-3 << 0LL
                                 << u"loss <= -0.001"_s;
        QTest::newRow("exponent") << u"grad_norm>1E+3"_s << int(K::Above) << u"grad_norm"_s << 1000.0 << 0LL
                                  << u"grad_norm > 1000"_s;
        QTest::newRow("nan") << u"loss:nan"_s << int(K::NotFinite) << u"loss"_s << 0.0 << 0LL << u"loss:nan"_s;
        QTest::newRow("NaN, spaced") << u"loss : NaN"_s << int(K::NotFinite) << u"loss"_s << 0.0 << 0LL
                                     << u"loss:nan"_s;
        QTest::newRow("every metric") << u"*:nan"_s << int(K::NotFinite) << u"*"_s << 0.0 << 0LL << u"*:nan"_s;
        QTest::newRow("a name with a slash")
            << u"train/loss>1"_s << int(K::Above) << u"train/loss"_s << 1.0 << 0LL << u"train/loss > 1"_s;
        QTest::newRow("a name with a space")
            << u"val loss>1"_s << int(K::Above) << u"val loss"_s << 1.0 << 0LL << u"val loss > 1"_s;
        QTest::newRow("quoted, with a colon")
            << u"\"eval:loss\" > 1"_s << int(K::Above) << u"eval:loss"_s << 1.0 << 0LL << u"\"eval:loss\" > 1"_s;
        QTest::newRow("quoted, an escaped quote")
            << u"'a\\'b' < 2"_s << int(K::Below) << u"a'b"_s << 2.0 << 0LL << u"a'b < 2"_s;
        QTest::newRow("a metric named stalled")
            << u"\"stalled\":nan"_s << int(K::NotFinite) << u"stalled"_s << 0.0 << 0LL << u"\"stalled\":nan"_s;
        QTest::newRow("stalled minutes") << u"stalled:10m"_s << int(K::Stalled) << QString() << 0.0 << 600000LL
                                         << u"stalled:10m"_s;
        QTest::newRow("stalled seconds") << u"stalled : 90s"_s << int(K::Stalled) << QString() << 0.0 << 90000LL
                                         << u"stalled:90s"_s;
        QTest::newRow("stalled hours, a fraction")
            << u"stalled:1.5h"_s << int(K::Stalled) << QString() << 0.0 << 5400000LL << u"stalled:90m"_s;
        QTest::newRow("stalled, upper case unit")
            << u"stalled:2H"_s << int(K::Stalled) << QString() << 0.0 << 7200000LL << u"stalled:2h"_s;
    }
    void rulesReadAsWritten()
    {
        QFETCH(QString, text);
        QFETCH(int, kind);
        QFETCH(QString, metric);
        QFETCH(double, threshold);
        QFETCH(qint64, stallMs);
        QFETCH(QString, written);
        const auto rule = AlertRule::parse(text);
        QVERIFY2(rule, rule ? "" : qPrintable(rule.error().message));
        QCOMPARE(int(rule->kind), kind);
        QCOMPARE(rule->metric, metric);
        QCOMPARE(rule->threshold, threshold);
        QCOMPARE(rule->stallMs, stallMs);
        QCOMPARE(rule->text(), written);
        const auto again = AlertRule::parse(rule->text());
        QVERIFY(again);
        QCOMPARE(*again, *rule);
    }

    void badRulesSayWhereAndWhat_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message"); // a part of the message
        QTest::newRow("empty") << u""_s << 1 << u"expected a rule: METRIC > NUMBER"_s;
        QTest::newRow("blank") << u"   "_s << 4 << u"expected a rule"_s;
        QTest::newRow("a name alone") << u"loss"_s << 5 << u"expected > NUMBER, < NUMBER or :nan after 'loss'"_s;
        QTest::newRow("no number") << u"loss>"_s << 6 << u"expected a number after '>'"_s;
        QTest::newRow("a word for a number") << u"loss > high"_s << 8 << u"expected a number after '>', not 'high'"_s;
        QTest::newRow("nan as a threshold") << u"loss > nan"_s << 8 << u"expected a number after '>', not 'nan'"_s;
        QTest::newRow("inf as a threshold") << u"loss<inf"_s << 6 << u"not 'inf'"_s;
        QTest::newRow("out of range") << u"loss>1e999"_s << 6 << u"expected a number"_s;
        QTest::newRow("no name") << u">2.5"_s << 1 << u"expected a metric's name (or *) before '>'"_s;
        QTest::newRow("equals") << u"loss=2"_s << 5 << u"'=' compares nothing here: use >, >=, < or <="_s;
        QTest::newRow("double equals") << u"loss==2"_s << 5 << u"'=' compares nothing here"_s;
        QTest::newRow("unknown condition") << u"loss:inf"_s << 6 << u"expected 'nan' after ':' (loss:nan), not 'inf'"_s;
        QTest::newRow("more after the number")
            << u"loss>2.5 and acc<1"_s << 10 << u"unexpected 'and' after the rule; rules are separated by commas"_s;
        QTest::newRow("more after nan") << u"loss:nan!"_s << 9 << u"unexpected '!'"_s;
        QTest::newRow("stall without a unit")
            << u"stalled:10"_s << 11 << u"expected the duration's unit after 10: s, m or h"_s;
        QTest::newRow("stall in days") << u"stalled:2d"_s << 10 << u"s, m or h"_s;
        QTest::newRow("stall, no duration")
            << u"stalled:"_s << 9 << u"expected a duration after 'stalled:' such as 10m"_s;
        QTest::newRow("stall too short") << u"stalled:10ms"_s << 12 << u"unexpected 's'"_s; // 10m, then 's'
        QTest::newRow("stall under a second")
            << u"stalled:0.5s"_s << 9 << u"a stall lasts from 1s to 7 days, not 0.5s"_s;
        QTest::newRow("stall over a week") << u"stalled:200h"_s << 9 << u"a stall lasts from 1s to 7 days"_s;
        QTest::newRow("unclosed quote") << u"\"val loss > 2"_s << 1 << u"the name quoted here has no closing \""_s;
        QTest::newRow("a control character") << u"lo\u001bss>1"_s << 1 << u"cannot name a metric"_s;
    }
    void badRulesSayWhereAndWhat()
    {
        QFETCH(QString, text);
        QFETCH(int, column);
        QFETCH(QString, message);
        const auto rule = AlertRule::parse(text);
        QVERIFY2(!rule, rule ? qPrintable(rule->text()) : "");
        QVERIFY2(rule.error().message.contains(message), qPrintable(rule.error().message));
        QCOMPARE(rule.error().column, column);
        QVERIFY(rule.error().hint.contains(u"docs/metrics.md"_s));
    }

    void aListIsSplitAtCommasAndLinesOutsideQuotes()
    {
        const auto rules = parseAlertRules(u"val_loss>2.5, loss:nan\n\"a,b\" < 1,, stalled:10m"_s);
        QVERIFY2(rules, rules ? "" : qPrintable(rules.error().message));
        QCOMPARE(rules->size(), 4);
        QCOMPARE(rules->at(2).metric, u"a,b"_s);
        QCOMPARE(alertRulesText(*rules), u"val_loss > 2.5, loss:nan, \"a,b\" < 1, stalled:10m"_s);
        QCOMPARE(*parseAlertRules(alertRulesText(*rules)), *rules);
        // A quote in the middle of a name opens nothing: it's (a name) is one rule, the next is another.
        const auto apostrophe = parseAlertRules(u"it's > 1, loss:nan"_s);
        QVERIFY(apostrophe);
        QCOMPARE(apostrophe->size(), 2);
        QCOMPARE(apostrophe->at(0).metric, u"it's"_s);
        QVERIFY(parseAlertRules(u" , \n"_s)->isEmpty());
    }

    void aListsErrorCountsColumnsInTheWholeText()
    {
        const auto rules = parseAlertRules(u"loss>1, acc>>2"_s);
        QVERIFY(!rules);
        QCOMPARE(rules.error().column, 13);
        QVERIFY2(rules.error().message.contains(u"expected a number after '>', not '>2'"_s),
                 qPrintable(rules.error().message));
        QString many;
        for (int i = 0; i <= kMostAlertRules; ++i)
            many += u"m%1>1,"_s.arg(i);
        QVERIFY(!parseAlertRules(many));
        QVERIFY(parseAlertRules(many).error().message.contains(u"more than 100 rules"_s));
    }

    void rulesHoldAsTheySay()
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        const AlertRule above = *AlertRule::parse(u"loss>2"_s);
        QVERIFY(above.holds(2.5) && !above.holds(2) && !above.holds(nan) && above.holds(inf));
        const AlertRule atLeast = *AlertRule::parse(u"loss>=2"_s);
        QVERIFY(atLeast.holds(2) && !atLeast.holds(1.99));
        const AlertRule below = *AlertRule::parse(u"loss<2"_s);
        QVERIFY(below.holds(1) && !below.holds(2) && !below.holds(nan) && below.holds(-inf));
        const AlertRule notFinite = *AlertRule::parse(u"loss:nan"_s);
        QVERIFY(notFinite.holds(nan) && notFinite.holds(inf) && notFinite.holds(-inf) && !notFinite.holds(0));
        QVERIFY(notFinite.matches(u"loss"_s) && !notFinite.matches(u"val_loss"_s));
        QVERIFY(AlertRule::parse(u"*:nan"_s)->matches(u"anything"_s));
        QVERIFY(!AlertRule::parse(u"stalled:1m"_s)->holds(nan));
    }
};

FERRY_TEST_APPLESS_MAIN(TestAlertRule)
#include "tst_alertrule.moc"
