#include "ui/notebook/notebookeditor.h"

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

#include "common/safefile.h"
#include "kernelhost/kerneldata.h"
#include "notebook/conversion.h"
#include "run/rundirectory.h"

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

constexpr int kFlushMs = 100; // outputs drawn at most this often while a cell prints
constexpr int kAutosaveMs = 30000;

} // namespace

NotebookEditor::NotebookEditor(QString kernelsDir, const QString &ferryBinary, QWidget *parent)
    : Document(parent), m_kernelsDir(std::move(kernelsDir)), m_scroll(new QScrollArea(this)), m_column(new QWidget),
      m_layout(new QVBoxLayout(m_column)), m_state(new QLabel(this)),
      m_kernel(std::make_unique<kernels::NotebookKernel>(m_kernelsDir, ferryBinary))
{
    setObjectName(u"notebookEditor"_s);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QToolBar(this);
    bar->setObjectName(u"notebookToolBar"_s);
    const auto add = [&](const QString &text, const QString &tip, void (NotebookEditor::*slot)()) {
        QAction *action = bar->addAction(text, this, slot);
        action->setToolTip(tip);
        return action;
    };
    add(tr("Run"), tr("Run the cell and select the next (Shift+Enter)"), &NotebookEditor::runCurrentAndAdvance);
    add(tr("Run All"), tr("Run every cell in order"), &NotebookEditor::runAll);
    add(tr("Interrupt"), tr("Interrupt the kernel (I, I)"), &NotebookEditor::interruptKernel);
    add(tr("Restart"), tr("Restart the kernel (0, 0)"), &NotebookEditor::restartKernel);
    add(tr("Restart && Run All"), tr("Restart the kernel, then run every cell"), &NotebookEditor::restartAndRunAll);
    add(tr("Run Stale"), tr("Run the stale cells: those that read a name a later run bound again (Shift+R)"),
        &NotebookEditor::runStaleCells)
        ->setObjectName(u"runStaleCells"_s);
    QAction *variables = bar->addAction(tr("Variables"), this, &NotebookEditor::showVariables);
    variables->setObjectName(u"showVariables"_s);
    variables->setCheckable(true);
    variables->setToolTip(tr("Show the kernel's variables beside the cells"));
    bar->addSeparator();
    add(tr("Run as Job…"), tr("Run the notebook as a tracked run, on any target, its constants as hyperparameters"),
        &NotebookEditor::runAsJob);
    add(tr("Convert to Script…"), tr("Write the notebook as a training script, its constants as hyperparameters"),
        &NotebookEditor::convertToScript);
    bar->addSeparator();
    // Where the kernel runs: the environment and the target (kept in the notebook's metadata).
    m_environment = new QComboBox(bar);
    m_environment->setObjectName(u"kernelEnvironment"_s);
    m_environment->setToolTip(tr("The environment the kernel runs in"));
    m_environment->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    bar->addWidget(m_environment);
    m_target = new QComboBox(bar);
    m_target->setObjectName(u"kernelTarget"_s);
    m_target->setEditable(true);
    m_target->addItems({u"local"_s, u"container"_s});
    m_target->setToolTip(tr("Where the kernel runs: local, container, ssh:HOST or slurm:HOST"));
    m_target->setMinimumContentsLength(12);
    bar->addWidget(m_target);
    connect(m_environment, &QComboBox::activated, this, &NotebookEditor::kernelChoiceChanged);
    connect(m_target->lineEdit(), &QLineEdit::editingFinished, this, &NotebookEditor::kernelChoiceChanged);
    connect(m_target, &QComboBox::activated, this, &NotebookEditor::kernelChoiceChanged);
    bar->addSeparator();
    m_state->setObjectName(u"kernelState"_s);
    bar->addWidget(m_state);
    layout->addWidget(bar);
    m_find = new FindBar(this);
    layout->addWidget(m_find);
    connect(m_find, &FindBar::findNext, this, [this](bool backwards) { findNext(backwards); });
    connect(m_find, &FindBar::replaceOne, this, &NotebookEditor::replaceOne);
    connect(m_find, &FindBar::replaceAll, this, [this] {
        const int replaced = replaceAll();
        m_find->setStatus(tr("%n replaced", nullptr, replaced));
    });
    connect(m_find, &FindBar::closed, this, &NotebookEditor::enterCommandMode);
    m_scroll->setWidgetResizable(true);
    // Always there: a bar that comes once the cells fill the view would narrow them all, and every
    // rendered cell would be laid out again.
    m_scroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    m_scroll->setWidget(m_column);
    m_scroll->setFocusPolicy(Qt::NoFocus);
    m_column->setFocusPolicy(Qt::StrongFocus);
    m_column->installEventFilter(this);
    m_layout->setContentsMargins(8, 8, 8, 8);
    m_layout->setSpacing(4);
    m_layout->addStretch(1);
    auto *split = new QSplitter(this); // the cells, the variables pane beside them
    split->addWidget(m_scroll);
    m_variables = new VariablesPane(split);
    m_variables->hide();
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    setFocusProxy(m_column);

    m_autosave.setInterval(kAutosaveMs);
    connect(&m_autosave, &QTimer::timeout, this, &NotebookEditor::autosaveInBackground);
    connect(&m_autosaving, &QFutureWatcher<void>::finished, this, [this] {
        if (m_saves != m_savesAtAutosave) // saved or discarded meanwhile: the side file is stale
            QFile::remove(m_autosavingTo);
    });
    m_autosave.start();
    askInsert = [this](const QString &path, const QString &code, const QString &problem) {
        QDialog dialog(this);
        dialog.setWindowTitle(tr("Load %1 in the notebook").arg(QFileInfo(path).fileName()));
        auto *column = new QVBoxLayout(&dialog);
        auto *preview = new DatasetPreview(&dialog);
        preview->show(detectDatasetWithThumbnails(path));
        column->addWidget(preview, 1);
        auto *text = new QPlainTextEdit(problem.isEmpty() ? code : problem, &dialog);
        text->setReadOnly(true);
        text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        text->setMaximumHeight(140);
        column->addWidget(text);
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, &dialog);
        if (problem.isEmpty())
            buttons->addButton(tr("Insert the Code"), QDialogButtonBox::AcceptRole);
        column->addWidget(buttons);
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        dialog.resize(700, 480);
        return dialog.exec() == QDialog::Accepted;
    };
    askRestore = [this](const QDateTime &savedAt) {
        return QMessageBox::question(this, tr("Restore unsaved changes?"),
                                     tr("%1 has changes from %2 that were never saved (Ferry ended before). "
                                        "Open them?")
                                         .arg(title(), QLocale().toString(savedAt, QLocale::ShortFormat)),
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
    };
    m_flush.setInterval(kFlushMs);
    m_flush.setSingleShot(true);
    connect(&m_flush, &QTimer::timeout, this, &NotebookEditor::flushOutputs);
    using K = kernels::NotebookKernel;
    connect(m_kernel.get(), &K::stateChanged, this, [this](K::State, const QString &text) {
        m_state->setText(tr("Kernel: %1").arg(text));
        Q_EMIT kernelStateChanged(text);
    });
    connect(m_kernel.get(), &K::cellStarted, this, [this](const QString &id, int count) {
        m_outputs.remove(id);
        if (CellWidget *cell = cellById(id)) {
            cell->setOutputs({});
            // A chart of what this run of it prints, once it prints a metric.
            delete m_metrics.take(id);
            cell->setChart(nullptr);
            auto *metrics = new CellMetrics(id, tr("cell [%1]").arg(count), cell);
            connect(metrics, &CellMetrics::chartMade, cell, [cell](LossChartPanel *chart) { cell->setChart(chart); });
            m_metrics.insert(id, metrics);
            cell->setRun(CellWidget::Run::Running, count);
            m_ranAt.insert(id, ++m_runOrder);
            markOutOfOrder();
            setModified(true);
        }
    });
    connect(m_kernel.get(), &K::cellMessage, this, [this](const QString &id, const kernels::JupyterMessage &message) {
        if (message.type() == u"update_display_data"_s) { // a display of any cell
            for (auto it = m_outputs.begin(); it != m_outputs.end(); ++it) {
                if (it.value()->update(message))
                    m_dirty.insert(it.key());
            }
        }
        if (message.type() == u"stream"_s) {
            if (CellMetrics *metrics = m_metrics.value(id))
                metrics->feed(message.content.value(u"text"_s).toString());
        }
        auto &outputs = m_outputs[id];
        if (!outputs || outputs->requestId() != message.parentId())
            outputs = std::make_shared<kernels::CellOutputs>(message.parentId());
        if (outputs->take(kernels::Channel::IOPub, message))
            m_dirty.insert(id);
        if (!m_flush.isActive())
            m_flush.start();
    });
    connect(m_kernel.get(), &K::cellFinished, this, [this](const QString &id, const QString &status, int count) {
        flushOutputs();
        if (CellWidget *cell = cellById(id))
            cell->setRun(status == u"ok"_s ? CellWidget::Run::Done : CellWidget::Run::Failed, count);
    });
    connect(m_kernel.get(), &K::progress, this, &NotebookEditor::message);
    m_watcher = new NamespaceWatcher(*this, *m_kernel, *m_variables);
    m_assist = new CodeAssist(*m_kernel, this);
    m_state->setText(tr("Kernel: none (starts with the first cell run)"));
}

