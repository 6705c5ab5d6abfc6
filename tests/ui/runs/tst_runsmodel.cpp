// The runs table: RunsModel's diffing setRows (checked by QAbstractItemModelTester, directly and
// through the sorting/filtering proxy), numeric sorting, the filter, selections that survive
// refreshes, RunsLoader against a real run store, and what tells runs apart (review 2026-12-06,
// finding 1): a column per parameter and per metric, sorted as numbers, the column chooser kept
// in the settings, names from the parameters that differ, the hint of an empty table.
#include "store/runstore.h"
#include "support/testmain.h"
#include "ui/runs/runsmodel.h"
#include "ui/runs/runsview.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::ui::RunRow;
using ferry::ui::RunsModel;

namespace {

constexpr qint64 kBase = 1'700'000'000'000;

RunRow row(const QString &id, run::RunStatus status, qint64 startedMs, qint64 finishedMs = 0,
           QMap<QString, double> metrics = {})
{
    RunRow r;
    r.record.id = id;
    r.record.name = u"train-"_s + id;
    r.record.status = status;
    r.record.target = u"local"_s;
    r.record.environmentTag = u"torch-1-0a1b2c3d"_s;
    r.record.createdMs = startedMs > 0 ? startedMs - 10 : kBase;
    r.record.startedMs = startedMs;
    r.record.finishedMs = finishedMs;
    r.lastMetrics = std::move(metrics);
    return r;
}

QStringList ids(const RunsModel &model)
{
    QStringList result;
    for (const RunRow &r : model.rows())
        result << r.record.id;
    return result;
}

QStringList proxyColumn(const QAbstractItemModel &model, int role = RunsModel::RunIdRole)
{
    QStringList result;
    for (int i = 0; i < model.rowCount(); ++i)
        result << model.index(i, 0).data(role).toString();
    return result;
}

} // namespace

class TestRunsModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void diffInsertsRemovesUpdates();
    void diffReorders();
    void keyMetrics();
    void pendingDetailBesideTheStatus();
    void durationTicks();
    void progressEtaAndCostColumns();
    void newestRunsWithMetrics();
    void sortingIsNumeric();
    void filterMatches();
    void proxyStaysConsistent();
    void selectionSurvivesRefresh();
    void loaderReadsStore();
    void parameterAndMetricColumnsSortAsNumbers();
    void columnChooserHidesShowsAndPersists();
    void namesSayWhatDiffers();
    void emptyTableSaysHowToStart();
    void deselectedRunIsNoLongerCurrent();
    void columnsAreThoseOfTheRunsTheQueryKeeps();
};

void TestRunsModel::diffInsertsRemovesUpdates()
{
    RunsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserts(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removes(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);

    model.setRows({row(u"c"_s, run::RunStatus::Running, kBase + 3000),
                   row(u"b"_s, run::RunStatus::Succeeded, kBase + 2000, kBase + 2500),
                   row(u"a"_s, run::RunStatus::Failed, kBase + 1000, kBase + 1100)});
    QCOMPARE(ids(model), (QStringList{u"c"_s, u"b"_s, u"a"_s}));
    QCOMPARE(inserts.size(), 3);

    // The same rows again: nothing happens.
    inserts.clear();
    changes.clear();
    model.setRows({row(u"c"_s, run::RunStatus::Running, kBase + 3000),
                   row(u"b"_s, run::RunStatus::Succeeded, kBase + 2000, kBase + 2500),
                   row(u"a"_s, run::RunStatus::Failed, kBase + 1000, kBase + 1100)});
    QCOMPARE(inserts.size(), 0);
    QCOMPARE(changes.size(), 0);

    // A new run on top, b removed, c finished.
    model.setRows({row(u"d"_s, run::RunStatus::Running, kBase + 4000),
                   row(u"c"_s, run::RunStatus::Succeeded, kBase + 3000, kBase + 3600, {{u"loss"_s, 0.5}}),
                   row(u"a"_s, run::RunStatus::Failed, kBase + 1000, kBase + 1100)});
    QCOMPARE(ids(model), (QStringList{u"d"_s, u"c"_s, u"a"_s}));
    QCOMPARE(inserts.size(), 1);
    QCOMPARE(removes.size(), 1);
    QCOMPARE(changes.size(), 1);
    QCOMPARE(changes.at(0).at(0).value<QModelIndex>().row(), 1);
    QCOMPARE(model.index(1, RunsModel::StatusColumn).data().toString(), u"succeeded"_s);
    QCOMPARE(model.index(1, RunsModel::MetricsColumn).data().toString(), u"loss 0.5"_s);

    // Everything gone, then several at once; duplicate ids keep the first.
    model.setRows({});
    QCOMPARE(model.rowCount(), 0);
    model.setRows({row(u"x"_s, run::RunStatus::Created, 0), row(u"y"_s, run::RunStatus::Lost, kBase),
                   row(u"x"_s, run::RunStatus::Failed, 0)});
    QCOMPARE(ids(model), (QStringList{u"x"_s, u"y"_s}));
    QCOMPARE(model.index(0, RunsModel::StatusColumn).data().toString(), u"created"_s);
    QCOMPARE(resets.size(), 0);
}

void TestRunsModel::diffReorders()
{
    RunsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<RunRow> rows;
    for (int i = 0; i < 8; ++i)
        rows << row(QString::number(i), run::RunStatus::Succeeded, kBase + i * 1000, kBase + i * 1000 + 500);
    model.setRows(rows);
    const QPersistentModelIndex five = model.index(5, 0);
    std::reverse(rows.begin(), rows.end());
    rows.removeAt(3);
    rows.insert(2, row(u"new"_s, run::RunStatus::Running, kBase + 9000));
    model.setRows(rows);
    QStringList expected;
    for (const RunRow &r : std::as_const(rows))
        expected << r.record.id;
    QCOMPARE(ids(model), expected);
    QVERIFY(five.isValid());
    QCOMPARE(five.data(RunsModel::RunIdRole).toString(), u"5"_s);
}

// A Slurm job waiting in the queue is "running" with what the target says beside it, until
// it is over.
void TestRunsModel::pendingDetailBesideTheStatus()
{
    RunsModel model;
    QAbstractItemModelTester tester(&model);
    model.setRows({row(u"a"_s, run::RunStatus::Running, kBase)});
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setDetail(u"a"_s, u"pending, position 2 in the queue, waiting for: Resources"_s);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.index(0, RunsModel::StatusColumn).data().toString(),
             u"running (pending, position 2 in the queue, waiting for: Resources)"_s);
    model.setDetail(u"a"_s, u"pending, position 2 in the queue, waiting for: Resources"_s);
    QCOMPARE(changed.size(), 1); // the same again: nothing to repaint
    model.setRows({row(u"a"_s, run::RunStatus::Succeeded, kBase, kBase + 1000)});
    QCOMPARE(model.index(0, RunsModel::StatusColumn).data().toString(), u"succeeded"_s);
    model.setDetail(u"a"_s, QString());
    model.setRows({row(u"a"_s, run::RunStatus::Running, kBase)});
    QCOMPARE(model.index(0, RunsModel::StatusColumn).data().toString(), u"running"_s);
}

