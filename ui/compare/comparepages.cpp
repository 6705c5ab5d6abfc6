#include "ui/compare/comparepages.h"

#include "ui/chart/chartaxis.h"
#include "ui/env/environmentchangeitem.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QTableWidget>
#include <QTreeWidget>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QString tr(const char *text, const char *disambiguation = nullptr, int n = -1)
{
    return QCoreApplication::translate("ferry::ui::ComparePages", text, disambiguation, n);
}

const QColor kDiffers(255, 243, 205);

// Columns "first" then one per run; `rows` rows, every cell read-only.
void reset(QTableWidget *table, const Comparison &c, const QString &first, int rows)
{
    table->clear();
    table->setColumnCount(int(c.runs.size()) + 1);
    QStringList headers{first};
    for (const run::RunRecord &r : c.runs)
        headers << comparedRunLabel(r);
    table->setHorizontalHeaderLabels(headers);
    table->setRowCount(rows);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
}

QTableWidgetItem *cell(QTableWidget *table, int row, int column, const QString &text)
{
    auto *item = new QTableWidgetItem(text);
    item->setToolTip(text);
    table->setItem(row, column, item);
    return item;
}

QString valueText(const std::optional<double> &v)
{
    return v ? formatValue(*v) : u"—"_s;
}

QString gitText(const std::optional<run::RunSpec> &spec, int what)
{
    if (!spec || !spec->snapshot || !spec->snapshot->git.repository)
        return what == 0 ? tr("not in git") : QString();
    const snapshot::GitState &git = spec->snapshot->git;
    switch (what) {
    case 0:
        return git.commit.left(12);
    case 1:
        return git.branch.isEmpty() ? tr("(detached)") : git.branch;
    default:
        return git.dirty ? tr("yes") : tr("no");
    }
}

} // namespace

QString comparedRunLabel(const run::RunRecord &record)
{
    return record.name.isEmpty() || record.name == record.id ? record.id : record.name + u'\n' + record.id;
}

void fillParameterTable(QTableWidget *table, const Comparison &c, bool all)
{
    QList<ComparedParameter> rows = comparedParameters(c);
    if (!all)
        rows.removeIf([](const ComparedParameter &p) { return !p.differs(); });
    reset(table, c, tr("Parameter"), int(rows.size()));
    for (int r = 0; r < rows.size(); ++r) {
        const ComparedParameter &p = rows.at(r);
        cell(table, r, 0, p.name);
        for (int run = 0; run < p.values.size(); ++run) {
            QTableWidgetItem *item = cell(table, r, run + 1, p.values.at(run).value_or(tr("(none)")));
            if (run > 0 && p.values.at(run) != p.values.first())
                item->setBackground(kDiffers);
        }
    }
    table->resizeColumnsToContents();
}

void fillSetupTable(QTableWidget *table, const Comparison &c)
{
    const QStringList fields{tr("Status"),   tr("Script"),     tr("Target"),     tr("Environment"),
                             tr("Snapshot"), tr("Git commit"), tr("Git branch"), tr("Uncommitted changes"),
                             tr("Re-run of")};
    reset(table, c, tr("What"), int(fields.size()));
    for (int r = 0; r < fields.size(); ++r)
        cell(table, r, 0, fields.at(r));
    for (int run = 0; run < c.runs.size(); ++run) {
        const run::RunRecord &record = c.runs.at(run);
        const auto parsed = run::RunSpec::fromJson(record.spec);
        const std::optional<run::RunSpec> spec = parsed ? std::optional(*parsed) : std::nullopt;
        const QString tree = spec && spec->snapshot ? spec->snapshot->tree.left(12) : QString();
        const QStringList values{run::runStatusText(record.status),
                                 spec ? spec->script : QString(),
                                 record.target,
                                 record.environmentTag.isEmpty() ? tr("(none)") : record.environmentTag,
                                 tree.isEmpty() ? tr("(not kept)") : tree,
                                 gitText(spec, 0),
                                 gitText(spec, 1),
                                 gitText(spec, 2),
                                 spec ? spec->rerunOf : QString()};
        for (int r = 0; r < values.size(); ++r) {
            QTableWidgetItem *item = cell(table, r, run + 1, values.at(r));
            if (run > 0 && values.at(r) != table->item(r, 1)->text())
                item->setBackground(kDiffers);
        }
    }
    table->resizeColumnsToContents();
}

void fillOtherDifferences(QTreeWidget *tree, const Comparison &c)
{
    tree->clear();
    tree->setHeaderLabels({tr("What"), tr("Baseline → run")});
    for (qsizetype i = 0; i < c.diffs.size(); ++i) {
        const run::RunDiff &diff = c.diffs.at(i);
        auto *pair =
            new QTreeWidgetItem(tree, {tr("%1 → %2").arg(diff.a, diff.b),
                                       diff.other.isEmpty() ? tr("nothing else differs")
                                                            : tr("%n difference(s)", nullptr, int(diff.other.size()))});
        for (const auto &[field, change] : diff.other) {
            auto *item = new QTreeWidgetItem(pair, {field, change});
            item->setToolTip(1, change);
        }
        pair->setExpanded(true);
    }
    tree->resizeColumnToContents(0);
}

void fillEnvironmentTree(QTreeWidget *tree, const Comparison &c)
{
    tree->clear();
    tree->setHeaderLabels({tr("Section"), tr("What"), tr("Change"), tr("Baseline"), tr("Run")});
    for (qsizetype i = 0; i < c.diffs.size(); ++i) {
        const run::RunDiff &diff = c.diffs.at(i);
        const QList<env::EnvironmentChange> &changes = c.environments.at(i);
        QString summary = changes.isEmpty() ? tr("no differences") : tr("%n change(s)", nullptr, int(changes.size()));
        if (changes.isEmpty() && c.runs.first().environmentTag != c.runs.at(i + 1).environmentTag)
            summary = tr("%1 → %2 (their environments were not kept)")
                          .arg(c.runs.first().environmentTag, c.runs.at(i + 1).environmentTag);
        auto *pair = new QTreeWidgetItem(tree, {tr("%1 → %2").arg(diff.a, diff.b), summary});
        for (const env::EnvironmentChange &change : changes)
            pair->addChild(environmentChangeItem(change));
        pair->setExpanded(true);
    }
    tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void fillMetricTable(QTableWidget *table, const Comparison &c, double step)
{
    reset(table, c, tr("Metric"), int(c.metrics.size()) * 3);
    int row = 0;
    for (const QString &metric : c.metrics) {
        const QStringList what{tr("%1 · last").arg(metric), tr("%1 · best").arg(metric),
                               tr("%1 · at step %2").arg(metric, formatValue(step))};
        for (int kind = 0; kind < 3; ++kind, ++row) {
            cell(table, row, 0, what.at(kind));
            for (int run = 0; run < c.runs.size(); ++run) {
                const std::optional<double> v = kind == 0   ? c.last(run, metric)
                                                : kind == 1 ? c.best(run, metric)
                                                            : c.valueAt(run, metric, step);
                QTableWidgetItem *item = cell(table, row, run + 1, valueText(v));
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                if (v)
                    item->setData(Qt::UserRole, *v);
            }
        }
    }
    table->resizeColumnsToContents();
}

} // namespace ferry::ui
