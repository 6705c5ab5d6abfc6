#include "cost/catalog.h"

#include "common/textfile.h"
#include "cost/shippedcatalog.h"
#include "data/csvsyntax.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QStandardPaths>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::cost {

namespace {

// Past this many malformed rows a file's further ones are counted, not each said.
constexpr int kCatalogReportedRows = 20;
constexpr int kCatalogMaxRows = 500000;
constexpr qsizetype kCatalogMaxField = 512;

enum class Column {
    InstanceType,
    Vcpus,
    Memory,
    AcceleratorName,
    AcceleratorCount,
    Region,
    Price,
    SpotPrice,
    Date,
    Source
};

struct ColumnName {
    Column column;
    QLatin1StringView name;
    bool required;
};

constexpr ColumnName kCatalogColumns[] = {
    {Column::InstanceType, "InstanceType"_L1, true},
    {Column::Vcpus, "vCPUs"_L1, true},
    {Column::Memory, "MemoryGiB"_L1, true},
    {Column::AcceleratorName, "AcceleratorName"_L1, true},
    {Column::AcceleratorCount, "AcceleratorCount"_L1, true},
    {Column::Region, "Region"_L1, true},
    {Column::Price, "Price"_L1, true},
    {Column::SpotPrice, "SpotPrice"_L1, true},
    {Column::Date, "Date"_L1, false},
    {Column::Source, "Source"_L1, false},
};

// A number's column and the largest value it may take.
struct NumberBound {
    Column column;
    double max;
};
constexpr NumberBound kCatalogNumbers[] = {
    {Column::Vcpus, 100000}, {Column::Memory, 1e7},    {Column::AcceleratorCount, 4096},
    {Column::Price, 1e6},    {Column::SpotPrice, 1e6},
};

struct RawRecord {
    QStringList fields;
    int line = 0;
};

// Reads the records of a CSV text line by line: comments ('#' first) and blank lines skipped,
// "# date:" remembered. Stops at a quote never closed (an error: the rest cannot be read).
class CatalogLines {
public:
    CatalogLines(QByteArrayView text, const QString &path)
        : m_p(text.data()), m_end(text.data() + text.size()), m_path(path)
    {
    }

    std::optional<RawRecord> next(Diagnostics &diagnostics)
    {
        while (m_p < m_end) {
            const char *lineEnd = lineEndOf(m_p);
            const QByteArrayView line = QByteArrayView(m_p, lineEnd - m_p).trimmed();
            if (line.isEmpty() || line.startsWith('#')) {
                if (line.startsWith('#'))
                    readComment(line);
                advancePast(lineEnd);
                continue;
            }
            return record(diagnostics);
        }
        return std::nullopt;
    }

    QDate fileDate() const { return m_date; }

private:
    const char *lineEndOf(const char *p) const
    {
        while (p < m_end && *p != '\n')
            ++p;
        return p;
    }

    void advancePast(const char *lineEnd)
    {
        m_p = lineEnd < m_end ? lineEnd + 1 : m_end;
        ++m_line;
    }

    void readComment(QByteArrayView line)
    {
        const QString text = QString::fromUtf8(line.sliced(1)).trimmed();
        if (text.startsWith(u"date:"_s))
            m_date = QDate::fromString(text.mid(5).trimmed(), Qt::ISODate);
    }

    std::optional<RawRecord> record(Diagnostics &diagnostics)
    {
        RawRecord record{{}, m_line};
        const char *p = m_p;
        while (true) {
            data::csv::Field field;
            const char *q = data::csv::scanField(p, m_end, ',', field);
            if (!q) {
                diagnostics << Diagnostic{Diagnostic::Severity::Error,
                                          Error{u"a quoted field is never closed: the rest of the file is not read"_s,
                                                m_path, m_line, 0,
                                                u"close the quote (\"), or double a quote inside one"_s}};
                m_p = m_end;
                return std::nullopt;
            }
            if (field.quoted)
                m_line += int(std::count(field.begin, field.end, '\n'));
            record.fields << data::csv::fieldText(field);
            p = q;
            if (p < m_end && *p == ',') {
                ++p;
                continue;
            }
            break;
        }
        // What ends the record: "\r\n", "\n" or the end (a lone '\r' ends it too).
        if (p < m_end && *p == '\r')
            ++p;
        advancePast(p < m_end && *p == '\n' ? p : (p < m_end ? p - 1 : m_end));
        return record;
    }

