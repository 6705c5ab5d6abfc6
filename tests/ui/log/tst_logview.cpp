// The log view: a big log opens on its tail only, earlier chunks are prepended without gap or
// duplicate, following shows lines written later (an unfinished line exactly once), search
// finds, highlights and reaches into earlier chunks, and odd logs (a 5 MB line, invalid
// UTF-8, NULs, terminal colours) load.
#include "support/testmain.h"
#include "ui/log/logview.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>

using namespace Qt::StringLiterals;
using ferry::ui::LogView;

namespace {

QByteArray numberedLine(int n)
{
    // About 100 bytes a line.
    return "line " + QByteArray::number(n).rightJustified(9, '0') + " epoch=3 loss=0.25 " + QByteArray(70, 'x') + '\n';
}

// Writes lines 0..count-1; returns the file size.
qint64 writeNumbered(const QString &path, int count)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return -1;
    QByteArray buffer;
    for (int i = 0; i < count; ++i) {
        buffer += numberedLine(i);
        if (buffer.size() > (1 << 20)) {
            file.write(buffer);
            buffer.clear();
        }
    }
    file.write(buffer);
    return file.size();
}

bool append(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::Append) && file.write(bytes) == bytes.size();
}

QStringList lines(const LogView &view)
{
    QStringList result;
    for (QTextBlock b = view.editor()->document()->begin(); b.isValid(); b = b.next())
        result << b.text();
    return result;
}

int lineNumber(const QString &line)
{
    return line.mid(5, 9).toInt();
}

// Every line is the next number after the one before: nothing lost or doubled at a seam.
bool consecutive(const QStringList &shown, int first, int last)
{
    if (shown.size() != last - first + 1)
        return false;
    for (int i = 0; i < shown.size(); ++i) {
        if (shown.at(i) != QString::fromLatin1(numberedLine(first + i).chopped(1)))
            return false;
    }
    return true;
}

} // namespace

class TestLogView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void bigLogOpensOnItsTail();
    void earlierChunksJoinWithoutGap();
    void followAppendsNewLines();
    void searchFindsAndHighlights();
    void searchReachesEarlierChunks();
    void oddLogsLoad();
    void missingLogAppears();
    void rankSelectorShowsEachRanksLog();

private:
    QTemporaryDir m_dir;
};

void TestLogView::bigLogOpensOnItsTail()
{
    const QString path = m_dir.filePath(u"big.log"_s);
    const int count = 500'000; // 50 MB
    const qint64 size = writeNumbered(path, count);
    QVERIFY(size > 49'000'000);
    LogView view;
    view.resize(800, 600);
    QSignalSpy changed(&view, &LogView::contentChanged);
    view.setLogFile(path);
    QVERIFY(changed.wait(10000));
    const QStringList shown = lines(view);
    const int blocks = view.editor()->blockCount();
    QVERIFY2(blocks < 3000 && blocks > 2000, qPrintable(QString::number(blocks)));
    QCOMPARE(lineNumber(shown.constLast()), count - 1);
    QVERIFY(consecutive(shown, lineNumber(shown.constFirst()), count - 1));
    QCOMPARE(view.loadedEnd(), size);
    QVERIFY(view.hasEarlier());
    QVERIFY(size - view.loadedBegin() <= LogView::kChunkBytes);
    // At the bottom, where a log is read.
    QCOMPARE(view.editor()->verticalScrollBar()->value(), view.editor()->verticalScrollBar()->maximum());
}

void TestLogView::earlierChunksJoinWithoutGap()
{
    const QString path = m_dir.filePath(u"earlier.log"_s);
    const int count = 10'000; // 1 MB: four chunks
    writeNumbered(path, count);
    LogView view;
    view.resize(800, 600);
    view.setFollow(false);
    QSignalSpy changed(&view, &LogView::contentChanged);
    view.setLogFile(path);
    QVERIFY(changed.wait(5000));
    const int firstBefore = lineNumber(lines(view).constFirst());
    QVERIFY(firstBefore > 0);

    view.loadEarlier();
    QVERIFY(changed.wait(5000));
    QStringList shown = lines(view);
    const int first = lineNumber(shown.constFirst());
    QVERIFY(first < firstBefore);
    QVERIFY(consecutive(shown, first, count - 1));

    // Scrolling to the top loads the chunk before.
    view.editor()->verticalScrollBar()->setValue(0);
    QVERIFY(changed.wait(5000));
    shown = lines(view);
    QVERIFY(lineNumber(shown.constFirst()) < first);
    QVERIFY(consecutive(shown, lineNumber(shown.constFirst()), count - 1));
    // ... and what was in view stays there, not at the top.
    QVERIFY(view.editor()->verticalScrollBar()->value() > 1000);

    // Down to the file's start.
    while (view.hasEarlier()) {
        view.loadEarlier();
        QVERIFY(changed.wait(5000));
    }
    QVERIFY(consecutive(lines(view), 0, count - 1));
    QCOMPARE(view.loadedBegin(), 0);
}

