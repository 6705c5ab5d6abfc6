#include "store/serieswriter.h"

#include "store/runstoreschema.h"
#include "store/seriesblock.h"

#include <QSqlError>
#include <QVariant>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// Past this many series, the memory of written series is dropped after a commit (each keeps up to
// a block of points decoded): a bulk import of many runs stays bounded.
constexpr size_t kMaxKeptSeries = 512;
// A block is sealed when it fills a database page: a row bigger than a page spills into overflow
// pages, two of ~3 KB cannot share a 4 KB page, so a block of a fixed point count wastes a third of
// the file (measured in docs/metric-store.md). The open block is re-encoded when it has grown by
// its expected size; these bound its point count (and the work of a rewrite).
constexpr qsizetype kMinBlockPoints = 64;
constexpr qsizetype kMaxBlockPoints = 8192;
constexpr qsizetype kRowOverhead = 96; // page and cell headers, the row's other columns (~50 B)
constexpr double kFilled = 0.95;       // a block at least this full of its page is sealed
constexpr double kAim = 0.98;          // the size a block's point count is estimated for

Expected<void> exec(QSqlQuery &query)
{
    if (query.exec())
        return {};
    const Error error{runstoreschema::errorText(query.lastError()), {}, 0, 0, {}};
    query.finish();
    return error;
}

QVariant nullable(double v)
{
    return std::isnan(v) ? QVariant(QMetaType::fromType<double>()) : QVariant(v);
}

double nanIfNull(const QVariant &v)
{
    return v.isNull() ? std::numeric_limits<double>::quiet_NaN() : v.toDouble();
}

// The point a series' last value is taken from: the highest step, the later of equal ones; a point
// without a step (NaN) only before any with one (SQL's NULL sorts first).
bool replacesLast(double step, double lastStep)
{
    if (std::isnan(step))
        return std::isnan(lastStep);
    return std::isnan(lastStep) || step >= lastStep;
}

} // namespace

SeriesWriter::SeriesWriter(const QSqlDatabase &db)
    : m_db(db), m_find(db), m_insert(db), m_lastBlock(db), m_putBlock(db), m_update(db), m_dropBlocks(db), m_drop(db),
      m_dropRunBlocks(db), m_dropRun(db)
{
}

Expected<void> SeriesWriter::prepare()
{
    const std::pair<QSqlQuery *, QString> all[]{
        {&m_find, u"SELECT id, points, last_step, last_value FROM series WHERE run = ? AND name = ?"_s},
        {&m_insert, u"INSERT INTO series(run, name) VALUES (?, ?)"_s},
        {&m_lastBlock, u"SELECT first, count, data FROM blocks WHERE series = ? ORDER BY first DESC LIMIT 1"_s},
        {&m_putBlock, u"INSERT INTO blocks(series, first, count, min_step, max_step, min_wall, max_wall, data) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(series, first) DO UPDATE SET "
                      "count = excluded.count, min_step = excluded.min_step, max_step = excluded.max_step, "
                      "min_wall = excluded.min_wall, max_wall = excluded.max_wall, data = excluded.data"_s},
        {&m_update, u"UPDATE series SET points = ?, last_step = ?, last_value = ? WHERE id = ?"_s},
        {&m_dropBlocks, u"DELETE FROM blocks WHERE series IN (SELECT id FROM series WHERE run = ? AND name = ?)"_s},
        {&m_drop, u"DELETE FROM series WHERE run = ? AND name = ?"_s},
        {&m_dropRunBlocks, u"DELETE FROM blocks WHERE series IN (SELECT id FROM series WHERE run = ?)"_s},
        {&m_dropRun, u"DELETE FROM series WHERE run = ?"_s},
    };
    for (const auto &[query, sql] : all) {
        if (!query->prepare(sql))
            return Error{
                u"cannot prepare '%1': %2"_s.arg(sql, runstoreschema::errorText(query->lastError())), {}, 0, 0, {}};
    }
    return {};
}

