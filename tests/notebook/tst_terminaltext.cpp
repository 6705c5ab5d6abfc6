// A stream output drawn as a terminal (core/notebook/terminaltext.h): colours and their resets
// across chunks, escapes cut between chunks, tqdm's carriage-return redraws, nested bars moving up,
// a real ipykernel's traceback and streams (tests/data/notebooks/outputs/kernel_outputs.json,
// recorded by make_outputs.py there), the head and tail kept of a million lines.
#include "notebook/terminaltext.h"
#include "support/cost.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::notebook;

namespace {

// A real kernel's outputs for one recorded cell.
QJsonObject recordedCell(const QString &name)
{
    const QByteArray bytes = ferry::test::readFile(ferry::test::testData(u"notebooks/outputs/kernel_outputs.json"_s));
    return QJsonDocument::fromJson(bytes).object().value(name).toObject();
}

QStringList recordedStreams(const QString &name)
{
    QStringList texts;
    for (const QJsonValue &stream : recordedCell(name).value(u"streams"_s).toArray())
        texts << stream.toObject().value(u"text"_s).toString();
    return texts;
}

QString drawnText(const QStringList &chunks, TerminalLimits limits = {})
{
    TerminalText terminal(limits);
    for (const QString &chunk : chunks)
        terminal.append(chunk);
    return terminal.plainText();
}

QString styleKey(const TerminalStyle &s)
{
    const auto color = [](const TerminalColor &c) -> QString {
        return QString::number(int(c.kind)) + u':' + QString::number(c.value, 16);
    };
    return color(s.foreground) + u' ' + color(s.background) + u' ' + QString::number(s.bold) +
           QString::number(s.faint) + QString::number(s.italic) + QString::number(s.underline) +
           QString::number(s.inverse);
}

// The lines' runs as "text|style" for comparing two drawings.
QStringList runsOf(const TerminalText &terminal)
{
    QStringList runs;
    for (qsizetype i = 0; i < terminal.lineCount(); ++i) {
        const TerminalLine *line = terminal.line(i);
        if (line == nullptr) {
            runs << u"(hidden)"_s;
            continue;
        }
        for (const TerminalRun &run : line->runs)
            runs << run.text + u'|' + styleKey(run.style);
        runs << u"\\n"_s;
    }
    return runs;
}

const TerminalRun &runAt(const TerminalText &terminal, qsizetype line, qsizetype run)
{
    static const TerminalRun none;
    const TerminalLine *l = terminal.line(line);
    return l != nullptr && run < l->runs.size() ? l->runs.at(run) : none;
}

} // namespace

