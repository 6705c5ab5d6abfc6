#include "ui/runs/runsview.h"

#include "common/setting.h"

#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// The column chooser's choices, by RunsModel::columnKey: those hidden, and those shown though
// hidden by default.
const Setting<QStringList> kHiddenRunColumns{"runsTable/hiddenColumns"};
const Setting<QStringList> kShownRunColumns{"runsTable/shownColumns"};

bool isNumber(const QVariant &v)
{
    switch (v.typeId()) {
    case QMetaType::Int:
    case QMetaType::LongLong:
    case QMetaType::Double:
        return true;
    default:
        return false;
    }
}

} // namespace

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

bool RunsFilterModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant a = left.data(sortRole()), b = right.data(sortRole());
    if (!a.isValid() || !b.isValid()) // no value: last, ascending or descending
        return sortOrder() == Qt::AscendingOrder ? a.isValid() && !b.isValid() : !a.isValid() && b.isValid();
    if (isNumber(a) && isNumber(b))
        return a.toDouble() < b.toDouble();
    if (isNumber(a) != isNumber(b)) // numbers before words
        return isNumber(a);
    return QSortFilterProxyModel::lessThan(left, right);
}

RunsView::RunsView(QWidget *parent)
    : QWidget(parent), m_model(new RunsModel(this)), m_proxy(new RunsFilterModel(this)), m_filter(new QLineEdit(this)),
      m_filterError(new QLabel(this)), m_table(new QTableView(this)), m_emptyHint(new QLabel(m_table->viewport()))
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
        {RunsModel::StatusColumn, 13 * digit},      {RunsModel::NameColumn, 24 * digit},
        {RunsModel::IdColumn, 6 * digit},           {RunsModel::TargetColumn, 9 * digit},
        {RunsModel::EnvironmentColumn, 14 * digit}, {RunsModel::StartedColumn, 19 * digit},
        {RunsModel::DurationColumn, 8 * digit},     {RunsModel::ProgressColumn, 8 * digit},
        {RunsModel::EtaColumn, 8 * digit},          {RunsModel::CostColumn, 11 * digit},
    };
    for (const auto &[column, width] : widths)
        header->resizeSection(column, width);
    columnsAdded(0, RunsModel::FixedColumns - 1);
    // How far a run is, when it will end and what it has cost: beside its status (docs/cost.md).
    for (const int column : {RunsModel::ProgressColumn, RunsModel::EtaColumn, RunsModel::CostColumn})
        header->moveSection(header->visualIndex(column),
                            RunsModel::StatusColumn + 1 + (column - RunsModel::ProgressColumn));
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QWidget::customContextMenuRequested, this, &RunsView::showColumnMenu);
    connect(m_proxy, &QAbstractItemModel::columnsInserted, this,
            [this](const QModelIndex &, int first, int last) { columnsAdded(first, last); });

    m_emptyHint->setObjectName(u"emptyHint"_s);
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setWordWrap(true);
    m_emptyHint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_emptyHint->setStyleSheet(u"color: palette(placeholder-text); background: transparent;"_s);
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_proxy, signal, this, &RunsView::updateEmptyHint);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &RunsView::updateEmptyHint);
    connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &RunsView::updateEmptyHint);
    m_table->viewport()->installEventFilter(this);

    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsView::emitSelection);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsView::emitCurrent);
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
    updateEmptyHint();
}

bool RunsView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_table->viewport() && event->type() == QEvent::Resize)
        m_emptyHint->setGeometry(m_table->viewport()->rect().adjusted(24, 12, -24, -12));
    return QWidget::eventFilter(watched, event);
}

void RunsView::updateEmptyHint()
{
    if (m_proxy->rowCount() > 0) {
        m_emptyHint->hide();
        return;
    }
    m_emptyHint->setText(
        m_model->rowCount() > 0
            ? tr("No run matches the filter.")
            : tr("No runs yet.\n\nStart one with Run ▸ Start a Script Run… (Ctrl+R) or Run ▸ Train on a Dataset "
                 "(Ctrl+T),\nor from a terminal in the workspace: ferry run train.py --hp lr=0.01\n\n"
                 "Runs started anywhere in this workspace show here, one row each."));
    m_emptyHint->setGeometry(m_table->viewport()->rect().adjusted(24, 12, -24, -12));
    m_emptyHint->show();
    m_emptyHint->raise();
}

bool RunsView::shownByDefault(const QString &key)
{
    return key != u"metrics"_s && !key.startsWith(u"metric:system/"_s);
}

bool RunsView::isColumnShown(const QString &key) const
{
    if (m_hidden.contains(key))
        return false;
    return m_shown.contains(key) || shownByDefault(key);
}

