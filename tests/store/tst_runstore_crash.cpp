// Crash consistency of the run store, for real: a child process (this binary, started with
// --append-child) re-attaches to a run, parses its log from the stored offset and appends the
// points in batches; it is killed with SIGKILL at random moments, several rounds. After each
// kill the database passes integrity_check, its log offset is the end of a whole batch, and its
// points are exactly those of the log up to that offset, each once. A last round lets the
// child finish the grown log: then every point of the whole log is stored exactly once.
#include "metrics/metricparser.h"
#include "store/runstore.h"
#include "support/testmain.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <cstdio>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

const QString kRunId = u"20261130-000000-train-dead"_s;

// Batches end after a line that ends at one of these offsets (about one line in 16), and at
// the end of the log: deterministic, so the test knows every offset a batch can pair with.
bool batchEndsAt(qint64 offset)
{
    return (static_cast<quint64>(offset) * 0x9E3779B97F4A7C15ull) >> 60 == 0;
}

// Training output: key=value lines, JSON lines and noise. Every metric line names its step,
// so a parser started in the middle of the log reads the same points as one started at 0.
QByteArray logLines(int first, int count)
{
    QByteArray text;
    for (int i = first; i < first + count; ++i) {
        const QByteArray loss = QByteArray::number(2.0 / (i + 1), 'g', 17);
        switch (i % 10) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4:
            text += "step=" + QByteArray::number(i) + " loss=" + loss + " acc=" + QByteArray::number(i % 97) + "\n";
            break;
        case 5:
        case 6:
            text += R"({"step": )" + QByteArray::number(i) + R"(, "loss": )" + loss + R"(, "lr": 0.001})" + "\n";
            break;
        case 7:
            text += "Epoch " + QByteArray::number(i / 100) + " - val_loss: " + loss + "\n";
            break;
        case 8:
            text += "Downloading: 45% of 10MB, ETA 3s\n";
            break;
        default:
            text += "\n";
        }
    }
    return text;
}

int appendChild(const QString &databasePath, const QString &logPath)
{
    auto opened = RunStore::open(databasePath);
    if (!opened) {
        std::fprintf(stderr, "child: %s\n", qPrintable(opened.error().toString()));
        return 3;
    }
    RunStore &store = **opened;
    const std::optional<RunRecord> existing = store.run(kRunId);
    if (!existing) {
        RunRecord record;
        record.id = kRunId;
        record.status = RunStatus::Running;
        store.createRun(record);
    }
    const qint64 start = existing ? existing->logOffset : 0;
    QFile log(logPath);
    if (!log.open(QIODevice::ReadOnly) || !log.seek(start))
        return 4;
    const QByteArray rest = log.readAll();

    // As a follower starts again: metrics without a step count on from the points stored.
    MetricParser parser;
    for (const QString &name : store.metricNames(kRunId))
        parser.setCount(name, store.metricCount(kRunId, name));
    QList<MetricPoint> batch;
    int batches = 0;
    qsizetype pos = 0;
    while (pos < rest.size()) {
        const qsizetype end = rest.indexOf('\n', pos);
        const QString line = QString::fromUtf8(rest.constData() + pos, end - pos);
        parser.parseLine(line, start + pos, batch); // the line's offset as its wall time: checkable
        pos = end + 1;
        if (!batchEndsAt(start + pos) && pos < rest.size())
            continue;
        store.appendMetrics(kRunId, std::exchange(batch, {}), start + pos);
        if (++batches % 25 == 0) {
            store.flush();
            std::printf("flushed %lld\n", static_cast<long long>(start + pos));
            std::fflush(stdout);
        }
        QThread::usleep(200); // a run prints over time; gives the kill many moments to land in
    }
    store.flush();
    std::printf("done %lld\n", static_cast<long long>(start + pos));
    std::fflush(stdout);
    return 0;
}

struct LogLine {
    qint64 end; // the offset just past the line
    QList<MetricPoint> points;
};

} // namespace

