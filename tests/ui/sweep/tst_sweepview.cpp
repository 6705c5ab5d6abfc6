// The sweep view and the sweep form (ui/sweep/) on a sweep of the test's own: the state a
// controller writes (.ferry/sweeps/ID/state.json) and the trials' runs in a real run store. The
// table sorts by objective; a range dragged on the parallel coordinates' objective axis (by the
// mouse) keeps the table's rows and the plots to the trials in it, a click clears it; the curves
// hold every trial's metric, the best pinned; "Re-run Best With…" hands out the best trial's
// run without its sweep tags; a state the controller rewrites is shown within a refresh; the
// form writes the file it previews, which reads back to the same spec, and refuses a bad one.
#include "support/files.h"
#include "support/runhistory.h"
#include "support/testmain.h"

#include "store/runstore.h"
#include "sweep/sweepstate.h"
#include "ui/analysis/parallelcoordinates.h"
#include "ui/chart/losschartpanel.h"
#include "ui/sweep/sweepdialog.h"
#include "ui/sweep/sweepplots.h"
#include "ui/sweep/sweeptrialsmodel.h"
#include "ui/sweep/sweepview.h"

#include <QHeaderView>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

const char *const kSweep = R"(ferry-sweep: 1
script: train.py
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0}
  layers: {values: ["64", "128"]}
max_trials: 12
max_parallel: 2
)";

// kSweep as the form holds it: its parameters have no line (where a file defines them).
sweep::SweepSpec formSpec()
{
    sweep::SweepSpec spec = sweep::parseSweepYaml(QString::fromUtf8(kSweep), u"s.yml"_s).spec;
    for (sweep::Parameter &p : spec.parameters)
        p.line = 0;
    return spec;
}

// Trial n: lr 10^(-4 + n/3), val_loss |log10(lr) + 2| + 0.1: trial 6 (lr 0.01) is the best.
double objectiveOf(int n)
{
    return std::abs(-4.0 + n / 3.0 + 2.0) + 0.1;
}

struct Fixture {
    QTemporaryDir dir;
    std::unique_ptr<run::RunStore> store;
    sweep::SweepDirectory sweepDir{dir.filePath(u".ferry/sweeps/s1"_s)};
    sweep::SweepState state;

    Fixture()
    {
        test::writeFileOrStop(dir.filePath(u"train.py"_s), "print(1)\n");
        store = std::move(*run::RunStore::open(dir.filePath(u".ferry/runs.sqlite"_s)));
        state.id = u"s1"_s;
        state.name = u"tune"_s;
        state.sourceFile = dir.filePath(u"sweeps/tune.yml"_s);
        state.createdMs = 1000;
        for (int n = 0; n < 12; ++n) {
            sweep::Trial t;
            t.number = n;
            t.runId = u"run-%1"_s.arg(n);
            t.status = sweep::TrialStatus::Succeeded;
            const double lr = std::pow(10.0, -4.0 + n / 3.0);
            t.point = {std::log(lr), double(n % 2)};
            t.hyperparameters = {{u"lr"_s, QString::number(lr)}, {u"layers"_s, n % 2 ? u"128"_s : u"64"_s}};
            t.objective = objectiveOf(n);
            t.startedMs = 1000 + n * 100;
            t.finishedMs = t.startedMs + 50;
            state.trials << t;
            run::RunSpec spec;
            spec.id = t.runId;
            spec.script = u"train.py"_s;
            spec.sourceDir = dir.path();
            spec.hyperparameters = t.hyperparameters;
            spec.sweep = state.id;
            spec.trial = n;
            run::RunRecord record = run::newRunRecord(spec);
            store->createRun(record);
            QList<run::MetricPoint> points;
            for (int step = 1; step <= 5; ++step)
                points << run::MetricPoint{u"val_loss"_s, double(step), objectiveOf(n) + 1.0 / step, 0, NAN};
            store->appendMetrics(t.runId, points, 0);
            store->setStatus(t.runId, run::RunStatus::Succeeded, 0);
        }
        store->flush();
        if (!sweepDir.create(kSweep, state))
            qFatal("cannot make the sweep's folder");
    }
};

