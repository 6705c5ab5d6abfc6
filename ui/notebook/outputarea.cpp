#include "ui/notebook/outputarea.h"

#include "notebook/jupyterjson.h"

#include <QFontDatabase>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// Lines of one text output shown before "… lines not shown"; the rest stays in the outputs.
constexpr int kShownHead = 400;
constexpr int kShownTail = 100;

// A text browser that never loads anything: no file, no network; only data: images inline.
class OfflineBrowser : public QTextBrowser {
public:
    using QTextBrowser::QTextBrowser;
    QVariant loadResource(int type, const QUrl &url) override
    {
        if (type == QTextDocument::ImageResource && url.scheme() == u"data"_s) {
            const QString encoded = url.toString(QUrl::FullyEncoded);
            const qsizetype comma = encoded.indexOf(u',');
            if (comma > 0 && encoded.left(comma).endsWith(u";base64"_s)) {
                QImage image;
                image.loadFromData(QByteArray::fromBase64(encoded.mid(comma + 1).toLatin1()));
                return image;
            }
        }
        return {};
    }
};

QString boundedText(const QString &text)
{
    const QStringList lines = text.split(u'\n');
    if (lines.size() <= kShownHead + kShownTail)
        return text;
    return lines.mid(0, kShownHead).join(u'\n') +
           u"\n… %1 lines not shown …\n"_s.arg(lines.size() - kShownHead - kShownTail) +
           lines.mid(lines.size() - kShownTail).join(u'\n');
}

QLabel *textLabel(const QString &text, const QString &style)
{
    auto *label = new QLabel;
    label->setTextFormat(Qt::PlainText);
    label->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    label->setWordWrap(false);
    label->setText(boundedText(text.endsWith(u'\n') ? text.chopped(1) : text));
    label->setStyleSheet(style);
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

QTextBrowser *browser(bool markdown, const QString &text)
{
    auto *view = new OfflineBrowser;
    view->setOpenLinks(false);
    view->setOpenExternalLinks(false);
    view->setFrameShape(QFrame::NoFrame);
    view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    if (markdown)
        view->setMarkdown(text);
    else
        view->setHtml(text);
    view->document()->setTextWidth(800);
    view->setFixedHeight(int(view->document()->size().height()) + 8);
    return view;
}

void addJson(QTreeWidgetItem *parent, const QString &key, const QJsonValue &value)
{
    auto *item = new QTreeWidgetItem(parent, {key});
    if (value.isObject()) {
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            addJson(item, it.key(), it.value());
    } else if (value.isArray()) {
        const QJsonArray a = value.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            addJson(item, QString::number(i), a.at(i));
    } else {
        item->setText(
            1, QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact)).mid(1).chopped(1));
    }
}

QWidget *imageView(const QImage &image)
{
    auto *label = new QLabel;
    label->setPixmap(QPixmap::fromImage(image));
    label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return label;
}

} // namespace

OutputArea::OutputArea(QWidget *parent) : QWidget(parent), m_layout(new QVBoxLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
}

QString OutputArea::plainText(const QString &text)
{
    static const QRegularExpression escapes(u"\x1b\\[[0-9;?]*[A-Za-z]|\x1b\\][^\x07]*\x07"_s);
    QString plain = text;
    plain.remove(escapes);
    // A carriage return redraws its line: what is shown is what came last on it.
    QStringList lines = plain.split(u'\n');
    for (QString &line : lines) {
        if (const qsizetype cr = line.lastIndexOf(u'\r', line.endsWith(u'\r') ? -2 : -1); cr >= 0)
            line = line.mid(cr + 1);
    }
    return lines.join(u'\n');
}

QString OutputArea::shownType(const QJsonObject &data)
{
    for (const char16_t *type : {u"image/png", u"image/jpeg", u"image/svg+xml", u"text/html", u"text/markdown",
                                 u"application/json", u"text/plain"}) {
        if (data.contains(QString::fromUtf16(type)))
            return QString::fromUtf16(type);
    }
    return {};
}

QWidget *OutputArea::viewOf(const QJsonObject &output)
{
    const QString type = output.value(u"output_type"_s).toString();
    if (type == u"stream"_s) {
        const bool err = output.value(u"name"_s).toString() == u"stderr"_s;
        return textLabel(plainText(notebook::joinedText(output.value(u"text"_s))),
                         err ? u"background: #fdd; padding: 2px;"_s : u"padding: 2px;"_s);
    }
    if (type == u"error"_s) {
        QStringList lines;
        for (const QJsonValue &line : output.value(u"traceback"_s).toArray())
            lines << plainText(line.toString());
        if (lines.isEmpty())
            lines << output.value(u"ename"_s).toString() + u": "_s + output.value(u"evalue"_s).toString();
        return textLabel(lines.join(u'\n'), u"background: #fdd; color: #a00; padding: 2px;"_s);
    }
    const QJsonObject bundle = output.value(u"data"_s).toObject();
    const QString shown = shownType(bundle);
    const QString text = notebook::joinedText(bundle.value(shown));
    if (shown == u"image/png"_s || shown == u"image/jpeg"_s) {
        QImage image;
        image.loadFromData(QByteArray::fromBase64(text.toLatin1()));
        return imageView(image);
    }
    if (shown == u"image/svg+xml"_s) {
        QSvgRenderer svg(text.toUtf8());
        QImage image(svg.defaultSize().boundedTo(QSize(2000, 2000)), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        svg.render(&painter);
        return imageView(image);
    }
    if (shown == u"text/html"_s || shown == u"text/markdown"_s)
        return browser(shown == u"text/markdown"_s, text);
    if (shown == u"application/json"_s) {
        auto *tree = new QTreeWidget;
        tree->setHeaderLabels({tr("Key"), tr("Value")});
        addJson(tree->invisibleRootItem(), u"json"_s, bundle.value(shown));
        tree->expandToDepth(1);
        tree->setMinimumHeight(160);
        return tree;
    }
    return textLabel(plainText(text), u"padding: 2px;"_s);
}

void OutputArea::setOutputs(const QJsonArray &outputs)
{
    m_outputs = outputs;
    while (QLayoutItem *item = m_layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (const QJsonValue &output : outputs)
        m_layout->addWidget(viewOf(output.toObject()));
    setVisible(!outputs.isEmpty());
}

} // namespace ferry::ui