Expected<SeriesWriter::Series *> SeriesWriter::series(const QString &runId, const QString &name)
{
    Key key{runId, name.isNull() ? u""_s : name};
    if (const auto it = m_series.find(key); it != m_series.end())
        return &it->second;
    Series s;
    m_find.bindValue(0, key.run);
    m_find.bindValue(1, key.name);
    if (auto done = exec(m_find); !done)
        return done.error();
    if (m_find.next()) {
        s.id = m_find.value(0).toLongLong();
        s.points = m_find.value(1).toLongLong();
        s.lastStep = nanIfNull(m_find.value(2));
        s.lastValue = nanIfNull(m_find.value(3));
        m_find.finish();
        m_lastBlock.bindValue(0, s.id);
        if (auto done = exec(m_lastBlock); !done)
            return done.error();
        if (m_lastBlock.next()) { // the last block is the open one: new points go on in it
            s.openFirst = m_lastBlock.value(0).toLongLong();
            const QByteArray data = m_lastBlock.value(2).toByteArray();
            if (auto decoded = seriesblock::decode(data, s.open); !decoded) {
                m_lastBlock.finish();
                return decoded.error();
            }
        }
        m_lastBlock.finish();
        if (s.openFirst + static_cast<qint64>(s.open.size()) != s.points)
            return Error{
                u"metric %1: the series counts %2 points, its blocks hold %3"_s.arg(key.name).arg(s.points).arg(
                    s.openFirst + static_cast<qint64>(s.open.size())),
                {},
                0,
                0,
                u"run 'ferry doctor --store'"_s};
    } else {
        m_find.finish();
        m_insert.bindValue(0, key.run);
        m_insert.bindValue(1, key.name);
        if (auto done = exec(m_insert); !done)
            return done.error();
        s.id = m_insert.lastInsertId().toLongLong();
        s.lastStep = std::numeric_limits<double>::quiet_NaN();
        s.lastValue = std::numeric_limits<double>::quiet_NaN();
    }
    s.target = std::max<qsizetype>(static_cast<qsizetype>(s.open.size()) + kMinBlockPoints, s.target);
    return &m_series.emplace(std::move(key), std::move(s)).first->second;
}

// Stores the first `count` points of the open block as the block at openFirst, encoded as `data`.
Expected<void> SeriesWriter::writeBlock(const Series &s, qsizetype count, const QByteArray &data)
{
    double minStep = std::numeric_limits<double>::quiet_NaN(), maxStep = minStep;
    qint64 minWall = std::numeric_limits<qint64>::max(), maxWall = std::numeric_limits<qint64>::min();
    for (qsizetype i = 0; i < count; ++i) {
        const SeriesPoint &p = s.open[static_cast<size_t>(i)];
        if (!std::isnan(p.step)) {
            minStep = std::isnan(minStep) ? p.step : std::min(minStep, p.step);
            maxStep = std::isnan(maxStep) ? p.step : std::max(maxStep, p.step);
        }
        minWall = std::min(minWall, p.wallMs);
        maxWall = std::max(maxWall, p.wallMs);
    }
    const QVariant values[]{s.id, s.openFirst, count, nullable(minStep), nullable(maxStep), minWall, maxWall, data};
    for (int i = 0; i < static_cast<int>(std::size(values)); ++i)
        m_putBlock.bindValue(i, values[i]);
    return exec(m_putBlock);
}

// The open block has reached the size it was expected to fill a page at: encoded, it is sealed
// when it fills one (the points past what fits stay open), else it grows on.
Expected<void> SeriesWriter::sealIfFull(Series &s)
{
    const qsizetype limit = m_pageBytes - kRowOverhead;
    const auto open = static_cast<qsizetype>(s.open.size());
    QByteArray block = seriesblock::encode(s.open);
    const auto estimate = [&](qsizetype points, qsizetype bytes) {
        const double perPoint = static_cast<double>(bytes) / static_cast<double>(std::max<qsizetype>(points, 1));
        return std::clamp(static_cast<qsizetype>(kAim * static_cast<double>(limit) / std::max(perPoint, 1e-3)),
                          kMinBlockPoints, kMaxBlockPoints);
    };
    if (static_cast<double>(block.size()) < kFilled * static_cast<double>(limit) && open < kMaxBlockPoints) {
        s.target = std::max(estimate(open, block.size()), open + kMinBlockPoints);
        return {};
    }
    qsizetype count = open;
    while (block.size() > limit && count > 1) {
        count = std::min(count - 1, estimate(count, block.size()));
        block = seriesblock::encode(std::span(s.open).first(static_cast<size_t>(count)));
    }
    if (auto done = writeBlock(s, count, block); !done)
        return done;
    s.open.erase(s.open.begin(), s.open.begin() + count);
    s.openFirst += count;
    s.target = estimate(count, block.size());
    return {};
}

