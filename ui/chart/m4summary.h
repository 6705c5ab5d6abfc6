// M4Summary: a multi-resolution min/max/first/last summary of a series, so a chart column is
// queried in O(log n).
#pragma once

#include <QtGlobal>

#include <algorithm>
#include <limits>
#include <vector>

namespace ferry::ui {

// The y extremes of a range of points, ignoring values that are not finite.
// minPositive is the smallest finite value > 0 (what a log axis can show).
struct YExtremes {
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double minPositive = std::numeric_limits<double>::infinity();

    bool hasFinite() const { return min <= max; }
    bool hasPositive() const { return minPositive <= max; }
    void add(double y);
    void merge(const YExtremes &other);
};

// Multi-resolution summary of one y array, for M4 decimation (min, max, first, last per pixel
// column). Level k holds one YExtremes per complete bucket of 2^(LeafShift + k) consecutive
// points; a parent is the merge of its two children. Appends update it incrementally (O(1)
// amortised per point), a change in the middle marks it dirty from there and it is rebuilt
// lazily from that bucket on. query() answers any index range in O(log n) plus at most
// 2 * LeafSize raw values, whatever the size of the range.
//
// The summary does not own the values: every call that reads them takes the array, which the
// caller keeps (SeriesStore keeps both side by side).
class M4Summary {
public:
    static constexpr int LeafShift = 4;
    static constexpr qsizetype LeafSize = qsizetype(1) << LeafShift;

    // Brings the summary up to date with y[0, count): new points at the end are added, a dirty
    // part (see invalidateFrom) is recomputed.
    void update(const double *y, qsizetype count);
    // Points from index on changed (an out-of-order insertion): recomputed by the next update().
    void invalidateFrom(qsizetype index);
    void clear();

    // Extremes of y[begin, end). Needs update() with the same array first.
    YExtremes query(const double *y, qsizetype begin, qsizetype end) const;
    // First / last index in [begin, end) whose value is finite (and > 0 when positiveOnly),
    // or -1.
    qsizetype firstValid(const double *y, qsizetype begin, qsizetype end, bool positiveOnly) const;
    qsizetype lastValid(const double *y, qsizetype begin, qsizetype end, bool positiveOnly) const;

    // First / last index i in [begin, end) with accept(y[i]), or -1. mayHold(extremes) says
    // whether a bucket with those extremes can hold an accepted value; buckets that cannot are
    // skipped whole, at the coarsest level that fits, so a long run is crossed in O(log n).
    template <typename Accept, typename MayHold>
    qsizetype findFirst(const double *y, qsizetype begin, qsizetype end, Accept accept, MayHold mayHold) const;
    template <typename Accept, typename MayHold>
    qsizetype findLast(const double *y, qsizetype begin, qsizetype end, Accept accept, MayHold mayHold) const;

    qsizetype count() const { return m_count; }
    int levelCount() const { return int(m_levels.size()); }
    // Bytes held by the buckets (for benchmarks).
    qsizetype memoryBytes() const;

private:
    // The coarsest level whose bucket starts at i and ends by `limit` (forward: the range's end),
    // or ends at i and starts from `limit` (backward: the range's begin); -1 when i is not on a
    // leaf boundary.
    int alignedLevel(qsizetype i, qsizetype limit, bool forward) const;

    std::vector<std::vector<YExtremes>> m_levels;
    qsizetype m_count = 0; // points covered (complete buckets or not)
};

template <typename Accept, typename MayHold>
qsizetype M4Summary::findFirst(const double *y, qsizetype begin, qsizetype end, Accept accept, MayHold mayHold) const
{
    qsizetype i = begin;
    // The answer is most often the first value: test it before touching any bucket.
    if (i < end && accept(y[i]))
        return i;
    while (i < end) {
        int k = alignedLevel(i, end, true);
        // Skip the largest bucket that cannot hold an answer; descend into one that may.
        for (; k >= 0; --k) {
            if (!mayHold(m_levels[std::size_t(k)][std::size_t(i >> (LeafShift + k))]))
                break;
        }
        if (k >= 0) {
            i += LeafSize << k;
            continue;
        }
        const qsizetype stop = std::min(end, (i | (LeafSize - 1)) + 1);
        for (; i < stop; ++i) {
            if (accept(y[i]))
                return i;
        }
    }
    return -1;
}

template <typename Accept, typename MayHold>
qsizetype M4Summary::findLast(const double *y, qsizetype begin, qsizetype end, Accept accept, MayHold mayHold) const
{
    qsizetype i = end; // candidates are below i
    if (i > begin && accept(y[i - 1]))
        return i - 1;
    while (i > begin) {
        int k = alignedLevel(i, begin, false);
        for (; k >= 0; --k) {
            if (!mayHold(m_levels[std::size_t(k)][std::size_t(((i - 1) >> (LeafShift + k)))]))
                break;
        }
        if (k >= 0) {
            i -= LeafSize << k;
            continue;
        }
        const qsizetype stop = std::max(begin, (i - 1) & ~(LeafSize - 1));
        for (; i > stop; --i) {
            if (accept(y[i - 1]))
                return i - 1;
        }
    }
    return -1;
}

} // namespace ferry::ui
