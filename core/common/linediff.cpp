#include "common/linediff.h"

#include <QHash>

#include <algorithm>
#include <limits>
#include <vector>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

// Myers' middle snake, divide and conquer (E. Myers, "An O(ND) Difference Algorithm and Its
// Variations", 1986, section 4b). Lines are compared as numbers (equal lines, equal numbers).
// Diagonals are k = x - y in the whole problem's coordinates; each array holds, per diagonal,
// the furthest x reached forward from the start (m_forward) and backward from the end
// (m_backward), with room for a sentinel beyond either end.
class MiddleSnakeDiff {
public:
    MiddleSnakeDiff(std::vector<int> a, std::vector<int> b)
        : m_a(std::move(a)), m_b(std::move(b)), m_n(qsizetype(m_a.size())), m_m(qsizetype(m_b.size())),
          m_forward(std::size_t(m_n + m_m + 3)), m_backward(std::size_t(m_n + m_m + 3)), m_removed(std::size_t(m_n)),
          m_added(std::size_t(m_m))
    {
    }

    // Marks the lines removed from a and added in b; false when more than `most` would be.
    bool run(qsizetype most)
    {
        if (!compare(0, m_n, 0, m_m, most))
            return false;
        shiftRuns(m_removed, m_a, m_added);
        shiftRuns(m_added, m_b, m_removed);
        return true;
    }
    bool removed(qsizetype x) const { return m_removed[std::size_t(x)]; }
    bool added(qsizetype y) const { return m_added[std::size_t(y)]; }

private:
    struct Split {
        qsizetype x = 0, y = 0;
    };

    qsizetype &forward(qsizetype k) { return m_forward[std::size_t(k + m_m + 1)]; }
    qsizetype &backward(qsizetype k) { return m_backward[std::size_t(k + m_m + 1)]; }
    bool same(qsizetype x, qsizetype y) const { return m_a[std::size_t(x)] == m_b[std::size_t(y)]; }

    // a[xoff, xlim) against b[yoff, ylim); `most`: the changes allowed (-1: any).
    bool compare(qsizetype xoff, qsizetype xlim, qsizetype yoff, qsizetype ylim, qsizetype most)
    {
        while (xoff < xlim && yoff < ylim && same(xoff, yoff)) {
            ++xoff;
            ++yoff;
        }
        while (xlim > xoff && ylim > yoff && same(xlim - 1, ylim - 1)) {
            --xlim;
            --ylim;
        }
        if (xoff == xlim || yoff == ylim) {
            if (most >= 0 && (xlim - xoff) + (ylim - yoff) > most)
                return false;
            std::fill(m_removed.begin() + xoff, m_removed.begin() + xlim, true);
            std::fill(m_added.begin() + yoff, m_added.begin() + ylim, true);
            return true;
        }
        const std::optional<Split> split = middleSnake(xoff, xlim, yoff, ylim, most);
        if (!split)
            return false;
        // Each half costs at most half of the whole (rounded up): the recursion is log(D) deep.
        return compare(xoff, split->x, yoff, split->y, -1) && compare(split->x, xlim, split->y, ylim, -1);
    }

