#include "ui/chart/seriesstore.h"

#include "analysis/curves.h"

#include <QMutexLocker>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
// A drained buffer keeps its memory for the next points up to this many (a live series' batches).
constexpr std::size_t kKeptPendingCapacity = 1 << 16;
} // namespace

// The series sorted by wall time or by epoch: only built for a series whose wall times are not
// non-decreasing along its steps (a clock set back, merged restarts), or whose epochs are not
// (or are missing on some points: those are left out).
struct SeriesData::Ordered {
    qsizetype builtFor = -1; // size of the series it was built from
    double smoothing = -1;
    std::vector<double> x, y, smooth;
    M4Summary summary, smoothSummary;
};

void SeriesData::ema(const double *values, qsizetype count, double weight, std::vector<double> &out)
{
    out.resize(std::size_t(count));
    double last = 0;
    qsizetype n = 0;
    for (qsizetype i = 0; i < count; ++i) {
        const double v = values[i];
        if (!std::isfinite(v)) {
            out[std::size_t(i)] = std::nan("");
            continue;
        }
        last = last * weight + (1 - weight) * v;
        ++n;
        out[std::size_t(i)] = weight > 0 ? last / (1 - std::pow(weight, double(n))) : v;
    }
}

void SeriesData::append(const ChartPoint *points, qsizetype count)
{
    if (count <= 0)
        return;
    const qsizetype old = size();
    bool inOrder = old == 0 || !(points[0].step < m_steps.back());
    for (qsizetype i = 1; inOrder && i < count; ++i)
        inOrder = !(points[i].step < points[i - 1].step);
    qint64 firstWall = old == 0 ? points[0].wallMs : m_firstWallMs;
    for (qsizetype i = 0; i < count; ++i)
        firstWall = std::min(firstWall, points[i].wallMs);
    m_firstWallMs = firstWall;

    const std::size_t total = std::size_t(old + count);
    qsizetype changedFrom = old;
    if (inOrder) {
        // Grow geometrically: reserve(total) alone would copy every point on every append.
        if (m_steps.capacity() < total) {
            const std::size_t capacity = std::max(total, 2 * m_steps.capacity());
            m_steps.reserve(capacity);
            m_wallMs.reserve(capacity);
            m_values.reserve(capacity);
            if (m_epochCount > 0)
                m_epochs.reserve(capacity);
        }
        for (qsizetype i = 0; i < count; ++i) {
            const ChartPoint &p = points[i];
            if (m_wallSorted && !m_wallMs.empty() && double(p.wallMs) < m_wallMs.back())
                m_wallSorted = false;
            if (m_epochSorted && (std::isnan(p.epoch) || (!m_epochs.empty() && p.epoch < m_epochs.back())))
                m_epochSorted = false;
            if (!std::isnan(p.epoch) && m_epochCount == 0) {
                m_epochs.reserve(m_steps.capacity());
                m_epochs.assign(m_steps.size(), std::nan("")); // the points so far carry none
            }
            m_epochCount += std::isnan(p.epoch) ? 0 : 1;
            m_steps.push_back(p.step);
            m_wallMs.push_back(double(p.wallMs));
            m_values.push_back(p.value);
            if (m_epochCount > 0)
                m_epochs.push_back(p.epoch);
        }
    } else {
        // Sort the batch (stable), then merge it behind the existing points of equal step.
        std::vector<ChartPoint> batch(points, points + count);
        std::stable_sort(batch.begin(), batch.end(),
                         [](const ChartPoint &a, const ChartPoint &b) { return a.step < b.step; });
        changedFrom = qsizetype(std::upper_bound(m_steps.begin(), m_steps.end(), batch.front().step) - m_steps.begin());
        std::vector<double> steps, walls, values, epochs;
        const std::size_t tail = std::size_t(old - changedFrom) + batch.size();
        steps.reserve(tail);
        walls.reserve(tail);
        values.reserve(tail);
        epochs.reserve(tail);
        std::size_t i = std::size_t(changedFrom), j = 0;
        while (i < std::size_t(old) || j < batch.size()) {
            if (j == batch.size() || (i < std::size_t(old) && !(batch[j].step < m_steps[i]))) {
                steps.push_back(m_steps[i]);
                walls.push_back(m_wallMs[i]);
                values.push_back(m_values[i]);
                epochs.push_back(m_epochs.empty() ? std::nan("") : m_epochs[i]);
                ++i;
            } else {
                steps.push_back(batch[j].step);
                walls.push_back(double(batch[j].wallMs));
                values.push_back(batch[j].value);
                epochs.push_back(batch[j].epoch);
                m_epochCount += std::isnan(batch[j].epoch) ? 0 : 1;
                ++j;
            }
        }
        m_steps.resize(std::size_t(changedFrom));
        m_wallMs.resize(std::size_t(changedFrom));
        m_values.resize(std::size_t(changedFrom));
        m_steps.insert(m_steps.end(), steps.begin(), steps.end());
        m_wallMs.insert(m_wallMs.end(), walls.begin(), walls.end());
        m_values.insert(m_values.end(), values.begin(), values.end());
        if (m_epochCount > 0) {
            if (m_epochs.empty())
                m_epochs.assign(std::size_t(changedFrom), std::nan(""));
            else
                m_epochs.resize(std::size_t(changedFrom));
            m_epochs.insert(m_epochs.end(), epochs.begin(), epochs.end());
        }
        m_wallSorted = std::is_sorted(m_wallMs.begin(), m_wallMs.end());
        m_epochSorted = m_epochCount == size() && std::is_sorted(m_epochs.begin(), m_epochs.end());
        m_summary.invalidateFrom(changedFrom);
        // The EMA of everything behind the insertion changes; recomputed lazily from the start.
        m_smoothCount = 0;
        m_smoothSummary.invalidateFrom(changedFrom);
    }
}

