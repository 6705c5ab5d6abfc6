#include "common/linediff.h"

#include <algorithm>
#include <vector>

using namespace Qt::StringLiterals;

namespace ferry {

QList<DiffLine> diffLines(const QStringList &a, const QStringList &b)
{
    const int n = int(a.size()), m = int(b.size());
    const int max = n + m;
    std::vector<int> v(std::size_t(2 * max + 2), 0);
    std::vector<std::vector<int>> trace; // v after each d, to walk back
    const auto at = [&](int k) -> int & { return v[std::size_t(k + max + 1)]; };
    int found = -1;
    for (int d = 0; d <= max && found < 0; ++d) {
        for (int k = -d; k <= d; k += 2) {
            int x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
            int y = x - k;
            while (x < n && y < m && a[x] == b[y]) {
                ++x;
                ++y;
            }
            at(k) = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
        trace.push_back(v);
    }
    // Back from (n, m) through the trace.
    QList<DiffLine> out;
    int x = n, y = m;
    for (int d = found; d > 0; --d) {
        const std::vector<int> &prev = trace[std::size_t(d - 1)];
        const auto pat = [&](int k) { return prev[std::size_t(k + max + 1)]; };
        const int k = x - y;
        const bool down = k == -d || (k != d && pat(k - 1) < pat(k + 1));
        const int prevK = down ? k + 1 : k - 1;
        const int prevX = pat(prevK), prevY = prevX - prevK;
        while (x > prevX && y > prevY) {
            out.prepend({DiffLine::Same, a[--x]});
            --y;
        }
        if (down)
            out.prepend({DiffLine::Added, b[--y]});
        else
            out.prepend({DiffLine::Removed, a[--x]});
    }
    while (x > 0 && y > 0) {
        out.prepend({DiffLine::Same, a[--x]});
        --y;
    }
    return out;
}

QString unifiedDiff(const QStringList &a, const QStringList &b, const QString &nameA, const QString &nameB, int context)
{
    const QList<DiffLine> lines = diffLines(a, b);
    if (std::all_of(lines.cbegin(), lines.cend(), [](const DiffLine &l) { return l.kind == DiffLine::Same; }))
        return {};
    QString out = u"--- %1\n+++ %2\n"_s.arg(nameA, nameB);
    const int count = int(lines.size());
    int i = 0;
    int lineA = 1, lineB = 1; // the next line's numbers on each side
    while (i < count) {
        // The next change, and the hunk around it (changes closer than 2 * context join).
        int first = i;
        while (first < count && lines[first].kind == DiffLine::Same)
            ++first;
        if (first == count)
            break;
        const int start = std::max(i, first - context);
        for (int s = i; s < start; ++s) {
            ++lineA;
            ++lineB;
        }
        int end = first;
        int same = 0;
        for (int j = first; j < count; ++j) {
            if (lines[j].kind == DiffLine::Same) {
                if (++same > 2 * context)
                    break;
            } else {
                same = 0;
                end = j;
            }
        }
        const int stop = std::min(count, end + 1 + context);
        int lenA = 0, lenB = 0;
        QString body;
        for (int j = start; j < stop; ++j) {
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