void RunsView::setColumnShown(const QString &key, bool shown)
{
    m_hidden.removeAll(key);
    m_shown.removeAll(key);
    if (shown != shownByDefault(key))
        (shown ? m_shown : m_hidden) << key;
    if (m_settings) {
        kHiddenRunColumns.set(*m_settings, m_hidden);
        kShownRunColumns.set(*m_settings, m_shown);
    }
    if (const int column = m_model->columnOfKey(key); column >= 0)
        m_table->setColumnHidden(column, !shown);
}

void RunsView::setSettings(QSettings *settings)
{
    m_settings = settings;
    m_hidden = settings ? kHiddenRunColumns.get(*settings) : QStringList();
    m_shown = settings ? kShownRunColumns.get(*settings) : QStringList();
    for (int column = 0; column < m_model->columnCount(); ++column)
        m_table->setColumnHidden(column, !isColumnShown(m_model->columnKey(column)));
}

void RunsView::columnsAdded(int first, int last)
{
    // The selected rows take in their new cells, so they still read as selected whole.
    QItemSelection extended;
    for (const int row : selectedRows())
        extended.select(m_proxy->index(row, first), m_proxy->index(row, last));
    if (!extended.isEmpty())
        m_table->selectionModel()->select(extended, QItemSelectionModel::Select);
    QHeaderView *header = m_table->horizontalHeader();
    const int digit = m_table->fontMetrics().horizontalAdvance(u'0');
    for (int column = first; column <= last; ++column) {
        m_table->setColumnHidden(column, !isColumnShown(m_model->columnKey(column)));
        if (column < RunsModel::FixedColumns)
            continue;
        // Shown beside the name, before target, environment and times: what tells runs apart
        // first, without scrolling sideways.
        header->moveSection(header->visualIndex(column),
                            header->visualIndex(RunsModel::IdColumn) + 1 + (column - RunsModel::FixedColumns));
        // Room for the name in the header (with the sort arrow) and for a number such as 0.03125.
        const int name = header->fontMetrics().horizontalAdvance(m_model->columnName(column)) + 3 * digit;
        header->resizeSection(column, std::clamp(name, 8 * digit, 24 * digit));
    }
}

QMenu *RunsView::columnMenu(QWidget *parent)
{
    auto *menu = new QMenu(parent);
    menu->setObjectName(u"columnMenu"_s);
    const auto add = [this, menu](int column) {
        const QString key = m_model->columnKey(column);
        QAction *action = menu->addAction(m_model->columnName(column));
        action->setObjectName(key);
        action->setCheckable(true);
        action->setChecked(isColumnShown(key));
        connect(action, &QAction::toggled, this, [this, key](bool on) { setColumnShown(key, on); });
    };
    for (int column = 0; column < RunsModel::FixedColumns; ++column)
        add(column);
    const int params = int(m_model->parameterNames().size());
    if (params > 0)
        menu->addSection(tr("Parameters"));
    for (int i = 0; i < params; ++i)
        add(RunsModel::FixedColumns + i);
    if (!m_model->metricNames().isEmpty())
        menu->addSection(tr("Metrics (last value)"));
    for (int i = 0; i < m_model->metricNames().size(); ++i)
        add(RunsModel::FixedColumns + params + i);
    menu->addSeparator();
    menu->addAction(tr("Show the Default Columns"), this, [this] {
        for (int column = 0; column < m_model->columnCount(); ++column) {
            const QString key = m_model->columnKey(column);
            setColumnShown(key, shownByDefault(key));
        }
    });
    return menu;
}

void RunsView::showColumnMenu(const QPoint &at)
{
    QMenu *menu = columnMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->popup(m_table->horizontalHeader()->mapToGlobal(at));
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

QList<int> RunsView::selectedRows() const
{
    // Rows with any cell selected: a column that came after the row was selected (a new metric)
    // is not in its selection, and QItemSelectionModel::selectedRows() would leave the row out.
    QList<int> rows;
    for (const QItemSelectionRange &range : m_table->selectionModel()->selection()) {
        for (int row = range.top(); row <= range.bottom(); ++row)
            rows << row;
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
}

QStringList RunsView::selectedRunIds() const
{
    QStringList ids;
    for (const int row : selectedRows())
        ids << m_proxy->index(row, 0).data(RunsModel::RunIdRole).toString();
    return ids;
}

QString RunsView::currentRunId() const
{
    // The current row while it is selected; else the first selected one; none with none selected
    // (a row deselected with Ctrl+click stays current, but its details should not stay shown).
    const QItemSelectionModel *selection = m_table->selectionModel();
    const QModelIndex current = selection->currentIndex();
    if (current.isValid() && selection->isRowSelected(current.row(), current.parent()))
        return current.data(RunsModel::RunIdRole).toString();
    const QStringList selected = selectedRunIds();
    return selected.isEmpty() ? QString() : selected.first();
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
        selection.select(index, index.siblingAtColumn(m_proxy->columnCount() - 1));
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
