#include "tracking/progress.h"

#include "metrics/terminaltext.h"
#include "run/workparameter.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// A whole number written with digits (and Hugging Face's thousands commas), at `from`; its end in `end`.
std::optional<double> progressNumber(QStringView text, qsizetype from, qsizetype &end)
{
    double value = 0;
    qsizetype i = from;
    bool any = false;
    for (; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c.isDigit()) {
            value = value * 10 + c.digitValue();
            any = true;
        } else if (c != u',' || !any) {
            break;
        }
    }
    end = i;
    return any && value < 1e15 ? std::optional<double>(value) : std::nullopt;
}

// The number after `label` ("Total optimization steps = 1,000"), when the record has the label.
std::optional<double> labelledNumber(QStringView record, QLatin1StringView label)
{
    const qsizetype at = record.indexOf(label);
    if (at < 0)
        return std::nullopt;
    qsizetype i = at + label.size();
    while (i < record.size() && (record[i] == u' ' || record[i] == u'=' || record[i] == u':'))
        ++i;
    qsizetype end = 0;
    return progressNumber(record, i, end);
}

// "n/total" just before `at` (where " [" begins): tqdm's "45/100 [00:01<...", Keras' "12/313 [==>".
std::optional<std::pair<double, double>> counterBefore(QStringView text, qsizetype at)
{
    qsizetype start = at;
    while (start > 0 && (text[start - 1].isDigit() || text[start - 1] == u'/'))
        --start;
    const QStringView word = text.sliced(start, at - start);
    const qsizetype slash = word.indexOf(u'/');
    if (slash <= 0 || slash + 1 >= word.size() || word.indexOf(u'/', slash + 1) >= 0)
        return std::nullopt;
    qsizetype end = 0;
    const auto n = progressNumber(word, 0, end);
    const auto total = progressNumber(word, slash + 1, end);
    if (!n || !total || *total <= 0 || *n > *total)
        return std::nullopt;
    return std::pair{*n, *total};
}

Progress progressOf(double done, double total, ProgressSource source)
{
    Progress p;
    p.done = done;
    p.total = total;
    p.source = source;
    p.fraction = std::clamp(done / total, 0.0, 1.0);
    return p;
}

} // namespace

QString progressSourceName(ProgressSource source)
{
    switch (source) {
    case ProgressSource::Steps:
        return u"steps"_s;
    case ProgressSource::Epochs:
        return u"epochs"_s;
    case ProgressSource::Bar:
        break;
    }
    return u"bar"_s;
}

QString Progress::text() const
{
    const QString unit = source == ProgressSource::Bar ? QString() : u' ' + progressSourceName(source);
    const auto number = [](double v) { return QString::number(v, 'f', v == std::floor(v) ? 0 : 2); };
    return u"%1 % (%2/%3%4)"_s.arg(QString::number(std::floor(fraction * 1000) / 10, 'f', 1), number(done),
                                   number(total), unit);
}

ProgressTracker::ProgressTracker(const RunSpec &spec)
{
    for (const QString &name : workParameterNames()) {
        const auto value = workValue(spec, name);
        if (!value)
            continue;
        if (isEpochParameter(name)) {
            if (!m_paramEpochs)
                m_paramEpochs = value;
        } else if (!m_paramSteps) {
            m_paramSteps = value;
        }
    }
}

void ProgressTracker::feed(QStringView record, qint64 wallMs, const MetricPoint *points, qsizetype count)
{
    const auto before = current();
    for (qsizetype i = 0; i < count; ++i) {
        const MetricPoint &p = points[i];
        if (std::isfinite(p.epoch))
            m_epoch = p.epoch;
        else if (p.name == "epoch"_L1 && std::isfinite(p.value))
            m_epoch = p.value;
    }
    const QStringView trimmed = record.trimmed();
    if (trimmed.startsWith("Epoch "_L1)) { // Keras: "Epoch 3/10"
        qsizetype end = 0;
        const auto k = progressNumber(trimmed, 6, end);
        const QStringView rest = trimmed.sliced(end);
        if (k && rest.startsWith(u'/')) {
            const auto n = progressNumber(rest, 1, end);
            if (n && end == rest.size() && *n > 0 && *k >= 1 && *k <= *n) {
                m_kerasEpoch = Bar{*k, *n};
                m_kerasBar.reset();
            }
        }
    } else if (trimmed.contains(u'/') && isProgressBar(trimmed)) {
        for (qsizetype at = trimmed.indexOf(" ["_L1); at > 0; at = trimmed.indexOf(" ["_L1, at + 2)) {
            const auto counter = counterBefore(trimmed, at);
            if (!counter)
                continue;
            const Bar bar{counter->first, counter->second};
            const QChar next = at + 2 < trimmed.size() ? trimmed[at + 2] : QChar();
            if (next == u'=' || next == u'.' || next == u'>') { // Keras' bar
                if (m_kerasEpoch)
                    m_kerasBar = bar;
            } else {
                m_bar = bar;
                if (m_totalSteps.value_or(m_paramSteps.value_or(-1)) == bar.total)
                    m_stepsBar = bar;
            }
            break;
        }
    } else if (trimmed.contains("Total optimization steps"_L1)) {
        m_totalSteps = labelledNumber(trimmed, "Total optimization steps"_L1);
        if (m_bar && m_totalSteps == m_bar->total)
            m_stepsBar = m_bar;
    } else if (trimmed.contains("Num Epochs"_L1)) {
        if (const auto epochs = labelledNumber(trimmed, "Num Epochs"_L1); epochs && *epochs > 0)
            m_numEpochs = epochs;
    }
    const auto after = current();
    if (after && (!before || before->fraction != after->fraction || before->source != after->source))
        remember(wallMs);
}