void TestRunsModel::keyMetrics()
{
    QCOMPARE(RunsModel::keyMetricsText({}), QString());
    QCOMPARE(RunsModel::keyMetricsText({{u"loss"_s, 0.041}, {u"val_accuracy"_s, 0.98234}, {u"epoch"_s, 9}}),
             u"val_accuracy 0.982 · loss 0.041 · epoch 9"_s);
    QCOMPARE(
        RunsModel::keyMetricsText(
            {{u"train_loss"_s, 1}, {u"loss"_s, 2}, {u"val_loss"_s, 3}, {u"accuracy"_s, 0.5}, {u"val_accuracy"_s, 0.6}}),
        u"val_accuracy 0.6 · accuracy 0.5 · val_loss 3"_s);
    QCOMPARE(RunsModel::keyMetricsText({{u"b"_s, 2}, {u"a"_s, 1}}), u"a 1 · b 2"_s);
    // How the run ran is no final metric.
    QCOMPARE(RunsModel::keyMetricsText({{u"system/cpu_percent"_s, 99}, {u"acc"_s, 0.5}}), u"acc 0.5"_s);
    QCOMPARE(RunsModel::durationText(12'400), u"12s"_s);
    QCOMPARE(RunsModel::durationText(187'000), u"3m 07s"_s);
    QCOMPARE(RunsModel::durationText(7'500'000), u"2h 05m"_s);
    // A run shorter than a second is not "0s".
    QCOMPARE(RunsModel::durationText(400), u"0.4s"_s);
    QCOMPARE(RunsModel::durationText(960), u"1.0s"_s);
    QCOMPARE(RunsModel::durationText(40), u"40ms"_s);
    QCOMPARE(RunsModel::durationText(0), u"0ms"_s);
}

// What the chart shows while nothing is selected: the newest runs that have something to draw.
void TestRunsModel::newestRunsWithMetrics()
{
    const QMap<QString, double> loss{{u"loss"_s, 0.5}};
    const QList<RunRow> rows{row(u"old"_s, run::RunStatus::Succeeded, kBase + 1000, 0, loss),
                             row(u"newest"_s, run::RunStatus::Running, kBase + 5000, 0, loss),
                             row(u"bare"_s, run::RunStatus::Failed, kBase + 9000), // no metrics: nothing to draw
                             row(u"queued"_s, run::RunStatus::Created, 0, 0, loss),
                             row(u"mid"_s, run::RunStatus::Lost, kBase + 3000, 0, loss)};
    QCOMPARE(RunsModel::newestRunsWithMetrics(rows, 2), (QStringList{u"newest"_s, u"mid"_s}));
    QCOMPARE(RunsModel::newestRunsWithMetrics(rows, 10), (QStringList{u"newest"_s, u"mid"_s, u"old"_s, u"queued"_s}));
    QVERIFY(RunsModel::newestRunsWithMetrics({}, 5).isEmpty());
}

// A running run's Progress and ETA as the monitor reports them, gone once it is over; its Cost at
// the rates (a record without a spec is priced by its target): "unknown" without a rate, never 0.
void TestRunsModel::progressEtaAndCostColumns()
{
    RunsModel model;
    model.setNow(kBase + 100'000);
    RunRow onHost = row(u"h"_s, run::RunStatus::Running, kBase);
    onHost.record.target = u"ssh:gpu1"_s;
    model.setRows({row(u"r"_s, run::RunStatus::Running, kBase), onHost,
                   row(u"f"_s, run::RunStatus::Succeeded, kBase, kBase + 3'600'000)});
    QCOMPARE(model.headerData(RunsModel::ProgressColumn, Qt::Horizontal).toString(), u"Progress"_s);
    QCOMPARE(model.columnOfKey(u"cost"_s), int(RunsModel::CostColumn));
    QCOMPARE(model.index(0, RunsModel::ProgressColumn).data().toString(), QString());
    run::Progress p;
    p.fraction = 0.25;
    p.done = 50;
    p.total = 200;
    p.source = run::ProgressSource::Steps;
    p.etaSeconds = 300;
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    model.setProgress(u"r"_s, true, p);
    QCOMPARE(changes.size(), 1);
    QCOMPARE(model.index(0, RunsModel::ProgressColumn).data().toString(), u"25 %"_s);
    QCOMPARE(model.index(0, RunsModel::EtaColumn).data().toString(), u"5m 00s"_s);
    QCOMPARE(model.index(0, RunsModel::EtaColumn).data(RunsModel::SortRole).toDouble(), 300.0);
    QVERIFY(model.index(0, RunsModel::ProgressColumn).data(Qt::ToolTipRole).toString().contains(u"50/200 steps"_s));
    // This machine costs nothing until a rate is set (known: 0); a host without a rate: unknown.
    QCOMPARE(model.index(0, RunsModel::CostColumn).data().toString(), u"0.00 USD"_s);
    QCOMPARE(model.index(1, RunsModel::CostColumn).data().toString(), u"unknown"_s);
    model.setRates({{u"local"_s, cost::Rate{3.6, cost::RateUnit::Hour, u"set by you"_s}}});
    QCOMPARE(model.index(0, RunsModel::CostColumn).data().toString(), u"0.10 USD"_s); // 100 s at 3.60/h
    QCOMPARE(model.index(2, RunsModel::CostColumn).data().toString(), u"3.60 USD"_s); // its hour
    QVERIFY(model.index(0, RunsModel::CostColumn).data(Qt::ToolTipRole).toString().contains(u"set by you"_s));
    model.setProgress(u"r"_s, false, {});
    QCOMPARE(model.index(0, RunsModel::ProgressColumn).data().toString(), QString());
    QCOMPARE(model.index(0, RunsModel::EtaColumn).data().toString(), QString());
    // A run over shows no progress, whatever was last said.
    model.setProgress(u"f"_s, true, p);
    QVERIFY(!model.progress(u"f"_s));
}

void TestRunsModel::durationTicks()
{
    RunsModel model;
    model.setNow(kBase + 10'000);
    model.setRows({row(u"r"_s, run::RunStatus::Running, kBase),
                   row(u"f"_s, run::RunStatus::Succeeded, kBase, kBase + 3000),
                   row(u"q"_s, run::RunStatus::Created, 0)});
    QCOMPARE(model.index(0, RunsModel::DurationColumn).data().toString(), u"10s"_s);
    QCOMPARE(model.index(1, RunsModel::DurationColumn).data().toString(), u"3s"_s);
    QCOMPARE(model.index(2, RunsModel::DurationColumn).data().toString(), QString());
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    model.setNow(kBase + 75'000);
    QCOMPARE(changes.size(), 1); // only the running run
    QCOMPARE(changes.at(0).at(0).value<QModelIndex>(), model.index(0, RunsModel::DurationColumn));
    QCOMPARE(model.index(0, RunsModel::DurationColumn).data().toString(), u"1m 15s"_s);
    QCOMPARE(model.index(0, RunsModel::DurationColumn).data(RunsModel::SortRole).toLongLong(), 75'000);
    // Every status has its own icon.
    QSet<QByteArray> images;
    for (auto status : {run::RunStatus::Running, run::RunStatus::Succeeded, run::RunStatus::Failed,
                        run::RunStatus::Cancelled, run::RunStatus::Lost}) {
        const QImage image = RunsModel::statusIcon(status, QColor(0x1f77b4)).pixmap(30, 16).toImage();
        images.insert(QByteArray(reinterpret_cast<const char *>(image.constBits()), image.sizeInBytes()));
    }
    QCOMPARE(images.size(), 5);
    QVERIFY(!model.index(0, RunsModel::StatusColumn).data(Qt::DecorationRole).value<QIcon>().isNull());
}

void TestRunsModel::sortingIsNumeric()
{
    ui::RunsView view;
    RunsModel *model = view.model();
    model->setNow(kBase + 1'000'000);
    // Durations 9 s, 10 s, 100 s, 2 h: as text "9s" > "2h 00m" > "1m 40s" > "10s".
    model->setRows({row(u"nine"_s, run::RunStatus::Succeeded, kBase + 900, kBase + 9900),
                    row(u"ten"_s, run::RunStatus::Succeeded, kBase + 100, kBase + 10'100),
                    row(u"hundred"_s, run::RunStatus::Succeeded, kBase + 20, kBase + 100'020),
                    row(u"twohours"_s, run::RunStatus::Succeeded, kBase + 5, kBase + 7'200'005)});
    view.table()->sortByColumn(RunsModel::DurationColumn, Qt::AscendingOrder);
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"nine"_s, u"ten"_s, u"hundred"_s, u"twohours"_s}));
    view.table()->sortByColumn(RunsModel::StartedColumn, Qt::AscendingOrder);
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"twohours"_s, u"hundred"_s, u"ten"_s, u"nine"_s}));
    view.table()->sortByColumn(RunsModel::StartedColumn, Qt::DescendingOrder);
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"nine"_s, u"ten"_s, u"hundred"_s, u"twohours"_s}));
    // Metrics sort by the first key metric's value, not its text: 9 < 10.
    model->setRows({row(u"a"_s, run::RunStatus::Succeeded, kBase, kBase + 1, {{u"loss"_s, 10}}),
                    row(u"b"_s, run::RunStatus::Succeeded, kBase, kBase + 1, {{u"loss"_s, 9}})});
    view.table()->sortByColumn(RunsModel::MetricsColumn, Qt::AscendingOrder);
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"b"_s, u"a"_s}));
    // Status sorts running first.
    model->setRows(
        {row(u"done"_s, run::RunStatus::Succeeded, kBase, kBase + 1), row(u"live"_s, run::RunStatus::Running, kBase)});
    view.table()->sortByColumn(RunsModel::StatusColumn, Qt::AscendingOrder);
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"live"_s, u"done"_s}));
}

