// A cell's outputs as the notebook draws them (ui/notebook/outputarea.h): a stream in colour with
// a tqdm bar redrawn in place, a stream that grows drawn on in the same view and cut to its first
// and last lines, one the kernel cut counted whole, hostile HTML shown without what could reach
// out, HTML as tall as its width needs, an image, JSON as a tree.
#include "ui/notebook/cellwidget.h"
#include "ui/notebook/outputarea.h"
#include "ui/notebook/safebrowser.h"

#include "kernels/streamtext.h"
#include "ui/notebook/imageview.h"

#include "support/testmain.h"

#include <QBuffer>
#include <QImage>
#include <QJsonObject>
#include <QLabel>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextTable>
#include <QTreeWidget>

using namespace Qt::StringLiterals;
using ferry::ui::OutputArea;

namespace {

QJsonObject stream(const QString &text, const QString &name = u"stdout"_s)
{
    return {{u"output_type"_s, u"stream"_s}, {u"name"_s, name}, {u"text"_s, text}};
}

QJsonObject display(const QJsonObject &data)
{
    return {{u"output_type"_s, u"display_data"_s}, {u"data"_s, data}, {u"metadata"_s, QJsonObject()}};
}

} // namespace

class TestOutputArea : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void colouredStreamAndProgressBar()
    {
        OutputArea area;
        area.setOutputs(
            {stream(u"\x1b[31mred\x1b[0m plain\n 10%|#         |\r 50%|#####     |\r100%|##########|\n"_s)});
        auto *label = area.findChild<QLabel *>();
        QVERIFY(label);
        const QString html = label->text();
        QVERIFY2(html.contains(u"red"_s) && html.contains(u"100%|##########|"_s), qPrintable(html));
        QVERIFY2(!html.contains(u"50%"_s) && !html.contains(u"\x1b"_s), qPrintable(html)); // redrawn in place
        QVERIFY2(html.contains(u"#e75c58"_s, Qt::CaseInsensitive), qPrintable(html));      // Jupyter's red
        QCOMPARE(OutputArea::plainText(u"a\r b\n\x1b[1mc\x1b[0m"_s), u" b\nc"_s);
    }

    // A cell printing 100,000 lines: its stream grows message by message; the view is drawn on
    // (the same label), holds its first and last lines and says how many it hides.
    void growingStreamIsDrawnOnAndCut()
    {
        OutputArea area;
        QString text;
        QLabel *first = nullptr;
        for (int chunk = 0; chunk < 100; ++chunk) {
            for (int i = 0; i < 1000; ++i)
                text += QString::number(chunk * 1000 + i) + u'\n';
            area.setOutputs({stream(text)});
            auto *label = area.findChild<QLabel *>();
            QVERIFY(label);
            if (!first)
                first = label;
            QCOMPARE(label, first);
        }
        const QString html = first->text();
        QVERIFY(html.contains(u">0\n"_s) || html.contains(u"0\n1\n"_s));
        QVERIFY2(html.contains(u"99999"_s), qPrintable(html.right(200)));
        QVERIFY2(!html.contains(u"\n50000\n"_s), "the middle is hidden");
        QVERIFY2(html.contains(u"Show all 100000 lines"_s) || html.contains(u"Show all 100001 lines"_s),
                 qPrintable(html.right(300)));
        QVERIFY(html.size() < 200000);
    }

    // A stream the kernel cut (core/kernels/streamtext.h: its first and last lines kept, one
    // line for those left out): the view counts every line printed, draws its first and last,
    // offers what was kept, and follows the tail as it moves.
    void keptStreamSaysWhatWasLeftOut()
    {
        ferry::kernels::StreamText kept({300, 300, 1 << 20});
        QString chunk;
        for (int i = 0; i < 100000; ++i)
            chunk += QString::number(i) + u'\n';
        kept.append(chunk);
        OutputArea area;
        area.setOutputs({stream(kept.text())});
        auto *label = area.findChild<QLabel *>();
        QVERIFY(label);
        QString html = label->text();
        QVERIFY2(html.contains(u">0\n1\n"_s), qPrintable(html.left(200)));
        QVERIFY2(html.contains(u"\n199\n<i>"_s) && !html.contains(u"\n200\n"_s), qPrintable(html.left(2000)));
        QVERIFY2(html.contains(u"… 99,600 lines hidden …"_s), qPrintable(html.right(3000)));
        QVERIFY2(html.contains(u"\n99800\n"_s) && html.contains(u"\n99999\n"_s) && !html.contains(u"\n99799\n"_s),
                 qPrintable(html.right(3000)));
        QVERIFY2(html.contains(u"99,400 lines not kept"_s), qPrintable(html.right(300)));
        kept.append(u"100000\n100001\n"_s);
        area.setOutputs({stream(kept.text())});
        QCOMPARE(area.findChild<QLabel *>(), label);
        html = label->text();
        QVERIFY2(html.contains(u"… 99,602 lines hidden …"_s) && html.contains(u"\n100001\n"_s),
                 qPrintable(html.right(300)));
        QVERIFY(html.contains(u"99,402 lines not kept"_s));
    }

    // HTML is as tall as it needs at the width it has, and follows a new width.
    void htmlAsTallAsItsWidthNeeds()
    {
        OutputArea area;
        QString words;
        for (int i = 0; i < 300; ++i)
            words += u"word%1 "_s.arg(i);
        area.setOutputs({display({{u"text/html"_s, u"<p>%1</p>"_s.arg(words)}, {u"text/plain"_s, u"p"_s}})});
        area.resize(300, 400);
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        auto *view = area.findChild<QTextBrowser *>();
        QVERIFY(view);
        QTRY_VERIFY(view->height() >= view->document()->size().height());
        const int narrow = view->height();
        area.resize(1200, 400);
        QTRY_VERIFY(view->height() < narrow);
        QVERIFY(view->height() >= view->document()->size().height());
        QCOMPARE(view->document()->textWidth(), qreal(view->viewport()->width()));
    }

    void hostileHtmlIsShownSafely()
    {
        OutputArea area;
        area.setOutputs({display(
            {{u"text/html"_s, u"<p>ok</p><script>alert('x')</script><img src=\"http://example.com/a.png\">"
                              "<a href=\"javascript:alert(1)\">link</a><iframe src=\"file:///etc/passwd\"></iframe>"_s},
             {u"text/plain"_s, u"fallback"_s}})});
        auto *view = area.findChild<QTextBrowser *>();
        QVERIFY(view);
        const QString shown = view->toPlainText();
        QVERIFY2(shown.contains(u"ok"_s) && !shown.contains(u"alert"_s), qPrintable(shown));
        QVERIFY2(!view->toHtml().contains(u"javascript:"_s) &&
                     !view->toHtml().contains(u"http://example.com/a.png\""_s),
                 qPrintable(view->toHtml()));
        QVERIFY(!view->toolTip().isEmpty()); // it says something was not shown
    }

    // A DataFrame as JupyterLab draws it: pandas' border="1" grid gone, numbers to the right.
    void dataFrameWithoutItsGrid()
    {
        OutputArea area;
        area.setOutputs({display({{u"text/html"_s, u"<table border=\"1\" class=\"dataframe\"><thead><tr><th></th>"
                                                   "<th>lr</th></tr></thead><tbody><tr><th>0</th><td>0.1</td></tr>"
                                                   "</tbody></table>"_s}})});
        auto *view = area.findChild<QTextBrowser *>();
        QVERIFY(view);
        QTextTable *table = nullptr;
        for (QTextFrame *frame : view->document()->rootFrame()->childFrames())
            table = table ? table : qobject_cast<QTextTable *>(frame);
        QVERIFY(table);
        QCOMPARE(table->format().border(), 0.0);
        QCOMPARE(table->cellAt(1, 1).firstCursorPosition().blockFormat().alignment() & Qt::AlignHorizontal_Mask,
                 Qt::AlignRight);
    }

    void imageAndJson()
    {
        QImage image(30, 20, QImage::Format_RGB32);
        image.fill(Qt::red);
        QByteArray png;
        QBuffer buffer(&png);
        QVERIFY(buffer.open(QIODevice::WriteOnly) && image.save(&buffer, "PNG"));
        OutputArea area;
        area.setOutputs(
            {display({{u"image/png"_s, QString::fromLatin1(png.toBase64())}, {u"text/plain"_s, u"<Figure>"_s}}),
             display({{u"application/json"_s, QJsonObject{{u"a"_s, 1}}}, {u"text/plain"_s, u"{}"_s}})});
        // Decoded when drawn (ui/notebook/imageview.h): its size known before.
        auto *view = area.findChild<ferry::ui::ImageView *>();
        QVERIFY(view);
        QCOMPARE(view->imageSize(), QSize(30, 20));
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        QTRY_VERIFY(view->isDecoded());
        QCOMPARE(view->image().pixelColor(5, 5), QColor(Qt::red));
        auto *tree = area.findChild<QTreeWidget *>();
        QVERIFY(tree);
        QCOMPARE(tree->topLevelItem(0)->child(0)->text(0), u"a"_s);
        QCOMPARE(tree->topLevelItem(0)->child(0)->text(1), u"1"_s);
        QCOMPARE(OutputArea::shownType({{u"text/plain"_s, u"x"_s}, {u"image/png"_s, u""_s}}), u"image/png"_s);
    }

    // A markdown cell draws its attachments (an image pasted into it), never a remote image.
    void markdownCellAttachments()
    {
        QImage image(12, 8, QImage::Format_RGB32);
        image.fill(Qt::green);
        QByteArray png;
        QBuffer buffer(&png);
        QVERIFY(buffer.open(QIODevice::WriteOnly) && image.save(&buffer, "PNG"));
        ferry::notebook::DocumentCell cell;
        cell.kind = ferry::notebook::CellKind::Markdown;
        cell.source =
            u"# Pasted\n![plot](attachment:plot.png) ![remote](http://example.com/x.png) ![gone](attachment:gone.png)"_s;
        cell.other[u"attachments"_s] =
            QJsonObject{{u"plot.png"_s, QJsonObject{{u"image/png"_s, QString::fromLatin1(png.toBase64())}}}};
        ferry::ui::CellWidget widget(cell);
        widget.setRendered(true);
        auto *view = widget.findChild<ferry::ui::SafeBrowser *>();
        QVERIFY(view && widget.rendered());
        const QVariant attached =
            view->document()->resource(QTextDocument::ImageResource, QUrl(u"attachment:plot.png"_s));
        QCOMPARE(attached.value<QImage>().size(), QSize(12, 8));
        QVERIFY(view->document()->resource(QTextDocument::ImageResource, QUrl(u"http://example.com/x.png"_s)).isNull());
        QVERIFY(view->toPlainText().contains(u"Pasted"_s));
        // What is not drawn says so, as in HTML, instead of an empty box.
        QVERIFY2(view->toPlainText().contains(u"[attachment missing: gone.png]"_s), qPrintable(view->toPlainText()));
        QVERIFY(view->toPlainText().contains(u"[remote image not loaded: example.com]"_s));
    }
};

FERRY_TEST_MAIN(TestOutputArea)
#include "tst_outputarea.moc"