class TestRunStoreCrash : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_db, m_log;
    QList<LogLine> m_lines;      // every line of the log, parsed
    QSet<qint64> m_batchEnds{0}; // offsets a committed batch can pair with
    qint64 m_lastFlushed = 0;    // the child said this offset was committed
    MetricParser m_parser;       // what the log's lines give

    void writeLog(const QByteArray &text)
    {
        QFile file(m_log);
        QVERIFY(file.open(QIODevice::Append));
        qint64 offset = file.size();
        const qint64 end = offset + text.size();
        QCOMPARE(file.write(text), text.size());
        MetricParser &parser = m_parser; // one for the whole log: counts go on across writes
        for (const QByteArray &line : text.split('\n')) {
            if (offset == end)
                break; // after the last newline
            LogLine e{offset + line.size() + 1, {}};
            parser.parseLine(QString::fromUtf8(line), offset, e.points);
            if (batchEndsAt(e.end))
                m_batchEnds.insert(e.end);
            m_lines.append(e);
            offset = e.end;
        }
        m_batchEnds.insert(offset);
    }

    // The points of the log up to `offset`, in the store's order: by name, step, then arrival.
    QList<MetricPoint> expectedUpTo(qint64 offset) const
    {
        QList<MetricPoint> points;
        for (const LogLine &e : m_lines) {
            if (e.end > offset)
                break;
            points.append(e.points);
        }
        std::stable_sort(points.begin(), points.end(), [](const MetricPoint &a, const MetricPoint &b) {
            return a.name != b.name ? a.name < b.name : a.step < b.step;
        });
        return points;
    }

    void checkStore(const QString &when)
    {
        auto opened = RunStore::open(m_db);
        QVERIFY2(opened, qPrintable(when + u": "_s + (opened ? QString() : opened.error().toString())));
        RunStore &store = **opened;
        QVERIFY2(store.integrityCheck(), qPrintable(when));
        const std::optional<RunRecord> run = store.run(kRunId);
        const qint64 offset = run ? run->logOffset : 0;
        QVERIFY2(m_batchEnds.contains(offset), qPrintable(u"%1: offset %2 is inside a batch"_s.arg(when).arg(offset)));
        QVERIFY2(offset >= m_lastFlushed,
                 qPrintable(u"%1: offset %2 lost the flushed %3"_s.arg(when).arg(offset).arg(m_lastFlushed)));
        const QList<MetricPoint> stored = store.metrics(kRunId);
        const QList<MetricPoint> expected = expectedUpTo(offset);
        QCOMPARE(stored.size(), expected.size());
        for (qsizetype i = 0; i < stored.size(); ++i) {
            const MetricPoint &s = stored[i];
            const MetricPoint &e = expected[i];
            QVERIFY2(
                s.name == e.name && s.step == e.step && s.value == e.value && s.wallMs == e.wallMs,
                qPrintable(
                    u"%1: point %2 is %3@%4, expected %5@%6"_s.arg(when).arg(i).arg(s.name).arg(s.step).arg(e.name).arg(
                        e.step)));
        }
        m_lastFlushed = offset;
    }

    // Starts a child; returns once it has committed at least one flush (or ended).
    void startChild(QProcess &child)
    {
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(),
                    ferry::test::testArguments({u"--append-child"_s, m_db, m_log}));
        QVERIFY(child.waitForStarted());
    }

    void readReports(QProcess &child)
    {
        while (child.canReadLine()) {
            const QByteArray line = child.readLine().trimmed();
            if (line.startsWith("flushed ") || line.startsWith("done "))
                m_lastFlushed = std::max(m_lastFlushed, line.mid(line.indexOf(' ') + 1).toLongLong());
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_db = RunStore::pathInWorkspace(m_dir.path());
        m_log = m_dir.filePath(u"train.log"_s);
        writeLog(logLines(0, 48000));
    }

    void killedAtRandomMomentsThenReattached()
    {
        quint32 seed = QRandomGenerator::global()->generate();
        if (qEnvironmentVariableIsSet("FERRY_CRASH_SEED"))
            seed = qEnvironmentVariable("FERRY_CRASH_SEED").toUInt();
        qInfo("FERRY_CRASH_SEED=%u", seed);
        QRandomGenerator random(seed);

        constexpr int kRounds = 10;
        int killedMidRun = 0;
        for (int round = 1; round <= kRounds; ++round) {
            QProcess child;
            startChild(child);
            // The first round may die anywhere, even while the database is being created;
            // later ones once the child has committed something, then at a random moment.
            const qint64 before = m_lastFlushed;
            if (round > 1) {
                while (m_lastFlushed == before && child.state() == QProcess::Running) {
                    child.waitForReadyRead(1000);
                    readReports(child);
                }
            }
            QThread::usleep(random.bounded(30000));
            const bool running = child.state() == QProcess::Running;
            child.kill(); // SIGKILL
            QVERIFY(child.waitForFinished(30000));
            readReports(child);
            if (running)
                ++killedMidRun;
            checkStore(u"round %1"_s.arg(round));
            if (QTest::currentTestFailed())
                return;
        }
        qInfo("%d of %d rounds killed the child mid-run", killedMidRun, kRounds);
        QVERIFY(killedMidRun >= kRounds - 1);

        // The run went on while no one watched: the log grew. Re-attach and read to the end.
        writeLog(logLines(48000, 5000));
        QProcess child;
        startChild(child);
        QVERIFY(child.waitForFinished(120000));
        readReports(child);
        QCOMPARE(child.exitStatus(), QProcess::NormalExit);
        QCOMPARE(child.exitCode(), 0);
        checkStore(u"after re-attach"_s);
        QCOMPARE(m_lastFlushed, QFileInfo(m_log).size());
        QCOMPARE(expectedUpTo(m_lastFlushed).size(), expectedUpTo(std::numeric_limits<qint64>::max()).size());
    }
};

// QTEST_GUILESS_MAIN, and the child that appends (startChild).
static int runStoreCrashMain(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    if (argc == 4 && qstrcmp(argv[1], "--append-child") == 0)
        return appendChild(QString::fromLocal8Bit(argv[2]), QString::fromLocal8Bit(argv[3]));
    TestRunStoreCrash test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
FERRY_TEST_MAIN_FUNCTION(runStoreCrashMain)

#include "tst_runstore_crash.moc"