    const char *m_p;
    const char *m_end;
    QString m_path;
    int m_line = 1;
    QDate m_date;
};

Diagnostic rowError(const QString &message, const QString &path, int line, const QString &hint)
{
    return Diagnostic{Diagnostic::Severity::Error, Error{message, path, line, 0, hint}};
}

// The header's columns by position; an Error when a required one is missing.
Expected<QHash<Column, int>> headerColumns(const RawRecord &header, const QString &path)
{
    QHash<Column, int> at;
    QStringList missing;
    for (const ColumnName &c : kCatalogColumns) {
        const int index = int(header.fields.indexOf(c.name));
        if (index >= 0)
            at.insert(c.column, index);
        else if (c.required)
            missing << c.name;
    }
    if (!missing.isEmpty())
        return Error{u"the header lacks the column(s) %1"_s.arg(missing.join(u", "_s)), path, header.line, 0,
                     u"a catalog's first row names its columns as SkyPilot's do: InstanceType,vCPUs,MemoryGiB,"
                     u"AcceleratorName,AcceleratorCount,Region,Price,SpotPrice[,Date,Source]"_s};
    return at;
}

// Why a text field cannot be taken; empty: it can.
QString textProblem(const QString &text, const QString &column)
{
    if (text.size() > kCatalogMaxField)
        return u"%1 is longer than %2 characters"_s.arg(column).arg(kCatalogMaxField);
    for (const QChar c : text) {
        if (isControlCharacter(c))
            return u"%1 holds the control character %2"_s.arg(column, codePoint(c));
    }
    return {};
}

// One row into an entry; the reason when it is malformed.
Expected<CatalogEntry> entryOf(const RawRecord &row, const QHash<Column, int> &at, qsizetype columns,
                               const QString &path, const QString &cloud, const QDate &fileDate)
{
    const auto malformed = [&](const QString &message, const QString &hint) {
        return Error{u"malformed row: %1"_s.arg(message), path, row.line, 0, hint};
    };
    if (row.fields.size() != columns)
        return malformed(u"%1 fields where the header has %2"_s.arg(row.fields.size()).arg(columns),
                         u"quote a field that holds a comma"_s);
    const auto field = [&](Column c) { return at.contains(c) ? row.fields.at(at.value(c)).trimmed() : QString(); };
    for (const ColumnName &c : kCatalogColumns) {
        if (const QString why = textProblem(field(c.column), c.name); !why.isEmpty())
            return malformed(why, u"remove it"_s);
    }
    CatalogEntry e;
    e.cloud = cloud;
    e.file = path;
    e.line = row.line;
    e.instanceType = field(Column::InstanceType);
    if (e.instanceType.isEmpty())
        return malformed(u"no InstanceType"_s, u"name the instance type, as the cloud does"_s);
    e.acceleratorName = field(Column::AcceleratorName);
    e.region = field(Column::Region);
    e.source = field(Column::Source);
    QHash<Column, std::optional<double>> numbers;
    for (const NumberBound &n : kCatalogNumbers) {
        const QString text = field(n.column);
        if (text.isEmpty()) {
            numbers.insert(n.column, std::nullopt);
            continue;
        }
        bool ok = false;
        const double value = text.toDouble(&ok);
        const QString name =
            std::find_if(std::begin(kCatalogColumns), std::end(kCatalogColumns), [&](const ColumnName &c) {
                return c.column == n.column;
            })->name;
        if (!ok || !std::isfinite(value) || value < 0 || value > n.max)
            return malformed(u"%1 '%2' is not a number from 0 to %3"_s.arg(name, text).arg(n.max),
                             u"write a plain number such as 3.06, or leave the field empty when unknown"_s);
        numbers.insert(n.column, value);
    }
    e.vcpus = numbers.value(Column::Vcpus).value_or(0);
    e.memoryGiB = numbers.value(Column::Memory).value_or(0);
    e.acceleratorCount = numbers.value(Column::AcceleratorCount).value_or(0);
    e.price = numbers.value(Column::Price);
    e.spotPrice = numbers.value(Column::SpotPrice);
    e.date = fileDate;
    if (const QString date = field(Column::Date); !date.isEmpty()) {
        e.date = QDate::fromString(date, Qt::ISODate);
        if (!e.date.isValid() || date.size() != 10)
            return malformed(u"Date '%1' is not a date"_s.arg(date), u"write it as YYYY-MM-DD"_s);
    }
    return e;
}

QByteArray shippedCatalogText(const QString &cloud)
{
    if (cloud == u"aws"_s)
        return awsCatalogText();
    if (cloud == u"azure"_s)
        return azureCatalogText();
    if (cloud == u"sagemaker"_s)
        return sageMakerCatalogText();
    return gcpCatalogText();
}

} // namespace

