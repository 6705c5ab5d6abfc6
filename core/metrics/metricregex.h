// A metric definition's regex, run on a log line with a bounded cost (PCRE2).
#pragma once

// A metric definition's regex (SageMaker's MetricDefinitions: the value in its first capture
// group), run on every line of a run's log with a bounded cost (security review N8: a bundle's
// definitions run on each line of its rerun, and `(a+)+$` takes forever on a line of a's).
// PCRE2 directly, which QRegularExpression wraps without its limits: a match limit, a depth
// limit and a heap limit from each starting point, and a match starts within a line's first
// kMostMatchStarts characters; a line past a limit gives no point (Match::TooCostly), never a
// hang.
#include "common/error.h"

#include <QString>
#include <QStringView>

#include <memory>

struct pcre2_real_code_16;

namespace ferry::run {

inline constexpr qsizetype kMostMetricDefinitions = 64;
inline constexpr qsizetype kMostMetricRegexChars = 1024;
inline constexpr qsizetype kMostMatchStarts = 1024; // where in a line a match may start

class MetricRegex {
public:
    // Refuses a pattern longer than kMostMetricRegexChars, one PCRE2 does not compile (with the
    // offset and PCRE2's words) and one without a capture group.
    static Expected<MetricRegex> compile(const QString &pattern);

    enum class Match { None, Found, TooCostly };
    // Whether the line matches (from one of its first kMostMatchStarts characters), and then the
    // first group's text in `value` (a view into `line`).
    Match match(QStringView line, QStringView &value) const;

private:
    explicit MetricRegex(std::shared_ptr<const pcre2_real_code_16> code) : m_code(std::move(code)) {}
    std::shared_ptr<const pcre2_real_code_16> m_code; // shared: a parser is copied whole
};

} // namespace ferry::run
