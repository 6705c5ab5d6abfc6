#include "common/durationtext.h"

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

} // namespace ferry
