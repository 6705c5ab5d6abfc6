#include "ui/notebook/cellwidget.h"

#include "ui/notebook/codeeditor.h"
#include "ui/notebook/outputarea.h"
#include "ui/notebook/safebrowser.h"

#include "notebook/jupyterjson.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QImage>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QTextBrowser>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

CellWidget::CellWidget(const notebook::DocumentCell &cell, QWidget *parent)
    : QFrame(parent), m_cell(cell), m_prompt(new QLabel(this)), m_editor(new CodeEditor(this)),
      m_rendered(new SafeBrowser(this)), m_outputs(new OutputArea(this))
{
    setObjectName(u"cell"_s);
    setAcceptDrops(true);
    setFrameShape(QFrame::NoFrame);
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(kBar + 4, 2, 4, 2);
    m_prompt->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_prompt->setAlignment(Qt::AlignRight | Qt::AlignTop);
    m_prompt->setMinimumWidth(m_prompt->fontMetrics().horizontalAdvance(u"[999]:*"_s) + 6);
    m_prompt->setObjectName(u"prompt"_s);
    row->addWidget(m_prompt, 0, Qt::AlignTop);
    m_column = new QVBoxLayout;
    QVBoxLayout *column = m_column;
    column->setSpacing(2);
    row->addLayout(column, 1);
    m_editor->setPlainText(cell.source);
    // Coloured by its palette: a style sheet per cell makes opening a notebook of hundreds slow.
    QPalette look = m_editor->palette();
    look.setColor(QPalette::Base, QColor(0xf7, 0xf7, 0xf7));
    look.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0)); // the frame's line
    m_editor->setPalette(look);
    m_editor->setFrameStyle(QFrame::Box | QFrame::Plain);
    column->addWidget(m_editor);
    column->addWidget(m_rendered);
    column->addWidget(m_outputs);
    m_outputs->setOutputs(cell.outputs);
    setKind(cell.kind);
    connect(m_editor->document(), &QTextDocument::contentsChanged, this, [this] {
        const bool edited = m_run != Run::Never && m_editor->toPlainText() != m_sourceAtRun;
        if (edited != m_editedSinceRun) {
            m_editedSinceRun = edited;
            updatePrompt();
        }
    });
    m_sourceAtRun = cell.source;
    connect(m_editor, &CodeEditor::filesDropped, this, &CellWidget::filesDropped);
    updatePrompt();
}

notebook::DocumentCell CellWidget::cell() const
{
    notebook::DocumentCell cell = m_cell;
    cell.source = m_editor->toPlainText();
    cell.outputs = m_outputs->outputs();
    return cell;
}

QString CellWidget::source() const
{
    return m_editor->toPlainText();
}

void CellWidget::setKind(notebook::CellKind kind)
{
    m_cell.kind = kind;
    m_editor->setPythonHighlighting(kind == notebook::CellKind::Code);
    if (kind != notebook::CellKind::Code) {
        m_cell.outputs = {};
        m_cell.executionCount = QJsonValue();
        m_outputs->setOutputs({});
    }
    setRendered(kind == notebook::CellKind::Markdown && !m_editor->toPlainText().isEmpty());
    updatePrompt();
}

void CellWidget::setRendered(bool rendered)
{
    rendered = rendered && m_cell.kind == notebook::CellKind::Markdown;
    if (rendered) {
        // Its attachments (images pasted into the cell: `![](attachment:name.png)`), from the cell.
        QHash<QString, QImage> images;
        const QJsonObject attachments = m_cell.other.value(u"attachments"_s).toObject();
        for (auto it = attachments.begin(); it != attachments.end(); ++it) {
            const QJsonObject bundle = it.value().toObject();
            for (const QString &mime : bundle.keys()) {
                QImage image;
                if (mime.startsWith(u"image/"_s) &&
                    image.loadFromData(QByteArray::fromBase64(notebook::joinedText(bundle.value(mime)).toLatin1()))) {
                    images.insert(it.key(), image);
                    break;
                }
            }
        }
        m_rendered->showMarkdown(m_editor->toPlainText(), images);
    }
    m_rendered->setVisible(rendered);
    m_editor->setVisible(!rendered);
}

