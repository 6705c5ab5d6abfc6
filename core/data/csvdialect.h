// Sniffs a table's dialect (delimiter, header, column names) and samples its first records, for
// loading and detection.
#pragma once

#include "data/csvsyntax.h"
#include "data/dataset.h"
#include "data/filebytes.h"

#include <QList>

// A table's dialect (delimiter, header, columns), sniffed from the start of the file, and the
// records there, for the loader and for detection.

namespace ferry::data::csv {

struct Record {
    QList<Field> fields;
    const char *begin = nullptr;
    const char *end = nullptr; // past its line break
};

// Up to `maxRecords` records from [p, end), blank lines skipped. When the range is only the
// start of the file (`truncated`), a record cut off by its end is left out; `unclosed` gets
// the record whose quoted field is never closed (in a whole file).
QList<Record> sampleRecords(const char *p, const char *end, char delimiter, int maxRecords, bool truncated,
                            const char **unclosed = nullptr);

struct Dialect {
    char delimiter = ',';
    bool header = false;
    const char *dataBegin = nullptr; // the first record after the header
    QStringList columns;
    QList<Record> sample; // the first records (the header too), within the sniffed bytes
};

// The delimiter (options.delimiter or sniffed: , tab ; |), whether the first row is a header
// (options.header or detected) and the column names, from the first records of the file.
Expected<Dialect> readDialect(const FileBytes &bytes, const QString &path, const TableOptions &options);

QString delimiterName(char delimiter); // "','", "tab"
Error emptyFileError(const QString &path);
Error unclosedQuoteError(const char *base, const char *at, const QString &path);

// Non-blank records in [begin, end), quoted line breaks not counted: memchr over the lines when
// nothing is quoted.
qint64 countRecords(const char *begin, const char *end);

} // namespace ferry::data::csv