void TestLogView::followAppendsNewLines()
{
    const QString path = m_dir.filePath(u"follow.log"_s);
    writeNumbered(path, 100);
    LogView view;
    view.resize(800, 300);
    QSignalSpy changed(&view, &LogView::contentChanged);
    view.setLogFile(path);
    QVERIFY(changed.wait(5000));
    QVERIFY(view.follows());
    QVERIFY(consecutive(lines(view), 0, 99));

    QVERIFY(append(path, numberedLine(100) + numberedLine(101)));
    QVERIFY(changed.wait(5000));
    QVERIFY(consecutive(lines(view), 0, 101));
    // Following at the bottom keeps the newest line in view.
    QCOMPARE(view.editor()->verticalScrollBar()->value(), view.editor()->verticalScrollBar()->maximum());

    // An unfinished line shows, and once finished it is there once.
    QVERIFY(append(path, "epoch 7 loss="));
    QVERIFY(changed.wait(5000));
    QCOMPARE(lines(view).constLast(), u"epoch 7 loss="_s);
    QVERIFY(append(path, "0.125\n" + numberedLine(102)));
    QVERIFY(changed.wait(5000));
    QStringList shown = lines(view);
    QCOMPARE(shown.size(), 104);
    QCOMPARE(shown.at(102), u"epoch 7 loss=0.125"_s);
    QCOMPARE(shown.constLast(), QString::fromLatin1(numberedLine(102).chopped(1)));

    // Not following: nothing new appears.
    view.setFollow(false);
    QVERIFY(append(path, numberedLine(103)));
    QVERIFY(!changed.wait(800));
    view.setFollow(true);
    QVERIFY(changed.wait(5000));
    QCOMPARE(lines(view).size(), 105);

    // Scrolled up, the view stays where the user is.
    view.setLogFile(QString());
    QSignalSpy more(&view, &LogView::contentChanged);
    writeNumbered(path, 500);
    view.setLogFile(path);
    QVERIFY(more.wait(5000));
    view.editor()->verticalScrollBar()->setValue(10);
    QVERIFY(append(path, numberedLine(500)));
    QVERIFY(more.wait(5000));
    QCOMPARE(view.editor()->verticalScrollBar()->value(), 10);
    QVERIFY(consecutive(lines(view), 0, 500));
}

