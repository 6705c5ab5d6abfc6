#include "ui/analysis/plottable.h"

#include <algorithm>
#include <atomic>

namespace ferry::ui {

quint64 PlotTable::nextGeneration()
{
    static std::atomic<quint64> next{1};
    return next++;
}

PlotTable::PlotTable(std::vector<PlotAxis> axes, std::vector<PlotLine> lines, ColorScale scale, QString noun)
    : m_axes(std::move(axes)), m_lines(std::move(lines)), m_scale(std::move(scale)), m_noun(std::move(noun)),
      m_ranges(m_axes.size())
{
    for (PlotLine &line : m_lines)
        line.positions.resize(m_axes.size());
}

std::optional<std::size_t> PlotTable::lineOf(const QString &key) const
{
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        if (m_lines[i].key == key)
            return i;
    }
    return std::nullopt;
}

void PlotTable::setHighlighted(const QSet<QString> &keys)
{
    if (keys == m_highlighted)
        return;
    m_highlighted = keys;
    m_generation = nextGeneration();
}

QColor PlotTable::lineColor(std::size_t line) const
{
    if (filtered() && !passes(line))
        return filteredOutColor();
    const auto &t = m_lines[line].color;
    return t ? m_scale.colorAt(*t) : noValueColor();
}

void PlotTable::setRange(int axis, std::optional<std::pair<double, double>> range)
{
    if (axis < 0 || axis >= int(m_ranges.size()))
        return;
    if (range && range->first > range->second)
        std::swap(range->first, range->second);
    m_ranges[std::size_t(axis)] = range;
    m_generation = nextGeneration();
}

std::optional<std::pair<double, double>> PlotTable::range(int axis) const
{
    if (axis < 0 || axis >= int(m_ranges.size()))
        return std::nullopt;
    return m_ranges[std::size_t(axis)];
}

void PlotTable::clearRanges()
{
    std::fill(m_ranges.begin(), m_ranges.end(), std::nullopt);
    m_generation = nextGeneration();
}

bool PlotTable::filtered() const
{
    return std::any_of(m_ranges.cbegin(), m_ranges.cend(), [](const auto &r) { return r.has_value(); });
}

bool PlotTable::passes(std::size_t line) const
{
    const PlotLine &l = m_lines[line];
    for (std::size_t a = 0; a < m_ranges.size(); ++a) {
        if (!m_ranges[a])
            continue;
        const auto &p = l.positions[a];
        if (!p || *p < m_ranges[a]->first || *p > m_ranges[a]->second)
            return false;
    }
    return true;
}

QStringList PlotTable::passingKeys() const
{
    QStringList keys;
    for (std::size_t i = 0; i < m_lines.size(); ++i) {
        if (passes(i))
            keys << m_lines[i].key;
    }
    return keys;
}

} // namespace ferry::ui
