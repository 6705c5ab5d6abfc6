// Hostile text through the real `ferry` (security review 2026-12-06, M5, M6, N8; M4's `runs diff`
// is tests/snapshot/tst_runsdiff.cpp): a bundle whose metrics.csv or spec is crafted, and runs
// whose output is, each at a hundred times what the review found costly where the finding has a
// size. Each case runs `ferry` under /usr/bin/time, prints its time and peak memory, and bounds
// them generously; the parsers' own tests (tst_metriccsv, tst_metricparser) go to the extremes.
#include "support/cli.h"
#include "support/cost.h"
#include "support/files.h"
#include "support/tarball.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

QByteArray metricsHeader()
{
    return "name,step,wall_ms,value,epoch\n";
}

} // namespace

class TestHostileText : public QObject {
    Q_OBJECT

    QTemporaryDir m_root;
    QStringList m_entries; // the exported bundle's entries, in its order
    QString m_workspace;

    QString extracted() const { return m_root.filePath(u"bundle"_s); }

    // The exported bundle with `part` (its name in the bundle) replaced by `content`.
    QString bundleWith(const QString &part, const QByteArray &content)
    {
        QList<test::TarEntry> entries;
        for (const QString &name : std::as_const(m_entries)) {
            if (name.endsWith(u'/'))
                continue;
            entries << test::TarEntry{name.toUtf8(),
                                      name == part ? content : test::readFile(extracted() + u'/' + name)};
        }
        const QString path = m_root.filePath(u"crafted.tar.gz"_s);
        if (!test::writeTarGz(path, entries))
            qFatal("cannot write the crafted bundle");
        return path;
    }

    QString newestRun() const
    {
        return test::jsonArray(test::runFerry(m_workspace, {u"runs"_s, u"list"_s, u"--json"_s}))
            .first()[u"id"_s]
            .toString();
    }

    QJsonObject lastMetrics(const QString &id) const
    {
        return test::jsonObject(test::runFerry(m_workspace, {u"runs"_s, u"show"_s, id, u"--json"_s}))[u"lastMetrics"_s]
            .toObject();
    }

    QJsonObject exportedSpec() const
    {
        return QJsonDocument::fromJson(test::readFile(extracted() + u"/spec.json"_s)).object();
    }

private Q_SLOTS:
    void initTestCase()
    {
        const QString source = m_root.filePath(u"source"_s);
        test::writeFileOrStop(
            source + u"/train.py"_s,
            "import json\nfor s in range(3):\n    print(json.dumps({'step': s, 'loss': 1 / (s + 3)}))\n");
        const auto run = test::runFerry(source, {u"run"_s, u"train.py"_s, u"--follow"_s});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QString id =
            test::jsonArray(test::runFerry(source, {u"runs"_s, u"list"_s, u"--json"_s})).first()[u"id"_s].toString();
        const QString good = m_root.filePath(u"good.tar.gz"_s);
        const auto exported = test::runFerry(source, {u"runs"_s, u"export"_s, id, u"--bundle"_s, good});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        QVERIFY(QDir().mkpath(extracted()));
        const auto listed = test::runProgram(u"tar"_s, {u"-tzf"_s, good});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        m_entries = listed.out.split(u'\n', Qt::SkipEmptyParts);
        QVERIFY(m_entries.contains(u"metrics.csv"_s) && m_entries.contains(u"spec.json"_s));
        QCOMPARE(test::runProgram(u"tar"_s, {u"-xzf"_s, good, u"-C"_s, extracted()}).exitCode, 0);
    }

    void init()
    {
        m_workspace = m_root.filePath(u"ws%1"_s.arg(QDateTime::currentMSecsSinceEpoch()));
        QVERIFY(QDir().mkpath(m_workspace));
    }

    // M5 at 100 times the review's bundle: a quote, then 40,000,000 line breaks (400,000 took 30 s
    // and grew four times with each doubling). Refused at its line, at once.
    void anUnclosedQuoteIsRefusedAtItsLine()
    {
        const QString bundle = bundleWith(u"metrics.csv"_s, metricsHeader() + '"' + QByteArray(40'000'000, '\n'));
        const test::CommandCost import = test::measureFerry("runs import, a quote and 40,000,000 line breaks",
                                                            m_workspace, {u"runs"_s, u"import"_s, bundle});
        QVERIFY(import.result.exitCode != 0);
        QVERIFY2(import.result.err.contains(u"its metrics.csv, line 2: a record longer than 4096 bytes or 4 lines"_s),
                 qPrintable(import.result.err));
        QVERIFY2(ferry::test::secondsWithin(import.seconds, 20),
                 "about a second expected (the bundle is unpacked first)");
        QVERIFY2(import.mib < 400, "about 40 MiB expected");
    }