void TestRunsModel::filterMatches()
{
    ui::RunsView view;
    RunRow gpu = row(u"20261130-061500-train-3fa2"_s, run::RunStatus::Running, kBase + 2);
    gpu.record.target = u"ssh:gpubox"_s;
    RunRow embedded = row(u"20261130-070000-iris-77aa"_s, run::RunStatus::Failed, kBase + 1, kBase + 5);
    embedded.record.target = u"embedded"_s;
    embedded.record.environmentTag = QString();
    embedded.record.name = u"iris"_s;
    view.setRows({gpu, embedded});
    const auto shown = [&] {
        QStringList result = proxyColumn(*view.proxy());
        result.sort();
        return result;
    };
    QCOMPARE(shown().size(), 2);
    view.filterEdit()->setText(u"GPUBOX"_s); // target, any case
    QCOMPARE(shown(), QStringList{gpu.record.id});
    view.filterEdit()->setText(u"failed"_s); // status
    QCOMPARE(shown(), QStringList{embedded.record.id});
    view.filterEdit()->setText(u"torch-1"_s); // environment
    QCOMPARE(shown(), QStringList{gpu.record.id});
    view.filterEdit()->setText(u"77aa"_s); // id
    QCOMPARE(shown(), QStringList{embedded.record.id});
    view.filterEdit()->setText(u"iris embedded"_s); // every word: name and target
    QCOMPARE(shown(), QStringList{embedded.record.id});
    view.filterEdit()->setText(u"iris running"_s);
    QCOMPARE(shown(), QStringList());
    view.filterEdit()->clear();
    QCOMPARE(shown().size(), 2);
}

