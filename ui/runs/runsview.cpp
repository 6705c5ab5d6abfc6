#include "ui/runs/runsview.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

RunsFilterModel::RunsFilterModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(RunsModel::SortRole);
    setDynamicSortFilter(true);
}

void RunsFilterModel::setFilterWords(const QString &text)
{
    const QStringList words = text.split(u' ', Qt::SkipEmptyParts);
    if (words == m_words)
        return;
    // Qt 6.4 has no begin/endFilterChange: invalidateFilter() is the way to re-run the filter.
    m_words = words;
    invalidateFilter();
}

bool RunsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (!index.data(RunsModel::MatchesRole).toBool())
        return false;
    if (m_words.isEmpty())
        return true;
    const QString haystack = index.data(RunsModel::FilterRole).toString();
    for (const QString &word : m_words) {
        if (!haystack.contains(word, Qt::CaseInsensitive))
            return false;
    }
    return true;
}

RunsView::RunsView(QWidget *parent)
    : QWidget(parent), m_model(new RunsModel(this)), m_proxy(new RunsFilterModel(this)), m_filter(new QLineEdit(this)),
      m_filterError(new QLabel(this)), m_table(new QTableView(this))
{
    m_proxy->setSourceModel(m_model);

    m_filter->setPlaceholderText(tr("Filter runs by words, or a query: hp.lr < 0.01 and tag = baseline"));
    m_filter->setToolTip(tr("Words: runs whose id, name, target, status, environment or tags contain them.\n"
                            "A query: fields (hp.NAME, metrics.NAME.last|best|min|max, tag, status, target, id,\n"
                            "name, script, sweep, note, created, started), = != < <= > >= ~ (contains),\n"
                            "and, or, not, parentheses, quoted values."));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, &RunsView::filterChanged);
    m_filterError->setObjectName(u"filterError"_s);
    m_filterError->setStyleSheet(u"color: #c62828;"_s);
    m_filterError->setWordWrap(true);
    m_filterError->hide();

    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunsModel::StartedColumn, Qt::DescendingOrder);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    QHeaderView *header = m_table->horizontalHeader();
    header->setHighlightSections(false);
    header->setStretchLastSection(true);
    const int digit = m_table->fontMetrics().horizontalAdvance(u'0');
    const std::pair<int, int> widths[]{
        {RunsModel::StatusColumn, 14 * digit},  {RunsModel::NameColumn, 18 * digit},
        {RunsModel::TargetColumn, 10 * digit},  {RunsModel::EnvironmentColumn, 20 * digit},
        {RunsModel::StartedColumn, 20 * digit}, {RunsModel::DurationColumn, 9 * digit},
    };
    for (const auto &[column, width] : widths)
        header->resizeSection(column, width);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsView::emitSelection);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &RunsView::emitCurrent);
    // Rows that leave (deleted, filtered out) leave the selection without a selectionChanged.
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &RunsView::emitSelection);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &RunsView::emitCurrent);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &RunsView::emitSelection);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &RunsView::emitSelection);

    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] { m_model->setNow(0); });
    m_tick.start();

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_filter);
    layout->addWidget(m_filterError);
    layout->addWidget(m_table, 1);
}

bool RunsView::isQuery(const QString &filterText)
{
    return std::any_of(filterText.cbegin(), filterText.cend(), [](QChar c) { return u"=<>~!()\"'"_s.contains(c); });
}

void RunsView::filterChanged(const QString &text)
{
    const bool query = isQuery(text);
    m_proxy->setFilterWords(query ? QString() : text);
    run::RunQuery parsed;
    if (query) {
        const auto result = run::RunQuery::parse(text);
        m_filterError->setText(result ? QString() : run::RunQuery::errorText(result.error()));
        m_filterError->setVisible(!result);
        if (result)
            parsed = *result;
    } else {
        m_filterError->hide();
    }
    // A query that does not parse filters nothing until it does.
    if (parsed.text() == m_query)
        return;
    m_query = parsed.text();
    Q_EMIT queryChanged(parsed);
}

void RunsView::setRows(const QList<RunRow> &rows)
{
    m_model->setRows(rows);
}

QStringList RunsView::selectedRunIds() const
{
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QStringList ids;
    for (const QModelIndex &index : std::as_const(rows))
        ids << index.data(RunsModel::RunIdRole).toString();
    return ids;
}

QString RunsView::currentRunId() const
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? current.data(RunsModel::RunIdRole).toString() : QString();
}

void RunsView::selectRuns(const QStringList &runIds)
{
    QItemSelection selection;
    QModelIndex first;
    for (const QString &id : runIds) {
        const int sourceRow = m_model->rowOf(id);
        if (sourceRow < 0)
            continue;
        const QModelIndex index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
        if (!index.isValid())
            continue;
        if (!first.isValid())
            first = index;
        selection.select(index, index.siblingAtColumn(RunsModel::ColumnCount - 1));
    }
    QItemSelectionModel *model = m_table->selectionModel();
    model->select(selection, QItemSelectionModel::ClearAndSelect);
    if (first.isValid()) {
        model->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
        m_table->scrollTo(first);
    }
}

void RunsView::emitSelection()
{
    const QStringList ids = selectedRunIds();
    // The same runs in another order (the table was sorted) are no change.
    QStringList sorted = ids;
    sorted.sort();
    if (sorted == m_lastSelection)
        return;
    m_lastSelection = sorted;
    Q_EMIT selectionChanged(ids);
}

void RunsView::emitCurrent()
{
    const QString id = currentRunId();
    if (id == m_lastCurrent)
        return;
    m_lastCurrent = id;
    Q_EMIT currentRunChanged(id);
}

} // namespace ferry::ui
