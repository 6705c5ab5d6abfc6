#include "ui/notebook/safebrowser.h"

#include "notebook/safehtml.h"

#include <QImage>
#include <QResizeEvent>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextTable>

using namespace Qt::StringLiterals;

namespace ferry::ui {

SafeBrowser::SafeBrowser(QWidget *parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    setOpenExternalLinks(false);
    setFrameShape(QFrame::NoFrame);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Tables as JupyterLab draws a DataFrame (pandas writes border="1"): no grid, a rule under the
    // header, numbers to the right, room between the columns.
    document()->setDefaultStyleSheet(u"table { border-collapse: collapse; border-width: 0; } "
                                     "th, td { border-width: 0; padding: 2px 10px; text-align: right; } "
                                     "thead th { border-bottom: 1px solid #9e9e9e; } "
                                     "tbody th { font-weight: bold; }"_s);
}

QVariant SafeBrowser::loadResource(int type, const QUrl &url)
{
    const QString encoded = url.toString(QUrl::FullyEncoded);
    if (type != QTextDocument::ImageResource || !notebook::isInlineImage(encoded))
        return {};
    QImage image;
    image.loadFromData(QByteArray::fromBase64(encoded.mid(encoded.indexOf(u',') + 1).toLatin1()));
    return image;
}

// Markdown's own images (`![alt](url)`) are made by Qt's reader, not by the HTML made safe: those
// the view will not load (remote, a local file, an attachment the cell lacks) become the text
// that says so, as in HTML, instead of an empty box.
void SafeBrowser::sayUnloadedImages(const QStringList &attachments)
{
    struct Unloaded {
        int position;
        QString text;
    };
    QList<Unloaded> unloaded;
    for (QTextBlock block = document()->begin(); block.isValid(); block = block.next())
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (!fragment.charFormat().isImageFormat())
                continue;
            const QString name = fragment.charFormat().toImageFormat().name();
            if (notebook::isInlineImage(name))
                continue;
            QString text;
            if (name.startsWith(u"attachment:"_s)) {
                if (attachments.contains(name.sliced(11)))
                    continue;
                text = notebook::attachmentMissingText(QStringView(name).sliced(11));
            } else {
                text = notebook::imageNotLoadedText(name);
            }
            for (int i = 0; i < fragment.length(); ++i) // the same image twice is one fragment
                unloaded.append({fragment.position() + i, text});
        }
    QTextCursor cursor(document());
    for (auto it = unloaded.crbegin(); it != unloaded.crend(); ++it) { // from the end: positions hold
        cursor.setPosition(it->position);
        cursor.setPosition(it->position + 1, QTextCursor::KeepAnchor);
        cursor.insertText(it->text, QTextCharFormat());
    }
}

void SafeBrowser::fit()
{
    if (!isVisible())
        return;                                         // showEvent() fits it
    if (document()->textWidth() != viewport()->width()) // set again, it is laid out again
        document()->setTextWidth(viewport()->width());
    const int height = int(document()->size().height()) + 8;
    if (height != maximumHeight() || height != minimumHeight())
        setFixedHeight(height);
}

void SafeBrowser::showEvent(QShowEvent *event)
{
    QTextBrowser::showEvent(event);
    fit();
}

void SafeBrowser::resizeEvent(QResizeEvent *event)
{
    QTextBrowser::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        fit();
}

void SafeBrowser::sayRemoved(bool removed)
{
    setToolTip(removed ? tr("Some of this was not shown: scripts, remote content and forms never run") : QString());
}

bool SafeBrowser::showHtml(const QString &html)
{
    const notebook::SafeHtml safe = notebook::sanitizeHtml(html);
    setHtml(safe.html);
    // pandas' border="1" draws a grid over the style sheet's rule: a DataFrame has none in Jupyter.
    for (QTextFrame *frame : document()->rootFrame()->childFrames())
        if (auto *table = qobject_cast<QTextTable *>(frame)) {
            QTextTableFormat format = table->format();
            format.setBorder(0);
            table->setFormat(format);
        }
    fit();
    sayRemoved(safe.removed);
    return safe.removed;
}

bool SafeBrowser::showMarkdown(const QString &markdown, const QHash<QString, QImage> &attachments)
{
    // Markdown may hold HTML, which Qt's reader passes through: that part is made safe too.
    notebook::SafeHtmlOptions options;
    options.keepAttachments = true;
    options.attachments = attachments.keys();
    const notebook::SafeHtml safe = notebook::sanitizeHtml(markdown, options);
    setMarkdown(safe.html); // clears the document's resources: the attachments come after
    for (auto it = attachments.begin(); it != attachments.end(); ++it)
        document()->addResource(QTextDocument::ImageResource, QUrl(u"attachment:"_s + it.key()), it.value());
    sayUnloadedImages(options.attachments);
    if (!attachments.isEmpty())
        document()->markContentsDirty(0, document()->characterCount());
    fit();
    sayRemoved(safe.removed);
    return safe.removed;
}

} // namespace ferry::ui
