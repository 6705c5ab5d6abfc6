#include "ui/notebook/outputarea.h"

#include "kernels/streamtext.h"
#include "notebook/jupyterjson.h"
#include "notebook/terminaltext.h"
#include "ui/notebook/imageview.h"
#include "ui/notebook/safebrowser.h"

#include <QFontDatabase>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QPlainTextEdit>
#include <QSvgRenderer>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

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

QString streamText(const QJsonObject &output)
{
    if (output.value(u"output_type"_s).toString() == u"error"_s) {
        QStringList lines;
        for (const QJsonValue &line : output.value(u"traceback"_s).toArray())
            lines << line.toString();
        if (lines.isEmpty())
            lines << output.value(u"ename"_s).toString() + u": "_s + output.value(u"evalue"_s).toString();
        return lines.join(u'\n');
    }
    return notebook::joinedText(output.value(u"text"_s));
}

} // namespace

// A stream's or a traceback's lines: a word-wrapped rich-text label whose height at a width is
// worked out once for each text. QLabel lays its text out twice for each size it is asked, and a
// layout asks several, at several widths, at every change anywhere in the notebook: a notebook
// whose cell printed spent ~100 ms a draw measuring its streams again.
class OutputArea::StreamLabel : public QLabel {
public:
    void setLines(const QString &html)
    {
        m_heights.clear();
        setText(html);
    }
    int heightForWidth(int width) const override
    {
        for (const auto &[w, h] : m_heights)
            if (w == width)
                return h;
        if (m_heights.size() == 4)
            m_heights.removeFirst();
        m_heights.append({width, QLabel::heightForWidth(width)});
        return m_heights.last().second;
    }
    // At the width last measured (the layout's), not the label's own (640 until it is laid out).
    QSize sizeHint() const override
    {
        const int width = m_heights.isEmpty() ? 80 * fontMetrics().averageCharWidth() : m_heights.last().first;
        return {width, heightForWidth(width)};
    }
    QSize minimumSizeHint() const override // not QLabel's: every word on a line of its own
    {
        return {10 * fontMetrics().averageCharWidth(), fontMetrics().lineSpacing()};
    }

private:
    mutable QList<std::pair<int, int>> m_heights; // (width, height) for this text
};

// What one output shows: its JSON, and for a stream or a traceback the terminal it is drawn from.
struct OutputArea::Shown {
    QJsonObject output;
    QWidget *view = nullptr;
    StreamLabel *text = nullptr; // a stream's or a traceback's lines
    notebook::TerminalText terminal{notebook::TerminalLimits{kShownHead, kShownTail, 10000}};
    qsizetype consumed = 0; // of the stream's text
};

OutputArea::OutputArea(QWidget *parent) : QWidget(parent), m_layout(new QVBoxLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
}

