#include "ui/chart/m4summary.h"

#include <algorithm>
#include <cmath>

namespace ferry::ui {

namespace {

bool valid(double y, bool positiveOnly)
{
    return std::isfinite(y) && (!positiveOnly || y > 0);
}

} // namespace

void YExtremes::add(double y)
{
    if (!std::isfinite(y))
        return;
    min = std::min(min, y);
    max = std::max(max, y);
    if (y > 0)
        minPositive = std::min(minPositive, y);
}

void YExtremes::merge(const YExtremes &other)
{
    min = std::min(min, other.min);
    max = std::max(max, other.max);
    minPositive = std::min(minPositive, other.minPositive);
}

void M4Summary::clear()
{
    m_levels.clear();
    m_count = 0;
}

void M4Summary::invalidateFrom(qsizetype index)
{
    m_count = std::min(m_count, std::max<qsizetype>(index, 0));
}

void M4Summary::update(const double *y, qsizetype count)
{
    if (count == m_count && !m_levels.empty())
        return; // up to date: nothing is written (readers on other threads, see SeriesPainter)
    if (count < m_count)
        m_count = count;
    // Drop every bucket that reaches past the first point that changed (or no longer exists).
    qsizetype bucketSize = LeafSize;
    for (auto &level : m_levels) {
        level.resize(std::min<qsizetype>(qsizetype(level.size()), m_count / bucketSize));
        bucketSize *= 2;
    }
    m_count = count;

    if (m_levels.empty())
        m_levels.emplace_back();
    auto &leaves = m_levels[0];
    const qsizetype leafCount = count >> LeafShift;
    for (qsizetype b = qsizetype(leaves.size()); b < leafCount; ++b) {
        YExtremes e;
        const double *p = y + (b << LeafShift);
        for (qsizetype i = 0; i < LeafSize; ++i)
            e.add(p[i]);
        leaves.push_back(e);
    }
    for (std::size_t k = 1;; ++k) {
        const qsizetype want = qsizetype(m_levels[k - 1].size()) / 2;
        if (want == 0)
            break;
        if (m_levels.size() <= k)
            m_levels.emplace_back();
        auto &below = m_levels[k - 1];
        auto &level = m_levels[k];
        for (qsizetype b = qsizetype(level.size()); b < want; ++b) {
            YExtremes e = below[std::size_t(2 * b)];
            e.merge(below[std::size_t(2 * b + 1)]);
            level.push_back(e);
        }
    }
}

YExtremes M4Summary::query(const double *y, qsizetype begin, qsizetype end) const
{
    YExtremes acc;
    if (begin >= end)
        return acc;
    const qsizetype headEnd = std::min(end, (begin + LeafSize - 1) & ~(LeafSize - 1));
    const qsizetype tailBegin = std::max(headEnd, end & ~(LeafSize - 1));
    for (qsizetype i = begin; i < headEnd; ++i)
        acc.add(y[i]);
    for (qsizetype i = tailBegin; i < end; ++i)
        acc.add(y[i]);
    // Whole leaves in [headEnd, tailBegin): the bottom-up segment tree walk.
    qsizetype l = headEnd >> LeafShift;
    qsizetype r = tailBegin >> LeafShift;
    for (std::size_t k = 0; l < r && k < m_levels.size(); ++k) {
        const auto &level = m_levels[k];
        if (l & 1)
            acc.merge(level[std::size_t(l++)]);
        if (r & 1)
            acc.merge(level[std::size_t(--r)]);
        l >>= 1;
        r >>= 1;
    }
    return acc;
}

int M4Summary::alignedLevel(qsizetype i, qsizetype limit, bool forward) const
{
    if (i & (LeafSize - 1))
        return -1;
    int k = -1;
    while (k + 1 < static_cast<int>(m_levels.size())) {
        const int next = k + 1;
        const qsizetype size = LeafSize << next;
        const bool inside = forward ? i + size <= limit : i - size >= limit;
        const qsizetype block = (forward ? i : i - 1) >> (LeafShift + next);
        if ((i & (size - 1)) || !inside || block >= qsizetype(m_levels[std::size_t(next)].size()))
            break;
        k = next;
    }
    return k;
}

qsizetype M4Summary::firstValid(const double *y, qsizetype begin, qsizetype end, bool positiveOnly) const
{
    return findFirst(
        y, begin, end, [positiveOnly](double v) { return valid(v, positiveOnly); },
        [positiveOnly](const YExtremes &e) { return positiveOnly ? e.hasPositive() : e.hasFinite(); });
}

qsizetype M4Summary::lastValid(const double *y, qsizetype begin, qsizetype end, bool positiveOnly) const
{
    return findLast(
        y, begin, end, [positiveOnly](double v) { return valid(v, positiveOnly); },
        [positiveOnly](const YExtremes &e) { return positiveOnly ? e.hasPositive() : e.hasFinite(); });
}

qsizetype M4Summary::memoryBytes() const
{
    qsizetype bytes = 0;
    for (const auto &level : m_levels)
        bytes += qsizetype(level.capacity() * sizeof(YExtremes));
    return bytes;
}

} // namespace ferry::ui
