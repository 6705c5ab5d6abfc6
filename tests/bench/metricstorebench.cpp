// The metric store's benchmark (tests/bench/metricstore.sh; docs/metric-store.md), run by hand:
//   ferry_metricstorebench bytes CORPUS WORK        bytes per point: corpus logs, synthetic runs, noise
//   ferry_metricstorebench load WORK [POINTS]        one series into memory, against a row per point
//   ferry_metricstorebench make WORK RUNS METRICS POINTS   a workspace of RUNS x METRICS x POINTS
//   ferry_metricstorebench open WORK                 that workspace opened: the runs table's data
//   ferry_metricstorebench overlay WORK RUNS POINTS [store]  RUNS runs of POINTS from the store
//                                                    to the chart's first exact frame, against
//                                                    memory (store: without that peer, to profile)
// Every figure is printed as "name value unit" lines, peers beside Ferry in the same run.
#include "metrics/eventfile.h"
#include "metrics/metricfiles.h"
#include "metrics/metricparser.h"
#include "store/runstore.h"
#include "ui/chart/losschart.h"
#include "ui/chart/seriesstore.h"
#include "ui/runs/runsmodel.h"
#include "ui/session/chartfeeder.h"

#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <sys/resource.h>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::run;

namespace {

double seconds(const QElapsedTimer &t)
{
    return double(t.nsecsElapsed()) / 1e9;
}

// This process's page faults so far and its system time in seconds: where memory is fresh,
// touching it is most of a load's cost.
std::pair<long, double> faults()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return {u.ru_minflt, double(u.ru_stime.tv_sec) + double(u.ru_stime.tv_usec) / 1e6};
}

std::unique_ptr<RunStore> freshStore(const QString &dir)
{
    QDir(dir).removeRecursively();
    auto store = RunStore::open(RunStore::pathInWorkspace(dir));
    if (!store) {
        std::fprintf(stderr, "%s\n", qPrintable(store.error().toString()));
        std::exit(2);
    }
    return std::move(*store);
}

void createRun(RunStore &store, const QString &id, qint64 createdMs)
{
    RunRecord r;
    r.id = id;
    r.name = u"train"_s;
    r.status = RunStatus::Succeeded;
    r.target = u"local"_s;
    r.createdMs = createdMs;
    store.createRun(r);
}

// A training curve as a script prints it (study.py's model): a decaying loss with noise at
// `digits` significant digits, steps 1, 2, ..., a wall clock whose step period drifts between 50
// and 200 ms with 5 ms jitter and a 20-60 s evaluation pause every 10,000 steps.
struct Curve {
    QRandomGenerator random;
    int digits;
    qint64 n;
    qint64 wall = 1'764'000'000'000;
    double period = 100;
    char text[32];

    Curve(quint32 seed, int d, qint64 points) : random(seed), digits(d), n(points) {}
    MetricPoint point(const QString &name, qint64 i, double base = 2.3)
    {
        const double t = double(i) / double(n);
        const double noise = (random.generateDouble() - 0.5) * 0.05 + 0.02 * std::sin(double(i) / 500.0);
        const double loss = base * std::exp(-6 * t) + 0.35 + noise;
        std::snprintf(text, sizeof text, "%.*g", digits, loss);
        period = std::clamp(period + (random.generateDouble() - 0.5) * 2, 50.0, 200.0);
        wall += qint64(period) + random.bounded(-5, 6);
        if (i % 10000 == 0 && i > 0)
            wall += random.bounded(20000, 60000);
        return MetricPoint{name, double(i + 1), std::strtod(text, nullptr), wall};
    }
};

struct Sizes {
    qint64 points = 0, blockBytes = 0, fileBytes = 0;
};

// The file of a store without runs: what every store costs, whatever it holds.
qint64 emptyStoreBytes()
{
    static const qint64 bytes = [] {
        const QString dir = QDir::temp().filePath(u"ferry-empty-store-%1"_s.arg(QCoreApplication::applicationPid()));
        QDir(dir).removeRecursively();
        QString path;
        {
            auto store = RunStore::open(RunStore::pathInWorkspace(dir));
            path = (*store)->databasePath();
        }
        const qint64 size = QFileInfo(path).size();
        QDir(dir).removeRecursively();
        return size;
    }();
    return bytes;
}

