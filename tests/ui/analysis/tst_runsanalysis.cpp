// The Analysis tab over a real store of thirteen runs (ui/analysis/): the scatter's points are
// runValues' values of the chosen axes and move when x changes, a third value colours them by its
// scale, the parallel coordinates' axes are the parameters chosen, the importance table is
// parameterImportance's rows sorted by importance, and the tab follows the runs table's filter
// and selection (ui/window/analysiscontroller.h).
#include "analysis/importance.h"
#include "analysis/runvalues.h"
#include "store/runstore.h"
#include "support/testmain.h"
#include "ui/analysis/importancemodel.h"
#include "ui/analysis/parallelcoordinates.h"
#include "ui/analysis/runsanalysisview.h"
#include "ui/analysis/runvaluechooser.h"
#include "ui/analysis/scatterplot.h"
#include "ui/chart/chartaxis.h"
#include "ui/document/documentarea.h"
#include "ui/runs/runsview.h"
#include "ui/window/analysiscontroller.h"

#include <QApplication>
#include <QCheckBox>
#include <QHelpEvent>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolTip>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

constexpr qint64 kAnalysisStart = 1'765'000'000'000;

// r00..r12: lr from 1e-4 to 1e-1 over its decades, batch 16/32/64, optimizer adam or sgd, epochs 10 in
// all; val_loss a curve falling to a floor set by lr, accuracy rising; r12 has no val_loss.
struct AnalysisRuns {
    QTemporaryDir dir;
    std::unique_ptr<run::RunStore> store;
    QStringList ids;

    AnalysisRuns()
    {
        store = std::move(*run::RunStore::open(run::RunStore::pathInWorkspace(dir.path())));
        for (int i = 0; i < 13; ++i) {
            const QString id = u"r%1"_s.arg(i, 2, 10, QChar(u'0'));
            run::RunRecord r;
            r.id = id;
            r.name = (i % 2 ? u"sgd-"_s : u"adam-"_s) + QString::number(i);
            r.status = run::RunStatus::Succeeded;
            r.target = u"local"_s;
            r.createdMs = r.startedMs = kAnalysisStart + i * 1000;
            r.finishedMs = r.startedMs + 500;
            r.spec = QJsonObject{{u"script"_s, u"train.py"_s}};
            store->createRun(r);
            const double lr = std::pow(10.0, -4 + 3.0 * i / 12);
            store->setParams(id, {{u"lr"_s, QString::number(lr, 'g', 6)},
                                  {u"batch"_s, QString::number(16 << (i % 3))},
                                  {u"optimizer"_s, i % 2 ? u"sgd"_s : u"adam"_s},
                                  {u"epochs"_s, u"10"_s}});
            QList<run::MetricPoint> points;
            const double floor = 0.2 + 0.3 * std::pow(std::log10(lr) + 2.5, 2) + 0.01 * (i % 3);
            for (int step = 0; step <= 20; ++step) {
                const double decay = std::exp(-step / 5.0);
                const qint64 wall = kAnalysisStart + step;
                if (i != 12)
                    points << run::MetricPoint{u"val_loss"_s, double(step), floor + 2 * decay, wall};
                points << run::MetricPoint{u"loss"_s, double(step), floor * 0.9 + 2 * decay, wall};
                points << run::MetricPoint{u"accuracy"_s, double(step), 1 - floor / 3 - 0.5 * decay, wall};
            }
            store->appendMetrics(id, points, 0);
            ids << id;
        }
        store->flush();
    }

    QList<run::RunRecord> records() const
    {
        QList<run::RunRecord> list;
        for (const QString &id : ids)
            list << *store->run(id);
        return list;
    }
};

run::RunValueSpec valueSpec(const QString &text)
{
    return *run::RunValueSpec::parse(text);
}

// As the user does: a value chosen in the chooser.
void chooseValue(ui::RunValueChooser *chooser, const std::optional<run::RunValueSpec> &value)
{
    chooser->setSpec(value);
    Q_EMIT chooser->changed();
}

bool analysisSettled(const ui::RunsAnalysisView &view)
{
    QTest::qWait(20);
    return !view.isReading();
}