NotebookEditor::~NotebookEditor() = default;

Expected<void> NotebookEditor::open(const QString &path)
{
    auto document = notebook::NotebookDocument::read(path);
    if (!document)
        return document.error();
    bool restored = false;
    const QFileInfo side(autosavePath(path));
    if (side.exists() && side.lastModified() >= QFileInfo(path).lastModified() && askRestore &&
        askRestore(side.lastModified())) {
        auto autosaved = notebook::NotebookDocument::read(side.filePath());
        if (autosaved) {
            // The file's own bytes stay what "unchanged" compares with; the cells are the autosave's.
            document->cells = autosaved->cells;
            document->metadata = autosaved->metadata;
            restored = true;
        }
    }
    m_document = std::move(*document);
    m_undo.clear();
    build();
    showKernelChoice();
    setModified(restored);
    // Its kernel still runs (the window was closed, or Ferry ended): attached again, what ran
    // meanwhile replayed into its cells.
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_kernel->setNotebook(absolute);
    if (const QString running = kernels::NotebookKernel::runningKernelFor(m_kernelsDir, absolute); !running.isEmpty())
        m_kernel->attach(running);
    if (!m_document.warning.isEmpty())
        Q_EMIT message(m_document.warning);
    return {};
}

void NotebookEditor::build()
{
    for (CellWidget *cell : std::as_const(m_cells))
        delete cell;
    m_cells.clear();
    for (qsizetype i = 0; i < m_document.cells.size(); ++i)
        addCellWidget(m_document.cells.at(i), int(i));
    m_current = std::clamp(m_current, 0, int(m_cells.size()) - 1);
    setCurrentIndex(m_current);
}

