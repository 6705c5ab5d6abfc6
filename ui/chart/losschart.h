// LossChart: the live chart of many runs' metric points, drawn per pixel column from
// multi-resolution summaries.
#pragma once

#include "analysis/curves.h"
#include "common/error.h"
#include "ui/chart/chartaxis.h"
#include "ui/chart/seriespainter.h"
#include "ui/chart/seriesstore.h"

#include <QHash>
#include <QImage>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <optional>

namespace ferry::ui {

class RunColors;

// A group of runs the chart draws as one line with a band (LossChart::setGroups): its key and
// label (run::RunGroup's: "lr=0.01"), its runs and its colour.
struct ChartGroup {
    QString key, label;
    QStringList runIds;
    QColor color;
    friend bool operator==(const ChartGroup &, const ChartGroup &) = default;
};

// The line a group draws: the mean or the median of its runs at each x.
enum class GroupStatistic { Mean, Median };

// What the chart drew for a group and a metric, at each column of the plot: the statistics of
// its runs there (core's rule, analysis/curves.h aggregateAt, at the column's x), and the line
// and band as drawn (NaN where n = 0).
struct DrawnGroup {
    QString key, label, metric;
    QColor color;
    int runs = 0; // runs of the group with points of the metric in this chart
    std::vector<run::GroupStats> stats;
    std::vector<double> center, low, high;
};

// The live loss chart: every point of many runs overlaid, drawn from a SeriesStore.
//
// Producers append to the store from any thread; the chart drains it on a timer (25 Hz) and
// repaints only when something changed. Each series is drawn per pixel column (first, min, max,
// last; see appendM4Polyline) from its multi-resolution summary, so a frame costs
// O(columns * series * log n) whatever the number of points, and shows exactly the pixels
// of the polyline through all of them.
//
// Above the plot its title (the panel's metric); beside it, or below it when the panel is narrow,
// the legend: a key of line styles when it draws several metrics (solid, dashed, dotted, ...),
// then one entry per run in the run's colour (RunColors), names whole where they fit.
//
// Mouse: drag to zoom to a rectangle, Ctrl+wheel to zoom x (over the y axis: y), middle-drag or
// Shift-drag to pan, double-click to reset; the plain wheel is left to what holds the chart (the
// list of panels scrolls). Hovering shows the value of every visible run at that x (none for a
// run whose points end before it); clicking a legend entry hides or shows its run (grouped: its
// group, line and band), hovering it highlights the run (the group).
//
// Grouped (setGroups), the runs' own lines give way to one line per group and metric (the mean or
// the median of its runs) with a translucent band (± std or min to max), evaluated at each pixel
// column's x by core's rule (analysis/curves.h, aggregateAt: steps aligned, values interpolated
// between a run's points, never beyond them), so where a column's x is a step the numbers are
// those `ferry runs aggregate` prints. The cost is O(columns × runs × log n) whatever the points.
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
    // The metric on the x axis in XAxisMode::Metric: each series drawn against this metric of its
    // run, joined on step (SeriesData::pairedView, analysis' rule); runs without it are not drawn.
    void setXMetric(const QString &metric);
    QString xMetric() const { return m_xMetric; }
    // Log x: points at x <= 0 are not drawn (a step 0, the first moment of a run).
    void setLogX(bool on);
    bool logX() const { return m_logX; }
    // The title above the plot (empty: none).
    void setTitle(const QString &title);
    QString title() const { return m_title; }
    // Where each run's colour comes from (nullptr: the chart's own, which gives the runs it
    // draws different colours). Not owned.
    void setRunColors(RunColors *colors);
    QColor runColor(const QString &runId) const;
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