void SeriesData::append(run::SeriesColumns &&c)
{
    const qsizetype count = c.size();
    if (count == 0)
        return;
    bool inOrder = true;
    for (qsizetype i = 1; inOrder && i < count; ++i)
        inOrder = !(c.steps[std::size_t(i)] < c.steps[std::size_t(i - 1)]);
    if (size() > 0 || !inOrder) { // merged as points
        std::vector<ChartPoint> points(static_cast<std::size_t>(count));
        for (std::size_t i = 0; i < points.size(); ++i)
            points[i] = ChartPoint{c.steps[i], qint64(c.wallMs[i]), c.values[i], c.epoch(i)};
        append(points.data(), count);
        return;
    }
    // A series read from the store: its columns become the series'.
    m_steps = std::move(c.steps);
    m_wallMs = std::move(c.wallMs);
    m_values = std::move(c.values);
    m_epochs = std::move(c.epochs);
    m_firstWallMs = qint64(*std::min_element(m_wallMs.begin(), m_wallMs.end()));
    m_wallSorted = std::is_sorted(m_wallMs.begin(), m_wallMs.end());
    m_epochCount = qsizetype(std::count_if(m_epochs.begin(), m_epochs.end(), [](double e) { return !std::isnan(e); }));
    m_epochSorted = m_epochCount == count && std::is_sorted(m_epochs.begin(), m_epochs.end());
    m_summary.invalidateFrom(0);
    m_smoothCount = 0;
    m_smoothSummary.invalidateFrom(0);
}

void SeriesData::prepare()
{
    m_summary.update(m_values.data(), size());
}

run::SeriesColumns SeriesData::takeColumns()
{
    run::SeriesColumns c{std::move(m_steps), std::move(m_wallMs), std::move(m_values), std::move(m_epochs)};
    *this = SeriesData(m_key);
    return c;
}

void SeriesData::updateEma(double smoothing)
{
    const qsizetype n = size();
    if (smoothing <= 0 || (smoothing == m_smoothWeight && m_smoothCount == n))
        return;
    if (smoothing != m_smoothWeight) {
        m_smoothWeight = smoothing;
        m_smoothCount = 0;
        m_smoothSummary.invalidateFrom(0);
    }
    if (m_smoothCount == 0) {
        m_smoothLast = 0;
        m_smoothN = 0;
    }
    m_smooth.resize(std::size_t(n));
    for (qsizetype i = m_smoothCount; i < n; ++i) {
        const double value = m_values[std::size_t(i)];
        if (!std::isfinite(value)) {
            m_smooth[std::size_t(i)] = std::nan("");
            continue;
        }
        m_smoothLast = m_smoothLast * smoothing + (1 - smoothing) * value;
        ++m_smoothN;
        m_smooth[std::size_t(i)] = m_smoothLast / (1 - std::pow(smoothing, double(m_smoothN)));
    }
    m_smoothSummary.invalidateFrom(m_smoothCount);
    m_smoothCount = n;
    m_smoothSummary.update(m_smooth.data(), n);
}

