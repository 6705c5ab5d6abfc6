#pragma once

#include "ui/chart/losschart.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;

namespace ferry::ui {

// The loss chart with its controls: metric (the losses unless chosen otherwise), x axis, log y,
// smoothing, reset, export.
class LossChartPanel : public QWidget {
    Q_OBJECT
public:
    explicit LossChartPanel(QWidget *parent = nullptr);

    LossChart *chart() const { return m_chart; }
    void setStore(std::shared_ptr<SeriesStore> store);
    // A line above the chart saying what it shows (empty: none).
    void setCaption(const QString &text);
    QString caption() const;

private:
    void updateMetrics();
    void applyMetricChoice(); // the metric box's choice, to the chart
    void exportTo(bool png);

    LossChart *m_chart;
    QComboBox *m_metric;
    QComboBox *m_xAxis;
    QCheckBox *m_logY;
    QSlider *m_smoothing;
    QLabel *m_smoothingValue;
    QLabel *m_caption;
    QStringList m_knownMetrics;
};

} // namespace ferry::ui
