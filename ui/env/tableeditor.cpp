#include "ui/env/tableeditor.h"

#include "ui/env/environmenttablemodel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

class TableView : public QTableView {
public:
    using QTableView::QTableView;
    bool isEditing() const { return state() == EditingState; }
};

QToolButton *button(QWidget *parent, const QString &name, const QString &text, const QString &tip)
{
    auto *b = new QToolButton(parent);
    b->setObjectName(name);
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    b->setFocusPolicy(Qt::NoFocus); // the table has the keys for these
    return b;
}

} // namespace

TableEditor::TableEditor(EnvironmentTableModel *model, const QString &objectName, QWidget *parent)
    : QWidget(parent), m_model(model), m_view(new TableView(this)),
      m_add(button(this, u"add"_s, u"+"_s, tr("Add a row (Insert)"))),
      m_delete(button(this, u"delete"_s, u"−"_s, tr("Delete the selected rows (Delete)"))),
      m_up(button(this, u"up"_s, u"↑"_s, tr("Move up (Alt+Up)"))),
      m_down(button(this, u"down"_s, u"↓"_s, tr("Move down (Alt+Down)"))), m_problems(new QLabel(this))
{
    setObjectName(objectName);
    m_view->setObjectName(objectName + u"View"_s);
    m_view->setModel(model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                            QAbstractItemView::AnyKeyPressed | QAbstractItemView::SelectedClicked);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->setTabKeyNavigation(true);
    m_view->installEventFilter(this);
    m_view->setWordWrap(false);

    connect(m_add, &QToolButton::clicked, this, &TableEditor::addRow);
    connect(m_delete, &QToolButton::clicked, this, &TableEditor::deleteRows);
    connect(m_up, &QToolButton::clicked, this, &TableEditor::moveUp);
    connect(m_down, &QToolButton::clicked, this, &TableEditor::moveDown);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &TableEditor::updateButtons);
    connect(model, &QAbstractItemModel::modelReset, this, &TableEditor::updateButtons);
    connect(model, &QAbstractItemModel::rowsInserted, this, &TableEditor::updateButtons);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &TableEditor::updateButtons);

    auto *buttons = new QVBoxLayout;
    buttons->setSpacing(0);
    for (QToolButton *b : {m_add, m_delete, m_up, m_down})
        buttons->addWidget(b);
    buttons->addStretch(1);
    auto *row = new QHBoxLayout;
    row->setSpacing(2);
    row->addWidget(m_view, 1);
    row->addLayout(buttons);
    m_problems->setObjectName(objectName + u"Problems"_s);
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems->setStyleSheet(u"color: #b00020;"_s);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(row, 1);
    layout->addWidget(m_problems);
    connect(model, &EnvironmentTableModel::problemsChanged, this, &TableEditor::showProblems);
    updateButtons();
    showProblems();
}

void TableEditor::addRow()
{
    const QModelIndex current = m_view->currentIndex();
    const int row = current.isValid() ? current.row() + 1 : m_model->rowCount();
    if (!m_model->insertRow(row))
        return;
    const QModelIndex index = m_model->index(row, m_model->firstEditableColumn());
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
    m_view->setFocus();
    m_view->edit(index);
}

void TableEditor::deleteRows()
{
    QList<int> rows;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows())
        rows << index.row();
    if (rows.isEmpty() && m_view->currentIndex().isValid())
        rows << m_view->currentIndex().row();
    if (rows.isEmpty())
        return;
    std::sort(rows.begin(), rows.end(), std::greater<>());
    const int column = std::max(0, m_view->currentIndex().column());
    for (int row : std::as_const(rows))
        m_model->removeRow(row);
    const int next = std::min(rows.last(), m_model->rowCount() - 1);
    if (next >= 0)
        m_view->setCurrentIndex(m_model->index(next, column));
}

void TableEditor::moveUp()
{
    move(-1);
}

void TableEditor::moveDown()
{
    move(1);
}

void TableEditor::move(int delta)
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid())
        return;
    const int row = current.row();
    const int target = row + delta;
    if (target < 0 || target >= m_model->rowCount())
        return;
    // moveRows takes the row *before which* it lands.
    if (!m_model->moveRow({}, row, {}, delta > 0 ? target + 1 : target))
        return;
    m_view->setCurrentIndex(m_model->index(target, current.column()));
}

QString TableEditor::problemText() const
{
    return m_problems->text();
}

// The parsers' messages where they are read without hovering: "Row 4: column 14: ...".
void TableEditor::showProblems()
{
    QStringList lines;
    for (const env::Finding &p : m_model->problems())
        lines << tr("Row %1: %2%3").arg(p.row + 1).arg(p.isError() ? QString() : tr("warning: "), p.text());
    m_problems->setText(lines.join(u'\n'));
    m_problems->setVisible(!lines.isEmpty());
}

void TableEditor::updateButtons()
{
    const QModelIndex current = m_view->currentIndex();
    m_delete->setEnabled(current.isValid());
    m_up->setEnabled(current.isValid() && current.row() > 0);
    m_down->setEnabled(current.isValid() && current.row() + 1 < m_model->rowCount());
}

bool TableEditor::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_view || event->type() != QEvent::KeyPress || static_cast<TableView *>(m_view)->isEditing())
        return QWidget::eventFilter(watched, event);
    const auto *key = static_cast<QKeyEvent *>(event);
    const Qt::KeyboardModifiers mods = key->modifiers() & ~Qt::KeypadModifier;
    if (key->key() == Qt::Key_Insert && mods == Qt::NoModifier) {
        addRow();
        return true;
    }
    if (key->key() == Qt::Key_Delete && mods == Qt::NoModifier) {
        deleteRows();
        return true;
    }
    if ((key->key() == Qt::Key_Up || key->key() == Qt::Key_Down) && mods == Qt::AltModifier) {
        move(key->key() == Qt::Key_Up ? -1 : 1);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace ferry::ui