// The store's bytes once it is closed (its WAL folded into the file), beyond an empty store's.
Sizes measure(std::unique_ptr<RunStore> store)
{
    store->flush();
    const RunStore::Check check = store->check();
    for (const QString &p : check.problems)
        std::fprintf(stderr, "problem: %s\n", qPrintable(p));
    const QString path = store->databasePath();
    store->close();
    store.reset();
    return Sizes{check.points, check.bytes, QFileInfo(path).size() - emptyStoreBytes()};
}

void printSizes(const char *name, const Sizes &s)
{
    std::printf("bytes %-34s %10lld points %6.2f B/point in blocks %6.2f B/point in the file\n", name,
                static_cast<long long>(s.points), double(s.blockBytes) / double(s.points),
                double(s.fileBytes) / double(s.points));
}

// Every log of the corpus, each file a run: event files, trainer_state.json, metrics.csv, and the
// text logs line by line (they carry no clock: one stamp).
void corpusSizes(const QString &corpus, const QString &work)
{
    auto events = freshStore(work + u"/tfevents"_s);
    auto texts = freshStore(work + u"/texts"_s);
    int runs = 0;
    QDirIterator it(corpus + u"/logs"_s, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QByteArray bytes = file.readAll();
        const QString run = u"r%1"_s.arg(++runs);
        const QString name = QFileInfo(path).fileName();
        Expected<QList<MetricPoint>> points = QList<MetricPoint>{};
        RunStore *store = texts.get();
        if (name.startsWith(u"events.out.tfevents"_s)) {
            EventFileReader reader({}, path);
            points = reader.read(bytes);
            store = events.get();
        } else if (name == u"trainer_state.json"_s) {
            points = TrainerStateReader().read(bytes, path, 1'764'000'000'000);
        } else if (name == u"metrics.csv"_s) {
            points = LightningCsvReader().read(bytes, path, 1'764'000'000'000);
        } else if (name.endsWith(u".log"_s) || name.endsWith(u".txt"_s)) {
            MetricParser parser;
            QList<MetricPoint> out;
            for (const QByteArray &line : bytes.split('\n'))
                parser.parseLine(QString::fromUtf8(line), 1'764'000'000'000, out);
            points = out;
        } else {
            continue;
        }
        if (!points || points->isEmpty())
            continue;
        createRun(*store, run, runs);
        store->appendMetrics(run, *points, 0);
    }
    printSizes("corpus event files", measure(std::move(events)));
    printSizes("corpus text logs and files", measure(std::move(texts)));
}

void syntheticSizes(const QString &work, qint64 n)
{
    for (int digits : {4, 5, 6}) {
        auto store = freshStore(work + u"/synthetic%1"_s.arg(digits));
        createRun(*store, u"s"_s, 1);
        Curve curve(7, digits, n);
        QList<MetricPoint> batch;
        for (qint64 i = 0; i < n; ++i) {
            batch.append(curve.point(u"loss"_s, i));
            if (batch.size() == 10000)
                store->appendMetrics(u"s"_s, std::exchange(batch, {}), i);
        }
        store->appendMetrics(u"s"_s, batch, n);
        const QByteArray name = QByteArray::number(n) + " steps, " + QByteArray::number(digits) + " digits";
        printSizes(name.constData(), measure(std::move(store)));
    }
    auto store = freshStore(work + u"/noise"_s);
    createRun(*store, u"s"_s, 1);
    Curve curve(9, 17, n);
    QList<MetricPoint> batch;
    for (qint64 i = 0; i < n / 5; ++i) {
        MetricPoint p = curve.point(u"noise"_s, i);
        p.value = double(curve.random.generate64() >> 11) / double(1ull << 53) * 2 - 1; // full entropy
        batch.append(p);
    }
    store->appendMetrics(u"s"_s, batch, 1);
    printSizes("full-entropy noise (not the goal)", measure(std::move(store)));
}