void TestRunsModel::proxyStaysConsistent()
{
    ui::RunsView view;
    QAbstractItemModelTester sourceTester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.table()->sortByColumn(RunsModel::DurationColumn, Qt::DescendingOrder);
    view.filterEdit()->setText(u"train-"_s);
    // Pseudo-random sets of runs with changing statuses: inserts, removals, moves, updates.
    quint32 seed = 12345;
    const auto next = [&seed] {
        seed = seed * 1'103'515'245u + 12345u;
        return (seed >> 16) & 0x7fff;
    };
    for (int round = 0; round < 40; ++round) {
        QList<RunRow> rows;
        for (int i = 0; i < 20; ++i) {
            if (next() % 3 == 0)
                continue;
            const auto status = next() % 2 ? run::RunStatus::Running : run::RunStatus::Succeeded;
            const qint64 started = kBase + i * 1000;
            rows << row(QString::number(i), status, started,
                        status == run::RunStatus::Running ? 0 : started + qint64(next() % 5000));
        }
        if (round % 5 == 0)
            std::reverse(rows.begin(), rows.end());
        if (round == 20)
            view.filterEdit()->setText(u"running"_s);
        view.setRows(rows);
        view.model()->setNow(kBase + 100'000 + round * 1000);
        QCOMPARE(view.model()->rowCount(), rows.size());
    }
}

void TestRunsModel::selectionSurvivesRefresh()
{
    ui::RunsView view;
    view.resize(800, 400);
    QSignalSpy selection(&view, &ui::RunsView::selectionChanged);
    QSignalSpy current(&view, &ui::RunsView::currentRunChanged);
    QList<RunRow> rows{row(u"a"_s, run::RunStatus::Running, kBase + 3000),
                       row(u"b"_s, run::RunStatus::Succeeded, kBase + 2000, kBase + 2100),
                       row(u"c"_s, run::RunStatus::Failed, kBase + 1000, kBase + 1100)};
    view.setRows(rows);
    view.selectRuns({u"b"_s, u"c"_s});
    QCOMPARE(view.selectedRunIds(), (QStringList{u"b"_s, u"c"_s}));
    QCOMPARE(view.currentRunId(), u"b"_s);
    QCOMPARE(selection.size(), 1);
    QCOMPARE(selection.last().at(0).toStringList(), (QStringList{u"b"_s, u"c"_s}));
    QCOMPARE(current.size(), 1);
    QCOMPARE(current.last().at(0).toString(), u"b"_s);

    // A refresh that adds a run on top, changes b and ticks a: the same runs stay selected.
    rows.prepend(row(u"new"_s, run::RunStatus::Running, kBase + 4000));
    rows[2].lastMetrics.insert(u"loss"_s, 0.1);
    view.setRows(rows);
    view.model()->setNow(kBase + 10'000);
    QCOMPARE(view.selectedRunIds(), (QStringList{u"b"_s, u"c"_s}));
    QCOMPARE(view.currentRunId(), u"b"_s);
    QCOMPARE(selection.size(), 1);
    QCOMPARE(current.size(), 1);

    // Re-sorting is no change of selection either.
    view.table()->sortByColumn(RunsModel::NameColumn, Qt::AscendingOrder);
    QCOMPARE(selection.size(), 1);

    // A selected run that is deleted leaves the selection, and the signal says so.
    rows.removeAt(3); // c
    view.setRows(rows);
    QCOMPARE(view.selectedRunIds(), QStringList{u"b"_s});
    QCOMPARE(selection.size(), 2);
    QCOMPARE(selection.last().at(0).toStringList(), QStringList{u"b"_s});
}

void TestRunsModel::loaderReadsStore()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto opened = run::RunStore::open(dir.filePath(u"runs.sqlite"_s));
    QVERIFY2(opened.hasValue(), opened.hasValue() ? "" : qPrintable(opened.error().toString()));
    std::unique_ptr<run::RunStore> store = std::move(*opened);

    const auto record = [](const QString &id, qint64 created) {
        run::RunRecord r;
        r.id = id;
        r.name = u"train"_s;
        r.target = u"local"_s;
        r.createdMs = created;
        return r;
    };
    store->createRun(record(u"old"_s, kBase));
    store->createRun(record(u"new"_s, kBase + 1000));
    store->setStatus(u"old"_s, run::RunStatus::Running);
    store->appendMetrics(u"old"_s,
                         {{u"loss"_s, 0, 0.9, kBase},
                          {u"loss"_s, 1, 0.5, kBase},
                          {u"loss"_s, 2, 0.25, kBase},
                          {u"val_accuracy"_s, 0, 0.7, kBase},
                          {u"val_accuracy"_s, 1, 0.875, kBase}},
                         100);
    store->setStatus(u"old"_s, run::RunStatus::Succeeded, 0);
    store->setStatus(u"new"_s, run::RunStatus::Running);
    store->appendMetrics(u"new"_s, {{u"loss"_s, 0, 2.0, kBase}}, 10);
    store->flush();

    ui::RunsLoader loader;
    QSignalSpy loaded(&loader, &ui::RunsLoader::loaded);
    loader.setStore(store.get());
    QVERIFY(loaded.wait(5000));
    QList<RunRow> rows = loaded.last().at(0).value<QList<RunRow>>();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.at(0).record.id, u"new"_s); // newest first
    QCOMPARE(rows.at(0).record.status, run::RunStatus::Running);
    QVERIFY(rows.at(0).record.startedMs > 0);
    QCOMPARE(rows.at(0).lastMetrics, (QMap<QString, double>{{u"loss"_s, 2.0}}));
    QCOMPARE(rows.at(1).record.status, run::RunStatus::Succeeded);
    QCOMPARE(rows.at(1).lastMetrics, (QMap<QString, double>{{u"loss"_s, 0.25}, {u"val_accuracy"_s, 0.875}}));

    // A new point of the running run shows on the next load; the view shows it as text.
    store->appendMetrics(u"new"_s, {{u"loss"_s, 1, 1.5, kBase}}, 20);
    store->flush();
    loader.reload();
    QVERIFY(loaded.wait(5000));
    rows = loaded.last().at(0).value<QList<RunRow>>();
    QCOMPARE(rows.at(0).lastMetrics.value(u"loss"_s), 1.5);
    ui::RunsView view;
    connect(&loader, &ui::RunsLoader::loaded, &view, &ui::RunsView::setRows);
    loader.reload();
    QVERIFY(loaded.wait(5000));
    QCOMPARE(view.model()->rowCount(), 2);
    QCOMPARE(view.model()->index(view.model()->rowOf(u"old"_s), RunsModel::MetricsColumn).data().toString(),
             u"val_accuracy 0.875 · loss 0.25"_s);

    // Started on a timer, it loads again by itself.
    loader.start(50);
    QVERIFY(loaded.wait(5000));
    QVERIFY(loaded.wait(5000));
    loader.stop();
    loader.setStore(nullptr);
    QVERIFY(loaded.wait(5000));
    QVERIFY(loaded.last().at(0).value<QList<RunRow>>().isEmpty());
}