QString OutputArea::plainText(const QString &text)
{
    notebook::TerminalText terminal{notebook::TerminalLimits{1 << 30, 1 << 30, 1 << 20}};
    terminal.append(text);
    return terminal.plainText();
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

void OutputArea::drawStream(Shown &shown)
{
    const QString text = streamText(shown.output);
    const auto cut = kernels::StreamText::findCut(text);
    if (cut) {
        // The kernel left lines out (its first and last kept): drawn again from the lines shown,
        // the first and the last, the others counted (what changed is the tail, which moves).
        const QStringView head = QStringView(text).first(cut->start);
        const QStringView tail = QStringView(text).sliced(cut->end);
        qsizetype headEnd = 0;
        for (qsizetype n = 0; n < kShownHead && headEnd < head.size(); ++n) {
            const qsizetype newline = head.indexOf(u'\n', headEnd);
            headEnd = newline < 0 ? head.size() : newline + 1;
        }
        qsizetype tailStart = tail.size();
        for (qsizetype n = 0; n <= kShownTail && tailStart > 0; ++n)
            tailStart = tailStart < 2 ? 0 : tail.lastIndexOf(u'\n', tailStart - 2) + 1;
        shown.terminal.clear();
        shown.terminal.append(head.first(headEnd));
        shown.terminal.skipLines(head.sliced(headEnd).count(u'\n') + cut->lines + tail.first(tailStart).count(u'\n'));
        shown.terminal.append(tail.sliced(tailStart));
        shown.consumed = 0;
    } else {
        if (text.size() < shown.consumed) { // not the same stream grown: drawn again
            shown.terminal.clear();
            shown.consumed = 0;
        }
        shown.terminal.append(QStringView(text).mid(shown.consumed));
        shown.consumed = text.size();
    }
    (void)shown.terminal.takeChanges();
    // Long lines wrap, as JupyterLab's output does, instead of widening the notebook.
    QString html = shown.terminal.html().replace(u"<pre>"_s, u"<pre style=\"white-space: pre-wrap\">"_s);
    if (cut)
        html += u"<p><a href=\"show-all\">%1</a></p>"_s.arg(tr("Show the first and last lines (%1 lines not kept)")
                                                                .arg(QLocale(QLocale::English).toString(cut->lines)));
    else if (shown.terminal.hiddenLineCount() > 0)
        html += u"<p><a href=\"show-all\">%1</a></p>"_s.arg(tr("Show all %1 lines").arg(shown.terminal.lineCount()));
    shown.text->setLines(html);
}

QWidget *OutputArea::viewOf(const QJsonObject &output, Shown &shown)
{
    const QString type = output.value(u"output_type"_s).toString();
    if (type == u"stream"_s || type == u"error"_s) {
        auto *label = new StreamLabel;
        label->setTextFormat(Qt::RichText);
        label->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        label->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
        label->setWordWrap(true);
        label->setAlignment(Qt::AlignLeft | Qt::AlignTop);
        const bool alarming = type == u"error"_s || output.value(u"name"_s).toString() == u"stderr"_s;
        label->setStyleSheet(alarming ? u"background: #fdd; padding: 2px;"_s : u"padding: 2px;"_s);
        // "Show all": every line the output keeps, as text, in a window of its own.
        connect(label, &QLabel::linkActivated, this, [this, label] {
            for (const auto &s : std::as_const(m_shown)) {
                if (s->text != label)
                    continue;
                auto *all = new QPlainTextEdit;
                all->setAttribute(Qt::WA_DeleteOnClose);
                all->setReadOnly(true);
                all->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
                all->setPlainText(plainText(streamText(s->output)));
                all->setWindowTitle(tr("All of the output"));
                all->resize(900, 600);
                all->show();
            }
        });
        shown.text = label;
        drawStream(shown);
        return label;
    }
    const QJsonObject bundle = output.value(u"data"_s).toObject();
    const QString shownMime = shownType(bundle);
    if (shownMime == u"image/png"_s || shownMime == u"image/jpeg"_s)
        return new ImageView(bundle.value(shownMime)); // decoded when first drawn
    const QString text = notebook::joinedText(bundle.value(shownMime));
    if (shownMime == u"image/svg+xml"_s) {
        // Drawn here, never fetched: an SVG's external references are not followed by QtSvg.
        QSvgRenderer svg(text.toUtf8());
        QImage image(svg.defaultSize().boundedTo(QSize(2000, 2000)), QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        svg.render(&painter);
        return imageView(image);
    }
    if (shownMime == u"text/html"_s || shownMime == u"text/markdown"_s) {
        auto *view = new SafeBrowser;
        if (shownMime == u"text/markdown"_s)
            view->showMarkdown(text);
        else
            view->showHtml(text);
        return view;
    }
    if (shownMime == u"application/json"_s) {
        auto *tree = new QTreeWidget;
        tree->setHeaderLabels({tr("Key"), tr("Value")});
        addJson(tree->invisibleRootItem(), u"json"_s, bundle.value(shownMime));
        tree->expandToDepth(1);
        tree->setMinimumHeight(160);
        return tree;
    }
    auto *label = new QLabel;
    label->setTextFormat(Qt::PlainText);
    label->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setText(plainText(text));
    return label;
}

void OutputArea::setOutputs(const QJsonArray &outputs)
{
    // Outputs that did not change keep their view; a stream that grew is drawn on.
    qsizetype same = 0;
    while (same < outputs.size() && same < m_shown.size()) {
        const QJsonObject next = outputs.at(same).toObject();
        Shown &shown = *m_shown.at(same);
        const QString type = next.value(u"output_type"_s).toString();
        if (next == shown.output) {
            ++same;
            continue;
        }
        if (type == u"stream"_s && shown.output.value(u"output_type"_s).toString() == type &&
            shown.output.value(u"name"_s) == next.value(u"name"_s) && shown.text) {
            shown.output = next;
            drawStream(shown);
            ++same;
            continue;
        }
        break;
    }
    while (m_shown.size() > same) {
        delete m_shown.last()->view;
        m_shown.removeLast();
    }
    for (qsizetype i = same; i < outputs.size(); ++i) {
        auto shown = std::make_shared<Shown>();
        shown->output = outputs.at(i).toObject();
        m_shown << shown;
        shown->view = viewOf(shown->output, *shown);
        m_layout->addWidget(shown->view);
    }
    m_outputs = outputs;
    setVisible(!outputs.isEmpty());
}

} // namespace ferry::ui