Expected<void> SeriesWriter::push(Series &s, const SeriesPoint &point)
{
    s.open.push_back(point);
    ++s.points;
    s.dirty = true;
    if (replacesLast(point.step, s.lastStep)) {
        s.lastStep = point.step;
        s.lastValue = point.value;
    }
    if (static_cast<qsizetype>(s.open.size()) < s.target)
        return {};
    return sealIfFull(s);
}

Expected<void> SeriesWriter::append(const QString &runId, const QList<MetricPoint> &points)
{
    // A log's points take turns among a few names (loss, acc, loss, ...): each name of the call is
    // looked up in m_series once, then found here by its text (the parser's points share it).
    struct Seen {
        const QString *name;
        Series *series;
    };
    std::array<Seen, 32> seen;
    size_t seenCount = 0;
    Series *current = nullptr;
    const QString *currentName = nullptr;
    for (const MetricPoint &p : points) {
        if (!current || !(sameNameString(*currentName, p.name) || p.name == *currentName)) {
            current = nullptr;
            for (size_t i = 0; i < seenCount && !current; ++i) {
                if (sameNameString(*seen[i].name, p.name) || p.name == *seen[i].name)
                    current = seen[i].series;
            }
            if (!current) {
                auto found = series(runId, p.name);
                if (!found)
                    return withContext(u"metric %1"_s.arg(p.name), found.error());
                current = *found;
                if (seenCount < seen.size())
                    seen[seenCount++] = Seen{&p.name, current};
            }
            currentName = &p.name;
        }
        if (auto done = push(*current, SeriesPoint{p.step, p.wallMs, p.value, p.epoch}); !done)
            return withContext(u"metric %1"_s.arg(p.name), done.error());
    }
    return {};
}

Expected<void> SeriesWriter::append(const QString &runId, const QString &name, std::span<const SeriesPoint> points)
{
    auto found = series(runId, name);
    if (!found)
        return withContext(u"metric %1"_s.arg(name), found.error());
    for (const SeriesPoint &p : points) {
        if (auto done = push(**found, p); !done)
            return withContext(u"metric %1"_s.arg(name), done.error());
    }
    return {};
}

Expected<void> SeriesWriter::dropSeries(const QString &runId, const QString &name)
{
    m_series.erase(Key{runId, name});
    for (QSqlQuery *query : {&m_dropBlocks, &m_drop}) {
        query->bindValue(0, runId);
        query->bindValue(1, name);
        if (auto done = exec(*query); !done)
            return done;
    }
    return {};
}

Expected<void> SeriesWriter::dropRun(const QString &runId)
{
    std::erase_if(m_series, [&runId](const auto &entry) { return entry.first.run == runId; });
    for (QSqlQuery *query : {&m_dropRunBlocks, &m_dropRun}) {
        query->bindValue(0, runId);
        if (auto done = exec(*query); !done)
            return done;
    }
    return {};
}

Expected<void> SeriesWriter::flush()
{
    for (auto &[key, s] : m_series) {
        if (!s.dirty)
            continue;
        if (!s.open.empty()) {
            if (auto done = writeBlock(s, static_cast<qsizetype>(s.open.size()), seriesblock::encode(s.open)); !done)
                return withContext(u"metric %1"_s.arg(key.name), done.error());
        }
        const QVariant values[]{s.points, nullable(s.lastStep), nullable(s.lastValue), s.id};
        for (int i = 0; i < static_cast<int>(std::size(values)); ++i)
            m_update.bindValue(i, values[i]);
        if (auto done = exec(m_update); !done)
            return withContext(u"metric %1"_s.arg(key.name), done.error());
        s.dirty = false;
    }
    return {};
}

void SeriesWriter::forget()
{
    m_series.clear();
}

void SeriesWriter::trim()
{
    if (m_series.size() > kMaxKeptSeries)
        m_series.clear();
}

} // namespace ferry::run