int rowsOf(ui::SweepView &view)
{
    return view.table()->model()->rowCount();
}

} // namespace

class TestSweepView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tableSortsAndTheParallelCoordinatesFilter()
    {
        Fixture f;
        ui::SweepView view;
        view.resize(1400, 800);
        view.setWorkspace(*workspace::Workspace::open(f.dir.path()), f.store.get(), {});
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.currentSweep(), u"s1"_s);
        QCOMPARE(rowsOf(view), 12);
        // Sorted by the objective: the best first.
        view.table()->sortByColumn(ui::SweepTrialsModel::ObjectiveColumn, Qt::AscendingOrder);
        QCOMPARE(view.table()->model()->index(0, 0).data(ui::SweepTrialsModel::TrialRole).toInt(), 6);
        QVERIFY(view.table()->model()->index(0, 0).data().toString().contains(u"best"_s));

        // A range dragged on the objective's axis, from its bottom (the least) up a quarter.
        ui::ParallelCoordinates *parallel = view.parallelCoordinates();
        view.tabs()->setCurrentWidget(parallel);
        QTest::qWait(50);
        const int axis = int(view.plotData().axes().size()) - 1;
        const auto [top, bottom] = parallel->axisSpan();
        const QPoint from(int(parallel->axisX(axis)), int(bottom));
        const QPoint to(from.x(), int(bottom - 0.25 * (bottom - top)));
        QSignalSpy changed(parallel, &ui::ParallelCoordinates::rangesChanged);
        QTest::mousePress(parallel, Qt::LeftButton, {}, from);
        QTest::mouseMove(parallel, QPoint(from.x(), (from.y() + to.y()) / 2));
        QTest::mouseMove(parallel, to);
        QTest::mouseRelease(parallel, Qt::LeftButton, {}, to);
        QVERIFY(!changed.isEmpty());
        // Objectives span 0.1 .. 2.1: a quarter keeps those up to 0.6 (trials 5, 6 and 7).
        QCOMPARE(rowsOf(view), 3);
        QSet<int> kept;
        for (int r = 0; r < rowsOf(view); ++r)
            kept.insert(view.table()->model()->index(r, 0).data(ui::SweepTrialsModel::TrialRole).toInt());
        QCOMPARE(kept, (QSet<int>{5, 6, 7}));
        QCOMPARE(view.plotData().passingTrials(), kept);
        // A click on the axis lets every trial through again.
        QTest::mouseClick(parallel, Qt::LeftButton, {}, QPoint(from.x(), int((top + bottom) / 2)));
        QCOMPARE(rowsOf(view), 12);
        QVERIFY(!view.plotData().filtered());
    }

    // Review 2026-12-06, finding 6: the second parameter's plot ("val_loss by layers", a
    // `values:` list) was painted solid with the colour of the first plot's last dot; the colours
    // had no scale; the trial table cut off its last column.
    void parameterPlotsAreFramedWithAColourScaleAndTheTableFits()
    {
        Fixture f;
        ui::SweepView view;
        view.resize(1280, 760);
        view.setWorkspace(*workspace::Workspace::open(f.dir.path()), f.store.get(), {});
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        ui::ParameterScatter *scatter = view.parameterScatter();
        view.tabs()->setCurrentWidget(scatter);
        QTest::qWait(50);
        const QImage image = scatter->grab().toImage();
        const QColor base = scatter->palette().base().color();
        for (int index : {0, 1}) {
            const QRectF plot = scatter->plotRect(index);
            QVERIFY(!plot.isEmpty());
            // Inside the frame, away from the dots (a list's values sit at 1/4 and 3/4 across).
            const QPoint inside = (plot.topLeft() + QPointF(4, 4)).toPoint() * image.devicePixelRatio();
            QCOMPARE(image.pixelColor(inside), base);
        }
        // The colour scale: the worst trial's colour at its left end, the best's at its right.
        const QRectF bar = scatter->colorScaleBar();
        QVERIFY(!bar.isEmpty());
        const auto near = [](const QColor &a, const QColor &b) {
            return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) < 40;
        };
        const double dpr = image.devicePixelRatio();
        QVERIFY(near(image.pixelColor(QPointF(bar.left() + 2, bar.center().y()).toPoint() * dpr),
                     ui::SweepPlot::kWorstColor));
        QVERIFY(near(image.pixelColor(QPointF(bar.right() - 2, bar.center().y()).toPoint() * dpr),
                     ui::SweepPlot::kBestColor));
        ui::ParallelCoordinates *parallel = view.parallelCoordinates();
        view.tabs()->setCurrentWidget(parallel);
        QTest::qWait(50);
        (void)parallel->grab();
        QVERIFY(!parallel->colorScaleBar().isEmpty());

        // Every column of the trial table in view, without scrolling sideways.
        QHeaderView *header = view.table()->horizontalHeader();
        header->setStretchLastSection(false);
        view.table()->resizeColumnsToContents();
        const int needed = header->length();
        header->setStretchLastSection(true);
        QVERIFY2(view.table()->viewport()->width() >= needed,
                 qPrintable(u"%1 < %2"_s.arg(view.table()->viewport()->width()).arg(needed)));
    }

    void curvesRerunAndRefresh()
    {
        Fixture f;
        ui::SweepView view;
        view.setWorkspace(*workspace::Workspace::open(f.dir.path()), f.store.get(), {});
        // Every trial's curve, labelled by its trial, the best pinned.
        ui::LossChart *chart = view.curves()->chart();
        QTRY_COMPARE(chart->legendRuns().size(), 12);
        QCOMPARE(chart->runLabel(u"run-3"_s), u"trial 3"_s);
        QCOMPARE(chart->pinnedRun(), u"run-6"_s);

        QSignalSpy rerun(&view, &ui::SweepView::rerunRequested);
        QVERIFY(view.rerunButton()->isEnabled());
        view.rerunButton()->click();
        QCOMPARE(rerun.size(), 1);
        const auto spec = rerun.first().first().value<run::RunSpec>();
        QCOMPARE(spec.hyperparameters, f.state.trials[6].hyperparameters);
        QVERIFY(spec.sweep.isEmpty());
        QCOMPARE(spec.trial, -1);

        // The controller writes a new state: a 13th trial, now the best.
        sweep::Trial extra = f.state.trials[0];
        extra.number = 12;
        extra.runId = u"run-12"_s;
        extra.objective = 0.01;
        f.state.trials << extra;
        QVERIFY(f.sweepDir.writeState(f.state));
        view.refresh();
        QCOMPARE(rowsOf(view), 13);
        QCOMPARE(view.plotData().trials()[std::size_t(*view.plotData().best())].number, 12);
    }

    void formWritesWhatItShows()
    {
        QTemporaryDir dir;
        test::writeFileOrStop(dir.filePath(u"train.py"_s), "print(1)\n");
        const auto workspace = workspace::Workspace::open(dir.path());
        ui::SweepDialog form(*workspace, {});
        const sweep::SweepSpec spec = formSpec();
        form.setSpec(spec, u"tune"_s);
        QCOMPARE(form.spec(), spec);
        QVERIFY2(form.problems().isEmpty(), qPrintable(form.problems()));
        QVERIFY(form.save());
        const sweep::SweepRead back = sweep::readSweepFile(dir.filePath(u"sweeps/tune.yml"_s));
        QVERIFY(back.diagnostics.isEmpty());
        sweep::SweepSpec got = back.spec;
        for (int i = 0; i < got.parameters.size(); ++i)
            got.parameters[i].line = 0;
        QCOMPARE(got, spec);
        // A parameter whose range is upside down: the file:line error, and no start.
        QTableWidget *table = form.parameters();
        table->item(0, 2)->setText(u"1.0"_s);
        table->item(0, 3)->setText(u"0.001"_s);
        QVERIFY2(form.problems().contains(u"sweeps/tune.yml:"_s) && form.problems().contains(u"error"_s),
                 qPrintable(form.problems()));
        QVERIFY(!form.startButton()->isEnabled());
    }

    // The form's estimate is `ferry sweep plan`'s (sweep/sweepestimate.h): the same history as
    // tst_costcli's (three runs of 10 epochs: 100, 130, 110 s) gives the same total; none without it.
    void formEstimatesAsSweepPlanDoes()
    {
        QTemporaryDir dir;
        test::writeFileOrStop(dir.filePath(u"train.py"_s), "print(1)\n");
        const auto workspace = workspace::Workspace::open(dir.path());
        ui::SweepDialog form(*workspace, {});
        const sweep::SweepSpec spec =
            sweep::parseSweepYaml(u"ferry-sweep: 1\nscript: train.py\nmethod: grid\nmetric: loss\n"
                                  u"parameters:\n  epochs: [10, 20]\nmax_parallel: 2\n"_s,
                                  u"epochs.yml"_s)
                .spec;
        form.setSpec(spec, u"epochs"_s);
        QVERIFY2(form.estimateLabel()->text().startsWith(u"estimate: no history for 2 of 2 trials"_s),
                 qPrintable(form.estimateLabel()->text()));
        QList<run::RunRecord> history;
        const qint64 seconds[]{100, 130, 110};
        for (int i = 0; i < 3; ++i)
            history << test::pastRecord(test::PastRun{u"run%1"_s.arg(i), u"train.py"_s, u"local"_s, test::epochs(10),
                                                      1796600000000 + i * 600000, seconds[i]},
                                        workspace->root());
        form.setEstimateSource(history, {{u"local"_s, cost::Rate{3.6, cost::RateUnit::Hour, u"set by you"_s}}});
        const QString text = form.estimateLabel()->text();
        QVERIFY2(text.startsWith(u"estimate: 2 trials, 2 at a time: about 3m 40s until the last ends"_s),
                 qPrintable(text));
        QVERIFY2(text.contains(u"cost: about 0.33 USD"_s), qPrintable(text));
    }

    // A sweep across Slurm nodes: the options line shows the file's target_options and writes
    // them back; a wrong one is an error, and nodes off Slurm the file's error at its line.
    void formKeepsTargetOptions()
    {
        QTemporaryDir dir;
        test::writeFileOrStop(dir.filePath(u"train.py"_s), "print(1)\n");
        const auto workspace = workspace::Workspace::open(dir.path());
        ui::SweepDialog form(*workspace, {});
        sweep::SweepSpec spec = formSpec();
        spec.target = u"slurm:local"_s;
        spec.targetOptions = QJsonObject{{u"nodes"_s, 2}, {u"gpusPerNode"_s, 1}, {u"partition"_s, u"gpu"_s}};
        form.setSpec(spec, u"nodes"_s);
        auto *options = form.findChild<QLineEdit *>(u"sweepTargetOptions"_s);
        QVERIFY(options);
        QCOMPARE(options->text(), u"partition=gpu nodes=2 gpus-per-node=1"_s);
        QCOMPARE(form.spec(), spec);
        QVERIFY2(form.problems().isEmpty(), qPrintable(form.problems()));
        QVERIFY(form.save());
        QCOMPARE(sweep::readSweepFile(dir.filePath(u"sweeps/nodes.yml"_s)).spec.targetOptions, spec.targetOptions);

        options->setText(u"nodes=two"_s);
        QVERIFY2(form.problems().contains(u"error: nodes is a whole number, not 'two'"_s), qPrintable(form.problems()));
        QVERIFY(!form.startButton()->isEnabled());
        options->setText(u"node=2"_s);
        QVERIFY2(form.problems().contains(u"'node' is not a target option"_s), qPrintable(form.problems()));
        options->setText(u"nodes=2"_s);
        QVERIFY(form.problems().isEmpty());
        form.setSpec(
            [&] {
                sweep::SweepSpec local = spec;
                local.target = u"local"_s;
                return local;
            }(),
            u"nodes"_s);
        QVERIFY2(form.problems().contains(u"sweeps/nodes.yml:"_s) && form.problems().contains(u"Slurm"_s),
                 qPrintable(form.problems()));
        QVERIFY(!form.startButton()->isEnabled());
    }
};

FERRY_TEST_MAIN(TestSweepView)
#include "tst_sweepview.moc"
