// LossChart: the live chart of many runs' metric points, drawn per pixel column from
// multi-resolution summaries.
#pragma once

#include "common/error.h"
#include "ui/chart/seriespainter.h"
#include "ui/chart/seriesstore.h"

#include <QHash>
#include <QImage>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <optional>

namespace ferry::ui {

// The live loss chart: every point of many runs overlaid, drawn from a SeriesStore.
//
// Producers append to the store from any thread; the chart drains it on a timer (25 Hz) and
// repaints only when something changed. Each series is drawn per pixel column (first, min, max,
// last; see appendM4Polyline) from its multi-resolution summary, so a frame costs
// O(columns * series * log n) whatever the number of points, and shows exactly the pixels
// of the polyline through all of them.
//
// Mouse: drag to zoom to a rectangle, wheel to zoom x (over the y axis: y), middle-drag or
// Shift-drag to pan, double-click to reset. Hovering shows the nearest value of every visible
// run; clicking a legend entry hides or shows its run, hovering it highlights the run.
class LossChart : public QWidget {
    Q_OBJECT
public:
    explicit LossChart(QWidget *parent = nullptr);
    ~LossChart() override;

    void setStore(std::shared_ptr<SeriesStore> store);
    const std::shared_ptr<SeriesStore> &store() const { return m_store; }

    // Metrics shown (series are keyed by run and metric); empty: every metric.
    void setMetrics(const QStringList &metrics);
    QStringList metrics() const { return m_metrics; }
    void setXAxisMode(XAxisMode mode);
    XAxisMode xAxisMode() const { return m_mode; }
    // Log y: points <= 0 are skipped (the line joins their neighbours).
    void setLogY(bool on);
    bool logY() const { return m_logY; }
    // EMA weight in [0, 0.99] (TensorBoard's, see SeriesData::ema); above 0 the raw series stays
    // faint behind the smoothed one.
    void setSmoothing(double weight);
    double smoothing() const { return m_smoothing; }
    void setRunVisible(const QString &runId, bool visible);
    bool isRunVisible(const QString &runId) const { return !m_hiddenRuns.contains(runId); }
    // The name the legend and tooltip show for a run (default: its id).
    void setRunLabel(const QString &runId, const QString &label);
    // A run drawn highlighted (thicker, on top) while no other is hovered; empty: none.
    void setPinnedRun(const QString &runId);
    QString pinnedRun() const { return m_pinnedRun; }
    QString runLabel(const QString &runId) const { return m_runLabels.value(runId, runId); }

    // The view, in axis units (x: step, epoch or seconds; y: value, or log10 of it on a log
    // axis). Follows the data until zoomed or panned.
    std::pair<double, double> xRange() const;
    std::pair<double, double> yRange() const;
    void setXRange(double lo, double hi);
    void setYRange(double lo, double hi);
    bool isZoomed() const { return m_xView.has_value() || m_yView.has_value(); }

    // Runs in the legend, in order, and the legend entry of one (for tests and accessibility).
    QStringList legendRuns() const;
    QRect legendEntryRect(const QString &runId) const;
    QRect plotRect() const;
    // What the hover tooltip shows for the x under a widget position: the nearest point of
    // every visible series, one line each. Over a legend entry: the run's full name (the
    // legend elides long ones in the middle).
    QString hoverText(const QPoint &pos) const;
    QString hoverText() const { return m_hoverText; }

    // The series drawn now: metric and mode filters, hidden runs left out.
    std::vector<int> visibleSeries() const;
    // PNG of the widget as shown; CSV of every point of the visible series.
    Expected<void> exportPng(const QString &path);
    Expected<void> exportCsv(const QString &path) const;

    // Paints into image (sized to the widget) the exact picture; what paintEvent shows once
    // the layer for a new view is drawn. For benchmarks and tests.
    void render(QImage &image);
    // Whether the last frame painted was exact (false for the few frames after a pan or zoom
    // that show the previous picture moved and scaled while the new one is drawn).
    bool lastFrameExact() const { return m_painter.lastFrameExact(); }
    // How often the cached layer of settled series was redrawn (benchmarks, tests).
    int layerBuilds() const { return m_painter.layerBuilds(); }

public Q_SLOTS:
    void resetZoom();
    // Drains the store now and schedules a repaint when anything arrived (the timer's job).
    void refresh();

Q_SIGNALS:
    // The run under the mouse in the legend; empty when none.
    void hoveredRun(const QString &runId);
    void runVisibilityChanged(const QString &runId, bool visible);
    void viewChanged();
    // Points or series arrived (at most once per refresh).
    void dataChanged();
    void storeChanged();
    void runLabelChanged(const QString &runId, const QString &label);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void leaveEvent(QEvent *event) override;

private:
    struct Layout;

    // exact: no frame shown from a moved layer (see SeriesPainter); for render() and export.
    void paint(QPainter &p, bool exact);
    void updateLayout() const;
    bool seriesShown(const SeriesData &series) const;
    std::vector<DrawnSeries> shownSeries() const;
    std::pair<double, double> autoX() const;
    std::pair<double, double> autoY(double xLo, double xHi) const;
    double runOrigin(const QString &runId) const;
    double xAtPixel(double px) const;
    double yAtPixel(double py) const;
    void zoomX(double center, double factor);
    void zoomY(double center, double factor);
    void changed(bool rangesToo);
    void forgetAutoRanges();

    std::shared_ptr<SeriesStore> m_store;
    quint64 m_seenRevision = 0; // the store's revision last drawn
    QTimer m_timer;
    QStringList m_metrics;
    XAxisMode m_mode = XAxisMode::Step;
    bool m_logY = false;
    double m_smoothing = 0;
    QSet<QString> m_hiddenRuns;
    QHash<QString, QString> m_runLabels;
    std::optional<std::pair<double, double>> m_xView, m_yView;
    // The automatic ranges last shown: kept while the data still fits them well, so live points
    // do not change the view (and redraw every series) on every refresh.
    mutable std::optional<std::pair<double, double>> m_autoX, m_autoY;

    // Mouse state.
    enum class Drag { None, Band, Pan } m_drag = Drag::None;
    QPoint m_pressPos, m_lastPos;
    QPoint m_hoverPos{-1, -1};
    QString m_hoverText;
    QString m_hoverRun;
    QString m_pinnedRun;

    mutable std::unique_ptr<Layout> m_layout;
    mutable QHash<QString, double> m_runOrigins; // wall ms of each run's first point
    mutable quint64 m_originsRevision = ~quint64(0);
    SeriesPainter m_painter;
    QImage m_yTitle; // the y axis title, turned
    QString m_yTitleKey;
};

} // namespace ferry::ui