// The previous release's table: a row per point (tests/data/stores/runs-v2.sqlite's schema).
QString rowStore(const QString &work, const QList<MetricPoint> &points)
{
    const QString path = work + u"/rows.sqlite"_s;
    QFile::remove(path);
    QFile::copy(QStringLiteral(FERRY_SOURCE_DIR "/tests/data/stores/runs-v2.sqlite"), path);
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"rows"_s);
        db.setDatabaseName(path);
        db.open();
        QSqlQuery q(db);
        q.exec(u"INSERT INTO runs(id, status) VALUES ('s', 'succeeded')"_s);
        db.transaction();
        q.prepare(u"INSERT INTO metrics(run, name, step, wall_ms, value) VALUES ('s', ?, ?, ?, ?)"_s);
        for (const MetricPoint &p : points) {
            q.bindValue(0, p.name);
            q.bindValue(1, p.step);
            q.bindValue(2, p.wallMs);
            q.bindValue(3, p.value);
            q.exec();
        }
        db.commit();
        db.close();
    }
    QSqlDatabase::removeDatabase(u"rows"_s);
    return path;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void loadSeries(const QString &work, qint64 n)
{
    QList<MetricPoint> points;
    Curve curve(3, 5, n);
    for (qint64 i = 0; i < n; ++i)
        points.append(curve.point(u"loss"_s, i));
    {
        auto store = freshStore(work + u"/load"_s);
        createRun(*store, u"s"_s, 1);
        store->appendMetrics(u"s"_s, points, 1);
        store->flush();
    }
    auto store = RunStore::open(RunStore::pathInWorkspace(work + u"/load"_s));
    std::vector<double> ferry, rows;
    std::size_t got = 0;
    for (int round = 0; round < 7; ++round) {
        QElapsedTimer t;
        t.start();
        const std::vector<SeriesPoint> loaded = (*store)->series(u"s"_s, u"loss"_s);
        ferry.push_back(seconds(t));
        got = loaded.size();
    }
    // The peer: the same points from a row per point, as the previous release read them.
    const QString path = rowStore(work, points);
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"rows"_s);
        db.setDatabaseName(path);
        db.open();
        for (int round = 0; round < 3; ++round) {
            QElapsedTimer t;
            t.start();
            std::vector<SeriesPoint> loaded;
            QSqlQuery q(db);
            q.setForwardOnly(true);
            q.exec(u"SELECT step, value, wall_ms FROM metrics WHERE run = 's' AND name = 'loss' ORDER BY step"_s);
            while (q.next())
                loaded.push_back(SeriesPoint{q.value(0).toDouble(), q.value(2).toLongLong(), q.value(1).toDouble()});
            rows.push_back(seconds(t));
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(u"rows"_s);
    std::printf("load %lld points: ferry %.1f ms (min %.1f), a row per point %.1f ms: %.1fx (goal <= 20 ms)\n",
                static_cast<long long>(got), median(ferry) * 1e3, *std::min_element(ferry.begin(), ferry.end()) * 1e3,
                median(rows) * 1e3, median(rows) / median(ferry));
}

void makeWorkspace(const QString &work, int runs, int metrics, qint64 points)
{
    auto store = freshStore(work);
    QElapsedTimer t;
    t.start();
    const QStringList names{u"loss"_s,      u"val_loss"_s,   u"accuracy"_s,   u"val_accuracy"_s, u"lr"_s,
                            u"grad_norm"_s, u"perplexity"_s, u"epoch_time"_s, u"throughput"_s,   u"tokens"_s};
    for (int r = 0; r < runs; ++r) {
        const QString id = u"run-%1"_s.arg(r, 4, 10, QChar(u'0'));
        createRun(*store, id, 1'764'000'000'000 + r);
        std::vector<Curve> curves;
        for (int m = 0; m < metrics; ++m)
            curves.emplace_back(quint32(r * 100 + m), 4 + (m % 3), points);
        QList<MetricPoint> batch;
        for (qint64 i = 0; i < points; ++i) {
            for (int m = 0; m < metrics; ++m)
                batch.append(curves[size_t(m)].point(names[m % names.size()], i, 1.0 + m));
            if (batch.size() >= 100000)
                store->appendMetrics(id, std::exchange(batch, {}), i);
        }
        store->appendMetrics(id, batch, points);
        if (r % 50 == 49)
            std::fprintf(stderr, "  %d runs written, %.0f s\n", r + 1, seconds(t));
    }
    store->flush();
    const double took = seconds(t);
    const QString path = store->databasePath();
    store.reset();
    const double total = double(runs) * metrics * double(points);
    std::printf("make %d runs x %d metrics x %lld points = %.0f points: %.0f s (%.2f M points/s), %.2f B/point\n", runs,
                metrics, static_cast<long long>(points), total, took, total / took / 1e6,
                double(QFileInfo(path).size()) / total);
}

