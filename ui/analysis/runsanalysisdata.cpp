#include "ui/analysis/runsanalysisdata.h"

#include "tracking/rundiff.h"
#include "ui/chart/chartaxis.h"

#include <QCoreApplication>
#include <QSet>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QString analysisText(const char *text)
{
    return QCoreApplication::translate("ferry::ui::RunsAnalysis", text);
}

QList<run::RunValue> valuesOf(const QList<run::RunRecord> &runs, const QHash<QString, run::RunValue> &column)
{
    QList<run::RunValue> values;
    for (const run::RunRecord &r : runs) {
        if (const auto it = column.constFind(r.id); it != column.cend())
            values << *it;
    }
    return values;
}

QString valueText(const PlotAxis &axis, const run::RunValue &value)
{
    return value.number && axis.categories.isEmpty() ? formatValue(*value.number) : value.text;
}

// Whether more of this value is better: the rule of best (analysis/runvalues.h) for a metric.
bool moreIsBetter(const run::RunValueSpec &spec)
{
    if (spec.kind == run::RunValueSpec::Kind::Min)
        return false;
    if (spec.kind == run::RunValueSpec::Kind::Max)
        return true;
    return spec.higherIsBetter.value_or(run::higherIsBetter(spec.name));
}

} // namespace

RunsRead readRuns(const run::RunStore &store, const QStringList &runIds)
{
    RunsRead read;
    QSet<QString> params, metrics;
    for (const QString &id : runIds) {
        const auto record = store.run(id);
        if (!record)
            continue;
        read.runs << *record;
        for (const run::Hyperparameter &p : store.params(id))
            params.insert(p.name);
        for (const QString &m : store.metricNames(id))
            metrics.insert(m);
    }
    read.params = QStringList(params.cbegin(), params.cend());
    read.params.sort();
    read.metrics = QStringList(metrics.cbegin(), metrics.cend());
    std::sort(read.metrics.begin(), read.metrics.end(), [](const QString &a, const QString &b) {
        const bool sa = a.startsWith("system/"_L1), sb = b.startsWith("system/"_L1);
        return sa != sb ? sb : a < b;
    });
    return read;
}

RunValueColumns readValues(const run::RunStore &store, const QList<run::RunRecord> &runs, const QStringList &specs)
{
    RunValueColumns columns;
    for (const QString &text : specs) {
        if (columns.contains(text))
            continue;
        if (const auto spec = run::RunValueSpec::parse(text))
            columns.insert(text, run::runValues(store, runs, *spec));
    }
    return columns;
}

QString valueTitle(const run::RunValueSpec &spec)
{
    using Kind = run::RunValueSpec::Kind;
    switch (spec.kind) {
    case Kind::Param:
        return spec.name;
    case Kind::Last:
        return analysisText("%1 (last)").arg(spec.name);
    case Kind::Best:
        return analysisText("%1 (best)").arg(spec.name);
    case Kind::Min:
        return analysisText("%1 (min)").arg(spec.name);
    case Kind::Max:
        return analysisText("%1 (max)").arg(spec.name);
    case Kind::AtStep:
        return analysisText("%1 at step %2").arg(spec.name, formatValue(spec.step));
    }
    return spec.name;
}

bool logByDefault(const QList<run::RunValue> &values)
{
    if (!PlotAxis::canBeLog(values))
        return false;
    const auto [lo, hi] = std::minmax_element(values.cbegin(), values.cend(),
                                              [](const auto &a, const auto &b) { return *a.number < *b.number; });
    return *hi->number / *lo->number >= 100;
}

ValueColors valueColors(const run::RunValueSpec &spec, const QList<run::RunValue> &values)
{
    ValueColors colors;
    colors.axis = PlotAxis::fit(valueTitle(spec), values, logByDefault(values));
    colors.scale.title = analysisText("colour: %1").arg(colors.axis.title());
    if (!colors.axis.categories.isEmpty()) {
        colors.scale.categories = colors.axis.categories;
    } else {
        colors.scale.lowLabel = formatValue(colors.axis.valueAt(0));
        colors.scale.highLabel = formatValue(colors.axis.valueAt(1));
    }
    return colors;
}

