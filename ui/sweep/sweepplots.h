// The sweep view's own plots: the objective over trials, and the objective per parameter.
#pragma once

// The sweep view's plots, each drawing the one SweepPlotData the view owns (set with setData;
// the view repaints them when it changes): the objective of each trial with the best so far, and
// the objective against each parameter. Trials the parallel coordinates' ranges leave out
// (ui/analysis/parallelcoordinates.h, the third plot) are drawn faint; the best is ringed. Colours
// are the table's: the objective's rank, orange the worst, blue the best, with its scale.
#include "ui/sweep/sweepplotdata.h"

#include <QWidget>

namespace ferry::ui {

class SweepPlot : public QWidget {
    Q_OBJECT
public:
    explicit SweepPlot(QWidget *parent = nullptr);
    void setData(SweepPlotData *plotData);

    // The ends of the colour scale: the worst trial's colour and the best's.
    static const QColor kWorstColor, kBestColor;

protected:
    SweepPlotData *m_data = nullptr;
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