void ProgressTracker::feedRedraws(QByteArrayView line, qint64 wallMs)
{
    if (!line.contains('\r') || line.startsWith("ferry: "))
        return;
    for (qsizetype end = line.size(); end > 0;) {
        const qsizetype cr = line.lastIndexOf('\r', end - 1);
        const QByteArrayView part = line.sliced(cr + 1, end - cr - 1);
        end = cr < 0 ? 0 : cr;
        if (!part.contains('/') || !part.contains(" ["))
            continue;
        const QString text = terminalText(part, false);
        if (isProgressBar(text)) {
            feed(text, wallMs);
            return;
        }
    }
}

std::optional<Progress> ProgressTracker::current() const
{
    const std::optional<double> steps = m_totalSteps ? m_totalSteps : m_paramSteps;
    if (steps && m_stepsBar && m_stepsBar->total == *steps)
        return progressOf(m_stepsBar->n, *steps, ProgressSource::Steps);
    if (m_kerasEpoch) {
        const double within = m_kerasBar ? m_kerasBar->n / m_kerasBar->total : 0;
        return progressOf(m_kerasEpoch->n - 1 + within, m_kerasEpoch->total, ProgressSource::Epochs);
    }
    const std::optional<double> epochs = m_numEpochs ? m_numEpochs : m_paramEpochs;
    if (epochs && m_epoch)
        return progressOf(*m_epoch, *epochs, ProgressSource::Epochs);
    if (m_bar)
        return progressOf(m_bar->n, m_bar->total, ProgressSource::Bar);
    return std::nullopt;
}

void ProgressTracker::remember(qint64 wallMs)
{
    const auto now = current();
    if (!now)
        return;
    if (m_readingSource != now->source) {
        m_readings.clear();
        m_readingSource = now->source;
    }
    if (wallMs <= 0)
        return;
    if (!m_readings.empty()) {
        // Older than the newest reading (a line whose bar was seen while it was being written):
        // nothing new about the rate.
        if (wallMs <= m_readings.back().wallMs)
            return;
        // A fraction that went back (a bar started again): the rate starts again from it.
        if (now->fraction < m_readings.back().fraction)
            m_readings.clear();
    }
    m_readings.push_back({wallMs, now->fraction});
    while (m_readings.size() > 2 && m_readings.front().wallMs < wallMs - kProgressWindowMs)
        m_readings.pop_front();
}

std::optional<Progress> ProgressTracker::progress(qint64 startedMs, qint64 nowMs) const
{
    auto p = current();
    if (!p)
        return std::nullopt;
    const double left = 1.0 - p->fraction;
    if (left <= 0) {
        p->etaSeconds = 0;
        return p;
    }
    if (m_readingSource == p->source && m_readings.size() >= 2) {
        const Reading &first = m_readings.front(), &last = m_readings.back();
        const double seconds = double(last.wallMs - first.wallMs) / 1000.0;
        const double moved = last.fraction - first.fraction;
        if (seconds >= 1 && moved > 0) {
            const double since = double(std::max<qint64>(0, nowMs - last.wallMs)) / 1000.0;
            p->etaSeconds = std::max(0.0, left * seconds / moved - since);
            return p;
        }
    }
    if (p->fraction > 0 && startedMs > 0 && nowMs > startedMs)
        p->etaSeconds = double(nowMs - startedMs) / 1000.0 * left / p->fraction;
    return p;
}

} // namespace ferry::run
