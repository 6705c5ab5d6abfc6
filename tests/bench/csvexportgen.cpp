// The store for tests/bench/csvexport.sh (not run by CI): one run ("bench") of POINTS metric points,
// three metrics logged at every step as a training script logs them (a loss falling with noise, a
// cosine learning rate, an accuracy; 4 to 6 significant digits each; steps 1, 2, ...; wall times
// 100 ms apart with jitter; an integral epoch), stored through RunStore::appendMetrics in
// WORKSPACE's run store, and the same points a row each in ROWS_DB, which the script copied from the
// previous release's empty store (tests/data/stores/runs-v2.sqlite: a row per point), for the
// sqlite3 peer.
//   ferry_csvexportgen WORKSPACE POINTS ROWS_DB
// stdout: "points N".
#include "store/runstore.h"

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <utility>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

const QString kRun = u"bench"_s;
constexpr int kBatch = 30000; // points a call of appendMetrics, as a follower stores a log's new lines

// `value` kept to `digits` significant digits, as a script's print of it reads back.
double rounded(double value, int digits)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    return std::strtod(text, nullptr);
}

// The points of step `step` of `steps` (1-based).
void pointsOfStep(qint64 step, qint64 steps, std::mt19937_64 &random, QList<MetricPoint> &out)
{
    std::normal_distribution<double> noise(0.0, 1.0);
    std::uniform_int_distribution<int> jitter(-30, 30);
    const double t = static_cast<double>(step) / static_cast<double>(steps);
    const qint64 wall = 1'764'000'000'000 + step * 100 + jitter(random);
    const double epoch = std::floor(static_cast<double>(step) / 10000.0);
    const double loss = std::max(0.01, 2.3 * std::exp(-6.0 * t) + 0.08 + 0.02 * noise(random));
    const double lr = 3e-4 * 0.5 * (1.0 + std::cos(std::numbers::pi * t));
    const double accuracy = std::clamp(1.0 - loss / 2.5 + 0.005 * noise(random), 0.0, 1.0);
    const auto s = static_cast<double>(step);
    out.append(MetricPoint{u"loss"_s, s, rounded(loss, 4 + static_cast<int>(step % 3)), wall, epoch});
    out.append(MetricPoint{u"learning_rate"_s, s, rounded(lr, 6), wall, epoch});
    out.append(MetricPoint{u"accuracy"_s, s, rounded(accuracy, 4), wall, epoch});
}

bool fail(const QString &what)
{
    std::fprintf(stderr, "ferry_csvexportgen: %s\n", qUtf8Printable(what));
    return false;
}

// The rows of ROWS_DB, in one transaction.
bool writeRows(const QString &path, const QList<MetricPoint> &points, QSqlDatabase &db)
{
    db.setDatabaseName(path);
    if (!db.open())
        return fail(db.lastError().text());
    QSqlQuery q(db);
    for (const QString &sql : {u"PRAGMA journal_mode = OFF"_s, u"PRAGMA synchronous = OFF"_s, u"BEGIN"_s,
                               u"INSERT INTO runs(id, status) VALUES ('bench', 'succeeded')"_s}) {
        if (!q.exec(sql))
            return fail(sql + u": "_s + q.lastError().text());
    }
    if (!q.prepare(u"INSERT INTO metrics(run, name, step, wall_ms, value, epoch) VALUES (?, ?, ?, ?, ?, ?)"_s))
        return fail(q.lastError().text());
    for (const MetricPoint &p : points) {
        q.bindValue(0, kRun);
        q.bindValue(1, p.name);
        q.bindValue(2, p.step);
        q.bindValue(3, p.wallMs);
        q.bindValue(4, p.value);
        q.bindValue(5, std::isnan(p.epoch) ? QVariant(QMetaType::fromType<double>()) : QVariant(p.epoch));
        if (!q.exec())
            return fail(q.lastError().text());
    }
    if (!q.exec(u"COMMIT"_s))
        return fail(q.lastError().text());
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() != 4) {
        std::fprintf(stderr, "usage: ferry_csvexportgen WORKSPACE POINTS ROWS_DB\n");
        return 2;
    }
    const qint64 total = args[2].toLongLong();
    auto store = RunStore::open(RunStore::pathInWorkspace(args[1]));
    if (!store) {
        fail(store.error().toString());
        return 1;
    }
    RunRecord record;
    record.id = kRun;
    record.name = u"train"_s;
    record.status = RunStatus::Succeeded;
    record.target = u"local"_s;
    record.createdMs = 1'764'000'000'000;
    (*store)->createRun(record);

    std::mt19937_64 random(20250101);
    const qint64 steps = (total + 2) / 3;
    QList<MetricPoint> all, batch, one;
    all.reserve(static_cast<qsizetype>(total));
    for (qint64 step = 1; all.size() < total; ++step) {
        one.clear();
        pointsOfStep(step, steps, random, one);
        while (all.size() + one.size() > total)
            one.removeLast();
        all.append(one);
        batch.append(one);
        if (batch.size() >= kBatch || all.size() == total)
            (*store)->appendMetrics(kRun, std::exchange(batch, {}), all.size());
    }
    (*store)->close();

    bool written = false;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"rows"_s);
        written = writeRows(args[3], all, db);
        db.close();
    }
    QSqlDatabase::removeDatabase(u"rows"_s);
    if (!written)
        return 1;
    std::printf("points %lld\n", static_cast<long long>(all.size()));
    return 0;
}
