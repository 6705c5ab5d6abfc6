// The metric charts with their controls: a grid of panels, one per metric group, or one chart of a
// chosen metric.
#pragma once

#include "ui/chart/losschart.h"

#include <QSet>

#include <functional>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QScrollArea;
class QSlider;

namespace ferry::ui {

// The metric charts with their controls. By default a grid of panels, one per metric group
// (ui/chart/metricgroups.h: losses first, then accuracies, learning rates, the rest, the
// system's; the first 48 groups, the box lists every metric), each with its own y range, in a
// scroll area; chart() is the first panel's, which
// the others follow (store, run labels, hidden runs). A metric chosen in the box, or all of
// them, is one chart instead. x axis, log y, smoothing and reset apply to every panel.
class LossChartPanel : public QWidget {
    Q_OBJECT
public:
    explicit LossChartPanel(QWidget *parent = nullptr);

    LossChart *chart() const { return m_chart; }
    // Every panel shown, chart() first (for tests and screenshots).
    QList<LossChart *> panels() const;
    void setStore(std::shared_ptr<SeriesStore> store);
    // A run highlighted in every panel (LossChart::setPinnedRun).
    void setPinnedRun(const QString &runId);
    // A line above the chart saying what it shows (empty: none).
    void setCaption(const QString &text);
    QString caption() const;

private:
    void updateMetrics();
    void applyMetricChoice(); // the metric box's choice, to the charts
    void layOutPanels(const QList<QStringList> &groups);
    LossChart *addPanel();
    void forEachChart(const std::function<void(LossChart *)> &apply);
    void showRunEverywhere(const QString &runId, bool visible);
    void exportTo(bool png);

    LossChart *m_chart;
    QComboBox *m_metric;
    QComboBox *m_xAxis;
    QCheckBox *m_logY;
    QSlider *m_smoothing;
    QLabel *m_smoothingValue;
    QLabel *m_caption;
    QScrollArea *m_scroll;
    QGridLayout *m_grid;
    QList<LossChart *> m_others; // the panels after the first
    int m_shownOthers = 0;
    QSet<QString> m_knownMetrics;                // those in the metric box
    QList<QStringList> m_groups;                 // the panels' metrics as laid out (Panels only)
    const SeriesStore *m_groupedStore = nullptr; // what m_groups was worked out from
    int m_groupedSeries = -1;
};

} // namespace ferry::ui
