#include "metrics/metricregex.h"

#define PCRE2_CODE_UNIT_WIDTH 16
#include <pcre2.h>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// Units of work per starting point (about 10 ns each, 1.5 with the JIT): 10,000 let any sane
// metric regex match a line, and stop `(a+)+$` within a millisecond. PCRE2 counts them per
// starting point, so a line costs at most kMostMatchStarts times this.
constexpr uint32_t kMatchLimit = 10000;
constexpr uint32_t kDepthLimit = 1000;
constexpr uint32_t kHeapLimitKiB = 1024;

// The limits every match runs under; PCRE2 only reads them (a context shared between threads).
pcre2_match_context_16 *limits()
{
    static pcre2_match_context_16 *const context = [] {
        pcre2_match_context_16 *c = pcre2_match_context_create_16(nullptr);
        pcre2_set_match_limit_16(c, kMatchLimit);
        pcre2_set_offset_limit_16(c, kMostMatchStarts);
        pcre2_set_depth_limit_16(c, kDepthLimit);
        pcre2_set_heap_limit_16(c, kHeapLimitKiB);
        return c;
    }();
    return context;
}

// Two pairs of offsets (the match and its first group) for the matches of this thread.
pcre2_match_data_16 *matchData()
{
    thread_local const std::unique_ptr<pcre2_match_data_16, decltype(&pcre2_match_data_free_16)> data(
        pcre2_match_data_create_16(2, nullptr), pcre2_match_data_free_16);
    return data.get();
}

QString errorText(int code)
{
    PCRE2_UCHAR16 buffer[256];
    const int length = pcre2_get_error_message_16(code, buffer, std::size(buffer));
    return length < 0 ? u"error %1"_s.arg(code)
                      : QString::fromUtf16(reinterpret_cast<const char16_t *>(buffer), length);
}

} // namespace

Expected<MetricRegex> MetricRegex::compile(const QString &pattern)
{
    if (pattern.size() > kMostMetricRegexChars)
        return Error{u"the regex is longer than %1 characters (%2)"_s.arg(kMostMetricRegexChars).arg(pattern.size()),
                     {},
                     0,
                     0,
                     u"a metric's regex needs a few words around its value, e.g. loss=([0-9.]+)"_s};
    int code = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code_16 *compiled =
        pcre2_compile_16(reinterpret_cast<PCRE2_SPTR16>(pattern.utf16()), PCRE2_SIZE(pattern.size()),
                         PCRE2_UTF | PCRE2_USE_OFFSET_LIMIT, &code, &offset, nullptr);
    if (!compiled)
        return Error{u"bad regex at offset %1: %2"_s.arg(offset).arg(errorText(code)),
                     {},
                     0,
                     0,
                     u"fix the Regex of this metric definition"_s};
    std::shared_ptr<const pcre2_real_code_16> owned(
        compiled, [](const pcre2_real_code_16 *c) { pcre2_code_free_16(const_cast<pcre2_real_code_16 *>(c)); });
    uint32_t groups = 0;
    pcre2_pattern_info_16(compiled, PCRE2_INFO_CAPTURECOUNT, &groups);
    if (groups < 1)
        return Error{
            u"the regex has no capture group"_s, {}, 0, 0, u"put the value in parentheses, e.g. loss=([0-9.]+)"_s};
    pcre2_jit_compile_16(compiled, PCRE2_JIT_COMPLETE); // where there is no JIT, matching interprets
    return MetricRegex(std::move(owned));
}

MetricRegex::Match MetricRegex::match(QStringView line, QStringView &value) const
{
    pcre2_match_data_16 *data = matchData();
    const int found = pcre2_match_16(m_code.get(), reinterpret_cast<PCRE2_SPTR16>(line.utf16()),
                                     PCRE2_SIZE(line.size()), 0, 0, data, limits());
    switch (found) {
    case PCRE2_ERROR_NOMATCH:
        return Match::None;
    case PCRE2_ERROR_MATCHLIMIT:
    case PCRE2_ERROR_DEPTHLIMIT:
    case PCRE2_ERROR_HEAPLIMIT:
    case PCRE2_ERROR_JIT_STACKLIMIT:
        return Match::TooCostly;
    default:
        break;
    }
    if (found < 0) // invalid UTF-16 in the line, and the like: no match
        return Match::None;
    const PCRE2_SIZE *offsets = pcre2_get_ovector_pointer_16(data);
    if (offsets[2] == PCRE2_UNSET) // the group took no part in the match
        value = {};
    else
        value = line.sliced(qsizetype(offsets[2]), qsizetype(offsets[3] - offsets[2]));
    return Match::Found;
}

} // namespace ferry::run