SeriesView SeriesData::view(XAxisMode x, double smoothing)
{
    const qsizetype n = size();
    m_summary.update(m_values.data(), n);
    updateEma(smoothing);
    // Up to date, a view only reads: a layer drawn on another thread may be reading too.
    const double *y = smoothing > 0 ? m_smooth.data() : m_values.data();
    const M4Summary *summary = smoothing > 0 ? &m_smoothSummary : &m_summary;
    switch (x) {
    case XAxisMode::Step:
        return SeriesView{m_steps.data(), y, n, summary};
    case XAxisMode::WallTime:
    case XAxisMode::Clock:
        if (m_wallSorted)
            return SeriesView{m_wallMs.data(), y, n, summary};
        if (!m_byWall)
            m_byWall = std::make_shared<Ordered>();
        return orderedView(*m_byWall, m_wallMs, smoothing);
    case XAxisMode::Metric: // pairedView(); without the other series, by step
        break;
    case XAxisMode::Epoch:
        if (m_epochs.empty())
            return SeriesView{m_steps.data(), y, 0, summary}; // no point carries an epoch
        if (m_epochSorted)
            return SeriesView{m_epochs.data(), y, n, summary};
        if (!m_byEpoch)
            m_byEpoch = std::make_shared<Ordered>();
        return orderedView(*m_byEpoch, m_epochs, smoothing);
    }
    return SeriesView{m_steps.data(), y, n, summary};
}

// The points with a non-NaN x, sorted by it (stable), with their values and EMA.
SeriesView SeriesData::orderedView(Ordered &o, const Column &x, double smoothing)
{
    const qsizetype n = size();
    if (o.builtFor != n || (smoothing > 0 && o.smoothing != smoothing)) {
        std::vector<qsizetype> index;
        std::vector<double> xs;
        index.reserve(std::size_t(n));
        xs.reserve(std::size_t(n));
        for (qsizetype i = 0; i < n; ++i) {
            if (!std::isnan(x[std::size_t(i)])) {
                index.push_back(i);
                xs.push_back(x[std::size_t(i)]);
            }
        }
        fillOrdered(o, index, xs, smoothing);
    }
    return viewOf(o, smoothing);
}

