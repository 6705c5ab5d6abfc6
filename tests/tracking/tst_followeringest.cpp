// A finished run's log collected by RunFollower as `ferry runs attach` collects it (chunk by chunk,
// the store committing one chunk while the next is parsed, each line decoded without an
// allocation): what the store holds is, point for point and bit for bit, what the plain path
// gives (metricRecords then MetricParser, line by line): values, steps, wall times and epochs,
// NaN, infinities, -0.0, the largest and smallest doubles, steps counted where a line gives none.
// Also when another follower stored part of the log first: every line's points are stored once.
#include "support/testmain.h"

#include "metrics/metricnames.h"
#include "metrics/terminaltext.h"
#include "run/logtimes.h"
#include "run/rundirectory.h"
#include "store/runstore.h"
#include "targets/target.h"
#include "tracking/runfollower.h"

#include <QDir>
#include <QFile>
#include <QMap>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::run;

namespace {

const QString kRun = u"run-1"_s;

// A run that has ended, its log read as the local target reads it, in small chunks (a few KB
// instead of 8 MB): a short log goes through the follower's pipeline many times.
class EndedRun : public targets::Target {
public:
    Expected<void> start(const QString &, const RunSpec &) override { return {}; }
    Expected<targets::RunProbe> probe(const QString &) override
    {
        targets::RunProbe probe;
        probe.state = targets::RunState::Succeeded;
        probe.exit = ExitRecord{0, 0, 1700000000000, false, {}};
        probe.archived = true;
        return probe;
    }
    Expected<targets::RunProbe> cancel(const QString &dir, int) override { return probe(dir); }
    Expected<LogChunk> readLog(const QString &runDir, qint64 offset, LogTail::Limits limits) override
    {
        ++reads;
        limits.maxBytes = chunkBytes;
        return Target::readLog(runDir, offset, limits);
    }
    qint64 chunkBytes = 4096;
    int reads = 0;
};

// Values as scripts print them, the awkward ones among them.
const QList<QByteArray> kValues{
    "0.1",   "1e-300",           "1.7976931348623157e308", "4.9e-324", "nan", "inf",   "-inf",  "-0.0",
    "0",     "123456789012",     "0.30000000000000004",    "2.5E+10",  ".5",  "7.",    "-3.25", "1e22",
    "1e-22", "9007199254740993", "0.000001234567890123",   "1e23",     "NaN", "-1e-5", "42",    "3.14159"};

// A log of `lines` lines of every kind the parser reads (key=value, JSON, Python dicts, tqdm bars
// redrawn with '\r', colours, backspaces, Ferry's notes, CRLF, noise, metrics without a step).
QByteArray makeLog(int lines, quint32 seed)
{
    QRandomGenerator rng(seed);
    const auto value = [&] { return kValues[rng.bounded(static_cast<int>(kValues.size()))]; };
    QByteArray log;
    for (int i = 0; i < lines; ++i) {
        const QByteArray step = QByteArray::number(i);
        switch (rng.bounded(14)) {
        case 0:
        case 1:
        case 2:
            log += "step=" + step + " loss=" + value() + " acc=" + value() + "\n";
            break;
        case 3:
            log += "{\"step\": " + step + ", \"loss\": " + QByteArray::number(rng.generateDouble(), 'g', 17) +
                   ", \"lr\": 1e-05, \"epoch\": " + QByteArray::number(i / 100) + "}\n";
            break;
        case 4:
            log += "{'loss': " + value() + ", 'grad_norm': '" + QByteArray::number(rng.generateDouble() * 5) +
                   "', 'epoch': " + QByteArray::number(i / 50.0) + "}\n";
            break;
        case 5: // a tqdm bar redrawn: its postfix counts once
            log += "Epoch 1:  45%|####5     | 45/100 [00:01<00:01, 30.1it/s, loss=0.31]\rEpoch 1:  46%|####6     | "
                   "46/100 [00:01<00:01, 30.2it/s, loss=" +
                   value() + "]\n";
            break;
        case 6:
            log += "\x1b[32mstep=" + step + " val_loss=" + value() + "\x1b[0m\n";
            break;
        case 7:
            log += "val_acc: 0." + QByteArray::number(rng.bounded(1000)) + "\n"; // no step: counted
            break;
        case 8:
            log += "step=" + step + " loss=0.5\b7\r\n"; // a backspace, a CRLF
            break;
        case 9:
            log += "ferry: attempt 2: loss=1\n";
            break;
        case 10:
            log += "saved to /opt/ml/checkpoints/last.pt " + QByteArray(rng.bounded(3), '\x01') + "\n";
            break;
        case 11:
            log += "epoch 3 gr\xc3\xb6\xc3\x9f"
                   "e=" +
                   value() + " iter: " + step + "\n"; // UTF-8
            break;
        case 12:
            log += "\n";
            break;
        default:
            log += "Accuracy: 9801/10000 (98%) batch_loss: 12/500 lr=" + value() + "\n";
            break;
        }
    }
    return log;
}

// When each part of the log was written: a sample every few hundred bytes.
QByteArray makeTimes(const QByteArray &log)
{
    QByteArray times;
    qint64 ms = 1700000000000;
    for (qint64 size = 0; size < log.size(); size += 700)
        times += LogTimes::line(size, ms += 37);
    return times + LogTimes::line(log.size(), ms + 1000);
}

// The plain path: each whole line (as LogTail splits them) through metricRecords and the parser,
// at the time log.times gives its first byte.
QList<MetricPoint> parsedPlainly(const QByteArray &log, const QByteArray &times, qint64 from = 0, qint64 to = -1,
                                 MetricParser parser = MetricParser())
{
    LogTimes when;
    when.feed(times);
    QList<MetricPoint> points;
    for (qint64 start = 0, end; (end = log.indexOf('\n', start)) >= 0; start = end + 1) { // as LogTail splits
        if (start < from || (to >= 0 && start >= to))
            continue;
        QByteArrayView line = QByteArrayView(log).sliced(start, end - start);
        if (line.endsWith('\r'))
            line.chop(1);
        for (const QString &record : metricRecords(line))
            parser.parseLine(record, *when.timeOf(start + 1), points);
    }
    MetricNames names;
    (void)names.filter(points);
    return points;
}

quint64 bits(double v)
{
    return std::bit_cast<quint64>(v);
}

// Whether the store holds exactly `expected`, series by series in arrival order, bit for bit.
QString differences(const RunStore &store, const QList<MetricPoint> &expected)
{
    QMap<QString, QList<MetricPoint>> byName;
    for (const MetricPoint &p : expected)
        byName[p.name] << p;
    if (store.metricNames(kRun) != QStringList(byName.keyBegin(), byName.keyEnd()))
        return u"names: %1, expected %2"_s.arg(store.metricNames(kRun).join(u','),
                                               QStringList(byName.keyBegin(), byName.keyEnd()).join(u','));
    for (auto it = byName.cbegin(); it != byName.cend(); ++it) {
        const std::vector<SeriesPoint> stored = store.series(kRun, it.key());
        if (static_cast<qsizetype>(stored.size()) != it->size())
            return u"%1: %2 points, expected %3"_s.arg(it.key()).arg(stored.size()).arg(it->size());
        for (qsizetype i = 0; i < it->size(); ++i) {
            const SeriesPoint &s = stored[static_cast<size_t>(i)];
            const MetricPoint &e = it->at(i);
            if (bits(s.step) != bits(e.step) || bits(s.value) != bits(e.value) || s.wallMs != e.wallMs ||
                bits(s.epoch) != bits(e.epoch))
                return u"%1, point %2: step %3 value %4 wall %5 epoch %6, expected %7 %8 %9 %10"_s.arg(it.key())
                    .arg(i)
                    .arg(s.step, 0, 'g', 17)
                    .arg(s.value, 0, 'g', 17)
                    .arg(s.wallMs)
                    .arg(s.epoch)
                    .arg(e.step, 0, 'g', 17)
                    .arg(e.value, 0, 'g', 17)
                    .arg(e.wallMs)
                    .arg(e.epoch);
        }
    }
    return {};
}

} // namespace

