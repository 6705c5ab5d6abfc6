#include "data/csvreader.h"

#include "common/memorybudget.h"
#include "data/csvchunks.h"
#include "data/csvdialect.h"
#include "data/csvsyntax.h"
#include "data/filebytes.h"

#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

using namespace Qt::StringLiterals;

// A table is read straight from the mapped file: numbers are parsed from the bytes with
// std::from_chars (no per-field allocation), and every position is kept as a byte offset, so
// an error's line is counted only when there is an error (a quoted field may hold newlines,
// and the line an editor shows is what the user needs).

namespace ferry::data {

using namespace csv;

namespace {

constexpr int maxAutoClasses = 20;

QString shown(const QByteArray &value)
{
    QString text = QString::fromUtf8(value);
    if (text.size() > 40)
        text = text.first(37) + u"..."_s;
    return text;
}

// The target column: by name (exact, then ignoring case), else by 1-based number.
Expected<int> resolveTarget(const Dialect &dialect, const QString &wanted, const QString &path)
{
    const QStringList &columns = dialect.columns;
    if (wanted.trimmed().isEmpty())
        return int(columns.size() - 1);
    const QString name = wanted.trimmed();
    if (const qsizetype i = columns.indexOf(name); i >= 0)
        return int(i);
    for (qsizetype i = 0; i < columns.size(); ++i) {
        if (columns[i].compare(name, Qt::CaseInsensitive) == 0)
            return int(i);
    }
    bool isNumber = false;
    const int number = name.toInt(&isNumber);
    if (isNumber && number >= 1 && number <= columns.size())
        return number - 1;
    const QString hint = u"name one of the columns, or give its number (1 to %1)"_s.arg(columns.size());
    if (isNumber)
        return Error{u"there is no column %1: the table has %2 columns"_s.arg(number).arg(columns.size()), path, 0, 0,
                     hint};
    return Error{u"there is no column '%1'; the columns are: %2"_s.arg(name, columns.join(u", "_s)), path, 0, 0, hint};
}

Error problemError(const Problem &problem, const char *base, const QString &path, const Dialect &dialect)
{
    const int line = int(countNewlines(base, base + problem.offset)) + 1;
    const qsizetype columns = dialect.columns.size();
    switch (problem.kind) {
    case Problem::Ragged:
        return Error{
            u"this row has %1 columns, the %2 has %3"_s.arg(problem.found)
                .arg(dialect.header ? u"header"_s : u"first row"_s)
                .arg(columns),
            path, line, 0,
            u"give every row the same number of values (the delimiter is %1)"_s.arg(delimiterName(dialect.delimiter))};
    case Problem::NotNumber:
        return Error{u"value '%1' in feature column '%2' is not a number"_s.arg(shown(problem.value),
                                                                                dialect.columns.value(problem.column)),
                     path, line, problem.column + 1,
                     u"choose this column as the target, or remove it (feature columns must hold numbers)"_s};
    case Problem::Unclosed:
        return unclosedQuoteError(base, base + problem.offset, path);
    case Problem::OutOfMemory:
        return outOfMemoryError(path);
    case Problem::Cancelled:
    case Problem::None:
        break;
    }
    return Error{u"loading was cancelled"_s, path, 0, 0, {}};
}

// The class of every row: the distinct target texts, sorted (byte order, so the same on every
// machine and locale).
void textClasses(const char *base, const char *end, const Layout &layout, const std::vector<qint64> &offsets,
                 Dataset &dataset)
{
    std::deque<std::string> unescaped; // the keys that differ from the file's bytes
    std::unordered_map<std::string_view, qsizetype> ids;
    std::vector<std::string_view> keys;
    dataset.classes.resize(offsets.size());
    for (size_t row = 0; row < offsets.size(); ++row) {
        Field field;
        scanField(base + offsets[row], end, layout.delimiter, field);
        std::string_view key(field.begin, size_t(field.end - field.begin));
        auto it = ids.find(key);
        if (it == ids.end() && field.escaped && field.quoted) {
            const QByteArray bytes = fieldBytes(field);
            const std::string_view candidate(bytes.constData(), size_t(bytes.size()));
            it = ids.find(candidate);
            if (it == ids.end()) {
                key = unescaped.emplace_back(candidate);
                it = ids.emplace(key, qsizetype(keys.size())).first;
                keys.push_back(key);
            }
        } else if (it == ids.end()) {
            it = ids.emplace(key, qsizetype(keys.size())).first;
            keys.push_back(key);
        }
        dataset.classes[row] = it->second;
    }
    std::vector<qsizetype> order(keys.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = qsizetype(i);
    std::sort(order.begin(), order.end(), [&](qsizetype a, qsizetype b) { return keys[size_t(a)] < keys[size_t(b)]; });
    std::vector<std::int64_t> rank(keys.size());
    for (size_t i = 0; i < order.size(); ++i) {
        rank[size_t(order[i])] = std::int64_t(i);
        const std::string_view key = keys[size_t(order[i])];
        dataset.classNames.append(QString::fromUtf8(key.data(), qsizetype(key.size())));
    }
    for (std::int64_t &c : dataset.classes)
        c = rank[size_t(c)];
}

QString className(float value)
{
    if (value == std::trunc(value) && std::fabs(value) < 1e15f)
        return QString::number(qint64(value));
    return QString::number(double(value), 'g', 7);
}

// The columns that are features and the one that is the target (none for data to predict on).
Expected<Layout> tableLayout(const Dialect &dialect, const TableOptions &options, const QString &path)
{
    const qsizetype columns = dialect.columns.size();
    const bool featuresOnly = options.featuresOnly;
    if (columns < 2 && !featuresOnly)
        return Error{u"the table has only one column ('%1'); it needs feature columns and a target column"_s.arg(
                         dialect.columns.value(0)),
                     path, 1, 0, u"check that the values are separated by ',', tab, ';' or '|', one row per sample"_s};
    // Data to predict on has no target: a target index past the last column reads none.
    auto target = featuresOnly ? Expected<int>(int(columns)) : resolveTarget(dialect, options.targetColumn, path);
    if (!target)
        return target.error();

    Layout layout;
    layout.delimiter = dialect.delimiter;
    layout.columns = int(columns);
    layout.target = *target;
    layout.features = int(featuresOnly ? columns : columns - 1);
    layout.missing = options.missing;
    return layout;
}

// The task (given, or classification for text and for integers with few distinct values) and
// the dataset's targets or classes for it.
Expected<void> setTargets(Dataset &dataset, Rows &rows, const char *base, const char *end, const Layout &layout,
                          const std::optional<Task> &given, const QString &path)
{
    const std::vector<float> &targets = rows.targets;
    const qint64 firstTextTarget = rows.firstTextTarget;
    bool integral = true;
    std::vector<float> distinct;
    if (firstTextTarget < 0) {
        for (float value : targets) {
            if (value != std::trunc(value)) {
                integral = false;
                break;
            }
            if (distinct.size() <= maxAutoClasses &&
                std::find(distinct.begin(), distinct.end(), value) == distinct.end())
                distinct.push_back(value);
        }
    }
    const Task task =
        given ? *given
              : (firstTextTarget >= 0 || (integral && distinct.size() <= maxAutoClasses) ? Task::Classification
                                                                                         : Task::Regression);
    dataset.task = task;
    if (task == Task::Regression) {
        if (firstTextTarget >= 0) {
            Field field;
            scanField(base + firstTextTarget, end, layout.delimiter, field);
            const int line = int(countNewlines(base, base + firstTextTarget)) + 1;
            return Error{
                u"value '%1' in target column '%2' is not a number"_s.arg(shown(fieldBytes(field)), dataset.targetName),
                path, line, layout.target + 1,
                u"a regression target must be numeric: choose classification, or another target column"_s};
        }
        dataset.targets = std::move(rows.targets);
    } else if (firstTextTarget >= 0) {
        textClasses(base, end, layout, rows.targetOffsets, dataset);
    } else {
        std::vector<float> values = distinct;
        if (!integral || distinct.size() > maxAutoClasses) { // classification chosen for many values
            values = targets;
            values.erase(std::unique(values.begin(), values.end()), values.end());
        }
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        for (float value : values)
            dataset.classNames.append(className(value));
        dataset.classes.resize(targets.size());
        for (size_t i = 0; i < targets.size(); ++i)
            dataset.classes[i] = std::lower_bound(values.begin(), values.end(), targets[i]) - values.begin();
    }
    return {};
}

// The notes on rows left out or filled in (data to predict on has no target to miss).
void appendRowNotes(Dataset &dataset, const Rows &rows)
{
    if (rows.droppedMissing > 0)
        dataset.notes.append(u"dropped %1 rows with missing values"_s.arg(rows.droppedMissing));
    if (rows.imputed > 0)
        dataset.notes.append(
            u"%1 rows have missing values; they are filled with the training mean"_s.arg(rows.imputed));
    if (rows.droppedTarget > 0)
        dataset.notes.append(u"dropped %1 rows without a target value"_s.arg(rows.droppedTarget));
}

} // namespace

Expected<Dataset> loadTable(const QString &path, const LoadOptions &options, int threads)
{
    FileBytes bytes;
    if (auto ok = bytes.open(path); !ok)
        return ok.error();
    if (bytes.size() == 0)
        return emptyFileError(path);
    auto dialect = readDialect(bytes, path, options.table);
    if (!dialect)
        return dialect.error();
    const auto layout = tableLayout(*dialect, options.table, path);
    if (!layout)
        return layout.error();

    const char *const base = bytes.data();
    const char *const end = bytes.end();
    std::vector<Chunk> chunks = splitIntoChunks(dialect->dataBegin, end, threads);
    if (auto fits = checkChunkMemory(dialect->dataBegin, end, *layout, int(chunks.size()), path); !fits)
        return fits.error();
    parseChunks(bytes, dialect->dataBegin, *layout, chunks, options);
    for (const Chunk &chunk : chunks) {
        if (chunk.problem.kind != Problem::None)
            return problemError(chunk.problem, base, path, *dialect);
    }
    if (options.cancelled && options.cancelled())
        return Error{u"loading was cancelled"_s, path, 0, 0, {}};

    Rows rows = joinChunks(chunks, *layout);
    if (options.progress)
        options.progress(bytes.size(), bytes.size());
    if (rows.count == 0) {
        if (rows.droppedMissing + rows.droppedTarget > 0)
            return Error{u"every row has a missing value (%1 rows); nothing is left to train on"_s.arg(
                             rows.droppedMissing + rows.droppedTarget),
                         path, 0, 0, u"fill in the missing values, or have them imputed with the mean"_s};
        return Error{u"the file has a header row but no data rows"_s, path, 1, 0,
                     u"add one row per sample below the header"_s};
    }

    Dataset dataset;
    dataset.kind = DatasetKind::Table;
    dataset.source = path;
    dataset.x = std::move(rows.features);
    dataset.count = rows.count;
    dataset.shape = {layout->features};
    for (int c = 0; c < layout->columns; ++c) {
        if (c != layout->target)
            dataset.featureNames.append(dialect->columns[c]);
    }
    if (options.table.featuresOnly) {
        dataset.task = options.table.task.value_or(Task::Classification);
        dataset.notes.append(u"read %1 rows of %2 features from %3 (no target column)"_s.arg(rows.count)
                                 .arg(layout->features)
                                 .arg(QFileInfo(path).fileName()));
        appendRowNotes(dataset, rows);
        return dataset;
    }
    dataset.targetName = dialect->columns[layout->target];
    if (auto ok = setTargets(dataset, rows, base, end, *layout, options.table.task, path); !ok)
        return ok.error();

    dataset.notes.append(
        u"read %1 rows of %2 features from %3 (delimiter %4, %5); target '%6': %7"_s.arg(rows.count)
            .arg(layout->features)
            .arg(QFileInfo(path).fileName(), delimiterName(layout->delimiter),
                 dialect->header ? u"with a header row"_s : u"no header row"_s, dataset.targetName,
                 dataset.task == Task::Regression ? u"regression"_s : u"%1 classes"_s.arg(dataset.classNames.size())));
    appendRowNotes(dataset, rows);
    return dataset;
}

} // namespace ferry::data