// Parameters and metrics have columns of their own; numbers sort as numbers (0.003 < 0.03 < 0.1,
// not as text), a word after them, a run without a value last whichever the order.
void TestRunsModel::parameterAndMetricColumnsSortAsNumbers()
{
    ui::RunsView view;
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    RunsModel *model = view.model();
    const auto withParams = [](RunRow r, const QString &lr, const QString &optimizer) {
        r.params = {{u"lr"_s, lr}, {u"optimizer"_s, optimizer}};
        return r;
    };
    model->setRows({withParams(row(u"a"_s, run::RunStatus::Succeeded, kBase, kBase + 1, {{u"val_loss"_s, 0.5}}),
                               u"0.1"_s, u"adam"_s),
                    withParams(row(u"b"_s, run::RunStatus::Succeeded, kBase, kBase + 1, {{u"val_loss"_s, 10}}),
                               u"0.003"_s, u"sgd"_s),
                    withParams(row(u"c"_s, run::RunStatus::Succeeded, kBase, kBase + 1,
                                   {{u"val_loss"_s, 9}, {u"system/cpu_percent"_s, 50}}),
                               u"0.03"_s, u"adam"_s),
                    row(u"d"_s, run::RunStatus::Running, kBase)}); // no parameters, no metrics yet
    QCOMPARE(model->parameterNames(), (QStringList{u"lr"_s, u"optimizer"_s}));
    QCOMPARE(model->metricNames(), (QStringList{u"system/cpu_percent"_s, u"val_loss"_s}));
    const int lr = model->columnOfKey(u"hp:lr"_s), loss = model->columnOfKey(u"metric:val_loss"_s);
    QCOMPARE(lr, int(RunsModel::FixedColumns));
    QCOMPARE(model->headerData(lr, Qt::Horizontal).toString(), u"lr"_s);
    QCOMPARE(model->headerData(loss, Qt::Horizontal).toString(), u"val_loss"_s);
    QCOMPARE(model->columnKey(loss), u"metric:val_loss"_s);
    QCOMPARE(model->index(model->rowOf(u"b"_s), lr).data().toString(), u"0.003"_s);
    QCOMPARE(model->index(model->rowOf(u"c"_s), loss).data().toString(), u"9"_s);
    QVERIFY(!model->index(model->rowOf(u"d"_s), loss).data().isValid());
    // In view beside the name: the parameters, then the metrics, before the target; progress, ETA
    // and cost beside the status.
    const QHeaderView *header = view.table()->horizontalHeader();
    QCOMPARE(header->visualIndex(RunsModel::ProgressColumn), 1);
    QCOMPARE(header->visualIndex(RunsModel::CostColumn), 3);
    const int id = header->visualIndex(RunsModel::IdColumn);
    QCOMPARE(id, RunsModel::IdColumn + 3);
    QCOMPARE(header->visualIndex(lr), id + 1);
    QCOMPARE(header->visualIndex(loss), id + 4);
    QVERIFY(header->visualIndex(RunsModel::TargetColumn) > header->visualIndex(loss));

    view.table()->sortByColumn(lr, Qt::AscendingOrder);
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"b"_s, u"c"_s, u"a"_s, u"d"_s}));
    view.table()->sortByColumn(lr, Qt::DescendingOrder);
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"a"_s, u"c"_s, u"b"_s, u"d"_s}));
    view.table()->sortByColumn(loss, Qt::AscendingOrder); // 0.5 < 9 < 10: not "10" < "9"
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"a"_s, u"c"_s, u"b"_s, u"d"_s}));
    view.table()->sortByColumn(loss, Qt::DescendingOrder);
    QCOMPARE(proxyColumn(*view.proxy()), (QStringList{u"b"_s, u"c"_s, u"a"_s, u"d"_s}));

    // A parameter the runs no longer have leaves; one they gained comes, each where it sorts.
    model->setRows({withParams(row(u"a"_s, run::RunStatus::Succeeded, kBase, kBase + 1), u"0.1"_s, u"adam"_s)});
    QCOMPARE(model->metricNames(), QStringList());
    RunRow seeded = row(u"e"_s, run::RunStatus::Succeeded, kBase, kBase + 1);
    seeded.params = {{u"seed"_s, u"2"_s}, {u"batch"_s, u"32"_s}};
    model->setRows({seeded});
    QCOMPARE(model->parameterNames(), (QStringList{u"batch"_s, u"seed"_s}));
    QCOMPARE(model->columnCount(), RunsModel::FixedColumns + 2);
    QCOMPARE(model->index(0, model->columnOfKey(u"hp:seed"_s)).data().toString(), u"2"_s);
}

