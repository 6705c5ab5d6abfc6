#include "data/csvdialect.h"

#include "data/csvsyntax.h"

#include <QFileInfo>

#include <cstring>
#include <map>

using namespace Qt::StringLiterals;

namespace ferry::data::csv {

namespace {

constexpr qint64 sniffBytes = 64 * 1024;
constexpr int sniffRecords = 50;

} // namespace

QList<Record> sampleRecords(const char *p, const char *end, char delimiter, int maxRecords, bool truncated,
                            const char **unclosed)
{
    QList<Record> records;
    while (p < end && records.size() < maxRecords) {
        if (*p == '\n' || (*p == '\r' && (p + 1 == end || p[1] == '\n'))) {
            ++p;
            continue;
        }
        Record record;
        record.begin = p;
        bool lineBreak = false;
        for (;;) {
            Field field;
            const char *q = scanField(p, end, delimiter, field);
            if (!q) {
                if (unclosed && !truncated)
                    *unclosed = record.begin;
                return records;
            }
            record.fields.append(field);
            if (q < end && *q == delimiter) {
                p = q + 1;
                continue;
            }
            p = q;
            if (p < end && *p == '\r')
                ++p;
            if (p < end && *p == '\n') {
                ++p;
                lineBreak = true;
            }
            break;
        }
        if (truncated && !lineBreak)
            break;
        record.end = p;
        records.append(record);
    }
    return records;
}

QString delimiterName(char delimiter)
{
    switch (delimiter) {
    case '\t':
        return u"tab"_s;
    case ' ':
        return u"space"_s;
    default:
        return u"'"_s + QChar::fromLatin1(delimiter) + u"'"_s;
    }
}

namespace {

// The candidate whose field count is the same on most lines, then the one that gives the most
// fields; a single column when none splits the lines.
char sniffDelimiter(const char *begin, const char *end, bool truncated, bool preferTab)
{
    const char commaFirst[] = {',', '\t', ';', '|'};
    const char tabFirst[] = {'\t', ',', ';', '|'};
    char best = preferTab ? '\t' : ',';
    double bestConsistency = -1;
    int bestFields = 1;
    for (char delimiter : preferTab ? tabFirst : commaFirst) {
        const QList<Record> records = sampleRecords(begin, end, delimiter, sniffRecords, truncated);
        if (records.isEmpty())
            continue;
        std::map<qsizetype, int> frequency;
        for (const Record &record : records)
            ++frequency[record.fields.size()];
        qsizetype mode = 0;
        int modeCount = 0;
        for (const auto &[fields, count] : frequency) {
            if (count >= modeCount) {
                mode = fields;
                modeCount = count;
            }
        }
        if (mode < 2)
            continue;
        const double consistency = double(modeCount) / double(records.size());
        if (consistency > bestConsistency || (consistency == bestConsistency && mode > bestFields)) {
            best = delimiter;
            bestConsistency = consistency;
            bestFields = int(mode);
        }
    }
    return best;
}

// A first row of names above numbers: some column holds text in the first row and only
// numbers (or missing values) below it. A table of text alone has a header when no first-row
// value comes back below it in its column.
bool looksLikeHeader(const QList<Record> &records, char delimiter)
{
    if (records.isEmpty())
        return false;
    const QList<Field> &first = records.first().fields;
    float value = 0;
    bool allText = true;
    for (qsizetype c = 0; c < first.size(); ++c) {
        const bool text = !fieldMissing(first[c]) && !fieldNumber(first[c], delimiter, value);
        allText = allText && text;
        if (!text)
            continue;
        bool numbersBelow = false;
        bool textBelow = false;
        for (qsizetype r = 1; r < records.size(); ++r) {
            const QList<Field> &fields = records[r].fields;
            if (c >= fields.size() || fieldMissing(fields[c]))
                continue;
            if (fieldNumber(fields[c], delimiter, value))
                numbersBelow = true;
            else
                textBelow = true;
        }
        if (numbersBelow && !textBelow)
            return true;
    }
    if (!allText)
        return false;
    for (qsizetype c = 0; c < first.size(); ++c) {
        for (qsizetype r = 1; r < records.size(); ++r) {
            const QList<Field> &fields = records[r].fields;
            if (c < fields.size() && fieldBytes(fields[c]) == fieldBytes(first[c]))
                return false;
        }
    }
    return true;
}
} // namespace

Error emptyFileError(const QString &path)
{
    return Error{u"the file is empty"_s, path, 0, 0, u"choose a table with a header row and one row per sample"_s};
}

Error unclosedQuoteError(const char *base, const char *at, const QString &path)
{
    const int line = int(countNewlines(base, at)) + 1;
    return Error{u"a quoted field is never closed"_s, path, line, 0,
                 uR"(close the quote with " (a quote inside a quoted field is written ""))"_s};
}

Expected<Dialect> readDialect(const FileBytes &bytes, const QString &path, const TableOptions &options)
{
    const char *base = bytes.data();
    const char *begin = base;
    const char *end = bytes.end();
    if (end - begin >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0)
        begin += 3;
    const bool preferTab = QFileInfo(path).suffix().compare(u"tsv"_s, Qt::CaseInsensitive) == 0 ||
                           QFileInfo(path).suffix().compare(u"tab"_s, Qt::CaseInsensitive) == 0;
    Dialect dialect;
    // At least two whole records (a header and a row), reading further when lines are long.
    for (qint64 window = sniffBytes;; window *= 4) {
        const char *sampleEnd = end - begin > window ? begin + window : end;
        const bool truncated = sampleEnd < end;
        dialect.delimiter =
            options.delimiter ? *options.delimiter : sniffDelimiter(begin, sampleEnd, truncated, preferTab);
        const char *unclosed = nullptr;
        dialect.sample = sampleRecords(begin, sampleEnd, dialect.delimiter, sniffRecords, truncated, &unclosed);
        if (dialect.sample.isEmpty() && unclosed)
            return unclosedQuoteError(base, unclosed, path);
        if (dialect.sample.size() >= 2 || !truncated)
            break;
    }
    if (dialect.sample.isEmpty())
        return emptyFileError(path);
    const Record &first = dialect.sample.first();
    dialect.header = options.header ? *options.header : looksLikeHeader(dialect.sample, dialect.delimiter);
    for (qsizetype c = 0; c < first.fields.size(); ++c) {
        const QString name = dialect.header ? fieldText(first.fields[c]).trimmed() : QString();
        dialect.columns.append(name.isEmpty() ? u"column%1"_s.arg(c + 1) : name);
    }
    dialect.dataBegin = dialect.header ? first.end : first.begin;
    return dialect;
}

// Non-blank records in [begin, end): a memchr walk over the lines when no field is quoted,
// else a byte walk that knows when a line break lies inside quotes.
qint64 countRecords(const char *begin, const char *end)
{
    qint64 count = 0;
    if (!std::memchr(begin, '"', size_t(end - begin))) {
        for (const char *p = begin; p < end;) {
            const char *newline = static_cast<const char *>(std::memchr(p, '\n', size_t(end - p)));
            const char *lineEnd = newline ? newline : end;
            if (lineEnd - p > 1 || (lineEnd - p == 1 && *p != '\r'))
                ++count;
            if (!newline)
                break;
            p = newline + 1;
        }
        return count;
    }
    bool quoted = false;
    bool content = false;
    for (const char *p = begin; p < end; ++p) {
        const char c = *p;
        if (c == '"')
            quoted = !quoted;
        if (c == '\n' && !quoted) {
            count += content ? 1 : 0;
            content = false;
        } else if (c != '\r') {
            content = true;
        }
    }
    return count + (content ? 1 : 0);
}

} // namespace ferry::data::csv