CellWidget *NotebookEditor::addCellWidget(const notebook::DocumentCell &cell, int index)
{
    auto *widget = new CellWidget(cell, m_column);
    m_layout->insertWidget(index, widget);
    m_cells.insert(index, widget);
    widget->editor()->installEventFilter(this);
    connect(widget, &CellWidget::clicked, this, [this, widget](Qt::KeyboardModifiers modifiers) {
        const int at = int(m_cells.indexOf(widget));
        if (modifiers & Qt::ShiftModifier) { // from the current cell to this one
            if (m_anchor < 0)
                m_anchor = m_current;
            m_editing = false;
            extendSelection(at);
        } else {
            setCurrentIndex(at);
        }
        enterCommandMode();
    });
    // The text's own flag (highlighting changes formats, never it).
    connect(widget->editor()->document(), &QTextDocument::modificationChanged, this, [this](bool changed) {
        if (changed)
            setModified(true);
    });
    connect(widget->editor(), &CodeEditor::escapePressed, this, &NotebookEditor::enterCommandMode);
    connect(widget, &CellWidget::filesDropped, this, [this, widget](const QStringList &paths) {
        for (const QString &path : paths)
            dropDataset(int(m_cells.indexOf(widget)), path);
    });
    m_assist->attach(widget->editor());
    return widget;
}

QString NotebookEditor::title() const
{
    return m_document.path.isEmpty() ? tr("Untitled.ipynb") : QFileInfo(m_document.path).fileName();
}