void TestLogView::searchFindsAndHighlights()
{
    const QString path = m_dir.filePath(u"search.log"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("start\nfirst NEEDLE here\nnothing\nsecond needle there\nend\n");
    file.close();
    LogView view;
    view.resize(800, 300);
    QSignalSpy changed(&view, &LogView::contentChanged);
    QSignalSpy searched(&view, &LogView::searchFinished);
    view.setLogFile(path);
    QVERIFY(changed.wait(5000));
    view.searchEdit()->setText(u"needle"_s);
    view.findNext();
    QCOMPARE(searched.size(), 1);
    QCOMPARE(searched.last().at(0).toBool(), true);
    QCOMPARE(view.editor()->textCursor().block().text(), u"first NEEDLE here"_s);
    // Both matches highlighted, the current one once more.
    QCOMPARE(view.editor()->extraSelections().size(), 3);
    view.findNext();
    QCOMPARE(view.editor()->textCursor().block().text(), u"second needle there"_s);
    view.findNext(); // wraps
    QCOMPARE(view.editor()->textCursor().block().text(), u"first NEEDLE here"_s);
    view.findPrevious(); // wraps backwards: no earlier chunks
    QCOMPARE(view.editor()->textCursor().block().text(), u"second needle there"_s);
    QVERIFY(view.statusLabel()->text().contains(u"2"_s));

    view.searchEdit()->setText(u"absent"_s);
    view.findNext();
    QCOMPARE(searched.last().at(0).toBool(), false);
    QTRY_COMPARE(view.editor()->extraSelections().size(), 0);
}

void TestLogView::searchReachesEarlierChunks()
{
    const QString path = m_dir.filePath(u"early.log"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("Traceback: the early warning\n");
    for (int i = 0; i < 20'000; ++i) // 2 MB after it
        file.write(numberedLine(i));
    file.close();
    LogView view;
    view.resize(800, 300);
    view.setFollow(false);
    QSignalSpy changed(&view, &LogView::contentChanged);
    QSignalSpy searched(&view, &LogView::searchFinished);
    view.setLogFile(path);
    QVERIFY(changed.wait(5000));
    view.searchEdit()->setText(u"early warning"_s);
    view.findNext(); // not in the loaded tail: earlier chunks are read until it is found
    QVERIFY(searched.wait(10000));
    QCOMPARE(searched.last().at(0).toBool(), true);
    QCOMPARE(view.editor()->textCursor().selectedText(), u"early warning"_s);
    QCOMPARE(view.editor()->textCursor().block().text(), u"Traceback: the early warning"_s);
    QCOMPARE(view.loadedBegin(), 0);
    QVERIFY(lines(view).size() == 20'001);
}

void TestLogView::oddLogsLoad()
{
    const QString path = m_dir.filePath(u"odd.log"_s);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("before\n");
    static const char badBytes[] = "bad utf8: \xff\xfe\xc3( and NUL \0 here\n";
    file.write(badBytes, sizeof badBytes - 1);
    file.write("\x1b[31mred\x1b[0m text\n");
    file.write(" 10%|#   \r 50%|#####   \r100%|##########\n");
    file.write("caf\xc3\xa9 ok\r\n");
    QByteArray huge(5 * 1024 * 1024, 'h');
    huge.replace(LogView::kMaxLineBytes - 1, 2, "\xc3\xa9"); // a character across the cut
    file.write(huge + '\n');
    file.write("after\n");
    QByteArray last(3 * 1024 * 1024, 'z'); // the tail chunk holds no line start at all
    file.write(last + '\n');
    file.close();

    LogView view;
    view.resize(800, 300);
    view.setFollow(false);
    QSignalSpy changed(&view, &LogView::contentChanged);
    view.setLogFile(path);
    QVERIFY(changed.wait(10000));
    QStringList shown = lines(view);
    QCOMPARE(shown.size(), 1);
    QVERIFY(shown.at(0).startsWith(QString(100, u'z')));
    QVERIFY(shown.at(0).contains(u"line cut"_s));
    QVERIFY(shown.at(0).size() < LogView::kMaxLineBytes + 100);
    while (view.hasEarlier()) {
        view.loadEarlier();
        QVERIFY(changed.wait(10000));
    }
    shown = lines(view);
    QCOMPARE(shown.size(), 8);
    QCOMPARE(shown.at(0), u"before"_s);
    QVERIFY(shown.at(1).startsWith(u"bad utf8: "_s));
    QVERIFY(shown.at(1).contains(QChar::ReplacementCharacter));
    QVERIFY(shown.at(1).endsWith(u" here"_s));
    QCOMPARE(shown.at(2), u"red text"_s);
    QCOMPARE(shown.at(3), u"100%|##########"_s);
    QCOMPARE(shown.at(4), u"café ok"_s);
    QVERIFY(shown.at(5).startsWith(QString(LogView::kMaxLineBytes - 1, u'h')));
    QVERIFY(shown.at(5).contains(u"line cut: 5242880 bytes"_s));
    QVERIFY(!shown.at(5).contains(QChar::ReplacementCharacter));
    QCOMPARE(shown.at(6), u"after"_s);
}

void TestLogView::missingLogAppears()
{
    const QString path = m_dir.filePath(u"later.log"_s);
    LogView view;
    QSignalSpy changed(&view, &LogView::contentChanged);
    QSignalSpy problems(&view, &LogView::problem);
    view.setLogFile(path);
    QVERIFY(changed.wait(5000));
    QCOMPARE(view.editor()->toPlainText(), QString());
    QVERIFY(append(path, "hello\n"));
    QVERIFY(changed.wait(5000));
    QCOMPARE(view.editor()->toPlainText(), u"hello"_s);
    QCOMPARE(problems.size(), 0);
}

// A run across nodes (run/ranklogs.h): the selector lists its ranks, rank 0's log (the run's)
// first; picking rank 1 shows ranks/1.log. A run of one process shows no selector.
void TestLogView::rankSelectorShowsEachRanksLog()
{
    const QString run = m_dir.filePath(u"run-across-nodes"_s);
    QVERIFY(QDir().mkpath(run + u"/ranks"_s));
    QVERIFY(append(run + u"/log"_s, "rank zero says hello\n"));
    QVERIFY(append(run + u"/ranks/1.log"_s, "rank one says hello\n"));
    LogView view;
    view.show();
    QSignalSpy changed(&view, &LogView::contentChanged);
    view.setRun(run, 2);
    QVERIFY(changed.wait(5000));
    QVERIFY(view.rankBox()->isVisible());
    QCOMPARE(view.rankBox()->count(), 2);
    QCOMPARE(view.editor()->toPlainText(), u"rank zero says hello"_s);
    view.rankBox()->setCurrentIndex(1);
    Q_EMIT view.rankBox()->activated(1); // as a click on the item does
    QVERIFY(changed.wait(5000));
    QCOMPARE(view.logFile(), run + u"/ranks/1.log"_s);
    QCOMPARE(view.editor()->toPlainText(), u"rank one says hello"_s);
    view.setRun(run, 1);
    QVERIFY(!view.rankBox()->isVisible());
    QCOMPARE(view.logFile(), run + u"/log"_s);
}

FERRY_TEST_MAIN(TestLogView)
#include "tst_logview.moc"
