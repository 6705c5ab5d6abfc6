#include "ui/chart/seriesstore.h"

#include <QMutexLocker>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace Qt::StringLiterals;

namespace ferry::ui {

// The series sorted by wall time: only built for a series whose wall time is not
// non-decreasing along its steps (a clock set back, merged restarts).
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
        }
        for (qsizetype i = 0; i < count; ++i) {
            const ChartPoint &p = points[i];
            if (m_wallSorted && !m_wallMs.empty() && double(p.wallMs) < m_wallMs.back())
                m_wallSorted = false;
            m_steps.push_back(p.step);
            m_wallMs.push_back(double(p.wallMs));
            m_values.push_back(p.value);
        }
    } else {
        // Sort the batch (stable), then merge it behind the existing points of equal step.
        std::vector<ChartPoint> batch(points, points + count);
        std::stable_sort(batch.begin(), batch.end(),
                         [](const ChartPoint &a, const ChartPoint &b) { return a.step < b.step; });
        changedFrom = qsizetype(std::upper_bound(m_steps.begin(), m_steps.end(), batch.front().step) - m_steps.begin());
        std::vector<double> steps, walls, values;
        const std::size_t tail = std::size_t(old - changedFrom) + batch.size();
        steps.reserve(tail);
        walls.reserve(tail);
        values.reserve(tail);
        std::size_t i = std::size_t(changedFrom), j = 0;
        while (i < std::size_t(old) || j < batch.size()) {
            if (j == batch.size() || (i < std::size_t(old) && !(batch[j].step < m_steps[i]))) {
                steps.push_back(m_steps[i]);
                walls.push_back(m_wallMs[i]);
                values.push_back(m_values[i]);
                ++i;
            } else {
                steps.push_back(batch[j].step);
                walls.push_back(double(batch[j].wallMs));
                values.push_back(batch[j].value);
                ++j;
            }
        }
        m_steps.resize(std::size_t(changedFrom));
        m_wallMs.resize(std::size_t(changedFrom));
        m_values.resize(std::size_t(changedFrom));
        m_steps.insert(m_steps.end(), steps.begin(), steps.end());
        m_wallMs.insert(m_wallMs.end(), walls.begin(), walls.end());
        m_values.insert(m_values.end(), values.begin(), values.end());
        m_wallSorted = std::is_sorted(m_wallMs.begin(), m_wallMs.end());
        m_summary.invalidateFrom(changedFrom);
        // The EMA of everything behind the insertion changes; recomputed lazily from the start.
        m_smoothCount = 0;
        m_smoothSummary.invalidateFrom(changedFrom);
    }
}

SeriesView SeriesData::view(bool byWall, double smoothing)
{
    const qsizetype n = size();
    m_summary.update(m_values.data(), n);
    SeriesView v{byWall ? m_wallMs.data() : m_steps.data(), m_values.data(), n, &m_summary};
    if (smoothing > 0 && (smoothing != m_smoothWeight || m_smoothCount != n)) {
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
    // Up to date, a view only reads: a layer drawn on another thread may be reading too.
    if (smoothing > 0) {
        v.y = m_smooth.data();
        v.summary = &m_smoothSummary;
    }
    if (!byWall || m_wallSorted)
        return v;

    if (!m_byWall)
        m_byWall = std::make_shared<Ordered>();
    Ordered &o = *m_byWall;
    if (o.builtFor != n || (smoothing > 0 && o.smoothing != smoothing)) {
        std::vector<qsizetype> order(m_values.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [this](qsizetype a, qsizetype b) {
            return m_wallMs[std::size_t(a)] < m_wallMs[std::size_t(b)];
        });
        o.x.resize(std::size_t(n));
        o.y.resize(std::size_t(n));
        o.smooth.resize(smoothing > 0 ? std::size_t(n) : 0);
        for (qsizetype i = 0; i < n; ++i) {
            const std::size_t from = std::size_t(order[std::size_t(i)]);
            o.x[std::size_t(i)] = m_wallMs[from];
            o.y[std::size_t(i)] = m_values[from];
            if (smoothing > 0)
                o.smooth[std::size_t(i)] = m_smooth[from];
        }
        o.summary.clear();
        o.summary.update(o.y.data(), n);
        o.smoothSummary.clear();
        if (smoothing > 0)
            o.smoothSummary.update(o.smooth.data(), n);
        o.builtFor = n;
        o.smoothing = smoothing;
    }
    if (smoothing > 0)
        return SeriesView{o.x.data(), o.smooth.data(), n, &o.smoothSummary};
    return SeriesView{o.x.data(), o.y.data(), n, &o.summary};
}

SeriesStore::~SeriesStore() = default;

int SeriesStore::series(const QString &runId, const QString &metric, bool stepIsEpoch)
{
    const QString id = runId % u'\x1f' % metric % (stepIsEpoch ? u"\x1f*"_s : QString());
    QMutexLocker lock(&m_mutex);
    const auto it = m_ids.constFind(id);
    if (it != m_ids.cend())
        return *it;
    const int index = int(m_keys.size());
    m_keys.push_back(SeriesKey{runId, metric, stepIsEpoch});
    m_pending.emplace_back();
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

bool SeriesStore::drain(const std::function<bool(int)> &hold)
{
    bool changed = false;
    {
        QMutexLocker lock(&m_mutex);
        for (std::size_t i = m_series.size(); i < m_keys.size(); ++i) {
            m_series.push_back(std::make_unique<SeriesData>(m_keys[i]));
            changed = true;
        }
        m_draining.resize(m_pending.size());
        // Swapping hands the producers the (empty) buffers of the last drain, capacity kept.
        for (std::size_t i = 0; i < m_pending.size(); ++i) {
            if (!m_pending[i].empty() && !(hold && hold(int(i))))
                m_pending[i].swap(m_draining[i]);
        }
    }
    for (std::size_t i = 0; i < m_draining.size(); ++i) {
        auto &points = m_draining[i];
        if (points.empty())
            continue;
        m_series[i]->append(points.data(), qsizetype(points.size()));
        points.clear();
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
