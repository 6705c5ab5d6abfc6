// The sweep view's plots: objective over trials, parallel coordinates with range filters, objective
// per parameter.
#pragma once

// The sweep view's plots, each drawing the one SweepPlotData the view owns (set with setData;
// the view repaints them when it changes): the objective of each trial with the best so far,
// the parallel coordinates (drag along an axis to keep the trials in that range, click the axis
// to let all through again) and the objective against each parameter. Trials the filter leaves
// out are drawn faint; the best is drawn over the rest.
#include "ui/sweep/sweepplotdata.h"

#include <QImage>
#include <QWidget>

#include <optional>

namespace ferry::ui {

class SweepPlot : public QWidget {
    Q_OBJECT
public:
    explicit SweepPlot(QWidget *parent = nullptr);
    void setData(SweepPlotData *plotData);

    // A trial's colour: good objectives blue, bad ones orange (by rank), none grey; faint when
    // filtered out.
    QColor trialColor(const SweepPlotTrial &trial) const;
    static const QColor kWorstColor, kBestColor; // the ends of the scale

protected:
    SweepPlotData *m_data = nullptr;
    // The colour scale at the bottom right of the plot, within `area` (its height): a bar from
    // the worst trial's colour to the best's with the objective at each end, so a colour can be
    // read (review 2026-12-06, finding 6). Returns where the bar is (empty: nothing drawn).
    QRectF drawColorScale(QPainter &p, const QRectF &area) const;
};

// y: the objective, x: the trial's number; a step line through the best so far.
class ObjectivePlot final : public SweepPlot {
    Q_OBJECT
public:
    using SweepPlot::SweepPlot;
    QSize sizeHint() const override { return {480, 260}; }

protected:
    void paintEvent(QPaintEvent *event) override;
};

class ParallelCoordinates final : public SweepPlot {
    Q_OBJECT
public:
    using SweepPlot::SweepPlot;
    QSize sizeHint() const override { return {640, 300}; }
    // Where axis `axis` is drawn, and its [0, 1] span in y (for tests driving it by mouse).
    double axisX(int axis) const;
    std::pair<double, double> axisSpan() const; // y of position 1 (top) and 0 (bottom)

    QRectF colorScaleBar() const { return m_scaleBar; } // where the colour scale was last drawn

Q_SIGNALS:
    void rangesChanged();

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    std::optional<int> axisAt(double x) const;
    void drawLines(QPainter &p); // every trial's line, into the cached layer
    QImage m_layer;              // the lines, for m_layerKey at this size
    quint64 m_layerKey = 0;
    double positionAt(double y) const;
    std::optional<int> m_dragAxis;
    double m_dragFrom = 0;
    bool m_dragged = false;
    QRectF m_scaleBar;
};

// One small plot per parameter: the objective (y) against the parameter (x), the colour scale
// below them.
class ParameterScatter final : public SweepPlot {
    Q_OBJECT
public:
    using SweepPlot::SweepPlot;
    QSize sizeHint() const override { return {640, 300}; }
    // Where parameter `index`'s plot is drawn (its frame); empty when it does not fit.
    QRectF plotRect(int index) const;
    QRectF colorScaleBar() const { return m_scaleBar; } // where the colour scale was last drawn

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QRectF m_scaleBar;
};

} // namespace ferry::ui
