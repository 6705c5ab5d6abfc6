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
constexpr int kMostUndo = 100;
constexpr int kAutosaveMs = 30000;
constexpr char16_t kNoEnvironment[] = u"python3 on PATH";

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
    connect(&m_autosave, &QTimer::timeout, this, &NotebookEditor::autosaveNow);
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

QString NotebookEditor::autosavePath(const QString &notebookPath)
{
    const QFileInfo file(notebookPath);
    return file.absolutePath() + u"/."_s + file.fileName() + u".ferry-autosave"_s;
}

void NotebookEditor::autosaveNow()
{
    if (!m_modified || m_document.path.isEmpty())
        return;
    notebook::NotebookDocument document = this->document();
    document.format = notebook::NotebookDocument::Format::Ipynb; // outputs too, whatever the file's format
    (void)document.save(autosavePath(m_document.path));
}

void NotebookEditor::setEnvironmentChoices(const QStringList &environmentFiles)
{
    const QString current = m_environment->currentData().toString();
    m_environment->clear();
    m_environment->addItem(QString::fromUtf16(kNoEnvironment), QString());
    for (const QString &file : environmentFiles)
        m_environment->addItem(QFileInfo(file).completeBaseName(), QFileInfo(file).absoluteFilePath());
    showKernelChoice();
    if (m_environment->findData(current) >= 0 && m_document.environment().isEmpty())
        m_environment->setCurrentIndex(m_environment->findData(current));
}

// The notebook's choice in the toolbar (an environment not among the choices is added).
void NotebookEditor::showKernelChoice()
{
    if (m_environment->count() == 0)
        m_environment->addItem(QString::fromUtf16(kNoEnvironment), QString());
    QString env = m_document.environment();
    if (!env.isEmpty() && QFileInfo(env).isRelative() && !m_document.path.isEmpty())
        env = QFileInfo(QFileInfo(m_document.path).absolutePath() + u'/' + env).absoluteFilePath();
    int index = m_environment->findData(env);
    if (index < 0) {
        m_environment->addItem(QFileInfo(env).completeBaseName(), env);
        index = m_environment->count() - 1;
    }
    m_environment->setCurrentIndex(index);
    m_target->setCurrentText(m_document.target().isEmpty() ? u"local"_s : m_document.target());
}

void NotebookEditor::kernelChoiceChanged()
{
    const QString env = m_environment->currentData().toString();
    const QString target = m_target->currentText().trimmed();
    QString currentEnv = m_document.environment();
    if (!currentEnv.isEmpty() && QFileInfo(currentEnv).isRelative() && !m_document.path.isEmpty())
        currentEnv = QFileInfo(QFileInfo(m_document.path).absolutePath() + u'/' + currentEnv).absoluteFilePath();
    const QString currentTarget = m_document.target().isEmpty() ? u"local"_s : m_document.target();
    if (env == currentEnv && target == currentTarget)
        return;
    if (!run::TargetSpec::parse(target)) {
        Q_EMIT message(tr("'%1' is no target: local, container, ssh:HOST or slurm:HOST").arg(target));
        m_target->setCurrentText(currentTarget);
        return;
    }
    setKernelChoice(env, target);
    // The kernel that runs is the old choice's: stopped, the next cell starts one in the new.
    using K = kernels::NotebookKernel;
    if (m_kernel->state() != K::State::None && m_kernel->state() != K::State::Dead) {
        m_kernel->stop();
        Q_EMIT message(tr("The kernel was stopped: the next cell you run starts one in %1 on %2")
                           .arg(m_environment->currentText(), target));
    }
}

Expected<NotebookJob> NotebookEditor::prepareJob()
{
    if (m_document.path.isEmpty())
        return Error{tr("Save the notebook first: its job runs from its folder"), {}, 0, 0, {}};
    const notebook::NotebookDocument current = document();
    const notebook::Notebook cells = current.toNotebook();
    if (const auto python = notebook::checkPythonNotebook(cells); !python)
        return python.error();
    const QFileInfo file(m_document.path);
    notebook::ConversionOptions options;
    options.sourceName = file.fileName();
    const notebook::Conversion conversion = notebook::convertNotebook(cells, options);
    NotebookJob job;
    job.notebook = file.absoluteFilePath();
    job.script = file.absolutePath() + u"/notebook-jobs/"_s + file.completeBaseName() + u".py"_s;
    if (!QDir().mkpath(QFileInfo(job.script).absolutePath()))
        return Error{tr("cannot make the folder of the job's script"), job.script, 0, 0, {}};
    if (const auto written = replaceFileSafely(job.script, conversion.script.toUtf8()); !written)
        return written.error();
    for (const notebook::Hyperparameter &hp : conversion.hyperparameters) {
        QString value = hp.value; // as Python source: a string's quotes go, the script's argparse reads text
        if (hp.type == u"str"_s && value.size() >= 2 && (value.front() == u'\'' || value.front() == u'"'))
            value = value.mid(1, value.size() - 2);
        job.hyperparameters << run::Hyperparameter{hp.name, value};
    }
    QString env = m_document.environment();
    if (!env.isEmpty() && QFileInfo(env).isRelative())
        env = QFileInfo(file.absolutePath() + u'/' + env).absoluteFilePath();
    job.environmentFile = env;
    const auto target = run::TargetSpec::parse(m_document.target().isEmpty() ? u"local"_s : m_document.target());
    if (!target)
        return target.error();
    job.target = *target;
    for (const notebook::DocumentCell &cell : current.cells)
        if (cell.kind == notebook::CellKind::Code)
            job.cells << cell.id;
    return job;
}

