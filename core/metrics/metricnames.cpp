#include "metrics/metricnames.h"

#include <array>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

bool isControl(char16_t c)
{
    return c < 0x20 || (c >= 0x7f && c < 0xa0);
}

// "a run keeps at most 10000 metrics: 'NAME' and any later new name are not kept".
QString tooManyMetrics(QStringView name)
{
    return u"a run keeps at most %1 metrics: '%2' and any later new name are not kept"_s.arg(kMostSeriesPerRun)
        .arg(name.left(40));
}

} // namespace

QString metricNameProblem(QStringView name)
{
    if (name.isEmpty())
        return u"it is empty"_s;
    qsizetype bytes = 0;
    for (const QChar c : name) {
        const char16_t u = c.unicode();
        if (isControl(u))
            return u"it holds a control character (%1)"_s.arg(codePoint(c));
        // UTF-8: one byte below U+0080, two below U+0800, else three (a surrogate pair: 4 for 2)
        bytes += u < 0x80 ? 1 : u < 0x800 ? 2 : c.isSurrogate() ? 2 : 3;
    }
    if (bytes > kMostMetricNameBytes)
        return u"it is longer than %1 bytes (%2)"_s.arg(kMostMetricNameBytes).arg(bytes);
    return {};
}

QString refusedMetricName(QStringView name, const QString &problem)
{
    QString shown = name.left(40).toString();
    for (QChar &c : shown) {
        if (isControl(c.unicode()))
            c = QChar::ReplacementCharacter;
    }
    return u"metric name '%1%2' is not kept: %3"_s.arg(shown, name.size() > 40 ? u"…"_s : QString(), problem);
}

QString MetricNames::admit(const QString &name)
{
    if (m_names.contains(name))
        return {};
    if (const QString problem = metricNameProblem(name); !problem.isEmpty())
        return refusedMetricName(name, problem);
    if (m_names.size() >= kMostSeriesPerRun)
        return tooManyMetrics(name);
    m_names.insert(name);
    return {};
}

QStringList MetricNames::filter(QList<MetricPoint> &points)
{
    QStringList said;
    // Points share a few name strings: one admitted in this call is known again by its address
    // (kept here, so it is still that name), without hashing it.
    std::array<QString, 8> admitted;
    size_t next = 0;
    points.removeIf([&](const MetricPoint &p) {
        for (const QString &known : admitted) {
            if (sameNameString(known, p.name))
                return false;
        }
        const QString refused = admit(p.name);
        if (refused.isEmpty()) {
            admitted[next] = p.name;
            next = (next + 1) % admitted.size();
        }
        if (refused.isEmpty())
            return false;
        bool &once = isMetricName(p.name) ? m_saidCount : m_saidName;
        if (!once)
            said << refused;
        once = true;
        return true;
    });
    return said;
}

} // namespace ferry::run
