// Following a growing run log from a stored byte offset: each line exactly once, partial
// lines held back, huge and binary lines handled with bounded memory.
#include "run/logtail.h"
#include "run/rundirectory.h"
#include "support/targets.h" // readable QCOMPARE failures of RunState
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/localtarget.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace Qt::StringLiterals;
using namespace ferry::run;
using ferry::targets::LocalTarget;
using ferry::targets::RunState;

namespace {

void append(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Append));
    QCOMPARE(f.write(bytes), bytes.size());
}

LogChunk readOk(const QString &path, qint64 offset, LogTail::Limits limits = {})
{
    const auto chunk = LogTail::read(path, offset, limits);
    if (!chunk) {
        qWarning("%s", qPrintable(chunk.error().toString()));
        return {};
    }
    return *chunk;
}

QList<QByteArray> texts(const LogChunk &chunk)
{
    QList<QByteArray> out;
    for (const LogLine &line : chunk.lines)
        out << line.text;
    return out;
}

qint64 bytesIn(const LogChunk &chunk)
{
    qint64 n = 0;
    for (const LogLine &line : chunk.lines)
        n += line.text.size();
    return n;
}

} // namespace

class TestLogTail : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void offsetsAndPartialLines()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"log"_s);
        QCOMPARE(readOk(log, 0).lines.size(), 0); // not written yet
        append(log, "a\nbb\nccc\n");
        LogChunk c = readOk(log, 0);
        QCOMPARE(texts(c), (QList<QByteArray>{"a", "bb", "ccc"}));
        QCOMPARE(c.lines.at(1).offset, 2);
        QCOMPARE(c.lines.at(2).offset, 5);
        QCOMPARE(c.nextOffset, 9);
        QVERIFY(c.atEnd);
        QVERIFY(c.lines.at(0).isWhole());

        QCOMPARE(readOk(log, 9).lines.size(), 0);
        append(log, "dd");
        c = readOk(log, 9);
        QCOMPARE(c.lines.size(), 0); // no newline yet: held back
        QCOMPARE(c.nextOffset, 9);
        append(log, "d\nee");
        c = readOk(log, c.nextOffset);
        QCOMPARE(texts(c), (QList<QByteArray>{"ddd"}));
        QCOMPARE(c.nextOffset, 13);
        append(log, "\n");
        QCOMPARE(texts(readOk(log, c.nextOffset)), (QList<QByteArray>{"ee"}));
    }

    void offsetInsideALine()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"log"_s);
        append(log, "hello\nworld\n");
        const LogChunk c = readOk(log, 2);
        QCOMPARE(texts(c), (QList<QByteArray>{"llo", "world"}));
        QVERIFY(!c.lines.at(0).startsLine); // the caller can tell it is not a whole line
        QVERIFY(c.lines.at(1).isWhole());
    }

    void crlfAndCarriageReturns()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"log"_s);
        append(log, "one\r\ntwo\r\n10%\r50%\r100%\n\r\n");
        QCOMPARE(texts(readOk(log, 0)), (QList<QByteArray>{"one", "two", "10%\r50%\r100%", ""}));
    }

    void binaryBytesComeBackExactly()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"log"_s);
        QByteArray binary;
        for (int i = 0; i < 256; ++i) {
            if (i != '\n')
                binary += static_cast<char>(i);
        }
        binary += QByteArray("\0\xff\xfe\xc3(", 5); // NULs and invalid UTF-8
        append(log, binary + '\n' + "after\n");
        const LogChunk c = readOk(log, 0);
        QCOMPARE(c.lines.size(), 2);
        QCOMPARE(c.lines.at(0).text, binary);
        QCOMPARE(c.lines.at(1).text, QByteArray("after"));
    }

    void tenMegabyteLine()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"log"_s);
        QByteArray huge(10 * 1024 * 1024, 'x');
        for (qsizetype i = 0; i < huge.size(); i += 4097)
            huge[i] = static_cast<char>('a' + i % 26);
        append(log, "before\n" + huge + "\nafter\n");

        // Default limits: the line comes in pieces of 1 MiB, flagged, and is complete again
        // when joined; calls stay within their budget.
        LogTail::Limits limits;
        limits.maxBytes = 2 * 1024 * 1024;
        QList<LogLine> all;
        qint64 offset = 0;
        for (int calls = 0; calls < 100; ++calls) {
            const LogChunk c = readOk(log, offset, limits);
            QVERIFY(bytesIn(c) <= limits.maxBytes + limits.maxLineBytes + 64 * 1024);
            all += c.lines;
            offset = c.nextOffset;
            if (c.atEnd)
                break;
        }
        QCOMPARE(all.first().text, QByteArray("before"));
        QCOMPARE(all.last().text, QByteArray("after"));
        QVERIFY(all.last().isWhole());
        QByteArray joined;
        for (qsizetype i = 1; i + 1 < all.size(); ++i) {
            const LogLine &piece = all.at(i);
            QCOMPARE(piece.startsLine, i == 1);
            QCOMPARE(piece.endsLine, i + 2 == all.size());
            QVERIFY(piece.text.size() <= limits.maxLineBytes);
            QCOMPARE(piece.offset, 7 + joined.size());
            joined += piece.text;
        }
        QCOMPARE(joined.size(), huge.size());
        QVERIFY(joined == huge);

        // With a larger line limit it is one whole line.
        limits.maxLineBytes = 16 * 1024 * 1024;
        const LogChunk whole = readOk(log, 7, limits);
        QVERIFY(whole.lines.at(0).isWhole());
        QVERIFY(whole.lines.at(0).text == huge);
    }

    void hugeLineStillBeingWritten()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"log"_s);
        LogTail::Limits limits;
        limits.maxLineBytes = 1000;
        append(log, QByteArray(3500, 'y'));
        LogChunk c = readOk(log, 0, limits);
        QCOMPARE(c.lines.size(), 3); // full pieces go at once; the last 500 bytes wait
        QCOMPARE(c.nextOffset, 3000);
        QVERIFY(!c.lines.at(2).endsLine);
        append(log, "zz\nnext\n");
        c = readOk(log, c.nextOffset, limits);
        QCOMPARE(texts(c), (QList<QByteArray>{QByteArray(500, 'y') + "zz", "next"}));
        QVERIFY(!c.lines.at(0).startsLine);
        QVERIFY(c.lines.at(0).endsLine);
    }

    void budgetSplitsAcrossCalls()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"log"_s);
        QByteArray text;
        for (int i = 0; i < 10000; ++i)
            text += "line " + QByteArray::number(i) + '\n';
        append(log, text);
        LogTail::Limits limits;
        limits.maxBytes = 1000;
        int expected = 0;
        int calls = 0;
        qint64 offset = 0;
        for (;;) {
            const LogChunk c = readOk(log, offset, limits);
            ++calls;
            for (const LogLine &line : c.lines)
                QCOMPARE(line.text, "line " + QByteArray::number(expected++));
            offset = c.nextOffset;
            if (c.atEnd)
                break;
            QVERIFY(calls < 1000);
        }
        QCOMPARE(expected, 10000);
        QCOMPARE(offset, text.size());
        QVERIFY(calls > 50);
    }

    void offsetPastTheEndIsAnError()
    {
        QTemporaryDir dir;
        const QString log = dir.filePath(u"log"_s);
        append(log, "short\n");
        const auto c = LogTail::read(log, 100);
        QVERIFY(!c);
        QVERIFY(c.error().message.contains(u"shorter"_s));
    }

    // A real script printing a million lines while the log is tailed: every line read
    // exactly once, in order, across many calls that meet lines half-written.
    void millionLinesFromARunningScript()
    {
        QTemporaryDir workspace;
        RunSpec spec;
        spec.id = u"lines"_s;
        spec.script = u"lines.py"_s;
        spec.sourceDir = QStringLiteral(FERRY_TEST_DATA "/runs/scripts");
        spec.interpreter = u"/usr/bin/python3"_s;
        constexpr int kLines = 1000000;
        spec.hyperparameters = {{u"lines"_s, QString::number(kLines)}};
        const QString runDir = RunDirectory::pathFor(workspace.path(), spec.id);
        LocalTarget target(ferry::test::ferryBinary());
        const auto started = target.start(runDir, spec);
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));

        const QString log = RunDirectory(runDir).logFile();
        LogTail::Limits limits;
        limits.maxBytes = 64 * 1024;
        qint64 offset = 0;
        int next = 0;
        int calls = 0;
        bool finished = false;
        const QDeadlineTimer deadline(240000);
        while (!deadline.hasExpired()) {
            // Probe before reading: once finished, this read sees the whole log.
            const auto status = target.probe(runDir);
            QVERIFY(status);
            finished = status->finished();
            LogChunk c;
            do {
                c = readOk(log, offset, limits);
                ++calls;
                for (const LogLine &line : c.lines) {
                    const QByteArray expected = "step=" + QByteArray::number(next) + ' ';
                    if (!line.isWhole() || !line.text.startsWith(expected))
                        QFAIL(qPrintable(u"line %1: '%2'"_s.arg(next).arg(QString::fromUtf8(line.text.left(80)))));
                    ++next;
                }
                offset = c.nextOffset;
            } while (!c.atEnd);
            if (finished)
                break;
            QThread::msleep(5);
        }
        QVERIFY(finished);
        QCOMPARE(target.probe(runDir)->state, RunState::Succeeded);
        QCOMPARE(next, kLines);
        QCOMPARE(offset, QFileInfo(log).size());
        QVERIFY(calls > 100);
    }
};

FERRY_TEST_GUILESS_MAIN(TestLogTail)
#include "tst_logtail.moc"
