// log.times (run/logtimes.h): samples read as the file grows, a line dated by the first sample
// that covers it, malformed or out-of-order lines skipped.
#include "run/logtimes.h"
#include "support/testmain.h"

#include <QTest>

using namespace ferry::run;

class TestLogTimes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void linesAreDatedByTheFirstSampleThatCoversThem()
    {
        LogTimes times;
        const QByteArray file = LogTimes::line(10, 1000) + LogTimes::line(25, 2000) + LogTimes::line(40, 3500);
        times.feed(file.left(9)); // half a line waits
        QCOMPARE(times.bytesRead(), 8);
        QCOMPARE(times.timeOf(1), std::optional<qint64>(1000));
        times.feed(file.mid(times.bytesRead()));
        QCOMPARE(times.bytesRead(), file.size());
        QCOMPARE(times.timeOf(10), std::optional<qint64>(1000));
        QCOMPARE(times.timeOf(11), std::optional<qint64>(2000));
        QCOMPARE(times.timeOf(40), std::optional<qint64>(3500));
        QCOMPARE(times.timeOf(41), std::nullopt); // not written when last stamped: read now
        times.dropBefore(20);
        QCOMPARE(times.timeOf(21), std::optional<qint64>(2000)); // the line ending there keeps its time
    }

    void malformedAndBackwardLinesAreSkipped()
    {
        LogTimes times;
        times.feed("10 1000\nx 5\n5 900\n12 1\n\n20 3000 extra\n30 4000\n");
        QCOMPARE(times.timeOf(11), std::optional<qint64>(1)); // "12 1": a clock set back is kept
        QCOMPARE(times.timeOf(13), std::optional<qint64>(4000));
    }
};

FERRY_TEST_GUILESS_MAIN(TestLogTimes)
#include "tst_logtimes.moc"