QString CatalogEntry::dateText() const
{
    return date.isValid() ? date.toString(Qt::ISODate) : u"undated"_s;
}

QStringList catalogClouds()
{
    return {u"aws"_s, u"azure"_s, u"gcp"_s, u"sagemaker"_s};
}

CatalogRead parseCatalog(QByteArrayView text, const QString &path, const QString &cloud)
{
    CatalogRead read;
    CatalogLines lines(text, path);
    const auto header = lines.next(read.diagnostics);
    if (!header) {
        if (!hasErrors(read.diagnostics))
            read.diagnostics << rowError(u"no header and no rows"_s, path, 1,
                                         u"a catalog's first row names its columns"_s);
        return read;
    }
    const auto at = headerColumns(*header, path);
    if (!at) {
        read.diagnostics << Diagnostic{Diagnostic::Severity::Error, at.error()};
        return read;
    }
    int refused = 0;
    int rows = 0;
    while (const auto row = lines.next(read.diagnostics)) {
        if (++rows > kCatalogMaxRows) {
            read.diagnostics << rowError(u"more than %1 rows: the rest are left out"_s.arg(kCatalogMaxRows), path,
                                         row->line, u"split the catalog by cloud"_s);
            break;
        }
        auto entry = entryOf(*row, *at, header->fields.size(), path, cloud, lines.fileDate());
        if (entry) {
            read.entries << std::move(*entry);
        } else if (++refused <= kCatalogReportedRows) {
            read.diagnostics << Diagnostic{Diagnostic::Severity::Error, entry.error()};
        }
    }
    if (refused > kCatalogReportedRows)
        read.diagnostics << rowError(u"%1 more malformed rows left out"_s.arg(refused - kCatalogReportedRows), path, 0,
                                     {});
    return read;
}

const CatalogEntry *PriceCatalog::find(const QString &cloud, const QString &instanceType, const QString &region) const
{
    for (const CatalogEntry &e : entries) {
        if (e.cloud == cloud && e.instanceType == instanceType && (region.isEmpty() || e.region == region))
            return &e;
    }
    return nullptr;
}

QString userCatalogDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/ferry/catalog"_s;
}

QString shippedCatalogName(const QString &cloud)
{
    return u"resources/catalog/%1.csv"_s.arg(cloud);
}

PriceCatalog loadPriceCatalog(const QString &userDir)
{
    const QDir dir(userDir.isEmpty() ? userCatalogDir() : userDir);
    PriceCatalog catalog;
    for (const QString &cloud : catalogClouds()) {
        const QString own = dir.filePath(cloud + u".csv"_s);
        CatalogRead read;
        if (QFileInfo::exists(own)) {
            const auto text = readTextFile(own, kCatalogMaxBytes);
            if (!text) {
                catalog.diagnostics << Diagnostic{Diagnostic::Severity::Error, text.error()};
                continue;
            }
            read = parseCatalog(text->toUtf8(), own, cloud);
        } else {
            read = parseCatalog(shippedCatalogText(cloud), shippedCatalogName(cloud), cloud);
        }
        catalog.entries << read.entries;
        catalog.diagnostics << read.diagnostics;
    }
    return catalog;
}

} // namespace ferry::cost
