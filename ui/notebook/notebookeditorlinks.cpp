// NotebookEditor's ties to the rest of Ferry: the kernel's environment and target, the autosave
// beside the file, Run as Job, and data dropped on a cell.
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
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr char16_t kNoEnvironment[] = u"python3 on PATH";

} // namespace

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

// The timer's autosave: the notebook's copy taken here, written (made into JSON: a quarter of a
// second for 20 MB) on another thread, so that the window never waits for it.
void NotebookEditor::autosaveInBackground()
{
    if (!m_modified || m_document.path.isEmpty() || m_autosaving.isRunning())
        return;
    notebook::NotebookDocument document = this->document();
    document.format = notebook::NotebookDocument::Format::Ipynb;
    m_autosavingTo = autosavePath(m_document.path);
    m_savesAtAutosave = m_saves;
    m_autosaving.setFuture(
        QtConcurrent::run([document, path = m_autosavingTo]() mutable { (void)document.save(path); }));
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

Expected<NotebookJob> NotebookEditor::prepareJob(const QList<int> &chosen)
{
    if (m_document.path.isEmpty())
        return Error{tr("Save the notebook first: its job runs from its folder"), {}, 0, 0, {}};
    const notebook::NotebookDocument current = document();
    notebook::Notebook cells = current.toNotebook();
    if (const auto python = notebook::checkPythonNotebook(cells); !python)
        return python.error();
    QList<notebook::DocumentCell> kept = current.cells;
    QString suffix;
    if (!chosen.isEmpty()) { // those cells alone, each keeping its place in the notebook
        QList<notebook::NotebookCell> some;
        kept.clear();
        for (const int index : chosen)
            if (index >= 0 && index < current.cells.size()) {
                some << cells.cells.at(index);
                kept << current.cells.at(index);
            }
        cells.cells = some;
        if (std::none_of(kept.begin(), kept.end(),
                         [](const notebook::DocumentCell &cell) { return cell.kind == notebook::CellKind::Code; }))
            return Error{tr("No code cell is selected: select the cells to run (Shift+Up/Down), or one cell for the "
                            "whole notebook"),
                         m_document.path,
                         0,
                         0,
                         {}};
        suffix = u".cells-%1-%2"_s.arg(chosen.first() + 1).arg(chosen.last() + 1);
    }
    const QFileInfo file(m_document.path);
    notebook::ConversionOptions options;
    options.sourceName = file.fileName();
    options.fromNotebookFolder = true;
    const notebook::Conversion conversion = notebook::convertNotebook(cells, options);
    NotebookJob job;
    job.notebook = file.absoluteFilePath();
    job.script = file.absolutePath() + u"/notebook-jobs/"_s + file.completeBaseName() + suffix + u".py"_s;
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
    for (const notebook::DocumentCell &cell : std::as_const(kept))
        if (cell.kind == notebook::CellKind::Code)
            job.cells << cell.id;
    return job;
}

void NotebookEditor::runAsJob()
{
    const QList<int> selected = selectedIndexes();
    const QList<int> chosen = selected.size() > 1 ? selected : QList<int>{};
    const bool drifted = std::any_of(m_cells.begin(), m_cells.end(), [&](const CellWidget *cell) {
        return (chosen.isEmpty() || chosen.contains(int(m_cells.indexOf(cell)))) &&
               (cell->editedSinceRun() || cell->outOfOrder());
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
    const auto job = prepareJob(chosen);
    if (!job) {
        QMessageBox::warning(this, tr("Run as Job"), job.error().toString());
        return;
    }
    Q_EMIT jobRequested(*job);
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

} // namespace ferry::ui