void NotebookEditor::runAsJob()
{
    const bool drifted = std::any_of(m_cells.begin(), m_cells.end(), [](const CellWidget *cell) {
        return cell->editedSinceRun() || cell->outOfOrder();
    });
    if (drifted) {
        QMessageBox ask(QMessageBox::Question, tr("Run as Job"),
                        tr("Cells ran out of order or were edited after they ran: the job runs every cell from the "
                           "top, which may not give what you see. Restart the kernel and run all first?"),
                        QMessageBox::NoButton, this);
        QPushButton *restart = ask.addButton(tr("Restart and Run All"), QMessageBox::AcceptRole);
        QPushButton *anyway = ask.addButton(tr("Launch Anyway"), QMessageBox::DestructiveRole);
        ask.addButton(QMessageBox::Cancel);
        ask.exec();
        if (ask.clickedButton() == restart) {
            restartAndRunAll();
            return;
        }
        if (ask.clickedButton() != anyway)
            return;
    }
    if (m_modified && !save())
        return;
    const auto job = prepareJob();
    if (!job) {
        QMessageBox::warning(this, tr("Run as Job"), job.error().toString());
        return;
    }
    Q_EMIT jobRequested(*job);
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
    connect(widget, &CellWidget::clicked, this, [this, widget] {
        setCurrentIndex(int(m_cells.indexOf(widget)));
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
    index = std::clamp(index, 0, int(m_cells.size()) - 1);
    m_current = index;
    for (int i = 0; i < m_cells.size(); ++i)
        m_cells.at(i)->setSelected(i == index, m_editing && i == index);
    m_scroll->ensureWidgetVisible(m_cells.at(index), 0, 40);
}

void NotebookEditor::enterEditMode()
{
    if (m_cells.isEmpty())
        return;
    m_editing = true;
    CellWidget *cell = m_cells.at(m_current);
    cell->setRendered(false);
    cell->setSelected(true, true);
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

void NotebookEditor::dropDataset(int index, const QString &path)
{
    // Where the kernel sees it: the running kernel's own spec, else the one it would start with.
    Expected<run::RunSpec> spec = Error{};
    if (!m_kernel->folder().isEmpty() && m_kernel->state() != kernels::NotebookKernel::State::Dead)
        spec = run::RunDirectory(m_kernel->folder()).readSpec();
    if (!spec) {
        const auto request = kernelRequest();
        spec = request ? kernels::kernelSpec(u"preview"_s, *request) : Expected<run::RunSpec>(request.error());
    }
    const DetectedDataset dataset = detectDatasetWithThumbnails(path);
    QString code;
    QString problem;
    const auto expression = spec ? kernels::kernelPathExpression(*spec, path) : Expected<QString>(spec.error());
    if (!expression)
        problem = expression.error().toString();
    else if (dataset.info)
        code = kernels::datasetLoadingCode(*dataset.info, *expression);
    else
        code = *expression; // no dataset Ferry knows: its path, to use as the user likes
    const bool insert = askInsert ? askInsert(path, code, problem) : false;
    if (!insert || code.isEmpty())
        return;
    remember();
    notebook::DocumentCell cell;
    cell.id = notebook::DocumentCell::newId();
    cell.source = code;
    addCellWidget(cell, index + 1);
    setCurrentIndex(index + 1);
    enterCommandMode();
    setModified(true);
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
    run(m_current);
    enterCommandMode();
}

void NotebookEditor::runCurrentAndAdvance()
{
    if (m_cells.isEmpty())
        return;
    run(m_current);
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
    delete m_cells.takeAt(m_current);
    if (m_cells.isEmpty()) {
        notebook::DocumentCell cell;
        cell.id = notebook::DocumentCell::newId();
        addCellWidget(cell, 0);
    }
    setCurrentIndex(std::min(m_current, int(m_cells.size()) - 1));
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