bool colourNear(const QColor &a, const QColor &b, int by = 30)
{
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) < by;
}

QColor pixelAt(QWidget &widget, const QPointF &at)
{
    const QImage image = widget.grab().toImage();
    return image.pixelColor((at * image.devicePixelRatio()).toPoint());
}

// What the tooltip says with the pointer at `at`.
QString toolTipAt(QWidget &widget, const QPoint &at)
{
    QHelpEvent help(QEvent::ToolTip, at, widget.mapToGlobal(at));
    QApplication::sendEvent(&widget, &help);
    return QToolTip::isVisible() ? QToolTip::text() : QString();
}

} // namespace

class TestRunsAnalysis : public QObject {
    Q_OBJECT
private:
    // The tab over the fixture's runs, read and drawn.
    static bool open(ui::RunsAnalysisView &view, AnalysisRuns &f)
    {
        view.resize(1200, 760);
        view.setStore(f.store.get());
        view.setRuns(f.ids, u"all"_s);
        view.show();
        if (!QTest::qWaitForWindowExposed(&view))
            return false;
        return QTest::qWaitFor([&] { return analysisSettled(view) && !view.read().runs.isEmpty(); }, 10000);
    }

private Q_SLOTS:
    void scatterPointsAreTheRunsValues()
    {
        AnalysisRuns f;
        ui::RunsAnalysisView view;
        QVERIFY(open(view, f));
        // What it chose first: lr (which differs, on a log scale: it spans three decades) against
        // val_loss's last value.
        QCOMPARE(view.scatterX()->spec()->text(), u"hp.lr"_s);
        QCOMPARE(view.scatterY()->spec()->text(), u"metrics.val_loss.last"_s);
        QVERIFY(view.logX()->isChecked());
        QVERIFY(!view.logY()->isChecked());

        chooseValue(view.scatterY(), valueSpec(u"metrics.val_loss.best"_s));
        QVERIFY(QTest::qWaitFor([&] { return analysisSettled(view); }));
        const auto xs = run::runValues(*f.store, f.records(), valueSpec(u"hp.lr"_s));
        const auto ys = run::runValues(*f.store, f.records(), valueSpec(u"metrics.val_loss.best"_s));
        QCOMPARE(xs.size(), 13);
        QCOMPARE(ys.size(), 12); // r12 has no val_loss
        const ui::ScatterPlot *scatter = view.scatter();
        QCOMPARE(scatter->points().size(), std::size_t(12));
        QVERIFY(scatter->xAxis().log);
        for (const ui::ScatterPoint &point : scatter->points()) {
            QVERIFY2(xs.contains(point.key) && ys.contains(point.key), qPrintable(point.key));
            // The place is the value's, and reads back as it.
            QCOMPARE(point.x, *scatter->xAxis().position(*xs[point.key].number));
            QCOMPARE(point.y, *scatter->yAxis().position(*ys[point.key].number));
            QVERIFY(std::abs(scatter->xAxis().valueAt(point.x) / *xs[point.key].number - 1) < 1e-9);
            QVERIFY(std::abs(scatter->yAxis().valueAt(point.y) - *ys[point.key].number) < 1e-9);
        }
        // The least lr leftmost, the greatest rightmost.
        const QRectF area = ui::plotArea(scatter->frame());
        QCOMPARE(scatter->pointPosition(u"r00"_s)->x(), area.left());
        QCOMPARE(scatter->pointPosition(u"r11"_s)->x(), area.right());
        QVERIFY(!scatter->pointPosition(u"r12"_s));
        // The pointer over a point names its run and its values.
        QVERIFY(toolTipAt(*view.scatter(), scatter->pointPosition(u"r03"_s)->toPoint()).contains(u"sgd-3"_s));
        QVERIFY(toolTipAt(*view.scatter(), scatter->pointPosition(u"r03"_s)->toPoint())
                    .contains(ui::formatValue(*ys[u"r03"_s].number)));
        // The run without val_loss is named under the plot.
        QVERIFY2(view.scatterNote()->text().contains(u"adam-12"_s), qPrintable(view.scatterNote()->text()));
    }

