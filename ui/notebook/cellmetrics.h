// The live chart of a cell: what it prints is read by the run's metric parser (Hugging Face dicts,
// key=value, JSON lines, Keras, a tqdm bar's postfix: core/metrics/metricparser.h), and the points
// found are drawn under the cell as it runs, with the chart of runs (ui/chart/losschartpanel.h: the
// same colours, smoothing, export). Made on the first point; a cell that prints none has none.
#pragma once

#include "metrics/metricparser.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>

namespace ferry::ui {

class LossChartPanel;
class SeriesStore;

class CellMetrics : public QObject {
    Q_OBJECT
public:
    // `series` names the cell's line in the chart (its id, the colour's key); `label` says it.
    CellMetrics(QString series, QString label, QObject *parent = nullptr);
    ~CellMetrics() override;

    // Text the cell printed (a stream message's, in order): its complete lines are read.
    void feed(const QString &text);
    // The chart (nullptr until a point came): the caller puts it under the cell.
    LossChartPanel *chart() const { return m_chart; }
    qsizetype points(const QString &metric) const { return m_counts.value(metric); }

Q_SIGNALS:
    void chartMade(ferry::ui::LossChartPanel *chart);

private:
    QString m_series, m_label;
    run::MetricParser m_parser;
    QString m_partial; // the line still being printed
    std::shared_ptr<SeriesStore> m_store;
    LossChartPanel *m_chart = nullptr;
    QHash<QString, qsizetype> m_counts;
};

} // namespace ferry::ui
