// NotebookEditor's cell operations (insert, delete, type, move, split, merge, undo), find and
// replace, and the keys of command and edit mode (JupyterLab's).
#include "ui/notebook/notebookeditor.h"

#include "common/safefile.h"
#include "kernelhost/kerneldata.h"
#include "notebook/conversion.h"
#include "run/rundirectory.h"
#include "ui/chart/losschartpanel.h"
#include "ui/data/datasetpreview.h"
#include "ui/notebook/cellmetrics.h"
#include "ui/notebook/cellwidget.h"
#include "ui/notebook/codeassist.h"
#include "ui/notebook/codeeditor.h"
#include "ui/notebook/findbar.h"
#include "ui/notebook/namespacewatcher.h"
#include "ui/notebook/notebookimportdialog.h"
#include "ui/notebook/outputarea.h"
#include "ui/notebook/variablespane.h"
#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QToolBar>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kMostUndo = 100;

} // namespace

void NotebookEditor::remember()
{
    m_undo << document().cells;
    if (m_undo.size() > kMostUndo)
        m_undo.removeFirst();
}

void NotebookEditor::restore(const QList<notebook::DocumentCell> &cells)
{
    m_document.cells = cells;
    build();
    setModified(true);
}

void NotebookEditor::insertCell(bool below)
{
    remember();
    notebook::DocumentCell cell;
    cell.id = notebook::DocumentCell::newId();
    const int index = m_cells.isEmpty() ? 0 : m_current + (below ? 1 : 0);
    addCellWidget(cell, index);
    setCurrentIndex(index);
    setModified(true);
}

void NotebookEditor::deleteCurrent()
{
    if (m_cells.isEmpty())
        return;
    remember();
    const QList<int> selected = selectedIndexes();
    for (auto it = selected.crbegin(); it != selected.crend(); ++it)
        delete m_cells.takeAt(*it);
    if (m_cells.isEmpty()) {
        notebook::DocumentCell cell;
        cell.id = notebook::DocumentCell::newId();
        addCellWidget(cell, 0);
    }
    setCurrentIndex(std::min(int(selected.first()), int(m_cells.size()) - 1));
    setModified(true);
}

void NotebookEditor::setCurrentKind(notebook::CellKind kind)
{
    if (m_cells.isEmpty() || m_cells.at(m_current)->kind() == kind)
        return;
    remember();
    m_cells.at(m_current)->setKind(kind);
    setModified(true);
}

void NotebookEditor::undoCellOperation()
{
    if (m_undo.isEmpty())
        return;
    restore(m_undo.takeLast());
}

void NotebookEditor::moveCurrent(int by)
{
    const int to = m_current + by;
    if (m_cells.isEmpty() || to < 0 || to >= m_cells.size())
        return;
    remember();
    CellWidget *cell = m_cells.takeAt(m_current);
    m_cells.insert(to, cell);
    m_layout->removeWidget(cell);
    m_layout->insertWidget(to, cell);
    setCurrentIndex(to);
    if (m_editing)
        cell->editor()->setFocus();
    setModified(true);
}

void NotebookEditor::splitCurrentAtCursor()
{
    if (m_cells.isEmpty())
        return;
    CellWidget *cell = m_cells.at(m_current);
    const QString text = cell->source();
    const int at = cell->editor()->textCursor().position();
    remember();
    notebook::DocumentCell below;
    below.id = notebook::DocumentCell::newId();
    below.kind = cell->kind();
    below.source = text.mid(at);
    if (below.source.startsWith(u'\n'))
        below.source.remove(0, 1);
    QString above = text.left(at);
    if (above.endsWith(u'\n'))
        above.chop(1);
    cell->editor()->setPlainText(above);
    addCellWidget(below, m_current + 1);
    setCurrentIndex(m_current + 1);
    enterEditMode();
    m_cells.at(m_current)->editor()->moveCursor(QTextCursor::Start);
    setModified(true);
}