    void changingXMovesThePaintedPoints()
    {
        AnalysisRuns f;
        ui::RunsAnalysisView view;
        QVERIFY(open(view, f));
        const auto colourOf = [&](const QString &key) {
            for (const ui::ScatterPoint &p : view.scatter()->points())
                if (p.key == key)
                    return p.color;
            return QColor();
        };
        const QPointF before = *view.scatter()->pointPosition(u"r04"_s);
        const QColor r04 = colourOf(u"r04"_s);
        QVERIFY(colourNear(pixelAt(*view.scatter(), before), r04));

        // x: the batch size (16, 32, 64: r04 has 32).
        chooseValue(view.scatterX(), valueSpec(u"hp.batch"_s));
        QVERIFY(QTest::qWaitFor([&] { return analysisSettled(view); }));
        QCOMPARE(view.scatter()->xAxis().name, u"batch"_s);
        QVERIFY(!view.logX()->isChecked()); // 16 to 64: not a log scale's span
        const QPointF after = *view.scatter()->pointPosition(u"r04"_s);
        QCOMPARE(after.y(), before.y()); // y is still val_loss
        QVERIFY(std::abs(after.x() - before.x()) > 20);
        const QRectF area = ui::plotArea(view.scatter()->frame());
        // 32 on an axis from 16 to 64: a third of the way.
        QCOMPARE(*view.scatter()->xAxis().position(32.0), 1.0 / 3);
        QVERIFY(std::abs(after.x() - (area.left() + area.width() / 3)) < 1e-6);
        // Painted there now, and no longer where it was.
        const QImage image = view.scatter()->grab().toImage();
        const auto at = [&](const QPointF &p) { return image.pixelColor((p * image.devicePixelRatio()).toPoint()); };
        QCOMPARE(colourOf(u"r04"_s), r04);
        QVERIFY(colourNear(at(after), r04));
        QVERIFY(view.scatter()->keyAt(before) != u"r04"_s);

        // The log scale toggles by hand.
        view.logX()->setChecked(true);
        QVERIFY(view.scatter()->xAxis().log);
        view.logX()->setChecked(false);
        QVERIFY(!view.scatter()->xAxis().log);
    }

    void colourByAThirdValue()
    {
        AnalysisRuns f;
        ui::RunsAnalysisView view;
        QVERIFY(open(view, f));
        chooseValue(view.scatterColor(), valueSpec(u"metrics.accuracy.max"_s));
        QVERIFY(QTest::qWaitFor([&] { return analysisSettled(view); }));
        const auto acc = run::runValues(*f.store, f.records(), valueSpec(u"metrics.accuracy.max"_s));
        QVERIFY(view.scatter()->colorScale().has_value());
        const ui::ColorScale &scale = *view.scatter()->colorScale();
        double lo = 1e300, hi = -1e300;
        QString least, greatest;
        for (const ui::ScatterPoint &p : view.scatter()->points()) { // the runs drawn
            const double v = *acc[p.key].number;
            if (v < lo) {
                lo = v;
                least = p.key;
            }
            if (v > hi) {
                hi = v;
                greatest = p.key;
            }
        }
        // The legend says the least and the greatest; their runs have the scale's two ends.
        QCOMPARE(scale.lowLabel, ui::formatValue(lo));
        QCOMPARE(scale.highLabel, ui::formatValue(hi));
        QVERIFY(scale.title.contains(u"accuracy (max)"_s));
        for (const ui::ScatterPoint &p : view.scatter()->points()) {
            const double t = (*acc[p.key].number - lo) / (hi - lo);
            QVERIFY2(colourNear(p.color, scale.colorAt(t), 3), qPrintable(p.key));
        }
        const auto colourOf = [&](const QString &key) {
            for (const ui::ScatterPoint &p : view.scatter()->points())
                if (p.key == key)
                    return p.color;
            return QColor();
        };
        QCOMPARE(colourOf(least), scale.colorAt(0));
        QCOMPARE(colourOf(greatest), scale.colorAt(1));
        QVERIFY(colourOf(least) != colourOf(greatest));
        // Painted: the legend's bar from the least's colour to the greatest's, and the points.
        const QRectF bar = view.scatter()->colorScaleBar();
        QVERIFY(!bar.isEmpty());
        QVERIFY(colourNear(pixelAt(*view.scatter(), QPointF(bar.left() + 3, bar.center().y())), scale.colorAt(0), 40));
        QVERIFY(colourNear(pixelAt(*view.scatter(), QPointF(bar.right() - 3, bar.center().y())), scale.colorAt(1), 40));
        QVERIFY(colourNear(pixelAt(*view.scatter(), *view.scatter()->pointPosition(greatest)), scale.colorAt(1)));

        // A text value colours by category, one colour each.
        chooseValue(view.scatterColor(), valueSpec(u"hp.optimizer"_s));
        QVERIFY(QTest::qWaitFor([&] { return analysisSettled(view); }));
        QCOMPARE(view.scatter()->colorScale()->categories, (QStringList{u"adam"_s, u"sgd"_s}));
        QVERIFY(colourOf(u"r00"_s) != colourOf(u"r01"_s));
        QCOMPARE(colourOf(u"r00"_s), colourOf(u"r02"_s));
        // None: each run in its own colour, no legend.
        chooseValue(view.scatterColor(), std::nullopt);
        QVERIFY(!view.scatter()->colorScale());
    }

