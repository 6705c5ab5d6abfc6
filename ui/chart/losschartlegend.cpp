// The loss chart's legend: its entries (the metrics' line styles, the runs), where they go, how
// they are drawn.
#include "ui/chart/losschart.h"

#include "ui/chart/losschartlayout.h"

#include <QPainter>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kLegendGap = kLossChartGap;
constexpr int RunSwatch = 22;    // a run entry's colour bar and the space after it
constexpr int MetricSwatch = 30; // a metric entry's line sample and the space after it
// The legend goes beside the plot while its widest entry takes no more than this of the width;
// else in rows above the plot, taking at most kLegendRowsShare of the height.
constexpr double kLegendSideShare = 0.3;
constexpr double kLegendRowsShare = 0.4;

} // namespace

QStringList LossChart::legendRuns() const
{
    QStringList runs;
    if (!m_store)
        return runs;
    for (int i = 0; i < m_store->seriesCount(); ++i) {
        const SeriesData &d = m_store->data(i);
        if (seriesShown(d) && !runs.contains(d.key().runId))
            runs.append(d.key().runId);
    }
    return runs;
}

QStringList LossChart::drawnMetrics() const
{
    if (!m_store)
        return {};
    const QHash<QString, int> order = metricOrder();
    QStringList metrics;
    for (int i = 0; i < m_store->seriesCount(); ++i) {
        const SeriesData &d = m_store->data(i);
        if (seriesShown(d) && !metrics.contains(d.key().metric))
            metrics.append(d.key().metric);
    }
    std::sort(metrics.begin(), metrics.end(),
              [&order](const QString &a, const QString &b) { return order.value(a) < order.value(b); });
    return metrics;
}

QRect LossChart::legendEntryRect(const QString &runId) const
{
    updateLayout();
    for (const LegendEntry &e : m_layout->entries) {
        if (e.kind == LegendEntry::Run && e.key == runId)
            return e.rect;
    }
    return {};
}

QRect LossChart::legendGroupRect(const QString &key) const
{
    updateLayout();
    for (const LegendEntry &e : m_layout->entries) {
        if (e.kind == LegendEntry::Group && e.key == key)
            return e.rect;
    }
    return {};
}

QStringList LossChart::legendText() const
{
    updateLayout();
    QStringList lines;
    static const char *const styleNames[] = {"solid", "dashed", "dotted", "dash-dot", "dash-dot-dot"};
    for (const LegendEntry &e : m_layout->entries) {
        if (e.kind == LegendEntry::Metric)
            lines << u"%1: %2"_s.arg(QLatin1StringView(styleNames[e.style % 5]), e.text);
        else
            lines << e.text;
    }
    return lines;
}

// A legend entry's width: its swatch or line sample, its text, a gap.
int LossChart::legendEntryWidth(const LegendEntry &e) const
{
    return fontMetrics().horizontalAdvance(e.text) + (e.kind == LegendEntry::Metric ? MetricSwatch : RunSwatch) + 8;
}

// The metrics' line styles (when there are several), then the runs.
std::vector<LossChart::LegendEntry> LossChart::legendEntries() const
{
    if (isGrouped())
        return groupLegendEntries();
    std::vector<LegendEntry> entries;
    const QStringList metrics = drawnMetrics();
    if (metrics.size() > 1) {
        const QHash<QString, int> order = metricOrder();
        for (const QString &metric : metrics)
            entries.push_back({LegendEntry::Metric, metric, metric, {}, order.value(metric), {}});
    }
    for (const QString &run : legendRuns())
        entries.push_back({LegendEntry::Run, run, runLabel(run), {}, 0, {}});
    return entries;
}

// "+N more": the entries from `from` on, which did not fit; their runs kept for its tooltip.
LossChart::LegendEntry LossChart::moreEntry(Layout &l, const std::vector<LegendEntry> &entries, qsizetype from) const
{
    LegendEntry e{LegendEntry::More, {}, tr("+%n more", "", int(qsizetype(entries.size()) - from)), {}, 0, {}};
    for (qsizetype i = from; i < qsizetype(entries.size()); ++i) {
        if (entries[std::size_t(i)].kind == LegendEntry::Run)
            l.moreRuns << entries[std::size_t(i)].key;
    }
    return e;
}

// The legend's entries and where they go: beside the plot (right) when the widest is narrow
// next to the widget, else in rows under the title. Returns the space it takes: its width on
// the right, or its height above the plot (as {width, height}: one of them 0).
QSize LossChart::layOutLegend(Layout &l, int top) const
{
    const std::vector<LegendEntry> entries = legendEntries();
    if (entries.empty())
        return {};
    int widest = 0;
    for (const LegendEntry &e : entries)
        widest = std::max(widest, legendEntryWidth(e));
    if (widest <= width() * kLegendSideShare)
        return legendBeside(l, entries, top, widest);
    return legendInRows(l, entries, top);
}

