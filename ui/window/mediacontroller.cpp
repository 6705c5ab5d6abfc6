#include "ui/window/mediacontroller.h"

#include "ui/document/documentarea.h"
#include "ui/runs/runsview.h"
#include "ui/window/analysiscontroller.h"

namespace ferry::ui {

MediaController::MediaController(RunsView *runs, DocumentArea *documents, QObject *parent)
    : QObject(parent), m_runs(runs), m_documents(documents)
{
    m_follow.setSingleShot(true);
    m_follow.setInterval(0);
    connect(&m_follow, &QTimer::timeout, this, &MediaController::follow);
    connect(runs, &RunsView::selectionChanged, &m_follow, qOverload<>(&QTimer::start));
    connect(runs, &RunsView::currentRunChanged, &m_follow, qOverload<>(&QTimer::start));
    connect(runs->proxy(), &QAbstractItemModel::modelReset, &m_follow, qOverload<>(&QTimer::start));
}

MediaController::~MediaController()
{
    delete m_view;
}

void MediaController::setStore(const run::RunStore *store, const QString &runsDir)
{
    m_store = store;
    m_runsDir = runsDir;
    if (m_view)
        m_view->setStore(store, runsDir);
}

void MediaController::openImages()
{
    open(RunMediaView::Page::Images);
}

void MediaController::openDistributions()
{
    open(RunMediaView::Page::Distributions);
}

void MediaController::open(RunMediaView::Page page)
{
    if (!m_view) {
        m_view = new RunMediaView;
        m_view->setRunLooks([this](const QString &runId) {
            return runLookInTable(*m_runs, runId, {}, m_colorOf ? m_colorOf(runId) : QColor(Qt::gray));
        });
        m_view->setStore(m_store, m_runsDir);
        follow();
    }
    m_view->showPage(page);
    m_documents->add(m_view);
}

void MediaController::follow()
{
    if (!m_view)
        return;
    QStringList ids = m_runs->selectedRunIds();
    if (ids.isEmpty() && !m_runs->currentRunId().isEmpty())
        ids << m_runs->currentRunId();
    const QString caption = ids.isEmpty() ? tr("No run selected: select runs in the runs table")
                            : ids.size() == 1
                                ? tr("The run selected in the runs table")
                                : tr("The %1 runs selected in the runs table, side by side").arg(ids.size());
    m_view->setRuns(ids, caption);
}

} // namespace ferry::ui