class TestTerminalText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void coloursAndResetsAcrossChunks()
    {
        TerminalText terminal;
        terminal.append(u"\x1b[31mred"_s);
        terminal.append(u" still red\x1b[0m plain \x1b[1;32mbold green"_s);
        terminal.append(u"\x1b[22m green\x1b[39m default"_s);
        QCOMPARE(terminal.plainText(), u"red still red plain bold green green default"_s);
        const TerminalLine *line = terminal.line(0);
        QVERIFY(line != nullptr);
        QCOMPARE(line->runs.size(), 5);
        QCOMPARE(line->runs[0].text, u"red still red"_s);
        QCOMPARE(line->runs[0].style.foreground, TerminalColor::indexed(1));
        QVERIFY(line->runs[1].style.isDefault());
        QCOMPARE(line->runs[2].text, u"bold green"_s);
        QVERIFY(line->runs[2].style.bold);
        QCOMPARE(line->runs[2].style.foreground, TerminalColor::indexed(2));
        QCOMPARE(line->runs[3].text, u" green"_s);
        QVERIFY(!line->runs[3].style.bold);
        QCOMPARE(line->runs[3].style.foreground, TerminalColor::indexed(2));
        QVERIFY(line->runs[4].style.isDefault());
    }

    void sgrForms_data()
    {
        QTest::addColumn<QString>("sequence");
        QTest::addColumn<QString>("expected"); // what runsOf says of the text "x" after it
        const auto style = [](const TerminalStyle &s) -> QString { return u"x|"_s + styleKey(s); };
        TerminalStyle s;
        s.foreground = TerminalColor::indexed(208);
        QTest::newRow("256 colours") << u"\x1b[38;5;208m"_s << style(s);
        QTest::newRow("256 colours, colons") << u"\x1b[38:5:208m"_s << style(s);
        s = {};
        s.background = TerminalColor::rgb(0x0a141e);
        QTest::newRow("24-bit background") << u"\x1b[48;2;10;20;30m"_s << style(s);
        QTest::newRow("24-bit background, colons with a colour space") << u"\x1b[48:2::10:20:30m"_s << style(s);
        s = {};
        s.foreground = TerminalColor::indexed(9);
        s.background = TerminalColor::indexed(12);
        QTest::newRow("bright") << u"\x1b[91;104m"_s << style(s);
        s = {};
        s.faint = s.italic = s.underline = s.inverse = true;
        QTest::newRow("faint italic underline inverse") << u"\x1b[2;3;4;7m"_s << style(s);
        QTest::newRow("each reset") << u"\x1b[1;2;3;4;7;31;41m\x1b[22;23;24;27;39;49m"_s << style({});
        QTest::newRow("empty is reset") << u"\x1b[1;31m\x1b[m"_s << style({});
        s = {};
        s.foreground = TerminalColor::rgb(0x010203);
        s.bold = true;
        QTest::newRow("rgb then bold in one") << u"\x1b[38;2;1;2;3;1m"_s << style(s);
        QTest::newRow("out of range ignored") << u"\x1b[38;5;300m\x1b[38;2;300;0;0m"_s << style({});
    }
    void sgrForms()
    {
        QFETCH(QString, sequence);
        QFETCH(QString, expected);
        TerminalText terminal;
        terminal.append(QString(sequence + u"x"_s));
        QCOMPARE(runsOf(terminal).value(0), expected);
    }

    // Every split of a coloured line, an OSC title and a CSI gives what the whole gives.
    void escapeSplitAcrossChunks()
    {
        const QString text = u"\x1b[1;38;5;208mbold\x1b[0m \x1b]0;a title\x07plain\x1b]8;;http://x\x1b\\link"
                             u"\x1b]8;;\x1b\\ \x1b[4mu\x1b[24m\r\nnext"_s;
        TerminalText whole;
        whole.append(text);
        QCOMPARE(whole.plainText(), u"bold plainlink u\nnext"_s);
        for (qsizetype at = 1; at < text.size(); ++at) {
            TerminalText split;
            split.append(QStringView(text).first(at));
            split.append(QStringView(text).sliced(at));
            QCOMPARE(runsOf(split), runsOf(whole));
        }
        for (qsizetype at = 1; at + 1 < text.size(); at += 3) { // in three
            TerminalText split;
            split.append(QStringView(text).first(at));
            split.append(QStringView(text).sliced(at, 1));
            split.append(QStringView(text).sliced(at + 1));
            QCOMPARE(runsOf(split), runsOf(whole));
        }
    }

    // tqdm writes '\r' and the bar (padded to the last one's width): only the last bar remains.
    void tqdmRedrawsInPlace()
    {
        const QStringList chunks = recordedStreams(u"tqdm"_s);
        QVERIFY2(chunks.size() > 5, "kernel_outputs.json: the tqdm cell's streams");
        QCOMPARE(drawnText(chunks), u"100%|██████████| 100/100 [00:05<00:00, 100.00it/s]\n"_s);
        // A shorter text padded with spaces to the last bar's width, as tqdm pads it.
        const QString bar = u" 10%|█         | 10/100 [00:11<01:39, 1.0it/s]"_s;
        const QString done = u"done"_s.leftJustified(bar.size());
        QCOMPARE(drawnText({u"\r  9%|▉         | 9/100 [00:10<01:40, 1.0s/it]"_s, u"\r"_s + bar, u"\r"_s + done}),
                 done);
    }

    void returnAtTheEndOfAChunk()
    {
        // The text in the next chunk overwrites the line (qtconsole lost this: PR #607).
        QCOMPARE(drawnText({u"progress 1\r"_s, u"progress 2\r"_s, u"progress 3\n"_s}), u"progress 3\n"_s);
        QCOMPARE(drawnText({u"abcdef\r"_s, u"xy"_s}), u"xycdef"_s); // overwrite, as a terminal
        // "\r" then "\n" in the next chunk is a newline: the line stays.
        QCOMPARE(drawnText({u"abc\r"_s, u"\ndef"_s}), u"abc\ndef"_s);
    }

    void newlines()
    {
        QCOMPARE(drawnText({u"a\r\nb\r\n"_s}), u"a\nb\n"_s);
        QCOMPARE(drawnText({u"a\n\nb"_s}), u"a\n\nb"_s);
        QCOMPARE(drawnText({u"\n"_s}), u"\n"_s);
        QCOMPARE(drawnText({}), QString());
        TerminalText terminal;
        terminal.append(u"one\ntwo\n"_s);
        QCOMPARE(terminal.lineCount(), 2); // no third line until something is written after it
        QCOMPARE(terminal.cursorLine(), 2);
    }

    void backspace()
    {
        QCOMPARE(drawnText({u"abc\b\bX"_s}), u"aXc"_s);
        QCOMPARE(drawnText({u"abc\b"_s, u"d"_s}), u"abd"_s);
        QCOMPARE(drawnText({u"\b\bab"_s}), u"ab"_s); // never before the line's start
        QCOMPARE(drawnText({u"12345\b\b \b\b"_s}), u"123 5"_s);
    }

    void eraseInLine_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("to the end, from the start") << u"abcdef\r\x1b[K"_s << QString();
        QTest::newRow("to the end, 0") << u"abcdef\x1b[3D\x1b[0K"_s << u"abc"_s;
        QTest::newRow("to the end, then written") << u"abcdef\x1b[3D\x1b[Kxy"_s << u"abcxy"_s;
        QTest::newRow("from the start, 1") << u"abcdef\x1b[3D\x1b[1K"_s << u"    ef"_s;
        QTest::newRow("whole line, 2") << u"abcdef\x1b[2Kxy"_s << u"      xy"_s;
        QTest::newRow("whole line, then return") << u"abcdef\x1b[2K\rxy"_s << u"xy"_s;
        QTest::newRow("on a line above") << u"top\nbottom\x1b[A\r\x1b[2Knew"_s << u"new\nbottom"_s;
    }
    void eraseInLine()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(drawnText({text}), expected);
    }

    void cursorMoves()
    {
        QCOMPARE(drawnText({u"abc\x1b[2Dx"_s}), u"axc"_s);
        QCOMPARE(drawnText({u"a\x1b[3Cb"_s}), u"a   b"_s);
        QCOMPARE(drawnText({u"abcdef\x1b[3GX"_s}), u"abXdef"_s);
        QCOMPARE(drawnText({u"1\n2\n3\x1b[5A\rX"_s}), u"X\n2\n3"_s);        // up stops at the first line
        QCOMPARE(drawnText({u"1\n2\n3\x1b[2A\x1b[9B\rX"_s}), u"1\n2\nX"_s); // down stops at the last
        QCOMPARE(drawnText({u"a\x1b[999999999999Cb"_s}, {5000, 5000, 20}), u"a                  b"_s);
    }

    // tqdm's nested bars: the inner bar on the line below, the cursor moved back up (ESC[A).
    void nestedBarsMoveUp()
    {
        const QStringList chunks = recordedStreams(u"nested"_s);
        QVERIFY2(chunks.size() > 10, "kernel_outputs.json: the nested cell's streams");
        QCOMPARE(drawnText(chunks), u"epoch 100%|##########| 3/3\nstep  100%|##########| 5/5\n"_s);
        // The same in one piece.
        QCOMPARE(drawnText({chunks.join(QString())}), drawnText(chunks));
    }

    // A real traceback from ipykernel (IPython's ultratb): its text and colours, whole or chunked.
    void ipykernelTraceback()
    {
        const QJsonObject error = recordedCell(u"traceback"_s).value(u"error"_s).toObject();
        QCOMPARE(error.value(u"ename"_s).toString(), u"ZeroDivisionError"_s);
        QStringList lines;
        for (const QJsonValue &line : error.value(u"traceback"_s).toArray())
            lines << line.toString();
        const QString traceback = lines.join(u'\n'); // as Jupyter shows a traceback
        TerminalText whole;
        whole.append(traceback);
        static const QRegularExpression sgr(u"\x1b\\[[0-9;]*m"_s);
        QString expected = traceback;
        expected.remove(sgr);
        QCOMPARE(whole.plainText(), expected);
        QVERIFY(whole.plainText().contains(u"ZeroDivisionError: division by zero"_s));
        QVERIFY(!whole.plainText().contains(u'\x1b'));
        // Its colours: the red header, a keyword in 256-colour green and bold, a highlighted call.
        QCOMPARE(runAt(whole, 1, 0).text, u"ZeroDivisionError"_s);
        QCOMPARE(runAt(whole, 1, 0).style.foreground, TerminalColor::indexed(1));
        bool keyword = false;
        bool highlighted = false;
        for (qsizetype i = 0; i < whole.lineCount(); ++i) {
            for (const TerminalRun &run : whole.line(i)->runs) {
                keyword = keyword || (run.text == u"def"_s && run.style.bold &&
                                      run.style.foreground == TerminalColor::indexed(28));
                highlighted =
                    highlighted || (run.text.contains(u"outer"_s) && run.style.background == TerminalColor::indexed(3));
            }
        }
        QVERIFY(keyword);
        QVERIFY(highlighted);
        TerminalText chunked;
        for (qsizetype at = 0; at < traceback.size(); at += 7)
            chunked.append(QStringView(traceback).sliced(at, std::min<qsizetype>(7, traceback.size() - at)));
        QCOMPARE(runsOf(chunked), runsOf(whole));
    }

    void kernelStreamColours()
    {
        const QString text = drawnText(recordedStreams(u"colours"_s));
        QCOMPARE(text, u"error: plain green orange dark\nitalic under inverse faint\nwarning: done\n"_s);
        TerminalText terminal;
        for (const QString &chunk : recordedStreams(u"colours"_s))
            terminal.append(chunk);
        QCOMPARE(runAt(terminal, 0, 0).text, u"error:"_s);
        QVERIFY(runAt(terminal, 0, 0).style.bold);
        QCOMPARE(runAt(terminal, 0, 4).text, u"orange"_s);
        QCOMPARE(runAt(terminal, 0, 4).style.foreground, TerminalColor::indexed(208));
        QCOMPARE(runAt(terminal, 0, 6).text, u"dark"_s);
        QCOMPARE(runAt(terminal, 0, 6).style.background, TerminalColor::rgb(0x0a141e));
    }

    void otherSequencesDropped()
    {
        // (A hex escape takes every hex digit after it: the literals are cut after each.)
        QCOMPARE(drawnText({u"\x1b]0;title\x07"
                            u"a\x1b[?25lb\x1b(Bc\x1b[5;3Hd\x07"
                            u"\x00"
                            u"e\x1b=f\x1bPdata\x1b\\g\u009bh\x7fi"_s}),
                 u"abcdefghi"_s);
        QCOMPARE(drawnText({u"tab\there"_s}), u"tab\there"_s);
        // A CSI cut by a character that cannot be in it: dropped, the character kept.
        QCOMPARE(drawnText({u"a\x1b[12\nb"_s}), u"a\nb"_s);
    }

    // An unterminated title of a megabyte, sent in chunks, keeps nothing of itself; a CSI of
    // 10,000 digits is garbage past the pending bound and costs nothing more.
    void pendingEscapesBounded()
    {
        TerminalText terminal;
        terminal.append(u"a\x1b]0;"_s);
        const QString title(1 << 16, u't');
        for (int i = 0; i < 16; ++i)
            terminal.append(title);
        terminal.append(u"\x1b"_s);
        terminal.append(u"\\b"_s);
        QCOMPARE(terminal.plainText(), u"ab"_s);
        TerminalText digits;
        digits.append(QString(u"x\x1b["_s + QString(10000, u'1')));
        digits.append(u"my"_s);
        QVERIFY(digits.plainText().startsWith(u"x"_s));
        QVERIFY(digits.plainText().endsWith(u"y"_s));
    }

    void headAndTailKept()
    {
        TerminalText terminal({3, 2, 100});
        for (int i = 0; i < 10; ++i)
            terminal.append(u"line %1\n"_s.arg(i));
        QCOMPARE(terminal.lineCount(), 10);
        QCOMPARE(terminal.headLineCount(), 3);
        QCOMPARE(terminal.hiddenLineCount(), 5);
        QCOMPARE(terminal.firstTailLine(), 8);
        QVERIFY(terminal.line(3) == nullptr);
        QVERIFY(terminal.line(7) == nullptr);
        QCOMPARE(terminal.line(8)->text(), u"line 8"_s);
        QCOMPARE(terminal.plainText(), u"line 0\nline 1\nline 2\n… 5 lines hidden …\nline 8\nline 9\n"_s);
        const TerminalChanges changes = terminal.takeChanges();
        QCOMPARE(changes.firstLine, 0);
        QCOMPARE(changes.hiddenBefore, 0);
        QCOMPARE(changes.hiddenNow, 5);
        terminal.append(u"line 10"_s);
        const TerminalChanges next = terminal.takeChanges();
        QCOMPARE(next.firstLine, 10);
        QCOMPARE(next.hiddenBefore, 5);
        QCOMPARE(next.hiddenNow, 6);
        // The cursor moved up into the hidden lines writes nothing there.
        terminal.append(u"\x1b[4A\rgone\x1b[4B"_s);
        QCOMPARE(terminal.plainText(), u"line 0\nline 1\nline 2\n… 6 lines hidden …\nline 9\nline 10"_s);
    }

    // A million lines in chunks of a hundred: the hidden count exact, the first and last lines
    // kept, time and memory bounded (tests/bench/terminaltext.sh measures it against a QString).
    void millionLines()
    {
        TerminalText terminal;
        QString chunk;
        const ferry::test::Cost cost = ferry::test::measure("terminal text, 1,000,000 lines", u"14 MB"_s, [&] {
            for (int i = 0; i < 1000000; i += 100) {
                chunk.clear();
                for (int k = i; k < i + 100; ++k)
                    chunk += u"step "_s + QString::number(k) + u" loss=0.5\n"_s;
                terminal.append(chunk);
            }
        });
        QCOMPARE(terminal.lineCount(), 1000000);
        QCOMPARE(terminal.hiddenLineCount(), 990000);
        QCOMPARE(terminal.line(4999)->text(), u"step 4999 loss=0.5"_s);
        QCOMPARE(terminal.line(995000)->text(), u"step 995000 loss=0.5"_s);
        QVERIFY(terminal.line(5000) == nullptr);
        QVERIFY(terminal.plainText().contains(u"\n… 990,000 lines hidden …\n"_s));
        QVERIFY(ferry::test::secondsWithin(cost.seconds, 5));
        QVERIFY(ferry::test::peakWithin(cost.peakBytes, 64 << 20));
    }

    // Lines that never came (a view drawing the first and last lines only, a kernel that left
    // lines out) counted as hidden where they were: the lines already past the head with them.
    void skippedLines()
    {
        TerminalText terminal({3, 2, 100});
        terminal.append(u"0\n1\n2\n3\n4"_s);
        terminal.skipLines(1000);
        QCOMPARE(terminal.hiddenLineCount(), 1002);
        QCOMPARE(terminal.lineCount(), 1005);
        terminal.append(u"1005\n1006\n"_s);
        QCOMPARE(terminal.lineCount(), 1007);
        QCOMPARE(terminal.plainText(), u"0\n1\n2\n… 1,002 lines hidden …\n1005\n1006\n"_s);
        QCOMPARE(terminal.line(1005)->text(), u"1005"_s);
        // Before the head is full: what comes after the skip is past it, not in the head.
        TerminalText early({3, 2, 100});
        early.append(u"a\n"_s);
        early.skipLines(5);
        early.append(u"g\n"_s);
        QCOMPARE(early.headLineCount(), 1);
        QCOMPARE(early.plainText(), u"a\n… 5 lines hidden …\ng\n"_s);
    }

    void longLinesCut()
    {
        TerminalText terminal({10, 10, 10});
        terminal.append(u"abcdefghijklmnop\nshort\n"_s);
        QCOMPARE(terminal.line(0)->text(), u"abcdefghij"_s);
        QVERIFY(terminal.line(0)->cut);
        QVERIFY(!terminal.line(1)->cut);
        QCOMPARE(terminal.plainText(), u"abcdefghij…\nshort\n"_s);
        // Erased and written again: no longer cut.
        terminal.append(u"abcdefghijklmnop\r\x1b[2Kok"_s);
        QVERIFY(!terminal.line(2)->cut);
        // A line of ten million characters without a newline, in chunks: bounded.
        TerminalText huge;
        const QString piece(1 << 20, u'x');
        for (int i = 0; i < 10; ++i)
            huge.append(piece);
        QCOMPARE(huge.line(0)->length, TerminalLimits{}.lineLength);
        QVERIFY(huge.line(0)->cut);
        // Runs past the bound take the style before them: a line of colour changes stays small.
        TerminalText colourful;
        for (int i = 0; i < 2000; ++i)
            colourful.append(u"\x1b[3%1mx"_s.arg(i % 8));
        QCOMPARE(colourful.line(0)->runs.size(), TerminalLine::kMaxRuns);
        QCOMPARE(colourful.line(0)->length, 2000);
    }

    void changesForAView()
    {
        TerminalText terminal;
        QCOMPARE(terminal.append(u"a\nb\nc"_s), 0);
        QCOMPARE(terminal.append(u"d"_s), 2);
        QCOMPARE(terminal.append(u"\x1b[2A\rX"_s), 0);
        QCOMPARE(terminal.append(u"\x1b[31m"_s), terminal.lineCount()); // nothing drawn
        QCOMPARE(terminal.takeChanges().firstLine, 0);
        QCOMPARE(terminal.takeChanges().firstLine, 3); // nothing since
        terminal.append(u"\x1b[B\ry"_s);
        QCOMPARE(terminal.takeChanges().firstLine, 1);
        terminal.clear();
        QCOMPARE(terminal.lineCount(), 0);
        QVERIFY(terminal.style().isDefault());
        QCOMPARE(terminal.plainText(), QString());
    }

    void coloursForAView()
    {
        TerminalStyle style;
        style.foreground = TerminalColor::indexed(1);
        const TerminalPalette palette;
        QCOMPARE(colorsOf(style, palette).foreground, palette.ansi[1]);
        style.bold = true; // bold makes an ANSI colour bright, as Jupyter shows it
        QCOMPARE(colorsOf(style, palette).foreground, palette.ansi[9]);
        QVERIFY(!colorsOf(style, palette).background);
        style = {};
        style.foreground = TerminalColor::indexed(208);
        QCOMPARE(colorsOf(style).foreground, 0xff8700u);
        style.foreground = TerminalColor::indexed(244);
        QCOMPARE(colorsOf(style).foreground, 0x808080u);
        style = {};
        style.inverse = true;
        QCOMPARE(colorsOf(style, palette).foreground, palette.background);
        QCOMPARE(colorsOf(style, palette).background.value_or(1), palette.foreground);
        style = {};
        style.faint = true;
        QCOMPARE(colorsOf(style, palette).foreground, 0x7f7f7fu);
        TerminalText terminal;
        terminal.append(u"<\x1b[1;31mred\x1b[0m>"_s);
        QCOMPARE(terminal.html(), u"<pre>&lt;<span style=\"color:#b22b31;font-weight:bold\">red</span>&gt;</pre>"_s);
    }
};

FERRY_TEST_APPLESS_MAIN(TestTerminalText)
#include "tst_terminaltext.moc"
