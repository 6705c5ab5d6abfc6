#include "run/logtimes.h"

#include <algorithm>
#include <charconv>

namespace ferry::run {

namespace {

bool number(const char *&p, const char *end, qint64 &out)
{
    const auto [next, error] = std::from_chars(p, end, out);
    if (error != std::errc() || next == p)
        return false;
    p = next;
    return true;
}

} // namespace

void LogTimes::feed(QByteArrayView bytes)
{
    qsizetype start = 0;
    for (;;) {
        const qsizetype newline = bytes.indexOf('\n', start);
        if (newline < 0)
            break;
        const char *p = bytes.data() + start;
        const char *const end = bytes.data() + newline;
        qint64 size = 0, ms = 0;
        if (number(p, end, size) && p < end && *p == ' ' && number(++p, end, ms) && p == end && size >= 0 &&
            (m_samples.empty() || size >= m_samples.back().first))
            m_samples.emplace_back(size, ms);
        start = newline + 1;
    }
    m_read += start;
}

std::optional<qint64> LogTimes::timeOf(qint64 end) const
{
    const auto it = std::lower_bound(m_samples.begin(), m_samples.end(), end,
                                     [](const std::pair<qint64, qint64> &s, qint64 e) { return s.first < e; });
    if (it == m_samples.end())
        return std::nullopt;
    return it->second;
}

void LogTimes::dropBefore(qint64 offset)
{
    // The first sample at or past `offset` stays: it dates the line that ends there.
    const auto keep = std::lower_bound(m_samples.begin(), m_samples.end(), offset,
                                       [](const std::pair<qint64, qint64> &s, qint64 o) { return s.first < o; });
    m_samples.erase(m_samples.begin(), keep);
}

QByteArray LogTimes::line(qint64 logSize, qint64 ms)
{
    return QByteArray::number(logSize) + ' ' + QByteArray::number(ms) + '\n';
}

} // namespace ferry::run