class TestFollowerIngest : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    std::unique_ptr<RunStore> m_store;
    QString m_runDir;
    QByteArray m_log, m_times;

    RunRecord record() const
    {
        RunRecord r;
        r.id = kRun;
        r.status = RunStatus::Running;
        r.target = u"local"_s;
        return r;
    }

    // A fresh store and run folder holding `log`.
    void setUpRun(const QByteArray &log)
    {
        m_store.reset();
        QDir(m_ws.path()).removeRecursively();
        QVERIFY(QDir().mkpath(m_ws.filePath(u".ferry/runs/"_s + kRun)));
        m_runDir = m_ws.filePath(u".ferry/runs/"_s + kRun);
        m_log = log;
        m_times = makeTimes(log);
        for (const auto &[name, bytes] : {std::pair{u"log"_s, &m_log}, std::pair{u"log.times"_s, &m_times}}) {
            QFile f(m_runDir + u'/' + name);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(*bytes), bytes->size());
        }
        auto store = RunStore::open(RunStore::pathInWorkspace(m_ws.path()));
        QVERIFY2(store, store ? "" : qPrintable(store.error().toString()));
        m_store = std::move(*store);
        m_store->createRun(record());
        m_store->flush();
    }

    // Follows the run to its end; the lines its steps returned.
    QList<QByteArray> follow(RunFollower &follower)
    {
        QList<QByteArray> lines;
        for (int round = 0; round < 100; ++round) {
            const auto step = follower.poll();
            if (!step)
                qFatal("%s", qPrintable(step.error().toString()));
            lines << step->lines;
            if (step->finished)
                break;
        }
        m_store->flush();
        return lines;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_ws.isValid()); }

    void storedAsParsedLineByLine_data()
    {
        QTest::addColumn<int>("lines");
        QTest::addColumn<qint64>("chunkBytes");
        QTest::newRow("one chunk") << 200 << qint64(8) * 1024 * 1024;
        QTest::newRow("many small chunks") << 20000 << qint64(4096);
        QTest::newRow("a line a chunk") << 300 << qint64(1);
    }

    void storedAsParsedLineByLine()
    {
        QFETCH(int, lines);
        QFETCH(qint64, chunkBytes);
        setUpRun(makeLog(lines, 7));
        const QList<MetricPoint> expected = parsedPlainly(m_log, m_times);
        QVERIFY(expected.size() > lines / 2);
        EndedRun target;
        target.chunkBytes = chunkBytes;
        RunFollower follower(*m_store, target, m_runDir, record());
        const QList<QByteArray> shown = follow(follower);
        QVERIFY(chunkBytes > m_log.size() || target.reads > 2);
        const QString wrong = differences(*m_store, expected);
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        QCOMPARE(m_store->run(kRun)->logOffset, m_log.size());
        QCOMPARE(m_store->run(kRun)->status, RunStatus::Succeeded);
        // Every line of the log shown once, in order (Ferry's notes aside).
        QList<QByteArray> logLines = m_log.split('\n');
        logLines.removeLast();
        for (QByteArray &line : logLines) {
            if (line.endsWith('\r'))
                line.chop(1);
        }
        QList<QByteArray> shownLog = shown;
        shownLog.removeIf(
            [](const QByteArray &l) { return l.startsWith("ferry: ") && !l.startsWith("ferry: attempt"); });
        QCOMPARE(shownLog, logLines);
    }

    // What `ferry runs attach` does before it follows: the store brought up to date, no line kept.
    void linesNotReturnedWhenNotWanted()
    {
        setUpRun(makeLog(3000, 11));
        EndedRun target;
        RunFollower follower(*m_store, target, m_runDir, record());
        follower.setReturnLines(false);
        QVERIFY(follow(follower).isEmpty());
        const QString wrong = differences(*m_store, parsedPlainly(m_log, m_times));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
    }

    // Another follower (another process) stored the first lines while this one read its first
    // chunk and parsed its second: that chunk's swap fails, the chunk parsed meanwhile is dropped,
    // the log is read again from the stored offset, counted on from the stored points.
    void anotherFollowerStoredFirst()
    {
        setUpRun(makeLog(6000, 23));
        const qint64 cut = m_log.indexOf('\n', 1000) + 1; // inside this follower's first chunk
        const QList<MetricPoint> first = parsedPlainly(m_log, m_times, 0, cut);
        const auto swapped = m_store->appendMetricsAt(kRun, first, 0, cut);
        QVERIFY2(swapped && swapped->applied, swapped ? "" : qPrintable(swapped.error().toString()));
        EndedRun target;
        target.chunkBytes = 16 * 1024;
        RunFollower follower(*m_store, target, m_runDir, record()); // its record: offset 0
        (void)follow(follower);
        // The rest as a follower that starts at `cut` parses it: points without a step counted on
        // from the points of their name stored (RunFollower's rule).
        MetricParser resumed;
        QMap<QString, qsizetype> counts;
        for (const MetricPoint &p : first)
            ++counts[p.name];
        for (auto it = counts.cbegin(); it != counts.cend(); ++it)
            resumed.setCount(it.key(), it.value());
        const QString wrong = differences(*m_store, first + parsedPlainly(m_log, m_times, cut, -1, resumed));
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        QCOMPARE(m_store->run(kRun)->logOffset, m_log.size());
    }
};

FERRY_TEST_GUILESS_MAIN(TestFollowerIngest)
#include "tst_followeringest.moc"