// The points of `index` (their x in `x`) sorted by x (stable), with their values and EMA.
void SeriesData::fillOrdered(Ordered &o, const std::vector<qsizetype> &index, const std::vector<double> &x,
                             double smoothing)
{
    std::vector<std::size_t> order(index.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&x](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    const std::size_t m = order.size();
    o.x.resize(m);
    o.y.resize(m);
    o.smooth.resize(smoothing > 0 ? m : 0);
    for (std::size_t i = 0; i < m; ++i) {
        const std::size_t from = std::size_t(index[order[i]]);
        o.x[i] = x[order[i]];
        o.y[i] = m_values[from];
        if (smoothing > 0)
            o.smooth[i] = m_smooth[from];
    }
    o.summary.clear();
    o.summary.update(o.y.data(), qsizetype(m));
    o.smoothSummary.clear();
    if (smoothing > 0)
        o.smoothSummary.update(o.smooth.data(), qsizetype(m));
    o.builtFor = size();
    o.smoothing = smoothing;
}

SeriesView SeriesData::viewOf(const Ordered &o, double smoothing)
{
    const qsizetype m = qsizetype(o.x.size());
    if (smoothing > 0)
        return SeriesView{o.x.data(), o.smooth.data(), m, &o.smoothSummary};
    return SeriesView{o.x.data(), o.y.data(), m, &o.summary};
}

SeriesView SeriesData::pairedView(const SeriesData &xs, double smoothing)
{
    const qsizetype n = size();
    updateEma(smoothing);
    if (!m_byMetric)
        m_byMetric = std::make_shared<Ordered>();
    Ordered &o = *m_byMetric;
    if (o.builtFor != n || m_pairedWith != &xs || m_pairedWithSize != xs.size() ||
        (smoothing > 0 && o.smoothing != smoothing)) {
        // Joined on step by analysis' one rule (valueAt: the x metric's value at the step, on the
        // line between its points; none outside its first to last step or in its holes).
        const run::CurveView xCurve{xs.m_steps.data(), xs.m_values.data(), xs.size()};
        std::vector<qsizetype> index;
        std::vector<double> x;
        for (qsizetype i = 0; i < n; ++i) {
            if (std::isnan(m_steps[std::size_t(i)]))
                continue;
            if (const std::optional<double> at = run::valueAt(xCurve, m_steps[std::size_t(i)])) {
                index.push_back(i);
                x.push_back(*at);
            }
        }
        fillOrdered(o, index, x, smoothing);
        m_pairedWith = &xs;
        m_pairedWithSize = xs.size();
    }
    return viewOf(o, smoothing);
}

SeriesStore::~SeriesStore() = default;

int SeriesStore::find(const QString &runId, const QString &metric) const
{
    QMutexLocker lock(&m_mutex);
    const int id = m_ids.value(runId % u'\x1f' % metric, -1);
    return id < seriesCount() ? id : -1;
}

int SeriesStore::series(const QString &runId, const QString &metric)
{
    const QString id = runId % u'\x1f' % metric;
    QMutexLocker lock(&m_mutex);
    const auto it = m_ids.constFind(id);
    if (it != m_ids.cend())
        return *it;
    const int index = int(m_keys.size());
    m_keys.push_back(SeriesKey{runId, metric});
    m_pending.emplace_back();
    m_prepared.emplace_back();
    m_pendingColumns.emplace_back();
    m_ids.insert(id, index);
    return index;
}

void SeriesStore::append(int series, const ChartPoint *points, qsizetype count)
{
    if (count <= 0)
        return;
    QMutexLocker lock(&m_mutex);
    Q_ASSERT(series >= 0 && std::size_t(series) < m_pending.size());
    if (series < 0 || std::size_t(series) >= m_pending.size())
        return;
    auto &pending = m_pending[std::size_t(series)];
    pending.insert(pending.end(), points, points + count);
}

void SeriesStore::append(int series, std::unique_ptr<SeriesData> prepared)
{
    if (!prepared || prepared->size() == 0)
        return;
    {
        QMutexLocker lock(&m_mutex);
        Q_ASSERT(series >= 0 && std::size_t(series) < m_prepared.size());
        if (series < 0 || std::size_t(series) >= m_prepared.size())
            return;
        if (!m_prepared[std::size_t(series)] && m_pendingColumns[std::size_t(series)].size() == 0) {
            m_prepared[std::size_t(series)] = std::move(prepared);
            return;
        }
    }
    append(series, prepared->takeColumns()); // points came before it: it follows them
}

void SeriesStore::append(int series, run::SeriesColumns &&columns)
{
    if (columns.size() == 0)
        return;
    QMutexLocker lock(&m_mutex);
    Q_ASSERT(series >= 0 && std::size_t(series) < m_pendingColumns.size());
    if (series < 0 || std::size_t(series) >= m_pendingColumns.size())
        return;
    run::SeriesColumns &pending = m_pendingColumns[std::size_t(series)];
    if (pending.size() == 0) {
        pending = std::move(columns);
        return;
    }
    pending.append(columns);
}

void SeriesStore::addReader(const void *reader, std::function<bool(int)> reads)
{
    removeReader(reader);
    m_readers.emplace_back(reader, std::move(reads));
}

void SeriesStore::removeReader(const void *reader)
{
    std::erase_if(m_readers, [reader](const auto &r) { return r.first == reader; });
}

bool SeriesStore::drain(const std::function<bool(int)> &hold)
{
    const auto held = [&](int id) {
        return (hold && hold(id)) ||
               std::any_of(m_readers.begin(), m_readers.end(), [id](const auto &r) { return r.second(id); });
    };
    bool changed = false;
    std::vector<std::pair<std::size_t, std::unique_ptr<SeriesData>>> prepared;
    std::vector<std::pair<std::size_t, run::SeriesColumns>> columns;
    {
        QMutexLocker lock(&m_mutex);
        for (std::size_t i = m_series.size(); i < m_keys.size(); ++i) {
            m_series.push_back(std::make_unique<SeriesData>(m_keys[i]));
            changed = true;
        }
        m_draining.resize(m_pending.size());
        // Swapping hands the producers the (empty) buffers of the last drain, capacity kept.
        for (std::size_t i = 0; i < m_pending.size(); ++i) {
            if (held(int(i)))
                continue;
            if (m_prepared[i])
                prepared.emplace_back(i, std::move(m_prepared[i]));
            if (m_pendingColumns[i].size() > 0)
                columns.emplace_back(i, std::move(m_pendingColumns[i]));
            m_pendingColumns[i] = run::SeriesColumns();
            if (!m_pending[i].empty())
                m_pending[i].swap(m_draining[i]);
        }
    }
    for (auto &[i, data] : prepared) {
        if (m_series[i]->size() == 0)
            *m_series[i] = std::move(*data); // the same object: the chart may hold it
        else
            m_series[i]->append(data->takeColumns());
        changed = true;
    }
    for (auto &[i, c] : columns) {
        m_series[i]->append(std::move(c));
        changed = true;
    }
    for (std::size_t i = 0; i < m_draining.size(); ++i) {
        auto &points = m_draining[i];
        if (points.empty())
            continue;
        m_series[i]->append(points.data(), qsizetype(points.size()));
        points.clear();
        if (points.capacity() > kKeptPendingCapacity) // a loaded series' memory is not kept twice
            std::vector<ChartPoint>().swap(points);
        changed = true;
    }
    if (changed)
        ++m_revision;
    return changed;
}

qsizetype SeriesStore::pointCount() const
{
    qsizetype n = 0;
    for (const auto &s : m_series)
        n += s->size();
    return n;
}

} // namespace ferry::ui
