#include "ui/window/analysiscontroller.h"

#include "tracking/runlabels.h"
#include "ui/analysis/runsanalysisview.h"
#include "ui/document/documentarea.h"
#include "ui/runs/runsview.h"

#include <QItemSelectionModel>
#include <QLineEdit>
#include <QTableView>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
constexpr int kRefreshMs = 3000; // runs still going: their values read again at most this often
} // namespace

RunLook runLookInTable(const RunsView &runs, const QString &runId, const QString &storedName, const QColor &color)
{
    // As the table names it, with the end of its id (the one legends show).
    const int row = runs.model()->rowOf(runId);
    const QString name = row < 0 ? storedName : runs.model()->index(row, RunsModel::NameColumn).data().toString();
    return RunLook{name.isEmpty() ? runId : u"%1 (%2)"_s.arg(name, run::shortRunId(runId)), color};
}

AnalysisController::AnalysisController(RunsView *runs, DocumentArea *documents, QObject *parent)
    : QObject(parent), m_runs(runs), m_documents(documents)
{
    m_follow.setSingleShot(true);
    m_follow.setInterval(0);
    connect(&m_follow, &QTimer::timeout, this, &AnalysisController::follow);
    m_refresh.setSingleShot(true);
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, [this] {
        if (m_view && m_view->isVisible())
            m_view->refresh();
    });
    const QAbstractItemModel *proxy = runs->proxy();
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(proxy, signal, &m_follow, qOverload<>(&QTimer::start));
    connect(proxy, &QAbstractItemModel::modelReset, &m_follow, qOverload<>(&QTimer::start));
    connect(proxy, &QAbstractItemModel::layoutChanged, &m_follow, qOverload<>(&QTimer::start));
    connect(runs, &RunsView::selectionChanged, &m_follow, qOverload<>(&QTimer::start));
    connect(proxy, &QAbstractItemModel::dataChanged, this, [this] {
        if (!m_refresh.isActive())
            m_refresh.start();
    });
    // One filter: the table's, shown in the tab too.
    connect(runs->filterEdit(), &QLineEdit::textChanged, this, [this](const QString &text) {
        if (m_view && m_view->filterEdit()->text() != text)
            m_view->filterEdit()->setText(text);
    });
}

AnalysisController::~AnalysisController()
{
    delete m_view;
}

void AnalysisController::setStore(run::RunStore *store)
{
    m_store = store;
    if (m_view)
        m_view->setStore(store);
}

void AnalysisController::open()
{
    if (!m_view) {
        m_view = new RunsAnalysisView;
        m_view->setRunLooks([this](const run::RunRecord &record) {
            return runLookInTable(*m_runs, record.id, record.name, m_colorOf ? m_colorOf(record.id) : QColor(Qt::gray));
        });
        m_view->filterEdit()->setText(m_runs->filterEdit()->text());
        connect(m_view->filterEdit(), &QLineEdit::textEdited, m_runs->filterEdit(), &QLineEdit::setText);
        connect(m_view, &RunsAnalysisView::runClicked, this, &AnalysisController::runClicked);
        connect(m_view, &RunsAnalysisView::selectRunsRequested, this, &AnalysisController::selectRuns);
        m_view->setStore(m_store);
        follow();
    }
    m_documents->add(m_view);
}

void AnalysisController::follow()
{
    if (!m_view)
        return;
    const QStringList selected = m_runs->selectedRunIds();
    m_fromSelection = selected.size() >= 2;
    QStringList ids = selected;
    QString caption;
    if (m_fromSelection) {
        caption = tr("Analysing the %1 runs selected in the runs table (select one or none there to analyse every "
                     "run it shows)")
                      .arg(selected.size());
    } else {
        ids.clear();
        const QAbstractItemModel *proxy = m_runs->proxy();
        for (int row = 0; row < proxy->rowCount(); ++row)
            ids << proxy->index(row, 0).data(RunsModel::RunIdRole).toString();
        const bool filtered = !m_runs->filterEdit()->text().trimmed().isEmpty();
        const QString runs = ids.size() == 1 ? tr("the one run") : tr("the %1 runs").arg(ids.size());
        caption = filtered ? tr("Analysing %1 the filter keeps (select two or more in the runs table to analyse only "
                                "those)")
                                 .arg(runs)
                           : tr("Analysing %1 of the workspace (filter them, or select two or more in the runs table "
                                "to analyse only those)")
                                 .arg(ids.size() == 1 ? tr("its one run") : tr("all %1 runs").arg(ids.size()));
        if (ids.isEmpty())
            caption = filtered ? tr("The filter keeps no run") : tr("The workspace has no runs yet");
    }
    m_view->setRuns(ids, caption, QSet<QString>(selected.cbegin(), selected.cend()));
}

void AnalysisController::runClicked(const QString &runId)
{
    if (!m_fromSelection) {
        m_runs->selectRuns({runId});
        return;
    }
    // The tab analyses the selection: the run becomes the current one, the selection stays.
    const int sourceRow = m_runs->model()->rowOf(runId);
    const QModelIndex index =
        sourceRow < 0 ? QModelIndex() : m_runs->proxy()->mapFromSource(m_runs->model()->index(sourceRow, 0));
    if (!index.isValid())
        return;
    m_runs->table()->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
    m_runs->table()->scrollTo(index);
}

void AnalysisController::selectRuns(const QStringList &runIds)
{
    m_runs->selectRuns(runIds);
}

} // namespace ferry::ui