    // A point on a shortest path from (xoff, yoff) to (xlim, ylim), whose ends differ; nullopt
    // when that path changes more than `most` lines (-1: any).
    std::optional<Split> middleSnake(qsizetype xoff, qsizetype xlim, qsizetype yoff, qsizetype ylim, qsizetype most)
    {
        const qsizetype dmin = xoff - ylim, dmax = xlim - yoff; // the diagonals inside the box
        const qsizetype fmid = xoff - yoff, bmid = xlim - ylim; // where each search starts
        const bool odd = (fmid - bmid) & 1;
        qsizetype fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
        forward(fmid) = xoff;
        backward(bmid) = xlim;
        for (qsizetype c = 1;; ++c) {
            // Not met after c - 1 steps each way: the path changes at least 2c - 1 lines.
            if (most >= 0 && 2 * c - 1 > most)
                return std::nullopt;
            // One more step forward: the range of diagonals widens by one on each side, or
            // narrows where it meets the box (the sentinel beyond it is never taken).
            if (fmin > dmin)
                forward(--fmin - 1) = -1;
            else
                ++fmin;
            if (fmax < dmax)
                forward(++fmax + 1) = -1;
            else
                --fmax;
            for (qsizetype k = fmax; k >= fmin; k -= 2) {
                const qsizetype fromLeft = forward(k - 1), fromAbove = forward(k + 1);
                qsizetype x = fromLeft >= fromAbove ? fromLeft + 1 : fromAbove;
                qsizetype y = x - k;
                while (x < xlim && y < ylim && same(x, y)) {
                    ++x;
                    ++y;
                }
                forward(k) = x;
                if (odd && bmin <= k && k <= bmax && backward(k) <= x)
                    return Split{x, y};
            }
            if (most >= 0 && 2 * c > most)
                return std::nullopt;
            // One more step backward.
            if (bmin > dmin)
                backward(--bmin - 1) = kBeyond;
            else
                ++bmin;
            if (bmax < dmax)
                backward(++bmax + 1) = kBeyond;
            else
                --bmax;
            for (qsizetype k = bmax; k >= bmin; k -= 2) {
                const qsizetype fromLeft = backward(k - 1), fromAbove = backward(k + 1);
                qsizetype x = fromLeft < fromAbove ? fromLeft : fromAbove - 1;
                qsizetype y = x - k;
                while (x > xoff && y > yoff && same(x - 1, y - 1)) {
                    --x;
                    --y;
                }
                backward(k) = x;
                if (!odd && fmin <= k && k <= fmax && x <= forward(k))
                    return Split{x, y};
            }
        }
    }

    // Of equally short edits, the one diff -u shows: each run of changed lines of one side slid
    // as far down as equal lines allow, joining the runs it meets, then back up to the last place
    // where it stood beside changed lines of the other side, if it passed one (so that a removed
    // line and the line that replaced it stay together).
    static void shiftRuns(std::vector<bool> &changed, const std::vector<int> &lines, const std::vector<bool> &other)
    {
        // The other side's unchanged lines in order: this side's k-th unchanged line is the same as
        // the other side's k-th.
        std::vector<qsizetype> otherSame;
        for (std::size_t j = 0; j < other.size(); ++j) {
            if (!other[j])
                otherSame.push_back(qsizetype(j));
        }
        // Whether the other side changes lines between its (k-1)-th and k-th unchanged ones.
        const auto besideOther = [&otherSame, &other](qsizetype k) {
            const qsizetype before = k > 0 ? otherSame[std::size_t(k - 1)] : -1;
            const qsizetype after =
                k < qsizetype(otherSame.size()) ? otherSame[std::size_t(k)] : qsizetype(other.size());
            return after - before > 1;
        };
        const auto line = [&lines](qsizetype i) { return lines[std::size_t(i)]; };
        const auto isChanged = [&changed](qsizetype i) { return bool(changed[std::size_t(i)]); };
        const auto set = [&changed](qsizetype i, bool value) { changed[std::size_t(i)] = value; };
        const qsizetype n = qsizetype(changed.size());
        qsizetype i = 0, same = 0; // same: unchanged lines before i
        for (;;) {
            while (i < n && !isChanged(i)) {
                ++i;
                ++same;
            }
            if (i == n)
                return;
            qsizetype start = i, end = i;
            while (end < n && isChanged(end))
                ++end;
            qsizetype length = 0, beside = -1; // beside: an end where the other side's changes are
            do {
                length = end - start;
                while (start > 0 && line(start - 1) == line(end - 1)) {
                    set(--start, true);
                    set(--end, false);
                    --same;
                    while (start > 0 && isChanged(start - 1))
                        --start;
                }
                beside = besideOther(same) ? end : -1;
                while (end < n && line(start) == line(end)) {
                    set(start++, false);
                    set(end++, true);
                    ++same;
                    while (end < n && isChanged(end))
                        ++end;
                    if (besideOther(same))
                        beside = end;
                }
            } while (length != end - start);
            // The last pass joined nothing: back up by the steps it took is still an edit.
            while (beside >= 0 && end > beside) {
                set(--start, true);
                set(--end, false);
                --same;
            }
            i = end;
        }
    }