void NotebookEditor::mergeWithBelow()
{
    if (m_current + 1 >= m_cells.size())
        return;
    remember();
    CellWidget *cell = m_cells.at(m_current);
    CellWidget *next = m_cells.takeAt(m_current + 1);
    cell->editor()->setPlainText(cell->source() + u'\n' + next->source());
    delete next;
    cell->setRendered(cell->kind() == notebook::CellKind::Markdown);
    setCurrentIndex(m_current);
    setModified(true);
}

void NotebookEditor::openFind()
{
    QString selected;
    if (!m_cells.isEmpty())
        selected = m_cells.at(m_current)->editor()->textCursor().selectedText();
    m_find->open(selected);
}

bool NotebookEditor::findNext(bool backwards)
{
    const QString text = m_find->findText();
    if (text.isEmpty() || m_cells.isEmpty())
        return false;
    const QTextDocument::FindFlags flags =
        (backwards ? QTextDocument::FindBackward : QTextDocument::FindFlags()) |
        (m_find->caseSensitive() ? QTextDocument::FindCaseSensitively : QTextDocument::FindFlags());
    const int count = int(m_cells.size());
    for (int step = 0; step <= count; ++step) {
        const int index = ((m_current + (backwards ? -step : step)) % count + count) % count;
        CellWidget *cell = m_cells.at(index);
        QTextCursor from = cell->editor()->textCursor();
        if (step > 0) { // a cell after the first: from its start (its end, going back)
            from = QTextCursor(cell->editor()->document());
            from.movePosition(backwards ? QTextCursor::End : QTextCursor::Start);
        }
        const QTextCursor found = cell->editor()->document()->find(text, from, flags);
        if (found.isNull())
            continue;
        cell->setRendered(false);
        setCurrentIndex(index);
        cell->editor()->setTextCursor(found);
        m_scroll->ensureWidgetVisible(cell->editor(), 0, 40);
        m_find->setStatus({});
        return true;
    }
    m_find->setStatus(tr("not found"));
    return false;
}

void NotebookEditor::replaceOne()
{
    if (m_cells.isEmpty())
        return;
    QTextCursor cursor = m_cells.at(m_current)->editor()->textCursor();
    const Qt::CaseSensitivity sensitivity = m_find->caseSensitive() ? Qt::CaseSensitive : Qt::CaseInsensitive;
    if (cursor.hasSelection() && cursor.selectedText().compare(m_find->findText(), sensitivity) == 0) {
        cursor.insertText(m_find->replaceText());
        m_cells.at(m_current)->editor()->setTextCursor(cursor);
    }
    findNext(false);
}

int NotebookEditor::replaceAll()
{
    const QString text = m_find->findText();
    if (text.isEmpty())
        return 0;
    const Qt::CaseSensitivity sensitivity = m_find->caseSensitive() ? Qt::CaseSensitive : Qt::CaseInsensitive;
    int replaced = 0;
    for (const CellWidget *cell : std::as_const(m_cells))
        replaced += int(cell->source().count(text, sensitivity));
    if (replaced == 0)
        return 0;
    remember();
    for (CellWidget *cell : std::as_const(m_cells)) {
        QString source = cell->source();
        if (source.contains(text, sensitivity)) {
            cell->editor()->setPlainText(source.replace(text, m_find->replaceText(), sensitivity));
            cell->setRendered(cell->kind() == notebook::CellKind::Markdown);
        }
    }
    setModified(true);
    return replaced;
}

