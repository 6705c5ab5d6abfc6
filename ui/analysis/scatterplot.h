// ScatterPlot: one point per run at two of its values, coloured by a third, with a frame, ticks and
// a colour legend; the frame's painting is shared with the sweep view's small plots.
#pragma once

// A scatter over runs (the analysis tab's): each point at its x and y positions on two PlotAxis
// (ui/analysis/plotaxis.h), in the colour the view gives it, the colour scale's legend above the
// plot. The pointer over a point names its run (a tooltip); a click on one says which
// (pointClicked). Points of a categorical axis are spread across their category's band (the same
// spread for the same run each time), so runs with the same value do not hide one another.
#include "ui/analysis/colorscale.h"
#include "ui/analysis/plotaxis.h"

#include <QSet>
#include <QWidget>

#include <optional>
#include <vector>

class QPainter;

namespace ferry::ui {

// The place of (x, y) positions in [0, 1] inside `area`, y up.
QPointF plotPoint(const QRectF &area, double x, double y);
// The inner area where points go: the frame less room for a point's radius on every side.
QRectF plotArea(const QRectF &frame);
// A plot's frame with the axes' ticks and labels outside it (x below, y left) and light grid
// lines inside; `compact`: only the ends of each axis labelled, no grid (a small plot's).
void drawPlotFrame(QPainter &p, const QRectF &frame, const PlotAxis &x, const PlotAxis &y, bool compact);

struct ScatterPoint {
    QString key;         // the run's id
    QString label;       // its name, in the tooltip
    double x = 0, y = 0; // positions on the axes
    QColor color;
    QString tip; // the tooltip's lines after the name (the values)
};

class ScatterPlot final : public QWidget {
    Q_OBJECT
public:
    explicit ScatterPlot(QWidget *parent = nullptr);
    QSize sizeHint() const override { return {640, 420}; }

    // What it draws; no scale: the points' own colours (the runs' colours) and no legend.
    void setContent(const PlotAxis &x, const PlotAxis &y, std::vector<ScatterPoint> points,
                    std::optional<ColorScale> scale);
    void setHighlighted(const QSet<QString> &keys); // drawn ringed in black over the others, named
    void setEmptyText(const QString &text);         // said with no point to draw

    const PlotAxis &xAxis() const { return m_x; }
    const PlotAxis &yAxis() const { return m_y; }
    const std::vector<ScatterPoint> &points() const { return m_points; }
    const std::optional<ColorScale> &colorScale() const { return m_scale; }
    QRectF frame() const; // the plot's frame in this widget
    // Where the point of this run is drawn (widget coordinates); none when it has no point.
    std::optional<QPointF> pointPosition(const QString &key) const;
    QString keyAt(const QPointF &at) const;             // the point under `at`; empty: none
    QRectF colorScaleBar() const { return m_scaleBar; } // where the legend's bar was last drawn

Q_SIGNALS:
    void pointClicked(const QString &key);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override; // the tooltip

private:
    QPointF placeOf(const ScatterPoint &point) const;

    PlotAxis m_x, m_y;
    std::vector<ScatterPoint> m_points;
    std::optional<ColorScale> m_scale;
    QSet<QString> m_highlighted;
    QString m_emptyText;
    QRectF m_scaleBar;
};

} // namespace ferry::ui
