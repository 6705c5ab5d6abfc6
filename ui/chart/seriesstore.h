// SeriesStore: the chart's series data, appended to from any thread and drained by the chart's
// thread.
#pragma once

#include "common/largememory.h"
#include "metrics/metricparser.h"
#include "ui/chart/m4summary.h"

#include <QHash>
#include <QMutex>
#include <QString>

#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace ferry::ui {

// What the chart's x axis shows.
enum class XAxisMode {
    Step,     // every series, by step
    Epoch,    // the series whose points carry an epoch, by epoch
    WallTime, // every series, by seconds since its run's first point (time since start)
    Clock,    // every series, by the wall clock (seconds since the Unix epoch)
    Metric,   // every series, against another metric of its run at the same step (LossChart::setXMetric)
};

// One metric value as a producer reports it.
// A point as the store keeps it (step, wall clock in ms since the Unix epoch, value, epoch or
// NaN): series are loaded from the store's blocks without a copy into another form.
using ChartPoint = run::SeriesPoint;

// What a series is: one metric of one run.
struct SeriesKey {
    QString runId;
    QString metric;

    friend bool operator==(const SeriesKey &, const SeriesKey &) = default;
};

// A series' points sorted by x, with the multi-resolution summaries the chart draws from.
// x is the step, the epoch or the wall time; y either the value or its EMA.
struct SeriesView {
    const double *x = nullptr;
    const double *y = nullptr;
    qsizetype size = 0;
    const M4Summary *summary = nullptr;
};

// Every point of one series, sorted by step (stable: equal steps keep their arrival order),
// kept as columns. Owned and read by the consumer thread only (see SeriesStore).
class SeriesData {
public:
    explicit SeriesData(SeriesKey key) : m_key(std::move(key)) {}

    const SeriesKey &key() const { return m_key; }
    qsizetype size() const { return qsizetype(m_values.size()); }
    using Column = LargeVector<double>; // a series of a million points: 8 MB a column
    const Column &steps() const { return m_steps; }
    const Column &wallMs() const { return m_wallMs; }
    const Column &epochs() const { return m_epochs; }   // empty while no point carries one
    bool hasEpochs() const { return m_epochCount > 0; } // some point carries an epoch
    const Column &values() const { return m_values; }
    qint64 firstWallMs() const { return m_firstWallMs; } // the smallest wall time; 0 when empty

    // x = step, epoch (only the points that carry one) or wall ms; y = value (smoothing 0) or
    // its EMA with that weight (TensorBoard's debiased EMA, see ema()). Summaries are brought up
    // to date lazily.
    SeriesView view(XAxisMode x, double smoothing);
    // x = the value of another series of the run (`xs`) at each point's step, by analysis' rule
    // (analysis/curves.h, valueAt: on the line between its points; a point outside its first to
    // last step, or in a hole, is left out), the points sorted by it; y as in view(). Rebuilt
    // when either series grows.
    SeriesView pairedView(const SeriesData &xs, double smoothing);

    // The debiased exponential moving average TensorBoard draws: last = last * w + (1 - w) * v,
    // shown as last / (1 - w^n) after n finite values. Non-finite values stay NaN and leave the
    // average alone.
    static void ema(const double *values, qsizetype count, double weight, std::vector<double> &out);

    void append(const ChartPoint *points, qsizetype count);
    void append(run::SeriesColumns &&columns);
    // Builds what the first frame of it reads (its step summary), on whichever thread loads it.
    void prepare();
    run::SeriesColumns takeColumns(); // its points as columns; the series is empty after

private:
    struct Ordered; // a copy sorted by wall time, epoch or another metric, for a series whose steps do not sort them

    void updateEma(double smoothing);
    SeriesView orderedView(Ordered &o, const Column &x, double smoothing);
    void fillOrdered(Ordered &o, const std::vector<qsizetype> &index, const std::vector<double> &x, double smoothing);
    static SeriesView viewOf(const Ordered &o, double smoothing);

