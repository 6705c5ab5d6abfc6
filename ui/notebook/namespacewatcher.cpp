#include "ui/notebook/namespacewatcher.h"

#include "ui/notebook/cellwidget.h"
#include "ui/notebook/notebookeditor.h"
#include "ui/notebook/variablespane.h"

#include "notebook/kernelquery.h"

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kMostAborts = 3; // an abort ends with the queue it emptied: the next ask is answered

} // namespace

NamespaceWatcher::NamespaceWatcher(NotebookEditor &editor, kernels::NotebookKernel &kernel, VariablesPane &pane)
    : QObject(&editor), m_editor(editor), m_kernel(kernel), m_pane(pane)
{
    using K = kernels::NotebookKernel;
    connect(&kernel, &K::cellStarted, this, [this](const QString &id, int) { cellStarted(id); });
    connect(&kernel, &K::cellFinished, this, [this] { ask(); });
    connect(&kernel, &K::replyReceived, this, &NamespaceWatcher::replyReceived);
    connect(&kernel, &K::stateChanged, this, [this](K::State state, const QString &) { kernelStateChanged(state); });
}

QStringList NamespaceWatcher::codeCells() const
{
    QStringList ids;
    for (const CellWidget *cell : m_editor.cells()) {
        if (cell->kind() == notebook::CellKind::Code)
            ids << cell->id();
    }
    return ids;
}

void NamespaceWatcher::cellStarted(const QString &cellId)
{
    for (const CellWidget *cell : m_editor.cells()) {
        if (cell->id() == cellId)
            m_dependencies.started(cellId, cell->source());
    }
    showStale(); // its own mark goes; those of the cells that read what it binds come (names known)
}

void NamespaceWatcher::kernelStateChanged(kernels::NotebookKernel::State state)
{
    using S = kernels::NotebookKernel::State;
    if (state == S::Idle || state == S::Busy)
        return;
    // A new kernel (or none): nothing ran in it, no query of the old one will answer.
    m_dependencies.clear();
    m_request.clear();
    m_again = false;
    m_pane.clear(state == S::Dead || state == S::None ? tr("No kernel runs.") : tr("The kernel is starting."));
    showStale();
}

void NamespaceWatcher::refresh()
{
    ask();
}

void NamespaceWatcher::ask()
{
    if (!m_request.isEmpty()) {
        m_again = true;
        return;
    }
    notebook::KernelQuery query;
    query.variables = !m_pane.isHidden();
    m_asked = m_dependencies.sourcesWithoutNames();
    for (const QString &source : std::as_const(m_asked))
        query.sources << notebook::analyzableSource(source);
    if (query.sources.isEmpty() && !query.variables)
        return;
    m_request = m_kernel.evaluate(notebook::kernelQueryExpressions(query));
    if (!m_request.isEmpty())
        ++m_sent;
}

void NamespaceWatcher::replyReceived(const QString &requestId, const kernels::JupyterMessage &reply)
{
    if (requestId.isEmpty() || requestId != m_request)
        return;
    m_request.clear();
    bool aborted = false;
    const auto answer = notebook::readKernelQueryReply(reply.content, &aborted);
    if (!answer) {
        if (aborted && ++m_aborts <= kMostAborts) {
            ask();
            return;
        }
        m_pane.setProblem(answer.error().message);
    } else {
        m_aborts = 0;
        for (qsizetype i = 0; i < m_asked.size() && i < answer->cells.size(); ++i)
            m_dependencies.setNames(m_asked.at(i), answer->cells.at(i));
        if (answer->hasVariables)
            m_pane.setVariables(answer->variables, answer->variableCount);
        showStale();
    }
    Q_EMIT answered();
    if (std::exchange(m_again, false))
        ask();
}

void NamespaceWatcher::showStale()
{
    const auto stale = m_dependencies.stale(codeCells());
    for (CellWidget *cell : m_editor.cells())
        cell->setStale(stale.value(cell->id()));
}

QStringList NamespaceWatcher::cellsToRun() const
{
    return m_dependencies.toRun(codeCells());
}

} // namespace ferry::ui
