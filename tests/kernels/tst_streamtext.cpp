// A stream output as an execution keeps it (core/kernels/streamtext.h, through CellOutputs): whole
// under the limits; past them its first and last lines with one line saying how many were left
// out, found again in a saved text; a line that alone outgrows a part cut; a progress bar redrawn
// with '\r' reduced to its last drawing (not after an escape sequence); a million lines kept
// bounded, chunk after chunk, read after each.
#include "kernels/celloutputs.h"
#include "kernels/streamtext.h"

#include "support/cost.h"
#include "support/testmain.h"

#include <QJsonArray>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::kernels::CellOutputs;
using ferry::kernels::StreamLimits;
using ferry::kernels::StreamText;

namespace {

QString numberedLines(int from, int to)
{
    QString text;
    for (int i = from; i < to; ++i)
        text += QString::number(i) + u'\n';
    return text;
}

ferry::kernels::JupyterMessage printed(const QString &text, const QString &name = u"stdout"_s)
{
    return ferry::kernels::newMessage(u"stream"_s, u"kernel"_s, {{u"name"_s, name}, {u"text"_s, text}},
                                      QJsonObject{{u"msg_id"_s, u"req"_s}});
}

} // namespace

class TestStreamText : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Under the limits the text is what was printed, however it was cut into chunks.
    void wholeUnderTheLimits()
    {
        StreamText text({5, 5, 1000});
        const QString printed = u"a\nb\r\nc\rC\n\x1b[31md\x1b[0m\nno newline yet"_s;
        for (const QChar c : printed)
            text.append(QString(c));
        QCOMPARE(text.text(), printed);
        QCOMPARE(text.cutLines(), 0);
        QVERIFY(!StreamText::findCut(text.text()));
    }

    void headAndTailWithTheCutMarked()
    {
        StreamText text({3, 2, 1000});
        text.append(numberedLines(0, 4));
        text.append(QString(numberedLines(4, 10) + u"partial"_s));
        QCOMPARE(text.cutLines(), 5);
        QCOMPARE(text.text(), u"0\n1\n2\n… 5 lines not kept …\n8\n9\npartial"_s);
        const auto cut = StreamText::findCut(text.text());
        QVERIFY(cut);
        QCOMPARE(cut->start, 6);
        QCOMPARE(text.text().sliced(cut->end), u"8\n9\npartial"_s);
        QCOMPARE(cut->lines, 5);
        QCOMPARE(StreamText::cutMark(1), u"… 1 line not kept …\n"_s);
        QCOMPARE(StreamText::findCut(StreamText::cutMark(1234567))->lines, 1234567);
        // Not a cut: a printed line that only looks like one, without a count.
        QVERIFY(!StreamText::findCut(u"x\n… many lines not kept …\n"_s));
    }

    // A line longer than a part keeps its start and the cut character; what follows its newline
    // is kept as usual.
    void overlongLineCut()
    {
        StreamText text({10, 10, 8});
        text.append(u"abcdefghijkl"_s);
        text.append(u"mnop"_s);
        text.append(u"qr\nnext\n"_s);
        QCOMPARE(text.text(), u"abcdef…\nnext\n"_s); // with its newline, as long as a part
        StreamText whole({10, 10, 8});
        whole.append(u"0123456789ABC\nok\n"_s);
        QCOMPARE(whole.text(), u"012345…\nok\n"_s);
    }

    // A bar redrawn with '\r' for a long time: its last drawing kept, not every one of them; after
    // an escape sequence (which may move the cursor) nothing is dropped but what outgrows a part.
    void progressBarKeepsItsLastDrawing()
    {
        StreamText text;
        for (int i = 0; i <= 20000; ++i)
            text.append(u"\r%1%|bar| %2/20000"_s.arg(i / 200, 3).arg(i));
        text.append(u"\n"_s);
        QVERIFY2(text.text().size() < 2 * StreamText::kRedrawnLine, qPrintable(QString::number(text.text().size())));
        QVERIFY(text.text().endsWith(u"\r100%|bar| 20000/20000\n"_s));
        StreamText moved({10, 10, 100000});
        for (int i = 0; i <= 20000; ++i)
            moved.append(u"\x1b[A\r%1"_s.arg(i));
        QCOMPARE(moved.text().size(), 99999); // a part's worth, the cut character and room for a newline
    }

    // Through CellOutputs: a million lines in chunks keep ten thousand; the stream's output is
    // the same one all along, its text read when asked (after each chunk here, as a view that
    // draws often: reading it costs no memory that stays); other outputs end the stream.
    void cellOutputsKeepAMillionLinesBounded()
    {
        CellOutputs cell(u"req"_s);
        const ferry::test::Cost cost = ferry::test::measure("a million lines through CellOutputs", u"7 MB"_s, [&] {
            for (int i = 0; i < 1000000; i += 100) {
                cell.take(ferry::kernels::Channel::IOPub, printed(numberedLines(i, i + 100)));
                if (cell.outputs().size() != 1)
                    return;
            }
        });
        QVERIFY(ferry::test::peakWithin(cost.peakBytes, 32 << 20));
        const QString text = cell.outputs().at(0).toObject().value(u"text"_s).toString();
        const auto cut = StreamText::findCut(text);
        QVERIFY(cut);
        QCOMPARE(cut->lines, 990000);
        QVERIFY(text.startsWith(u"0\n1\n2\n"_s));
        QVERIFY(text.endsWith(u"999998\n999999\n"_s));
        QCOMPARE(text.count(u'\n'), 10001);
        QVERIFY(text.size() < 2 * StreamLimits{}.partChars);
        cell.take(ferry::kernels::Channel::IOPub, printed(u"oops\n"_s, u"stderr"_s));
        cell.take(ferry::kernels::Channel::IOPub, printed(u"more\n"_s));
        QCOMPARE(cell.outputs().size(), 3);
        QCOMPARE(cell.outputs().at(2).toObject().value(u"text"_s).toString(), u"more\n"_s);
        QCOMPARE(cell.outputs().at(0).toObject().value(u"text"_s).toString(), text);
    }

    // The limits are CellOutputs' own when asked: a small cut, and clear_output starting over.
    void cellOutputsLimitsAndClear()
    {
        CellOutputs cell(u"req"_s, true, StreamLimits{2, 2, 1000});
        cell.take(ferry::kernels::Channel::IOPub, printed(numberedLines(0, 10)));
        QCOMPARE(cell.outputs().at(0).toObject().value(u"text"_s).toString(), u"0\n1\n… 6 lines not kept …\n8\n9\n"_s);
        cell.take(ferry::kernels::Channel::IOPub,
                  ferry::kernels::newMessage(u"clear_output"_s, u"kernel"_s, {{u"wait"_s, false}},
                                             QJsonObject{{u"msg_id"_s, u"req"_s}}));
        QVERIFY(cell.outputs().isEmpty());
        cell.take(ferry::kernels::Channel::IOPub, printed(u"again\n"_s));
        QCOMPARE(cell.outputs().at(0).toObject().value(u"text"_s).toString(), u"again\n"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestStreamText)
#include "tst_streamtext.moc"