    void parallelCoordinatesFollowTheChosenParameters()
    {
        AnalysisRuns f;
        ui::RunsAnalysisView view;
        QVERIFY(open(view, f));
        view.tabs()->setCurrentWidget(view.parallel()->parentWidget());
        // First: the parameters that differ (epochs is 10 in all), then the metric.
        QStringList names;
        for (const ui::PlotAxis &axis : view.parallelData().axes())
            names << axis.name;
        QCOMPARE(names, (QStringList{u"batch"_s, u"lr"_s, u"optimizer"_s, u"val_loss (last)"_s}));
        QVERIFY(view.parallelData().axes()[1].log);
        // A few whole numbers (the batch size) are marked where they are.
        QCOMPARE(view.parallelData().axes()[0].marks, (std::vector<double>{16, 32, 64}));
        QStringList marks;
        for (const ui::PlotAxis::Tick &tick : view.parallelData().axes()[0].ticks(10))
            marks << tick.label;
        QCOMPARE(marks, (QStringList{u"16"_s, u"32"_s, u"64"_s}));
        QCOMPARE(view.parallelData().axes()[2].categories, (QStringList{u"adam"_s, u"sgd"_s}));

        view.setParallelParams({u"lr"_s, u"epochs"_s});
        chooseValue(view.parallelMetric(), valueSpec(u"metrics.accuracy@10"_s));
        QVERIFY(QTest::qWaitFor([&] { return analysisSettled(view); }));
        names.clear();
        for (const ui::PlotAxis &axis : view.parallelData().axes())
            names << axis.name;
        QCOMPARE(names, (QStringList{u"lr"_s, u"epochs"_s, u"accuracy at step 10"_s}));
        const auto lr = run::runValues(*f.store, f.records(), valueSpec(u"hp.lr"_s));
        const auto acc = run::runValues(*f.store, f.records(), valueSpec(u"metrics.accuracy@10"_s));
        const ui::PlotTable &table = view.parallelData();
        QCOMPARE(table.lines().size(), std::size_t(13));
        for (const ui::PlotLine &line : table.lines()) {
            QCOMPARE(*line.positions[0], *table.axes()[0].position(lr[line.key]));
            QCOMPARE(*line.positions[2], *table.axes()[2].position(acc[line.key]));
            QCOMPARE(line.color, line.positions[2]); // coloured by the metric
        }
        // Painted: an axis where the widget says, its name above it.
        (void)view.parallel()->grab();
        QVERIFY(!view.parallel()->colorScaleBar().isEmpty());
        // A line's run is named under the pointer: r00's lr is the least (bottom of the lr axis).
        const auto [top, bottom] = view.parallel()->axisSpan();
        const auto line = view.parallel()->lineAt(QPointF(view.parallel()->axisX(0), bottom));
        QVERIFY(line);
        QCOMPARE(table.lines()[*line].key, u"r00"_s);
        QVERIFY(
            toolTipAt(*view.parallel(), QPointF(view.parallel()->axisX(0), bottom).toPoint()).contains(u"adam-0"_s));
        QSignalSpy clicked(&view, &ui::RunsAnalysisView::runClicked);
        const double x = (view.parallel()->axisX(0) + view.parallel()->axisX(1)) / 2;
        const double y =
            bottom - (*table.lines()[*line].positions[0] + *table.lines()[*line].positions[1]) / 2 * (bottom - top);
        QTest::mouseClick(view.parallel(), Qt::LeftButton, {}, QPointF(x, y).toPoint());
        QCOMPARE(clicked.size(), 1);
        QCOMPARE(clicked.first().first().toString(), u"r00"_s);
    }

