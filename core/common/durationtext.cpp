#include "common/durationtext.h"

#include <QStringList>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry {

QString durationText(qint64 ms)
{
    if (ms < 100)
        return u"%1ms"_s.arg(std::max<qint64>(ms, 0));
    if (ms < 1000)
        return u"%1s"_s.arg(static_cast<double>(ms) / 1000.0, 0, 'f', 1);
    const qint64 seconds = ms / 1000;
    const qint64 h = seconds / 3600;
    const qint64 m = (seconds / 60) % 60;
    const qint64 s = seconds % 60;
    if (h > 0)
        return u"%1h %2m"_s.arg(h).arg(m, 2, 10, QChar(u'0'));
    if (m > 0)
        return u"%1m %2s"_s.arg(m).arg(s, 2, 10, QChar(u'0'));
    return u"%1s"_s.arg(s);
}

QString clockText(qint64 seconds)
{
    const qint64 s = std::max<qint64>(seconds, 0);
    return u"%1:%2:%3"_s.arg(s / 3600).arg((s / 60) % 60, 2, 10, QChar(u'0')).arg(s % 60, 2, 10, QChar(u'0'));
}

std::optional<qint64> parseClockText(const QString &text)
{
    const QStringList parts = text.trimmed().split(u':');
    if (parts.size() > 3)
        return std::nullopt;
    qint64 total = 0;
    for (qsizetype i = 0; i < parts.size(); ++i) {
        const QString &part = parts[i];
        bool ok = false;
        const qint64 value = part.toLongLong(&ok);
        const bool digitsOnly = !part.isEmpty() && part.size() <= 9 &&
                                std::all_of(part.begin(), part.end(), [](QChar c) { return c.isDigit(); });
        if (!ok || !digitsOnly || (i > 0 && (value >= 60 || part.size() != 2)))
            return std::nullopt;
        total = total * 60 + value;
    }
    return total;
}

} // namespace ferry
