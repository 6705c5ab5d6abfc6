// Safe HTML (core/notebook/safehtml.h) rendered by a real QTextDocument, as the notebook view
// renders it: a document that records every resource it asks for is laid out and painted; of
// the sanitized HTML it asks for data: images only (of the raw hostile HTML it asks for the
// network and the disk, which is what the check is worth). A pandas DataFrame renders as a table.
#include "notebook/safehtml.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QAbstractTextDocumentLayout>
#include <QImage>
#include <QPainter>
#include <QSet>
#include <QTest>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QUrl>

using namespace Qt::StringLiterals;
using namespace ferry::notebook;

namespace {

// A QTextDocument that loads nothing and remembers what it was asked for.
class RecordingDocument : public QTextDocument {
public:
    QList<QUrl> asked;

protected:
    QVariant loadResource(int, const QUrl &name) override
    {
        asked << name;
        return {};
    }
};

// What a document asks for while it takes the HTML, lays it out and paints it.
QList<QUrl> resourcesAskedFor(const QString &html)
{
    RecordingDocument document;
    document.setHtml(html);
    document.setTextWidth(800);
    const QSizeF size = document.documentLayout()->documentSize();
    QImage image(QSize(800, int(std::min<qreal>(size.height(), 4000)) + 1), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    document.drawContents(&painter);
    return document.asked;
}

QString documentFixture(const QString &name)
{
    return QString::fromUtf8(ferry::test::readFile(ferry::test::testData(u"notebooks/outputs/"_s + name)));
}

} // namespace

class TestSafeHtmlDocument : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void asksForNothingButInlineImages_data()
    {
        QTest::addColumn<QString>("html");
        QTest::addColumn<int>("images"); // inline images it holds: the document asks for each
        QTest::newRow("hostile.html") << documentFixture(u"hostile.html"_s) << 1;
        QTest::newRow("dataframe.html") << documentFixture(u"dataframe.html"_s) << 0;
        QTest::newRow("styles and images")
            << u"<style>@import url(http://evil.example/i.css); td { background-image: url(file:///etc/hosts) }</style>"
               u"<link rel=stylesheet href=\"http://evil.example/s.css\">"
               u"<table background=\"http://evil.example/t.png\"><tr><td background=\"file:///etc/hosts\" "
               u"style=\"background-image: url(http://evil.example/c.png)\">x</td></tr></table>"
               u"<p style=\"background: url(http://evil.example/p.png)\">p</p><ul style=\"list-style-image: "
               u"url(http://evil.example/l.png)\"><li>l</li></ul><img src=\"plot.png\"><img src=http://evil.example/i>"
               u"<img src=\"qrc:/icons/ferry.png\"><img src=\"data:image/png;base64,iVBORw0KGgo=\">"_s
            << 1;
    }
    void asksForNothingButInlineImages()
    {
        QFETCH(QString, html);
        QFETCH(int, images);
        const SafeHtml safe = sanitizeHtml(html);
        const QList<QUrl> asked = resourcesAskedFor(safe.html);
        QCOMPARE(QSet<QUrl>(asked.begin(), asked.end()).size(), images);
        for (const QUrl &url : asked)
            QVERIFY2(url.scheme() == u"data"_s && isInlineImage(url.toString()), qPrintable(url.toString()));
    }

    // The raw HTML does make the document ask for the network and the disk: the recorder sees them.
    void rawHtmlWouldLoad()
    {
        const QList<QUrl> asked = resourcesAskedFor(documentFixture(u"hostile.html"_s));
        bool remote = false;
        bool local = false;
        for (const QUrl &url : asked) {
            remote = remote || url.host() == u"evil.example"_s;
            local = local || url.scheme() == u"file"_s || url.isRelative();
        }
        QVERIFY(remote);
        QVERIFY(local);
    }

    void dataFrameRendersAsATable()
    {
        QTextDocument document;
        document.setHtml(sanitizeHtml(documentFixture(u"dataframe.html"_s)).html);
        QTextTable *table = nullptr;
        for (QTextFrame *frame : document.rootFrame()->childFrames()) {
            if ((table = qobject_cast<QTextTable *>(frame)) != nullptr)
                break;
        }
        QVERIFY(table != nullptr);
        QCOMPARE(table->rows(), 4);
        QCOMPARE(table->columns(), 4);
        QCOMPARE(table->cellAt(0, 1).firstCursorPosition().block().text(), u"loss"_s);
        QCOMPARE(table->cellAt(1, 3).firstCursorPosition().block().text(), u"a <b>"_s);
        QCOMPARE(table->cellAt(2, 3).firstCursorPosition().block().text(), u"x & y"_s);
        // A MultiIndex's spans.
        QTextDocument multi;
        multi.setHtml(sanitizeHtml(documentFixture(u"dataframe_multiindex.html"_s)).html);
        table = nullptr;
        for (QTextFrame *frame : multi.rootFrame()->childFrames()) {
            if ((table = qobject_cast<QTextTable *>(frame)) != nullptr)
                break;
        }
        QVERIFY(table != nullptr);
        QCOMPARE(table->cellAt(0, 2).columnSpan(), 2);
        QCOMPARE(table->cellAt(3, 0).rowSpan(), 2);
    }
};

FERRY_TEST_MAIN(TestSafeHtmlDocument)
#include "tst_safehtmldocument.moc"