    void importanceTableIsTheCoresSortedByImportance()
    {
        AnalysisRuns f;
        ui::RunsAnalysisView view;
        QVERIFY(open(view, f));
        view.tabs()->setCurrentIndex(2);
        chooseValue(view.importanceMetric(), valueSpec(u"metrics.val_loss.best"_s));
        QVERIFY(QTest::qWaitFor([&] {
            return analysisSettled(view) && view.importanceModel()->rowCount() > 0 &&
                   !view.importanceModel()->report().notes.isEmpty();
        }));
        const auto core = run::parameterImportance(*f.store, f.records(), valueSpec(u"metrics.val_loss.best"_s));
        QVERIFY(core);
        QCOMPARE(view.importanceModel()->report().runs, core->runs);
        QCOMPARE(core->runs, 12);
        const QAbstractItemModel *shown = view.importanceTable()->model();
        QCOMPARE(shown->rowCount(), int(core->features.size()));
        double previous = 2;
        for (int row = 0; row < shown->rowCount(); ++row) {
            const run::FeatureImportance &expected = core->features[row];
            const QString name = shown->index(row, ui::ImportanceModel::ParameterColumn).data().toString();
            QCOMPARE(name, expected.category.isEmpty() ? expected.param
                                                       : u"%1 = %2"_s.arg(expected.param, expected.category));
            const double importance =
                shown->index(row, ui::ImportanceModel::ImportanceColumn).data(ui::ImportanceModel::SortRole).toDouble();
            QCOMPARE(importance, expected.importance);
            QVERIFY(importance <= previous); // most important first
            previous = importance;
            QCOMPARE(shown->index(row, ui::ImportanceModel::CorrelationColumn).data().toString(),
                     QString::number(expected.correlation, 'f', 3));
            // The correlation's bar: its sign and size.
            const double bar =
                shown->index(row, ui::ImportanceModel::CorrelationColumn).data(ui::ImportanceModel::BarRole).toDouble();
            QCOMPARE(bar, expected.correlation);
        }
        QCOMPARE(shown->index(0, 0).data().toString(), u"lr"_s); // val_loss's floor is set by lr
        // What the core left out, and why: epochs, the same in every run; r12 without val_loss.
        for (const QString &note : core->notes)
            QVERIFY2(view.importanceNotes()->text().contains(note), qPrintable(view.importanceNotes()->text()));
        QVERIFY(view.importanceNotes()->text().contains(u"epochs: the same in every run"_s));

        // A parameter double-clicked: the metric against it in the scatter.
        const QModelIndex batch = [&] {
            for (int row = 0; row < shown->rowCount(); ++row)
                if (shown->index(row, 0).data().toString() == u"batch"_s)
                    return shown->index(row, 0);
            return QModelIndex();
        }();
        QVERIFY(batch.isValid());
        const QPoint cell = view.importanceTable()->visualRect(batch).center();
        // The press before the double click, as a mouse gives it (the view checks that both hit the row).
        QTest::mousePress(view.importanceTable()->viewport(), Qt::LeftButton, {}, cell);
        QTest::mouseDClick(view.importanceTable()->viewport(), Qt::LeftButton, {}, cell);
        QCOMPARE(view.tabs()->currentIndex(), 0);
        QCOMPARE(view.scatterX()->spec()->text(), u"hp.batch"_s);
        QCOMPARE(view.scatterY()->spec()->text(), u"metrics.val_loss.best"_s);
        QVERIFY(QTest::qWaitFor([&] { return analysisSettled(view) && view.scatter()->xAxis().name == u"batch"_s; }));
    }