    static constexpr qsizetype kBeyond = std::numeric_limits<qsizetype>::max(); // the backward sentinel
    const std::vector<int> m_a, m_b;
    const qsizetype m_n, m_m;
    std::vector<qsizetype> m_forward, m_backward;
    std::vector<bool> m_removed, m_added;
};

} // namespace

std::optional<QList<DiffLine>> diffLines(const QStringList &a, const QStringList &b, qsizetype mostChanged)
{
    // Each distinct line a number: the search compares numbers, not strings.
    QHash<QString, int> numbers;
    const auto numbered = [&numbers](const QStringList &lines) {
        std::vector<int> out;
        out.reserve(std::size_t(lines.size()));
        for (const QString &line : lines) {
            auto it = numbers.constFind(line);
            if (it == numbers.cend())
                it = numbers.insert(line, int(numbers.size()));
            out.push_back(*it);
        }
        return out;
    };
    std::vector<int> na = numbered(a);
    std::vector<int> nb = numbered(b);
    MiddleSnakeDiff diff(std::move(na), std::move(nb));
    if (!diff.run(mostChanged))
        return std::nullopt;
    // Each run of changes as its removed lines, then its added ones, as diff -u shows them.
    QList<DiffLine> out;
    const qsizetype n = a.size(), m = b.size();
    qsizetype x = 0, y = 0;
    while (x < n || y < m) {
        if (x < n && diff.removed(x))
            out.append({DiffLine::Removed, a[x++]});
        else if (y < m && diff.added(y))
            out.append({DiffLine::Added, b[y++]});
        else {
            out.append({DiffLine::Same, a[x++]});
            ++y;
        }
    }
    return out;
}

std::optional<QString> unifiedDiff(const QStringList &a, const QStringList &b, const QString &nameA,
                                   const QString &nameB, int context)
{
    const std::optional<QList<DiffLine>> diffed = diffLines(a, b);
    if (!diffed)
        return std::nullopt;
    const QList<DiffLine> &lines = *diffed;
    if (std::all_of(lines.cbegin(), lines.cend(), [](const DiffLine &l) { return l.kind == DiffLine::Same; }))
        return QString();
    QString out = u"--- %1\n+++ %2\n"_s.arg(nameA, nameB);
    const qsizetype count = lines.size();
    qsizetype i = 0;
    qsizetype lineA = 1, lineB = 1; // the next line's numbers on each side
    while (i < count) {
        // The next change, and the hunk around it (changes closer than 2 * context join).
        qsizetype first = i;
        while (first < count && lines[first].kind == DiffLine::Same)
            ++first;
        if (first == count)
            break;
        const qsizetype start = std::max(i, first - context);
        lineA += start - i;
        lineB += start - i;
        qsizetype end = first;
        int same = 0;
        for (qsizetype j = first; j < count; ++j) {
            if (lines[j].kind == DiffLine::Same) {
                if (++same > 2 * context)
                    break;
            } else {
                same = 0;
                end = j;
            }
        }
        const qsizetype stop = std::min(count, end + 1 + context);
        qsizetype lenA = 0, lenB = 0;
        QString body;
        for (qsizetype j = start; j < stop; ++j) {
            const DiffLine &l = lines[j];
            body += (l.kind == DiffLine::Same ? u' ' : l.kind == DiffLine::Removed ? u'-' : u'+') + l.text + u'\n';
            lenA += l.kind != DiffLine::Added ? 1 : 0;
            lenB += l.kind != DiffLine::Removed ? 1 : 0;
        }
        out +=
            u"@@ -%1,%2 +%3,%4 @@\n"_s.arg(lenA ? lineA : lineA - 1).arg(lenA).arg(lenB ? lineB : lineB - 1).arg(lenB) +
            body;
        lineA += lenA;
        lineB += lenB;
        i = stop;
    }
    return out;
}

} // namespace ferry