bool CellWidget::rendered() const
{
    return m_rendered->isVisibleTo(this);
}

void CellWidget::setSelected(bool selected, bool editing)
{
    const Look look = !selected ? Look::Plain : editing ? Look::Edited : Look::Selected;
    if (look != m_look) {
        m_look = look;
        update();
    }
}

// The selection drawn, not styled: a style sheet on each of hundreds of cells costs the notebook's
// opening and every move more than the cells' drawing.
void CellWidget::paintEvent(QPaintEvent *event)
{
    QFrame::paintEvent(event);
    if (m_look == Look::Plain)
        return;
    QPainter painter(this);
    if (m_look == Look::Selected)
        painter.fillRect(rect(), QColor(0xee, 0xf5, 0xfd));
    painter.fillRect(QRect(0, 0, kBar, height()),
                     m_look == Look::Edited ? QColor(0x66, 0xbb, 0x6a) : QColor(0x1e, 0x88, 0xe5));
}

void CellWidget::setOutputs(const QJsonArray &outputs)
{
    m_cell.outputs = outputs;
    m_outputs->setOutputs(outputs);
}

void CellWidget::setChart(QWidget *chart)
{
    delete m_chart;
    m_chart = chart;
    if (chart)
        m_column->addWidget(chart);
}

void CellWidget::setRun(Run run, int executionCount)
{
    m_run = run;
    if (executionCount >= 0)
        m_cell.executionCount = executionCount;
    if (run == Run::Running || run == Run::Queued) {
        m_sourceAtRun = m_editor->toPlainText();
        m_editedSinceRun = false;
    }
    updatePrompt();
}

int CellWidget::executionCount() const
{
    return m_cell.executionCount.isDouble() ? m_cell.executionCount.toInt() : -1;
}

void CellWidget::setOutOfOrder(bool outOfOrder)
{
    if (outOfOrder == m_outOfOrder)
        return;
    m_outOfOrder = outOfOrder;
    updatePrompt();
}

void CellWidget::setStale(const QStringList &names)
{
    if (names == m_staleNames)
        return;
    m_staleNames = names;
    updatePrompt();
}

void CellWidget::updatePrompt()
{
    if (m_cell.kind != notebook::CellKind::Code) {
        m_prompt->clear();
        m_prompt->setToolTip({});
        return;
    }
    QString count = u" "_s;
    if (m_run == Run::Queued || m_run == Run::Running)
        count = u"*"_s;
    else if (executionCount() >= 0)
        count = QString::number(executionCount());
    QString text = u"[%1]:"_s.arg(count);
    QStringList why;
    if (m_editedSinceRun)
        why << tr("edited since it ran");
    if (m_outOfOrder)
        why << tr("ran out of order: a cell above ran after it");
    if (!m_staleNames.isEmpty())
        why << tr("stale: %1 changed since it ran (Run Stale Cells: Shift+R)").arg(m_staleNames.join(u", "_s));
    if (m_editedSinceRun || m_outOfOrder)
        text += u"•"_s;
    if (!m_staleNames.isEmpty())
        text += u"~"_s; // stale: what it read changed
    m_prompt->setText(text);
    m_prompt->setToolTip(why.join(u"; "_s));
    QPalette look = m_prompt->palette();
    look.setColor(QPalette::WindowText, m_run == Run::Failed ? QColor(0xc6, 0x28, 0x28)
                                        : why.isEmpty()      ? QColor(0x30, 0x3f, 0x9f)
                                                             : QColor(0xef, 0x6c, 0x00));
    m_prompt->setPalette(look);
}

void CellWidget::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void CellWidget::dropEvent(QDropEvent *event)
{
    QStringList paths;
    for (const QUrl &url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    Q_EMIT filesDropped(paths);
}

void CellWidget::mousePressEvent(QMouseEvent *event)
{
    Q_EMIT clicked(event->modifiers());
    QFrame::mousePressEvent(event);
}

} // namespace ferry::ui