notebook::NotebookDocument NotebookEditor::document() const
{
    notebook::NotebookDocument document = m_document;
    document.cells.clear();
    for (const CellWidget *cell : m_cells)
        document.cells << cell->cell();
    return document;
}

bool NotebookEditor::save()
{
    QString target = m_document.path;
    if (target.isEmpty()) {
        target = QFileDialog::getSaveFileName(this, tr("Save Notebook"), {}, tr("Notebooks (*.ipynb)"));
        if (target.isEmpty())
            return false;
    }
    if (const auto saved = saveAs(target); !saved) {
        QMessageBox::warning(this, tr("Cannot save the notebook"), saved.error().toString());
        return false;
    }
    return true;
}

bool NotebookEditor::maybeClose()
{
    if (!m_modified)
        return true;
    const auto answer = QMessageBox::question(
        this, tr("Unsaved changes"), tr("%1 has changes that are not saved. Save them?").arg(title()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Discard) {
        m_autosaving.waitForFinished();
        ++m_saves;
        QFile::remove(autosavePath(m_document.path));
        return true;
    }
    return save();
}

void NotebookEditor::convertToScript()
{
    if (m_modified && !save())
        return;
    if (m_document.path.isEmpty())
        return;
    auto *dialog =
        new NotebookImportDialog(m_document.path, NotebookImportDialog::defaultOutputPath(m_document.path, {}), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { Q_EMIT message(tr("Wrote %1").arg(dialog->outputPath())); });
    dialog->open();
}

Expected<void> NotebookEditor::saveAs(const QString &path)
{
    flushOutputs();
    notebook::NotebookDocument document = this->document();
    if (auto saved = document.save(path); !saved)
        return saved.error();
    const bool newPath = document.path != m_document.path;
    m_document = document;
    m_autosaving.waitForFinished();
    ++m_saves;
    QFile::remove(autosavePath(path));
    if (newPath)
        Q_EMIT titleChanged();
    for (CellWidget *cell : std::as_const(m_cells))
        cell->editor()->document()->setModified(false);
    setModified(false);
    return {};
}

void NotebookEditor::setModified(bool modified)
{
    if (modified == m_modified)
        return;
    m_modified = modified;
    Q_EMIT modifiedChanged(modified);
}

void NotebookEditor::setKernelChoice(const QString &environmentFile, const QString &target)
{
    m_document.setKernelChoice(environmentFile, target);
    setModified(true);
}

void NotebookEditor::setCurrentIndex(int index)
{
    if (m_cells.isEmpty())
        return;
    m_anchor = -1;
    extendSelection(index);
}

void NotebookEditor::extendSelection(int index)
{
    if (m_cells.isEmpty())
        return;
    index = std::clamp(index, 0, int(m_cells.size()) - 1);
    m_current = index;
    const QList<int> selected = selectedIndexes();
    for (int i = 0; i < m_cells.size(); ++i)
        m_cells.at(i)->setSelected(selected.contains(i), m_editing && i == index);
    m_scroll->ensureWidgetVisible(m_cells.at(index), 0, 40);
}

QList<int> NotebookEditor::selectedIndexes() const
{
    if (m_cells.isEmpty())
        return {};
    const int anchor = m_anchor < 0 || m_anchor >= m_cells.size() ? m_current : m_anchor;
    QList<int> selected;
    for (int i = std::min(anchor, m_current); i <= std::max(anchor, m_current); ++i)
        selected << i;
    return selected;
}

void NotebookEditor::enterEditMode()
{
    if (m_cells.isEmpty())
        return;
    m_editing = true;
    setCurrentIndex(m_current); // one cell is edited: a selection of several ends
    CellWidget *cell = m_cells.at(m_current);
    cell->setRendered(false);
    cell->editor()->setFocus();
}

void NotebookEditor::enterCommandMode()
{
    m_editing = false;
    if (!m_cells.isEmpty())
        m_cells.at(m_current)->setSelected(true, false);
    m_column->setFocus();
}

CellWidget *NotebookEditor::cellById(const QString &id) const
{
    for (CellWidget *cell : m_cells)
        if (cell->id() == id)
            return cell;
    return nullptr;
}

Expected<kernels::KernelRequest> NotebookEditor::kernelRequest() const
{
    kernels::KernelRequest request;
    const QString folder = m_document.path.isEmpty() ? QString() : QFileInfo(m_document.path).absolutePath();
    request.workingFolder = folder;
    if (const QString env = m_document.environment(); !env.isEmpty())
        request.environmentFile = QFileInfo(env).isAbsolute() ? env : folder + u'/' + env;
    const QString target = m_document.target().isEmpty() ? u"local"_s : m_document.target();
    const auto spec = run::TargetSpec::parse(target);
    if (!spec)
        return Error{tr("The notebook's target '%1' is not one Ferry knows").arg(target), {}, 0, 0, {}};
    request.target = *spec;
    return request;
}

bool NotebookEditor::ensureKernel()
{
    using K = kernels::NotebookKernel;
    if (m_kernel->state() != K::State::None && m_kernel->state() != K::State::Dead)
        return true;
    const auto request = kernelRequest();
    if (!request) {
        Q_EMIT message(request.error().message);
        return false;
    }
    m_kernel->start(*request);
    return true;
}

void NotebookEditor::run(int index)
{
    CellWidget *cell = m_cells.at(index);
    if (cell->kind() == notebook::CellKind::Markdown) {
        cell->setRendered(true);
        return;
    }
    if (cell->kind() != notebook::CellKind::Code)
        return;
    if (cell->source().trimmed().isEmpty()) {
        cell->setOutputs({});
        return;
    }
    if (!ensureKernel())
        return;
    cell->setRun(CellWidget::Run::Queued);
    if (!m_kernel->execute(cell->id(), cell->source()))
        cell->setRun(CellWidget::Run::Failed);
}

void NotebookEditor::runCurrent()
{
    if (m_cells.isEmpty())
        return;
    for (const int index : selectedIndexes())
        run(index);
    enterCommandMode();
}

void NotebookEditor::runCurrentAndAdvance()
{
    if (m_cells.isEmpty())
        return;
    const QList<int> selected = selectedIndexes();
    for (const int index : selected)
        run(index);
    m_current = selected.last();           // then the cell below the selection
    if (m_current == m_cells.size() - 1) { // the last cell: a new one below, in edit mode
        insertCell(true);
        enterEditMode();
        return;
    }
    setCurrentIndex(m_current + 1);
    enterCommandMode();
}

void NotebookEditor::runCurrentAndInsert()
{
    if (m_cells.isEmpty())
        return;
    run(m_current);
    insertCell(true);
    enterEditMode();
}

void NotebookEditor::runAll()
{
    for (int i = 0; i < m_cells.size(); ++i)
        run(i);
}

void NotebookEditor::interruptKernel()
{
    m_kernel->interrupt();
}

void NotebookEditor::restartKernel()
{
    m_kernel->restart();
}

void NotebookEditor::restartAndRunAll()
{
    if (m_kernel->state() == kernels::NotebookKernel::State::None ||
        m_kernel->state() == kernels::NotebookKernel::State::Dead) {
        runAll();
        return;
    }
    m_kernel->restart();
    runAll(); // queued until the restarted kernel answers
}

void NotebookEditor::runStaleCells()
{
    const QStringList stale = m_watcher->cellsToRun();
    for (int i = 0; i < m_cells.size(); ++i) {
        if (stale.contains(m_cells.at(i)->id()))
            run(i);
    }
}

void NotebookEditor::showVariables(bool shown)
{
    m_variables->setVisible(shown);
    if (shown)
        m_watcher->refresh();
}

void NotebookEditor::flushOutputs()
{
    for (const QString &id : std::exchange(m_dirty, {})) {
        CellWidget *cell = cellById(id);
        const auto outputs = m_outputs.value(id);
        if (cell && outputs)
            cell->setOutputs(outputs->outputs());
    }
}

// A cell ran before a cell above it last ran: what it shows may rest on state it did not see.
void NotebookEditor::markOutOfOrder()
{
    int latestAbove = 0;
    for (CellWidget *cell : std::as_const(m_cells)) {
        const int at = m_ranAt.value(cell->id(), 0);
        cell->setOutOfOrder(at > 0 && at < latestAbove);
        latestAbove = std::max(latestAbove, at);
    }
}

} // namespace ferry::ui