void openWorkspace(const QString &work)
{
    QElapsedTimer t;
    t.start();
    auto store = RunStore::open(RunStore::pathInWorkspace(work));
    if (!store)
        std::exit(2);
    const double opened = seconds(t);
    ui::RunsLoader::MetricCache cache;
    const QList<ui::RunRow> rows = ui::RunsLoader::load(**store, cache);
    const double loaded = seconds(t);
    qsizetype metrics = 0;
    for (const ui::RunRow &row : rows)
        metrics += row.lastMetrics.size();
    std::printf("open %lld runs (%lld last values): store opened %.1f ms, runs table's data %.1f ms (goal <= 500 ms)\n",
                static_cast<long long>(rows.size()), static_cast<long long>(metrics), opened * 1e3, loaded * 1e3);
}

// From setRuns to the chart's first exact frame (a render of its picture), through the window's
// own path (ChartFeeder reading the store on its thread); the peer gives the chart the same points
// from memory (what the previous release did once it had read its rows).
void overlay(const QString &work, int runs, qint64 points, bool withPeer)
{
    if (!QFile::exists(RunStore::pathInWorkspace(work)))
        makeWorkspace(work, runs, 1, points);
    auto store = RunStore::open(RunStore::pathInWorkspace(work));
    if (!store)
        std::exit(2);
    QStringList ids;
    for (const RunRecord &r : (*store)->runs())
        ids << r.id;
    ids = ids.mid(0, runs);
    QImage image(1600, 900, QImage::Format_ARGB32_Premultiplied);
    const auto firstFrame = [&](ui::LossChart &chart) {
        chart.resize(1600, 900);
        chart.setMetrics({u"loss"_s});
        chart.refresh();
        chart.render(image);
    };
    double fromStore = 0, fromMemory = 0;
    {
        ui::LossChart chart;
        ui::ChartFeeder feeder(&chart);
        feeder.setStore(store->get());
        QSignalSpy loaded(&feeder, &ui::ChartFeeder::loaded);
        const auto [faults0, sys0] = faults();
        QElapsedTimer t;
        t.start();
        feeder.setRuns(ids, {});
        while (loaded.isEmpty())
            loaded.wait(10);
        const double read = seconds(t);
        const auto [faults1, sys1] = faults();
        firstFrame(chart);
        fromStore = seconds(t);
        const auto [faults2, sys2] = faults();
        std::printf("overlay: %lld points in the chart; read %.2f s (%ld page faults, %.2f s system), "
                    "first frame %.2f s (%ld page faults, %.2f s system)\n",
                    static_cast<long long>(chart.store()->pointCount()), read, faults1 - faults0, sys1 - sys0,
                    fromStore - read, faults2 - faults1, sys2 - sys1);
    }
    if (withPeer) {
        std::vector<std::vector<SeriesPoint>> all;
        for (const QString &id : std::as_const(ids))
            all.push_back((*store)->series(id, u"loss"_s));
        ui::LossChart chart;
        auto series = std::make_shared<ui::SeriesStore>();
        chart.setStore(series);
        QElapsedTimer t;
        t.start();
        for (int i = 0; i < ids.size(); ++i)
            series->append(series->series(ids[i], u"loss"_s), all[size_t(i)]);
        firstFrame(chart);
        fromMemory = seconds(t);
    }
    std::printf("overlay %lld runs x %lld points: from the store to the first exact frame %.2f s, "
                "from memory %.2f s (goal <= 1 s)\n",
                static_cast<long long>(ids.size()), static_cast<long long>(points), fromStore, fromMemory);
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    const QStringList args = app.arguments().mid(1);
    const QString mode = args.value(0);
    if (mode == u"bytes"_s && args.size() >= 3) {
        corpusSizes(args[1], args[2]);
        syntheticSizes(args[2], args.value(3, u"1000000"_s).toLongLong());
    } else if (mode == u"load"_s && args.size() >= 2) {
        loadSeries(args[1], args.value(2, u"1000000"_s).toLongLong());
    } else if (mode == u"make"_s && args.size() >= 5) {
        makeWorkspace(args[1], args[2].toInt(), args[3].toInt(), args[4].toLongLong());
    } else if (mode == u"open"_s && args.size() >= 2) {
        openWorkspace(args[1]);
    } else if (mode == u"overlay"_s && args.size() >= 4) {
        overlay(args[1], args[2].toInt(), args[3].toLongLong(), args.value(4) != u"store"_s);
    } else {
        std::fprintf(stderr, "usage: see the head of tests/bench/metricstorebench.cpp\n");
        return 1;
    }
    return 0;
}