// Right-click on the header: a menu with a checkable entry per column; what is chosen is kept in
// the settings and applies again in a new view (the next start) once the columns come.
void TestRunsModel::columnChooserHidesShowsAndPersists()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
    RunRow a =
        row(u"a"_s, run::RunStatus::Succeeded, kBase, kBase + 1, {{u"loss"_s, 0.5}, {u"system/cpu_percent"_s, 80}});
    a.params = {{u"lr"_s, u"0.1"_s}, {u"seed"_s, u"1"_s}};
    const auto column = [](const ui::RunsView &view, const QString &key) { return view.model()->columnOfKey(key); };
    {
        ui::RunsView view;
        view.setSettings(&settings);
        view.setRows({a});
        QCOMPARE(view.table()->horizontalHeader()->contextMenuPolicy(), Qt::CustomContextMenu);
        // Shown at first: parameters and metrics; hidden: the machine's samples and the one-cell summary.
        QVERIFY(!view.table()->isColumnHidden(column(view, u"hp:seed"_s)));
        QVERIFY(!view.table()->isColumnHidden(column(view, u"metric:loss"_s)));
        QVERIFY(view.table()->isColumnHidden(column(view, u"metric:system/cpu_percent"_s)));
        QVERIFY(view.table()->isColumnHidden(RunsModel::MetricsColumn));

        std::unique_ptr<QMenu> menu(view.columnMenu(nullptr));
        QAction *seed = menu->findChild<QAction *>(u"hp:seed"_s);
        QAction *cpu = menu->findChild<QAction *>(u"metric:system/cpu_percent"_s);
        QVERIFY(seed && cpu);
        QVERIFY(seed->isCheckable() && seed->isChecked());
        QVERIFY(!cpu->isChecked());
        QCOMPARE(seed->text(), u"seed"_s);
        seed->trigger(); // hide
        cpu->trigger();  // show
        QVERIFY(view.table()->isColumnHidden(column(view, u"hp:seed"_s)));
        QVERIFY(!view.table()->isColumnHidden(column(view, u"metric:system/cpu_percent"_s)));
        QVERIFY(!view.isColumnShown(u"hp:seed"_s));
    }
    settings.sync();
    QSettings again(dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
    ui::RunsView next;
    next.setSettings(&again);
    next.setRows({a}); // the columns come after the settings, as they do at a start
    QVERIFY(next.table()->isColumnHidden(column(next, u"hp:seed"_s)));
    QVERIFY(!next.table()->isColumnHidden(column(next, u"hp:lr"_s)));
    QVERIFY(!next.table()->isColumnHidden(column(next, u"metric:system/cpu_percent"_s)));
    // Back to the defaults, from the same menu.
    std::unique_ptr<QMenu> menu(next.columnMenu(nullptr));
    const QList<QAction *> actions = menu->actions();
    const auto reset = std::find_if(actions.cbegin(), actions.cend(), [](const QAction *action) {
        return action->text() == u"Show the Default Columns"_s;
    });
    QVERIFY(reset != actions.cend());
    (*reset)->trigger();
    QVERIFY(!next.table()->isColumnHidden(column(next, u"hp:seed"_s)));
    QVERIFY(next.table()->isColumnHidden(column(next, u"metric:system/cpu_percent"_s)));
    QVERIFY(again.value(u"runsTable/hiddenColumns"_s).toStringList().isEmpty());
}