bool NotebookEditor::commandKey(QKeyEvent *event)
{
    const Qt::KeyboardModifiers mods = event->modifiers() & ~Qt::KeypadModifier;
    const int key = event->key();
    const int last = std::exchange(m_lastKey, 0);
    if (mods == (Qt::ControlModifier | Qt::ShiftModifier) && (key == Qt::Key_Up || key == Qt::Key_Down)) {
        moveCurrent(key == Qt::Key_Up ? -1 : 1);
        return true;
    }
    if (mods == Qt::ShiftModifier && key == Qt::Key_M) {
        mergeWithBelow();
        return true;
    }
    if (mods != Qt::NoModifier && mods != Qt::ShiftModifier)
        return false;
    if (key == Qt::Key_R && mods == Qt::ShiftModifier) {
        runStaleCells();
        return true;
    }
    if (mods == Qt::ShiftModifier &&
        (key == Qt::Key_Up || key == Qt::Key_K || key == Qt::Key_Down || key == Qt::Key_J)) {
        if (m_anchor < 0)
            m_anchor = m_current;
        extendSelection(m_current + (key == Qt::Key_Up || key == Qt::Key_K ? -1 : 1));
        return true;
    }
    switch (key) {
    case Qt::Key_Up:
    case Qt::Key_K:
        setCurrentIndex(m_current - 1);
        return true;
    case Qt::Key_Down:
    case Qt::Key_J:
        setCurrentIndex(m_current + 1);
        return true;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (mods != Qt::NoModifier)
            return false;
        enterEditMode();
        return true;
    case Qt::Key_A:
        insertCell(false);
        return true;
    case Qt::Key_B:
        insertCell(true);
        return true;
    case Qt::Key_M:
        setCurrentKind(notebook::CellKind::Markdown);
        return true;
    case Qt::Key_Y:
        setCurrentKind(notebook::CellKind::Code);
        return true;
    case Qt::Key_R:
        setCurrentKind(notebook::CellKind::Raw);
        return true;
    case Qt::Key_Z:
        undoCellOperation();
        return true;
    case Qt::Key_D:
    case Qt::Key_I:
    case Qt::Key_0:
        if (last != key) { // the second press does it
            m_lastKey = key;
            return true;
        }
        if (key == Qt::Key_D)
            deleteCurrent();
        else if (key == Qt::Key_I)
            interruptKernel();
        else
            restartKernel();
        return true;
    default:
        return false;
    }
}

bool NotebookEditor::eventFilter(QObject *watched, QEvent *event)
{
    // Ctrl+F is the notebook's search while it has the keys (the window's "Find a Run" elsewhere).
    if (event->type() == QEvent::ShortcutOverride) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->matches(QKeySequence::Find)) {
            event->accept();
            return true;
        }
        return QWidget::eventFilter(watched, event);
    }
    if (event->type() != QEvent::KeyPress)
        return QWidget::eventFilter(watched, event);
    auto *key = static_cast<QKeyEvent *>(event);
    const Qt::KeyboardModifiers mods = key->modifiers() & ~Qt::KeypadModifier;
    // In an editor: the cell it belongs to is the current one.
    for (int i = 0; i < m_cells.size(); ++i) {
        if (m_cells.at(i)->editor() == watched && i != m_current) {
            m_current = i;
            m_editing = true;
            setCurrentIndex(i);
        }
    }
    if (key->matches(QKeySequence::Find)) {
        openFind();
        return true;
    }
    if (watched != m_column && mods == (Qt::ControlModifier | Qt::ShiftModifier) && key->key() == Qt::Key_Minus) {
        splitCurrentAtCursor();
        return true;
    }
    if (watched != m_column && mods == (Qt::ControlModifier | Qt::ShiftModifier) &&
        (key->key() == Qt::Key_Up || key->key() == Qt::Key_Down)) {
        moveCurrent(key->key() == Qt::Key_Up ? -1 : 1);
        return true;
    }
    const bool enter = key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter;
    if (enter && mods == Qt::ShiftModifier) {
        runCurrentAndAdvance();
        return true;
    }
    if (enter && mods == Qt::ControlModifier) {
        runCurrent();
        return true;
    }
    if (enter && mods == Qt::AltModifier) {
        runCurrentAndInsert();
        return true;
    }
    if (watched == m_column)
        return commandKey(key);
    return QWidget::eventFilter(watched, event);
}

void NotebookEditor::keyPressEvent(QKeyEvent *event)
{
    if (!commandKey(event))
        QWidget::keyPressEvent(event);
}

} // namespace ferry::ui