// A column on the right, as tall as the plot; what does not fit is "+N more".
QSize LossChart::legendBeside(Layout &l, const std::vector<LegendEntry> &entries, int top, int widest) const
{
    const int line = fontMetrics().height() + 4;
    const int x = width() - kLegendGap - widest;
    const int fits = std::max(1, (height() - top - kLegendGap) / line);
    int y = top + 2;
    for (qsizetype i = 0; i < qsizetype(entries.size()); ++i) {
        const bool last = i == fits - 1 && qsizetype(entries.size()) > fits;
        LegendEntry e = last ? moreEntry(l, entries, i) : entries[std::size_t(i)];
        e.rect = QRect(x, y, widest, line);
        l.entries.push_back(e);
        if (last)
            break;
        y += line;
    }
    l.legend = QRect(x, top, widest, y - top + line);
    return {widest + kLegendGap, 0};
}

// Rows under the title, names whole (an entry wider than a row is elided in the middle), at
// most kLegendRowsShare of the height; what does not fit is "+N more".
QSize LossChart::legendInRows(Layout &l, const std::vector<LegendEntry> &entries, int top) const
{
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height() + 4;
    const int left = kLegendGap, right = width() - kLegendGap;
    const int maxRows = std::max(1, int(height() * kLegendRowsShare) / line);
    const int moreWidth = fm.horizontalAdvance(tr("+%n more", "", 99)) + 8;
    int x = left, row = 0;
    for (qsizetype i = 0; i < qsizetype(entries.size()); ++i) {
        LegendEntry e = entries[std::size_t(i)];
        const int w = std::min(legendEntryWidth(e), right - left);
        if (x > left && x + w > right) {
            ++row;
            x = left;
        }
        const bool more = i + 1 < qsizetype(entries.size()) && row == maxRows - 1 && x + w + moreWidth > right;
        if (row >= maxRows || more) {
            if (row >= maxRows && !l.entries.empty()) {
                // The last entry of the last row makes room for what is left.
                row = maxRows - 1;
                x = l.entries.back().rect.left();
                l.entries.pop_back();
                --i;
            }
            LegendEntry m = moreEntry(l, entries, i);
            m.rect = QRect(x, top + row * line, fm.horizontalAdvance(m.text) + 8, line);
            l.entries.push_back(m);
            break;
        }
        if (w < legendEntryWidth(e))
            e.text = fm.elidedText(e.text, Qt::ElideMiddle, w - (legendEntryWidth(e) - fm.horizontalAdvance(e.text)));
        e.rect = QRect(x, top + row * line, w, line);
        l.entries.push_back(e);
        x += w + kLegendGap;
    }
    const int rows = l.entries.empty() ? 0 : (l.entries.back().rect.bottom() - top) / line + 1;
    l.legend = QRect(left, top, right - left, rows * line);
    return {0, rows * line};
}

void LossChart::paintLegend(QPainter &p, const QString &highlighted)
{
    const QPalette &pal = palette();
    const QColor text = pal.color(QPalette::Text);
    const QColor background = pal.color(QPalette::Base);
    for (const LegendEntry &e : m_layout->entries) {
        const QRect &r = e.rect;
        switch (e.kind) {
        case LegendEntry::Run: {
            const bool visible = isRunVisible(e.key);
            const QColor color = visible ? runColor(e.key) : opaqueBlend(runColor(e.key), 0.3, background);
            if (e.key == highlighted)
                p.fillRect(r, pal.color(QPalette::AlternateBase));
            p.fillRect(QRect(r.left() + 3, r.center().y() - 1, 14, 3), color);
            p.setPen(visible ? text : opaqueBlend(text, 0.4, background));
            p.drawText(r.adjusted(RunSwatch, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, e.text);
            break;
        }
        case LegendEntry::Metric: {
            QPen pen(opaqueBlend(text, 0.75, background), 1.5);
            pen.setStyle(metricPenStyle(e.style));
            pen.setCapStyle(Qt::FlatCap);
            p.setPen(pen);
            p.drawLine(QPointF(r.left() + 3, r.center().y() + 0.5),
                       QPointF(r.left() + MetricSwatch - 5, r.center().y() + 0.5));
            p.setPen(text);
            p.drawText(r.adjusted(MetricSwatch, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, e.text);
            break;
        }
        case LegendEntry::Group: { // a band behind a line, as the group is drawn; dimmed while hidden
            const bool visible = isGroupVisible(e.key);
            const QColor color = visible ? e.color : opaqueBlend(e.color, 0.3, background);
            if (m_hoverGroup == e.key)
                p.fillRect(r, pal.color(QPalette::AlternateBase));
            QColor band = color;
            band.setAlphaF(kGroupBandAlpha);
            p.fillRect(QRect(r.left() + 3, r.center().y() - 4, 14, 9), band);
            p.fillRect(QRect(r.left() + 3, r.center().y() - 1, 14, 3), color);
            p.setPen(visible ? text : opaqueBlend(text, 0.4, background));
            p.drawText(r.adjusted(RunSwatch, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, e.text);
            break;
        }
        case LegendEntry::More:
            p.setPen(pal.color(QPalette::PlaceholderText));
            p.drawText(r.adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, e.text);
            break;
        }
    }
}

} // namespace ferry::ui