    SeriesKey m_key;
    Column m_steps, m_wallMs, m_values, m_epochs;
    qint64 m_firstWallMs = 0;
    bool m_wallSorted = true;
    bool m_epochSorted = true;  // finite epochs only and non-decreasing along the steps
    qsizetype m_epochCount = 0; // points with a finite epoch
    M4Summary m_summary;
    // EMA of m_values for m_smoothWeight, valid for the first m_smoothCount points.
    std::vector<double> m_smooth;
    double m_smoothWeight = -1;
    qsizetype m_smoothCount = 0;
    double m_smoothLast = 0;
    qsizetype m_smoothN = 0;
    M4Summary m_smoothSummary;
    std::shared_ptr<Ordered> m_byWall, m_byEpoch, m_byMetric;
    const SeriesData *m_pairedWith = nullptr; // the x series m_byMetric was built from
    qsizetype m_pairedWithSize = -1;
};

// The chart's data: producers append from any thread, the chart's thread drains.
//
// series() and append() lock a mutex for as long as it takes to copy the points into a
// pending buffer; nothing else happens under the lock. drain(), called by the consumer
// thread (the chart's timer), swaps the pending buffers out and merges them into the sorted
// series and their summaries. Everything else (seriesCount(), data()) belongs to the
// consumer thread, like the widget that reads it.
class SeriesStore {
public:
    SeriesStore() = default;
    SeriesStore(const SeriesStore &) = delete;
    SeriesStore &operator=(const SeriesStore &) = delete;
    ~SeriesStore();

    // Any thread. The id of the series for (runId, metric), created on first use.
    int series(const QString &runId, const QString &metric);
    // Consumer thread. The id of a drained series for (runId, metric); -1: none (yet).
    int find(const QString &runId, const QString &metric) const;
    // Any thread. Points in any order (in x order is the fast path).
    void append(int series, const ChartPoint *points, qsizetype count);
    void append(int series, const std::vector<ChartPoint> &points)
    {
        append(series, points.data(), qsizetype(points.size()));
    }
    // Any thread. Points as columns (read from the store): a series that has no points yet takes
    // the columns' memory as its own, without a copy.
    void append(int series, run::SeriesColumns &&columns);
    // Any thread. A series made and prepared (SeriesData::prepare) on the loader's thread, so the
    // chart's thread has nothing left to do with it: a series that has no points yet becomes it.
    void append(int series, std::unique_ptr<SeriesData> prepared);

    // Consumer thread. Moves pending points into the series; true when anything changed.
    // Points of series for which `hold` or a reader's predicate is true stay pending (another
    // thread reads them).
    bool drain(const std::function<bool(int)> &hold = {});
    // Consumer thread. Several charts may draw from one store (the metric panels), each with a
    // painter that reads series on other threads: whichever chart drains holds back what any
    // of them reads. `reads` is asked per series id.
    void addReader(const void *reader, std::function<bool(int)> reads);
    void removeReader(const void *reader);
    // Consumer thread. Counts drains that changed something.
    quint64 revision() const { return m_revision; }
    int seriesCount() const { return int(m_series.size()); }
    SeriesData &data(int series) { return *m_series[std::size_t(series)]; }
    const SeriesData &data(int series) const { return *m_series[std::size_t(series)]; }
    qsizetype pointCount() const; // over every drained series

private:
    mutable QMutex m_mutex;
    QHash<QString, int> m_ids;                           // guarded; key: runId \x1f metric
    std::vector<SeriesKey> m_keys;                       // guarded
    std::vector<std::vector<ChartPoint>> m_pending;      // guarded, by series id
    std::vector<std::unique_ptr<SeriesData>> m_prepared; // guarded, by series id: drained first
    std::vector<run::SeriesColumns> m_pendingColumns;    // guarded, by series id: drained before m_pending

    std::vector<std::unique_ptr<SeriesData>> m_series;                        // consumer thread
    std::vector<std::vector<ChartPoint>> m_draining;                          // consumer thread, reused buffers
    std::vector<std::pair<const void *, std::function<bool(int)>>> m_readers; // consumer thread
    quint64 m_revision = 0;
};

} // namespace ferry::ui
