// ChartFeeder: feeds the selected runs' stored and new metric points into the chart from its own
// thread.
#pragma once

#include <QHash>
#include <QObject>
#include <QStringList>

#include <memory>

class QThread;

namespace ferry::run {
class RunStore;
}

namespace ferry::ui {

class LossChart;
class SeriesStore;

// Puts the selected runs' metrics into the chart: on a selection, every stored point of each
// (one snapshot read), then, as the monitor reports new points, exactly those (read past a
// cursor). All reads happen on the feeder's own thread; the chart's store takes appends from
// any thread and the chart drains it on its timer.
class ChartFeeder : public QObject {
    Q_OBJECT
public:
    explicit ChartFeeder(LossChart *chart, QObject *parent = nullptr);
    ~ChartFeeder() override;

    void setStore(run::RunStore *store); // nullptr: nothing to read (the chart is emptied)
    // The runs to show, with their legend labels.
    void setRuns(const QStringList &runIds, const QHash<QString, QString> &labels);
    QStringList runs() const { return m_runs; }
    // Reads the shown runs among `runIds` again from the start (their stored points changed).
    void reloadRuns(const QStringList &runIds);

public Q_SLOTS:
    // Runs with new points (from the run monitor): those shown are brought up to date.
    void runsChanged(const QStringList &runIds);

Q_SIGNALS:
    void loaded(const QStringList &runIds); // the snapshot of these runs is in the chart

private:
    class Worker;
    LossChart *m_chart;
    run::RunStore *m_store = nullptr;
    QThread *m_thread;
    Worker *m_worker;
    QStringList m_runs;
    std::shared_ptr<SeriesStore> m_series;
    int m_generation = 0;
};

} // namespace ferry::ui
