// AlertRule: the rules that raise an alert while a run goes (`val_loss>2.5`, `loss:nan`,
// `stalled:10m`), their syntax and what they fire on.
#pragma once

// One syntax for `ferry runs watch --alert RULE` and the window's alert rules (Settings > Alerts,
// a run's Alerts… in the runs table), documented in docs/metrics.md, *Alerts*:
//
//   rule     := metric op NUMBER | metric ':nan' | 'stalled:' DURATION | 'gpu_idle:' DURATION
//   metric   := a metric's name (up to the first < > = or :, spaces trimmed), "quoted" or 'quoted'
//               (\ escapes the next character), or * for every metric of the run
//   op       := > | >= | < | <=
//   DURATION := NUMBER followed by s, m or h (at least 1 s, at most 7 days)
//
// Rules are separated by commas or line breaks in a list (parseAlertRules). A parse error names
// the column (Error::column, 1-based) and what was expected there.
#include "common/error.h"

#include <QList>
#include <QString>

namespace ferry::run {

struct AlertRule {
    enum class Kind {
        Above,     // metric > value
        AtLeast,   // metric >= value
        Below,     // metric < value
        AtMost,    // metric <= value
        NotFinite, // metric :nan: a point that is NaN or ±infinity
        Stalled,   // stalled:DURATION: no new point of any metric for that long while the run runs
        GpuIdle,   // gpu_idle:DURATION: a GPU of the run at 0 % for that long (tracking/idlegpu.h)
    };
    Kind kind = Kind::Above;
    QString metric; // the metric's name; "*": every metric; empty for Stalled and GpuIdle
    double threshold = 0;
    qint64 stallMs = 0; // Stalled, GpuIdle: the duration

    bool operator==(const AlertRule &) const = default;

    // The rule as it is written back: `val_loss > 2.5`, `loss:nan`, `stalled:10m`; parse() reads
    // it again to the same rule.
    QString text() const;
    // Whether a value of the rule's metric meets it (false for Stalled and GpuIdle).
    bool holds(double value) const;
    bool matches(const QString &metricName) const { return metric == QLatin1StringView("*") || metric == metricName; }
    // Whether the rule is over a metric's points (not a duration: Stalled, GpuIdle).
    bool isMetricRule() const { return kind != Kind::Stalled && kind != Kind::GpuIdle; }
    // Whether the rule is a stall (no point for a while), which reads no point's value.
    bool isStallRule() const { return kind == Kind::Stalled; }

    // One rule. An error names the column in `text` (1-based; `offset` added, for a rule within a
    // longer text) and what was expected.
    static Expected<AlertRule> parse(QStringView text, int offset = 0);
};

inline constexpr qint64 kLeastStallMs = 1000;
inline constexpr qint64 kMostStallMs = 7LL * 24 * 3600 * 1000;
inline constexpr qsizetype kMostAlertRules = 100; // in one list

// Rules separated by commas or line breaks (blank ones skipped); the first bad rule's error, its
// column counted in the whole text. At most kMostAlertRules.
Expected<QList<AlertRule>> parseAlertRules(const QString &text);
// The rules as parseAlertRules reads them back: "val_loss > 2.5, loss:nan".
QString alertRulesText(const QList<AlertRule> &rules);

// "10m", "90s", "1h30m": a stall's duration as a rule writes it.
QString stallText(qint64 ms);

} // namespace ferry::run
