// The files training libraries write beside the log (metrics/metricfiles.h), from the corpus
// (../shared/corpus/logs/: a transformers trainer_state.json, a Lightning metrics.csv): every
// point with its step, as Python's json and csv modules read the same file (the oracle below),
// and, read again as the file grows or is rewritten, nothing lost and nothing doubled.
#include "support/corpus.h"
#include "support/files.h"
#include "support/process.h"
#include "support/testmain.h"

#include "metrics/metricfiles.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTest>

#include <algorithm>
#include <tuple>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

const QString kTrainerState = u"logs/hf/trainer_state/Tashu014__lora-imdb-distilbert/trainer_state.json"_s;
const QString kMetricsCsv = u"logs/lightning_csv/DanyaSH759__MLOps_homework/lightning_logs/version_0/metrics.csv"_s;

// "name@step=value" of every point, in order: what Python reads, for comparing.
const char *const kFileOracle = R"PY(
import csv, json, sys
kind, path = sys.argv[1], sys.argv[2]
out = []
if kind == "state":
    for e in json.load(open(path))["log_history"]:
        for k, v in e.items():
            if k not in ("step", "epoch") and isinstance(v, (int, float)) and not isinstance(v, bool):
                out.append("%s@%r=%r" % (k, float(e["step"]), float(v)))
else:
    for row in csv.DictReader(open(path, newline="")):
        for k, v in row.items():
            if k not in ("step", "epoch") and v != "":
                out.append("%s@%r=%r" % (k, float(row["step"]), float(v)))
print("\n".join(out))
)PY";

QStringList fileOracle(const QString &kind, const QString &path)
{
    const auto r =
        ferry::test::runCommand(u"/usr/bin/python3"_s, {u"-c"_s, QString::fromUtf8(kFileOracle), kind, path});
    if (r.code != 0)
        qFatal("oracle failed: %s", r.err.constData());
    return QString::fromUtf8(r.out).split(u'\n', Qt::SkipEmptyParts);
}

// A point as "name step value", the numbers as doubles: the oracle prints Python's repr,
// which reads back to the very same double.
using Triple = std::tuple<QString, double, double>;

QList<Triple> triples(const QStringList &lines)
{
    QList<Triple> out;
    for (const QString &line : lines) {
        const qsizetype at = line.lastIndexOf(u'@');
        const qsizetype eq = line.lastIndexOf(u'=');
        out.append({line.first(at), line.sliced(at + 1, eq - at - 1).toDouble(), line.sliced(eq + 1).toDouble()});
    }
    return out;
}

QList<Triple> renderedTriples(const QList<MetricPoint> &points)
{
    QList<Triple> out;
    for (const MetricPoint &p : points)
        out.append({p.name, p.step, p.value});
    return out;
}

} // namespace

class TestMetricFiles : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void trainerStateAsPythonReadsIt()
    {
        const QString path = corpusPath(kTrainerState);
        TrainerStateReader reader;
        const auto points = reader.read(ferry::test::readFile(path), path, 0);
        QVERIFY2(points, qPrintable(points ? QString() : points.error().toString()));
        QList<Triple> got = renderedTriples(*points);
        QList<Triple> want = triples(fileOracle(u"state"_s, path));
        std::sort(got.begin(), got.end()); // QJsonObject orders an entry's keys; Python keeps the file's
        std::sort(want.begin(), want.end());
        QVERIFY(got == want);
        QVERIFY(want.size() > 50);
    }

    // Rewritten at each checkpoint, only ever longer: each read gives the new entries only.
    void trainerStateGrowsWithoutDoubles()
    {
        const QString path = corpusPath(kTrainerState);
        QJsonObject state = QJsonDocument::fromJson(ferry::test::readFile(path)).object();
        const QJsonArray all = state.value(u"log_history"_s).toArray();
        QJsonArray first;
        for (qsizetype i = 0; i < 7; ++i)
            first.append(all.at(i));
        TrainerStateReader reader;
        QJsonObject early = state;
        early.insert(u"log_history"_s, first);
        const auto a = reader.read(QJsonDocument(early).toJson(), path, 0);
        const auto b = reader.read(QJsonDocument(state).toJson(), path, 0);
        const auto again = reader.read(QJsonDocument(state).toJson(), path, 0);
        QVERIFY(a && b && again);
        QVERIFY(!a->isEmpty() && !b->isEmpty());
        QVERIFY(again->isEmpty());
        TrainerStateReader once;
        QVERIFY(renderedTriples(*a) + renderedTriples(*b) ==
                renderedTriples(*once.read(ferry::test::readFile(path), path, 0)));
    }

    void trainerStateThatIsNoneIsAnError()
    {
        TrainerStateReader reader;
        const auto bad = reader.read("{\"log_history\": 3}", u"/x/trainer_state.json"_s, 0);
        QVERIFY(!bad);
        QCOMPARE(bad.error().path, u"/x/trainer_state.json"_s);
        QVERIFY(!reader.read("not json", u"/x/trainer_state.json"_s, 0));
    }

    void lightningCsvAsPythonReadsIt()
    {
        const QString path = corpusPath(kMetricsCsv);
        LightningCsvReader reader;
        const auto points = reader.read(ferry::test::readFile(path), path, 0);
        QVERIFY2(points, qPrintable(points ? QString() : points.error().toString()));
        QVERIFY(renderedTriples(*points) == triples(fileOracle(u"csv"_s, path)));
    }

    // The file as Lightning writes it live: rows appended, a row half written, then the whole
    // file rewritten with a new column (val_loss) when it is first logged. Every point once.
    void lightningCsvRewrittenLosesAndDoublesNothing()
    {
        const QString path = corpusPath(kMetricsCsv);
        const QByteArray full = ferry::test::readFile(path);
        QList<QByteArray> lines = full.split('\n');
        for (QByteArray &line : lines) { // the file's lines end in "\r\n"
            if (line.endsWith('\r'))
                line.chop(1);
        }
        // Before val_loss was first logged: its column absent, the rows before that one.
        QByteArray before = "epoch,step,train_loss\n";
        qsizetype rows = 0;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QList<QByteArray> cells = lines.at(i).split(',');
            if (cells.size() == 4 && cells.at(3).isEmpty()) {
                before += cells.at(0) + ',' + cells.at(1) + ',' + cells.at(2) + '\n';
                ++rows;
            } else {
                break;
            }
        }
        QVERIFY(rows >= 3);
        LightningCsvReader reader;
        const QByteArray halfRow = before + "0,9";
        const auto a = reader.read(before.first(before.indexOf('\n') + 1), path, 0); // the header alone
        const auto b = reader.read(halfRow, path, 0);
        const auto c = reader.read(full, path, 0); // rewritten with val_loss
        const auto d = reader.read(full, path, 0);
        QVERIFY(a && b && c && d);
        QVERIFY(a->isEmpty());
        QCOMPARE(b->size(), rows);
        QVERIFY(d->isEmpty());
        QVERIFY(renderedTriples(*b) + renderedTriples(*c) == triples(fileOracle(u"csv"_s, path)));
    }
};

FERRY_TEST_APPLESS_MAIN(TestMetricFiles)
#include "tst_metricfiles.moc"
