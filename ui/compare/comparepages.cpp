#include "ui/compare/comparepages.h"

#include "ui/chart/chartaxis.h"
#include "ui/env/environmentchangeitem.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QTableWidget>
#include <QTreeWidget>

#include <algorithm>
#include <cmath>

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
    for (int run = 0; run < c.runs.size(); ++run)
        headers << comparedRunLabel(c, run);
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

const QColor kBetter(0x1b, 0x7f, 0x3a);
const QColor kWorse(0xc6, 0x28, 0x28);

// "+0.0133 (+80.0%)": the change and, where the baseline is not 0, how large it is against it.
QString deltaText(const std::optional<double> &delta, const std::optional<double> &baseline)
{
    if (!delta || !baseline)
        return u"—"_s;
    if (*delta == 0)
        return u"0"_s;
    QString text = (*delta > 0 ? u"+"_s : QString()) + formatValue(*delta);
    if (*baseline != 0 && std::isfinite(*delta / *baseline))
        text += u" (%1%2%)"_s.arg(*delta > 0 ? u"+"_s : QString()).arg(*delta / std::abs(*baseline) * 100, 0, 'f', 1);
    return text;
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

QString comparedRunLabel(const Comparison &c, int run)
{
    const run::RunRecord &record = c.runs.at(run);
    const QString name = c.names.value(run, record.name);
    return name.isEmpty() || name == record.id ? record.id : name + u'\n' + record.id;
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

namespace {

QStringList setupFields()
{
    return {tr("Status"),   tr("Script"),     tr("Target"),     tr("Environment"),
            tr("Snapshot"), tr("Git commit"), tr("Git branch"), tr("Uncommitted changes"),
            tr("Re-run of")};
}

// One run's column of the setup table, in setupFields' order.
QStringList setupValues(const run::RunRecord &record)
{
    const auto parsed = run::RunSpec::fromJson(record.spec);
    const std::optional<run::RunSpec> spec = parsed ? std::optional(*parsed) : std::nullopt;
    const QString tree = spec && spec->snapshot ? spec->snapshot->tree.left(12) : QString();
    const bool embedded = spec && spec->target.kind == run::TargetKind::Embedded;
    return {run::runStatusText(record.status),
            spec ? spec->script : QString(),
            record.target,
            record.environmentTag.isEmpty() ? tr("(none)") : record.environmentTag,
            !tree.isEmpty() ? tree
            : embedded      ? tr("(the embedded trainer: no code of its own)")
                            : tr("(not kept)"),
            gitText(spec, 0),
            gitText(spec, 1),
            gitText(spec, 2),
            spec ? spec->rerunOf : QString()};
}

QString recordedOr(const QString &value)
{
    return value.isEmpty() ? tr("(not recorded)") : value;
}

} // namespace

void fillSetupTable(QTableWidget *table, const Comparison &c)
{
    const QStringList fields = setupFields();
    reset(table, c, tr("What"), int(fields.size()));
    for (int r = 0; r < fields.size(); ++r)
        cell(table, r, 0, fields.at(r));
    for (int run = 0; run < c.runs.size(); ++run) {
        const QStringList values = setupValues(c.runs.at(run));
        for (int r = 0; r < values.size(); ++r) {
            QTableWidgetItem *item = cell(table, r, run + 1, values.at(r));
            if (run > 0 && values.at(r) != table->item(r, 1)->text())
                item->setBackground(kDiffers);
        }
    }
    table->resizeColumnsToContents();
}

QStringList setupDifferences(const Comparison &c, int run)
{
    if (run <= 0 || run >= c.runs.size())
        return {};
    const QStringList fields = setupFields();
    const QStringList base = setupValues(c.runs.first()), other = setupValues(c.runs.at(run));
    QStringList differ;
    for (qsizetype r = 0; r < fields.size(); ++r) {
        if (base.at(r) != other.at(r))
            differ << fields.at(r).toLower();
    }
    return differ;
}

void fillOtherDifferences(QTreeWidget *tree, const Comparison &c)
{
    tree->clear();
    tree->setHeaderLabels({tr("What"), tr("Baseline → run")});
    for (qsizetype i = 0; i < c.diffs.size(); ++i) {
        const run::RunDiff &diff = c.diffs.at(i);
        // Everything RunDiff found besides parameters, code and environment (their own tabs): its
        // `other` list, the hosts' facts and the data that differ.
        QList<std::pair<QString, QString>> rows = diff.other;
        for (const run::RunDiff::HostField &h : diff.host) {
            if (h.differs())
                rows.append({tr("host %1").arg(h.name), tr("%1 → %2").arg(recordedOr(h.a), recordedOr(h.b))});
        }
        for (const run::RunDiff::Data &d : diff.data) {
            if (!d.same)
                rows.append({tr("data %1").arg(d.channel), tr("%1 → %2").arg(recordedOr(d.fingerprintA.left(16)),
                                                                             recordedOr(d.fingerprintB.left(16)))});
        }
        // One line says everything that differs, in every tab (review 2026-12-06, finding 11: "nothing
        // else differs" beside runs whose parameters did): "nothing differs" only when nothing does.
        QStringList parts;
        QStringList parameters;
        for (const run::RunDiff::Parameter &p : diff.parameters) {
            if (p.differs())
                parameters << p.name;
        }
        if (!parameters.isEmpty())
            parts << tr("parameters %1").arg(parameters.join(u", "_s));
        if (diff.codeKnown && !diff.files.isEmpty())
            parts << (diff.files.size() == 1 ? tr("code (1 file)") : tr("code (%1 files)").arg(diff.files.size()));
        if (!c.environments.value(i).isEmpty())
            parts << tr("environment");
        parts << setupDifferences(c, int(i) + 1);
        for (const auto &row : std::as_const(rows))
            parts << row.first;
        parts.removeDuplicates();
        const QString summary = parts.isEmpty() ? tr("nothing differs") : tr("differ in: %1").arg(parts.join(u"; "_s));
        auto *pair = new QTreeWidgetItem(tree, {tr("%1 → %2").arg(diff.a, diff.b), summary});
        pair->setToolTip(1, summary);
        for (const auto &[field, change] : rows) {
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
    // After the runs' columns, each other run's difference from the baseline: green where it is
    // better (a loss lower, an accuracy or a throughput higher: run::metricDirection), red where
    // worse, plain where the metric has no known direction.
    const int runs = int(c.runs.size());
    table->setColumnCount(2 * runs);
    for (int run = 1; run < runs; ++run) {
        auto *header = new QTableWidgetItem(tr("Δ %1").arg(comparedRunLabel(c, run)));
        header->setToolTip(tr("%1 minus the baseline %2").arg(c.runs.at(run).id, c.runs.first().id));
        table->setHorizontalHeaderItem(runs + run, header);
    }
    int row = 0;
    for (const QString &metric : c.metrics) {
        const QStringList what{tr("%1 · last").arg(metric), tr("%1 · best").arg(metric),
                               tr("%1 · at step %2").arg(metric, formatValue(step))};
        const run::MetricDirection direction = run::metricDirection(metric);
        for (int kind = 0; kind < 3; ++kind, ++row) {
            cell(table, row, 0, what.at(kind));
            std::optional<double> baseline;
            for (int run = 0; run < runs; ++run) {
                const std::optional<double> v = kind == 0   ? c.last(run, metric)
                                                : kind == 1 ? c.best(run, metric)
                                                            : c.valueAt(run, metric, step);
                QTableWidgetItem *item = cell(table, row, run + 1, valueText(v));
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                if (v)
                    item->setData(Qt::UserRole, *v);
                if (run == 0) {
                    baseline = v;
                    continue;
                }
                std::optional<double> delta = v && baseline ? std::optional(*v - *baseline) : std::nullopt;
                // The same value reached by other arithmetic (0.01 against 0.010000000000000002) is no change.
                if (delta && std::abs(*delta) <= 1e-12 * std::max(std::abs(*v), std::abs(*baseline)))
                    delta = 0.0;
                QTableWidgetItem *d = cell(table, row, runs + run, deltaText(delta, baseline));
                d->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                if (!delta)
                    continue;
                d->setData(Qt::UserRole, *delta);
                if (*delta != 0 && direction != run::MetricDirection::Unknown) // lr, epoch: neither
                    d->setForeground((*delta > 0) == (direction == run::MetricDirection::Higher) ? kBetter : kWorse);
            }
        }
    }
    table->resizeColumnsToContents();
}

} // namespace ferry::ui
