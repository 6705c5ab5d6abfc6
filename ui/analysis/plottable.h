// PlotTable: what parallel coordinates draw: the axes, one line per run or trial, its colour, and
// the ranges brushed on the axes.
#pragma once

// The data of parallel coordinates (ui/analysis/parallelcoordinates.h), made by the view that
// shows them: the sweep view from a sweep's trials (ui/sweep/sweepplotdata.h), the analysis tab
// from any runs' values. Each line has a position in [0, 1] on each axis (none where it has no
// value: a gap), a place on the colour scale, and an order (drawn from the lowest: the best on
// top). Ranges brushed on axes keep the lines inside every one; the others are drawn faint.
#include "ui/analysis/colorscale.h"
#include "ui/analysis/plotaxis.h"

#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace ferry::ui {

struct PlotLine {
    QString key;                                  // what the line is: a run's id, a trial's number
    QString label;                                // how a person names it: the run's name, "trial 12"
    std::vector<std::optional<double>> positions; // one per axis
    std::optional<double> color;                  // its place on the colour scale; none: grey
    double order = 0;                             // drawn from the lowest: the best last, on top
};

class PlotTable {
public:
    PlotTable() = default;
    // `noun`: what the lines are, plural ("runs", "trials"), in the count under the plot.
    PlotTable(std::vector<PlotAxis> axes, std::vector<PlotLine> lines, ColorScale scale, QString noun);

    const std::vector<PlotAxis> &axes() const { return m_axes; }
    const std::vector<PlotLine> &lines() const { return m_lines; }
    const ColorScale &colorScale() const { return m_scale; }
    QString noun() const { return m_noun; }
    std::optional<std::size_t> lineOf(const QString &key) const;

    // Lines drawn black over the others (the best trial, the runs selected in the table).
    void setHighlighted(const QSet<QString> &keys);
    bool isHighlighted(std::size_t line) const { return m_highlighted.contains(m_lines[line].key); }
    // A line's colour: on the colour scale, grey without a place on it, faint outside the ranges.
    QColor lineColor(std::size_t line) const;

    // The brushed ranges, per axis ([lo, hi] in positions); a line passes when it lies inside
    // every one.
    void setRange(int axis, std::optional<std::pair<double, double>> range);
    std::optional<std::pair<double, double>> range(int axis) const;
    void clearRanges();
    bool filtered() const;
    bool passes(std::size_t line) const;
    QStringList passingKeys() const; // in the lines' order

    // Changes with every new data, range or highlight: what a plot's cached picture is keyed by.
    quint64 generation() const { return m_generation; }

private:
    static quint64 nextGeneration();
    quint64 m_generation = nextGeneration();
    std::vector<PlotAxis> m_axes;
    std::vector<PlotLine> m_lines;
    ColorScale m_scale;
    QString m_noun;
    QSet<QString> m_highlighted;
    std::vector<std::optional<std::pair<double, double>>> m_ranges;
};

} // namespace ferry::ui