    // Groups of runs, each drawn as one line with a band (ui/chart/losschartgroups.cpp); empty:
    // every run its own line. Runs in no group are not drawn while grouped.
    void setGroups(const QList<ChartGroup> &groups);
    const QList<ChartGroup> &groups() const { return m_groups; }
    bool isGrouped() const { return !m_groups.isEmpty(); }
    void setGroupStatistic(GroupStatistic statistic);
    GroupStatistic groupStatistic() const { return m_statistic; }
    void setGroupBand(run::Band band);
    run::Band groupBand() const { return m_band; }
    // A group hidden (its line and band not drawn, its legend entry dimmed) or shown, by its key;
    // what a click on its legend entry does. Kept while its key is among the groups set.
    void setGroupVisible(const QString &key, bool visible);
    bool isGroupVisible(const QString &key) const { return !m_hiddenGroups.contains(key); }
    QSet<QString> hiddenGroups() const { return m_hiddenGroups; }
    // The group drawn highlighted (its legend entry hovered; its line thicker, on top), by its key
    // (the group of runs without a key has an empty one); nullopt: none.
    std::optional<QString> highlightedGroup() const { return m_hoverGroup; }
    // The groups as last painted, per metric drawn and group, hidden ones left out (tests, screenshots).
    std::vector<DrawnGroup> drawnGroups() const { return m_groupPicture; }

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
    // A group's legend entry, by its key (empty when it has none: not grouped, or no run drawn).
    QRect legendGroupRect(const QString &key) const;
    // The metrics drawn, in line-style order (solid, dashed, dotted, dash-dot, dash-dot-dot).
    QStringList drawnMetrics() const;
    // What the legend says, one line per entry as drawn (a metric's style key: "style: metric";
    // a run: its label; "+N more" when they do not all fit).
    QStringList legendText() const;
    // The y axis' tick labels as drawn (tests).
    std::vector<QString> yTickLabels() const;
    std::vector<QString> xTickLabels() const;
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
    // The raw x values drawn for a series now (the x axis' choice applied), for tests.
    std::vector<double> drawnX(int series) const;
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
    // Another group's legend entry, or none, is under the mouse (highlightedGroup).
    void hoveredGroupChanged();
    void groupVisibilityChanged(const QString &key, bool visible);
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
    struct LegendEntry;

    // exact: no frame shown from a moved layer (see SeriesPainter); for render() and export.
    void paint(QPainter &p, bool exact);
    void updateLayout() const;
    bool seriesShown(const SeriesData &series) const;
    std::vector<DrawnSeries> shownSeries() const;
    // Those the automatic ranges fit: the shown series less the runs of hidden groups.
    std::vector<DrawnSeries> rangedSeries() const;
    QSize layOutLegend(Layout &l, int top) const;
    std::vector<LegendEntry> legendEntries() const;
    int legendEntryWidth(const LegendEntry &e) const;
    LegendEntry moreEntry(Layout &l, const std::vector<LegendEntry> &entries, qsizetype from) const;
    QSize legendBeside(Layout &l, const std::vector<LegendEntry> &entries, int top, int widest) const;
    QSize legendInRows(Layout &l, const std::vector<LegendEntry> &entries, int top) const;
    void paintAxes(QPainter &p, const QColor &text);
    void paintLegend(QPainter &p, const QString &highlighted);
    QString xTitle() const;
    QHash<QString, int> metricOrder() const; // each drawn metric's line style
    SeriesView viewOf(const DrawnSeries &s, double smoothing) const;
    ValueUnit valueUnit() const;
    bool logXShown() const;
    double toAxisX(const DrawnSeries &s, double raw) const;
    double toRawX(const DrawnSeries &s, double axis) const;
    QString xText(double x) const; // an x as the tooltip says it
    std::pair<double, double> autoX() const;
    std::pair<double, double> autoY(double xLo, double xHi) const;
    double runOrigin(const QString &runId) const;
    double xAtPixel(double px) const;
    double yAtPixel(double py) const;
    void zoomX(double center, double factor);
    void zoomY(double center, double factor);
    void changed(bool rangesToo);
    void forgetAutoRanges();
    // Groups (losschartgroups.cpp): their statistics at `columns` columns of the view (cached
    // until the layout changes), drawn into the plot area; their legend entries and hover lines.
    void updateGroupPicture(int columns);
    void paintGroups(QPainter &p, const PlotStyle &style);
    std::vector<LegendEntry> groupLegendEntries() const;
    int groupRunCount(const ChartGroup &group) const;
    QStringList groupHoverLines(double x) const;
    QString statisticText() const;

    std::shared_ptr<SeriesStore> m_store;
    quint64 m_seenRevision = 0; // the store's revision last drawn
    QTimer m_timer;
    QStringList m_metrics;
    XAxisMode m_mode = XAxisMode::Step;
    QString m_xMetric;
    bool m_logX = false;
    bool m_logY = false;
    QString m_title;
    QPointer<RunColors> m_colors;
    RunColors *m_ownColors; // used without m_colors; a child
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
    QList<ChartGroup> m_groups;
    QSet<QString> m_hiddenGroups;        // keys
    std::optional<QString> m_hoverGroup; // the group whose legend entry is under the mouse
    GroupStatistic m_statistic = GroupStatistic::Mean;
    run::Band m_band = run::Band::Std;
    std::vector<DrawnGroup> m_groupPicture;
    mutable quint64 m_layoutGeneration = 0; // counts layouts: a new one may show a new view
    quint64 m_pictureGeneration = ~quint64(0);
    int m_pictureColumns = -1;
    QImage m_yTitle; // the y axis title, turned
    QString m_yTitleKey;
};

} // namespace ferry::ui