ScatterContent scatterContent(const QList<run::RunRecord> &runs, const RunLooks &looks, const RunValueColumns &values,
                              const run::RunValueSpec &x, bool logX, const run::RunValueSpec &y, bool logY,
                              const std::optional<run::RunValueSpec> &color)
{
    ScatterContent content;
    const QHash<QString, run::RunValue> xs = values.value(x.text()), ys = values.value(y.text());
    // The axes span the runs drawn: those with both values.
    QList<run::RunRecord> drawn;
    for (const run::RunRecord &r : runs) {
        if (xs.contains(r.id) && ys.contains(r.id))
            drawn << r;
        else
            content.missing << looks(r).label;
    }
    content.x = PlotAxis::fit(valueTitle(x), valuesOf(drawn, xs), logX);
    content.y = PlotAxis::fit(valueTitle(y), valuesOf(drawn, ys), logY);
    std::optional<ValueColors> colors;
    QHash<QString, run::RunValue> cs;
    if (color) {
        cs = values.value(color->text());
        colors = valueColors(*color, valuesOf(drawn, cs));
        content.scale = colors->scale;
    }
    for (const run::RunRecord &r : std::as_const(drawn)) {
        const RunLook look = looks(r);
        const run::RunValue &xv = xs[r.id], &yv = ys[r.id];
        const auto px = content.x.position(xv), py = content.y.position(yv);
        if (!px || !py) { // not above 0 on a log axis
            content.missing << look.label;
            continue;
        }
        ScatterPoint point{r.id, look.label, *px, *py, look.color, {}};
        QStringList tip{u"%1: %2"_s.arg(content.x.name, valueText(content.x, xv)),
                        u"%1: %2"_s.arg(content.y.name, valueText(content.y, yv))};
        if (colors) {
            const auto c = cs.constFind(r.id);
            const auto t = c == cs.cend() ? std::nullopt : colors->axis.position(*c);
            point.color = t ? colors->scale.colorAt(*t) : noValueColor();
            tip << u"%1: %2"_s.arg(colors->axis.name,
                                   c == cs.cend() ? analysisText("none") : valueText(colors->axis, *c));
        }
        for (QString &line : tip)
            line = line.toHtmlEscaped();
        point.tip = tip.join(u"<br>"_s);
        content.points.push_back(std::move(point));
    }
    return content;
}

PlotTable parallelTable(const QList<run::RunRecord> &runs, const RunLooks &looks, const RunValueColumns &values,
                        const QList<run::RunValueSpec> &params, const run::RunValueSpec &metric)
{
    std::vector<PlotAxis> axes;
    QList<QHash<QString, run::RunValue>> columns;
    for (const run::RunValueSpec &spec : params) {
        columns << values.value(spec.text());
        const QList<run::RunValue> v = valuesOf(runs, columns.last());
        axes.push_back(PlotAxis::fit(valueTitle(spec), v, logByDefault(v)));
    }
    columns << values.value(metric.text());
    const QList<run::RunValue> metricValues = valuesOf(runs, columns.last());
    const ValueColors colors = valueColors(metric, metricValues);
    PlotAxis metricAxis = colors.axis;
    metricAxis.emphasised = true;
    axes.push_back(metricAxis);
    const bool more = moreIsBetter(metric);
    std::vector<PlotLine> lines;
    for (const run::RunRecord &r : runs) {
        PlotLine line;
        line.key = r.id;
        line.label = looks(r).label;
        for (std::size_t a = 0; a < axes.size(); ++a) {
            const auto it = columns[qsizetype(a)].constFind(r.id);
            line.positions.push_back(it == columns[qsizetype(a)].cend() ? std::nullopt : axes[a].position(*it));
        }
        line.color = line.positions.back();
        // The best on top: the greatest value drawn last where more is better, else the least.
        line.order = line.color ? (more ? *line.color : 1 - *line.color) : -1;
        lines.push_back(std::move(line));
    }
    return PlotTable(std::move(axes), std::move(lines), colors.scale, analysisText("runs"));
}

} // namespace ferry::ui