// Five runs of one script are not five rows named "train": each says its values of the
// parameters that differ among them, read from a real store; the Id column shows the end of the
// id that the chart's legend shows.
void TestRunsModel::namesSayWhatDiffers()
{
    QTemporaryDir dir;
    auto opened = run::RunStore::open(dir.filePath(u"runs.sqlite"_s));
    QVERIFY(opened.hasValue());
    std::unique_ptr<run::RunStore> store = std::move(*opened);
    const QList<std::pair<QString, QList<run::Hyperparameter>>> runs{
        {u"20261206-101530-train-0eaa"_s, {{u"lr"_s, u"0.01"_s}, {u"seed"_s, u"1"_s}, {u"epochs"_s, u"60"_s}}},
        {u"20261206-101541-train-cfbb"_s, {{u"lr"_s, u"0.03"_s}, {u"seed"_s, u"2"_s}, {u"epochs"_s, u"60"_s}}},
        {u"20261206-101552-train-24d1"_s, {{u"lr"_s, u"0.03"_s}, {u"seed"_s, u"1"_s}, {u"epochs"_s, u"60"_s}}}};
    qint64 created = kBase;
    for (const auto &[id, params] : runs) {
        run::RunRecord r;
        r.id = id;
        r.name = u"train"_s;
        r.createdMs = created += 1000;
        store->createRun(r);
        store->setParams(id, params);
    }
    run::RunRecord other;
    other.id = u"20261206-120000-prepare-9f8c"_s;
    other.name = u"prepare"_s;
    other.createdMs = created + 1000;
    store->createRun(other);
    store->flush();

    ui::RunsLoader::MetricCache cache;
    const QList<RunRow> rows = ui::RunsLoader::load(*store, cache);
    ui::RunsView view;
    view.setRows(rows);
    const RunsModel *model = view.model();
    const auto name = [&](const QString &id) { return model->index(model->rowOf(id), RunsModel::NameColumn).data(); };
    QCOMPARE(name(u"20261206-101530-train-0eaa"_s).toString(), u"train lr=0.01 seed=1"_s);
    QCOMPARE(name(u"20261206-101541-train-cfbb"_s).toString(), u"train lr=0.03 seed=2"_s);
    QCOMPARE(name(u"20261206-101552-train-24d1"_s).toString(), u"train lr=0.03 seed=1"_s);
    QCOMPARE(name(other.id).toString(), u"prepare"_s);
    QCOMPARE(model->index(model->rowOf(u"20261206-101541-train-cfbb"_s), RunsModel::IdColumn).data().toString(),
             u"cfbb"_s);
    QCOMPARE(model->index(model->rowOf(u"20261206-101541-train-cfbb"_s), RunsModel::IdColumn)
                 .data(Qt::ToolTipRole)
                 .toString(),
             u"20261206-101541-train-cfbb"_s);
    // The filter finds a run by what its name says.
    view.filterEdit()->setText(u"0.03"_s);
    QStringList found = proxyColumn(*view.proxy());
    found.sort();
    QCOMPARE(found, (QStringList{u"20261206-101541-train-cfbb"_s, u"20261206-101552-train-24d1"_s}));
}