    // M6: one name more than a run may have is refused with the cap; as many as it may have are
    // imported, and `runs show` lists them in one read (200,000 names took it 10.7 s).
    void metricNamesAreCapped()
    {
        QByteArray metrics = metricsHeader();
        for (int i = 0; i <= 10000; ++i)
            metrics += "metric_" + QByteArray::number(i) + ",1,1733390000000," + QByteArray::number(i) + ",\n";
        const test::CommandCost refused =
            test::measureFerry("runs import, 10,001 metric names", m_workspace,
                               {u"runs"_s, u"import"_s, bundleWith(u"metrics.csv"_s, metrics)});
        QVERIFY(refused.result.exitCode != 0);
        QVERIFY2(refused.result.err.contains(u"its metrics.csv, line 10002: a run keeps at most 10000 metrics"_s),
                 qPrintable(refused.result.err));

        metrics.truncate(metrics.lastIndexOf("metric_10000,"));
        const auto imported =
            test::runFerry(m_workspace, {u"runs"_s, u"import"_s, bundleWith(u"metrics.csv"_s, metrics)});
        QVERIFY2(imported.exitCode == 0, qPrintable(imported.err));
        const QString id = exportedSpec()[u"id"_s].toString();
        const test::CommandCost show =
            test::measureFerry("runs show, 10,000 metric names", m_workspace, {u"runs"_s, u"show"_s, id});
        QVERIFY2(show.result.exitCode == 0, qPrintable(show.result.err));
        QCOMPARE(show.result.out.count(u"\nmetric:    "_s), 10000);
        QVERIFY(show.result.out.contains(u"\nmetric:    metric_9999 = 9999 (last)\n"_s));
        QVERIFY2(ferry::test::secondsWithin(show.seconds, 10), "well under a second expected");
        QVERIFY2(show.mib < 400, "about 40 MiB expected");
    }

    // M6 in a run's own output: 20,000 names printed, twice the cap. The run's series, the
    // system's samples among them, stop at 10,000; the rest is said once.
    void aRunPrintingTooManyNamesKeepsTheCap()
    {
        test::writeFileOrStop(m_workspace + u"/names.py"_s,
                              "import json\nfor i in range(20000):\n    print(json.dumps({'name%d' % i: 1.0}))\n");
        const test::CommandCost run = test::measureFerry("run --follow, 20,000 metric names", m_workspace,
                                                         {u"run"_s, u"names.py"_s, u"--follow"_s});
        QVERIFY2(run.result.exitCode == 0, qPrintable(run.result.err));
        QCOMPARE(run.result.out.count(u"ferry: a run keeps at most 10000 metrics"_s), 1);
        const QJsonObject last = lastMetrics(newestRun());
        QCOMPARE(last.size(), 10000);
        QVERIFY(last.contains(u"name0"_s) && last.contains(u"name9900"_s) && !last.contains(u"name10000"_s));
        QVERIFY2(ferry::test::secondsWithin(run.seconds, 60), "a few seconds expected");
    }

    // N8: a definition whose regex backtracks for ever on a line of a's ((a+)+$ on lines of 3,000
    // a's and a 'b', a hundred times a line that takes 2^30 steps) gives no point and one
    // warning; the run ends promptly and the other definition's points are stored.
    void aCatastrophicMetricRegexDoesNotHang()
    {
        test::writeFileOrStop(m_workspace + u"/evil.py"_s,
                              "for i in range(200):\n    print('a' * 3000 + 'b')\n    print('loss=%d' % i)\n");
        const test::CommandCost run =
            test::measureFerry("run --follow, (a+)+$ on 200 lines of 3,001 characters", m_workspace,
                               {u"run"_s, u"evil.py"_s, u"--metric-def"_s, u"evil=(a+)+$"_s, u"--metric-def"_s,
                                u"loss=loss=([0-9]+)"_s, u"--follow"_s});
        QVERIFY2(run.result.exitCode == 0, qPrintable(run.result.err));
        QCOMPARE(run.result.out.count(u"ferry: metric 'evil': its regex took too long on a line"_s), 1);
        const QJsonObject last = lastMetrics(newestRun());
        QStringList names = last.keys();
        names.removeIf([](const QString &name) { return name.startsWith(u"system/"_s); });
        QCOMPARE(names, QStringList{u"loss"_s});
        QCOMPARE(last[u"loss"_s].toDouble(), 199.0);
        QVERIFY2(ferry::test::secondsWithin(run.seconds, 60), "a few seconds expected");
    }

    // N8 at import: of a spec with more definitions than a run may have, the first 64 are kept
    // and the rest left out, naming the cap (tracking/foreignrun.h: data, kept within limits).
    void tooManyDefinitionsAreLeftOutAtImport()
    {
        QJsonObject spec = exportedSpec();
        QJsonArray definitions;
        for (int i = 0; i < 65; ++i)
            definitions.append(QJsonObject{{u"Name"_s, u"m%1"_s.arg(i)}, {u"Regex"_s, u"m%1=([0-9]+)"_s.arg(i)}});
        definitions.append(QJsonObject{{u"Name"_s, u"evil"_s}, {u"Regex"_s, u"(a+)+$"_s}}); // no group: left out too
        spec[u"metricDefinitions"_s] = definitions;
        const auto import = test::runFerry(
            m_workspace, {u"runs"_s, u"import"_s, bundleWith(u"spec.json"_s, QJsonDocument(spec).toJson())});
        QVERIFY2(import.exitCode == 0, qPrintable(import.err));
        QVERIFY2(import.err.contains(u"metric definition 'm64' left out: a run keeps at most 64"_s),
                 qPrintable(import.err));
        QVERIFY2(import.err.contains(u"metric definition 'evil' left out"_s), qPrintable(import.err));
        const QJsonObject shown = test::jsonObject(
            test::runFerry(m_workspace, {u"runs"_s, u"show"_s, spec[u"id"_s].toString(), u"--json"_s}));
        QCOMPARE(shown[u"spec"_s][u"metricDefinitions"_s].toArray().size(), 64);
    }
};

FERRY_TEST_GUILESS_MAIN(TestHostileText)
#include "tst_hostiletext.moc"
