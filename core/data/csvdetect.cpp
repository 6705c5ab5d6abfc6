#include "data/csvreader.h"

#include "data/csvdialect.h"
#include "data/csvsyntax.h"
#include "data/filebytes.h"

#include <algorithm>

// What a table holds, from its dialect and the first rows alone (the drop preview): columns,
// their types, the head, the row count, and what would stop training on it.

using namespace Qt::StringLiterals;

namespace ferry::data {

using namespace csv;

namespace {

constexpr int headRows = 10; // rows shown in the preview

} // namespace

Expected<DatasetInfo> detectTable(const QString &path)
{
    FileBytes bytes;
    if (auto ok = bytes.open(path); !ok)
        return ok.error();
    if (bytes.size() == 0)
        return emptyFileError(path);
    auto dialect = readDialect(bytes, path, {});
    if (!dialect)
        return dialect.error();
    DatasetInfo info;
    info.kind = DatasetKind::Table;
    info.path = path;
    info.format = dialect->delimiter == '\t' ? u"tsv"_s : u"csv"_s;
    info.bytes = bytes.size();
    info.columns = dialect->columns;
    const qsizetype columns = info.columns.size();
    info.shape = {int(std::max<qsizetype>(columns - 1, 0))};
    info.samples = countRecords(dialect->dataBegin, bytes.end());

    const char *base = bytes.data();
    const char delimiter = dialect->delimiter;
    QList<Record> rows = dialect->sample;
    if (dialect->header && !rows.isEmpty())
        rows.removeFirst();
    QList<bool> text(columns, false);
    QList<QString> firstText(columns);
    qsizetype rowsWithMissing = 0;
    for (qsizetype r = 0; r < rows.size(); ++r) {
        const Record &record = rows[r];
        const int line = int(countNewlines(base, record.begin)) + 1;
        if (record.fields.size() != columns && info.problems.size() < 10)
            info.problems.append(u"line %1: %2 columns, not %3"_s.arg(line).arg(record.fields.size()).arg(columns));
        QStringList values;
        bool missing = false;
        for (qsizetype c = 0; c < record.fields.size(); ++c) {
            const Field &field = record.fields[c];
            if (r < headRows)
                values.append(fieldText(field));
            float value = 0;
            if (fieldMissing(field)) {
                missing = true;
            } else if (c < columns && !fieldNumber(field, delimiter, value) && !text[c]) {
                text[c] = true;
                firstText[c] = fieldText(field);
            }
        }
        rowsWithMissing += missing ? 1 : 0;
        if (r < headRows)
            info.head.append(values);
    }
    for (qsizetype c = 0; c < columns; ++c)
        info.columnTypes.append(text[c] ? u"text"_s : u"number"_s);
    for (qsizetype c = 0; c + 1 < columns; ++c) {
        if (text[c])
            info.problems.append(
                u"column '%1' holds text ('%2'): only the target column may; choose it as the target or remove it"_s
                    .arg(info.columns[c], firstText[c]));
    }
    if (rowsWithMissing > 0)
        info.problems.append(
            u"%1 of the first %2 rows have missing values (dropped, or filled with the mean)"_s.arg(rowsWithMissing)
                .arg(rows.size()));
    if (columns < 2)
        info.problems.append(u"only one column: a table needs feature columns and a target column"_s);
    if (info.samples == 0)
        info.problems.append(u"no data rows"_s);
    return info;
}

} // namespace ferry::data