// A workspace without runs says how to start one, where the rows would be.
void TestRunsModel::emptyTableSaysHowToStart()
{
    ui::RunsView view;
    view.resize(900, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.emptyHint()->isVisible());
    QVERIFY2(view.emptyHint()->text().contains(u"ferry run train.py"_s), qPrintable(view.emptyHint()->text()));
    QVERIFY(view.emptyHint()->text().contains(u"Ctrl+R"_s));
    QVERIFY(view.emptyHint()->width() > 300);
    view.setRows({row(u"a"_s, run::RunStatus::Running, kBase)});
    QVERIFY(!view.emptyHint()->isVisible());
    view.filterEdit()->setText(u"nothing-like-it"_s);
    QVERIFY(view.emptyHint()->isVisible());
    QCOMPARE(view.emptyHint()->text(), u"No run matches the filter."_s);
    view.filterEdit()->clear();
    QVERIFY(!view.emptyHint()->isVisible());
}

// A run deselected with Ctrl+click stays the current row of the table, but it is no longer the
// run whose details are shown: none is (review 2026-12-06, finding 8: the pane went stale).
void TestRunsModel::deselectedRunIsNoLongerCurrent()
{
    ui::RunsView view;
    view.resize(800, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setRows({row(u"a"_s, run::RunStatus::Succeeded, kBase + 2, kBase + 3),
                  row(u"b"_s, run::RunStatus::Succeeded, kBase + 1, kBase + 2)});
    QSignalSpy current(&view, &ui::RunsView::currentRunChanged);
    const int rowB = view.proxy()->mapFromSource(view.model()->index(view.model()->rowOf(u"b"_s), 0)).row();
    const QRect rect = view.table()->visualRect(view.proxy()->index(rowB, RunsModel::DurationColumn));
    QTest::mouseClick(view.table()->viewport(), Qt::LeftButton, {}, rect.center());
    QCOMPARE(view.currentRunId(), u"b"_s);
    QCOMPARE(current.last().at(0).toString(), u"b"_s);
    QTest::mouseClick(view.table()->viewport(), Qt::LeftButton, Qt::ControlModifier, rect.center());
    QVERIFY(view.selectedRunIds().isEmpty());
    QCOMPARE(view.table()->selectionModel()->currentIndex().row(), rowB); // still the current row
    QCOMPARE(view.currentRunId(), QString());
    QCOMPARE(current.last().at(0).toString(), QString());
}

// A query keeps a few runs: the columns are their parameters and metrics, not empty ones that only
// the runs filtered away have (the chart-groups screenshot showed a row of empty columns).
void TestRunsModel::columnsAreThoseOfTheRunsTheQueryKeeps()
{
    RunsModel model;
    RunRow kept = row(u"a"_s, run::RunStatus::Succeeded, kBase, kBase + 1, {{u"val_loss"_s, 0.5}});
    kept.params = {{u"lr"_s, u"0.1"_s}};
    RunRow other = row(u"b"_s, run::RunStatus::Succeeded, kBase, kBase + 1, {{u"accuracy"_s, 0.9}});
    other.params = {{u"dropout"_s, u"0.2"_s}};
    other.matches = false;
    model.setRows({kept, other});
    QCOMPARE(model.parameterNames(), QStringList{u"lr"_s});
    QCOMPARE(model.metricNames(), QStringList{u"val_loss"_s});
    // The query lifted: every run's columns again.
    other.matches = true;
    model.setRows({kept, other});
    QCOMPARE(model.parameterNames(), (QStringList{u"dropout"_s, u"lr"_s}));
    QCOMPARE(model.metricNames(), (QStringList{u"accuracy"_s, u"val_loss"_s}));
    // A query that keeps none: the table is empty, the columns stay those of every run.
    kept.matches = false;
    other.matches = false;
    model.setRows({kept, other});
    QCOMPARE(model.parameterNames(), (QStringList{u"dropout"_s, u"lr"_s}));
}

FERRY_TEST_MAIN(TestRunsModel)
#include "tst_runsmodel.moc"