    void followsTheRunsTableFilterAndSelection()
    {
        AnalysisRuns f;
        ui::RunsView runs;
        ui::DocumentArea documents;
        QWidget home;
        documents.setHome(&home, u"Runs"_s);
        QList<ui::RunRow> rows;
        for (const run::RunRecord &r : f.records())
            rows << ui::RunRow{r, {}, true};
        runs.setRows(rows);
        ui::AnalysisController controller(&runs, &documents);
        controller.setStore(f.store.get());
        // Each run in its colour in the chart (with no colour value chosen), named as the table names it.
        controller.setRunColor([](const QString &id) { return id == u"r07"_s ? QColor(Qt::red) : QColor(Qt::blue); });
        controller.open();
        ui::RunsAnalysisView *view = controller.view();
        QVERIFY(view);
        QCOMPARE(documents.currentDocument(), view);
        documents.resize(1200, 760);
        documents.show();
        QVERIFY(QTest::qWaitForWindowExposed(&documents));
        QCOMPARE(QSet<QString>(view->runIds().cbegin(), view->runIds().cend()),
                 QSet<QString>(f.ids.cbegin(), f.ids.cend()));
        QVERIFY(
            QTest::qWaitFor([&] { return analysisSettled(*view) && view->scatter()->points().size() == 12; }, 10000));

        // The filter: the sgd runs (odd ones), in the tab's box and the table's.
        runs.filterEdit()->setText(u"sgd"_s);
        QCOMPARE(view->filterEdit()->text(), u"sgd"_s);
        QTRY_COMPARE(view->runIds().size(), 6);
        for (const QString &id : view->runIds())
            QVERIFY(id.back().digitValue() % 2 == 1);
        QVERIFY(
            QTest::qWaitFor([&] { return analysisSettled(*view) && view->scatter()->points().size() == 6; }, 10000));
        // Typed in the tab, it filters the table.
        QTest::keyClicks(view->filterEdit(), u"-1"_s); // "sgd-1": sgd-1 and sgd-11
        QCOMPARE(runs.filterEdit()->text(), u"sgd-1"_s);
        QTRY_COMPARE(QSet<QString>(view->runIds().cbegin(), view->runIds().cend()),
                     (QSet<QString>{u"r01"_s, u"r11"_s}));
        view->filterEdit()->clear();
        QTest::keyClick(view->filterEdit(), Qt::Key_Space);
        QTest::keyClick(view->filterEdit(), Qt::Key_Backspace);
        QTRY_COMPARE(view->runIds().size(), 13);

        // Two runs selected: only those; one: every run shown, that one highlighted.
        runs.selectRuns({u"r02"_s, u"r05"_s});
        QTRY_COMPARE(QSet<QString>(view->runIds().cbegin(), view->runIds().cend()),
                     (QSet<QString>{u"r02"_s, u"r05"_s}));
        runs.selectRuns({u"r03"_s});
        QTRY_COMPARE(view->runIds().size(), 13);
        QVERIFY(
            QTest::qWaitFor([&] { return analysisSettled(*view) && view->scatter()->points().size() == 12; }, 10000));

        for (const ui::ScatterPoint &p : view->scatter()->points()) {
            QCOMPARE(p.color, p.key == u"r07"_s ? QColor(Qt::red) : QColor(Qt::blue));
            QVERIFY2(p.label.startsWith(
                         runs.model()->index(runs.model()->rowOf(p.key), ui::RunsModel::NameColumn).data().toString()),
                     qPrintable(p.label));
        }
        // A click on a point selects its run in the table.
        const QPointF at = *view->scatter()->pointPosition(u"r07"_s);
        QTest::mouseClick(view->scatter(), Qt::LeftButton, {}, at.toPoint());
        QCOMPARE(runs.selectedRunIds(), QStringList{u"r07"_s});
        QCOMPARE(view->runIds().size(), 13);
    }
};

FERRY_TEST_MAIN(TestRunsAnalysis)
#include "tst_runsanalysis.moc"
