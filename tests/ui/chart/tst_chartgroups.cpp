// The chart's groups of runs, driven through the panel's boxes over runs of a real store: the values
// drawn at the plot's columns are core's aggregate (what `ferry runs aggregate` prints) at the
// steps there; band and median switches, ungroup, a group hidden from its legend entry, the time
// axis, and the settings kept per workspace (groups, x axis, hidden panels).
#include "analysis/rungroups.h"
#include "store/runstore.h"
#include "support/testmain.h"
#include "ui/chart/losschartpanel.h"
#include "ui/chart/runcolors.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::ui;
using ferry::run::RunRecord;

namespace {

constexpr qint64 kGroupsT0 = 1'764'000'000'000;

// Run r's value at step s: a decay of its own, so the groups' statistics are not trivial.
double groupValue(int run, double step)
{
    return (1.0 + 0.3 * run) * std::exp(-step / (40.0 + 7 * run)) + 0.05 * std::sin(step * (run + 1));
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

} // namespace

class TestChartGroups : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::unique_ptr<ferry::run::RunStore> m_store;
    QList<RunRecord> m_records;
    QHash<QString, QHash<QString, QString>> m_params;

    // The store's points of the runs, as the window's feeder puts them into a chart.
    std::shared_ptr<SeriesStore> seriesOf() const
    {
        auto series = std::make_shared<SeriesStore>();
        for (const RunRecord &r : m_records) {
            ferry::run::RunStore::MetricCursor cursor;
            for (auto &update : m_store->metricsSince(r.id, cursor))
                series->append(series->series(r.id, update.name), std::move(update.columns));
        }
        return series;
    }

    // A panel over the runs, 1000 × 700, its first chart's columns one step each.
    std::unique_ptr<LossChartPanel> panelOf(const std::shared_ptr<SeriesStore> &series) const
    {
        auto panel = std::make_unique<LossChartPanel>();
        panel->resize(1000, 700);
        panel->setStore(series);
        panel->setRunFacts(m_records, m_params);
        return panel;
    }

    static std::vector<DrawnGroup> render(LossChart *chart)
    {
        QImage image(chart->size(), QImage::Format_RGB32);
        chart->render(image);
        return chart->drawnGroups();
    }

    // How many pixels of the plot's column (from its left) are exactly `color`.
    static int pixelsOf(const QImage &image, const QRect &plot, int column, const QColor &color)
    {
        int n = 0;
        for (int y = plot.top(); y <= plot.bottom(); ++y)
            n += image.pixel(plot.left() + column, y) == color.rgb() ? 1 : 0;
        return n;
    }

    static void choose(LossChartPanel &panel, const char *box, const QVariant &data)
    {
        auto *combo = panel.findChild<QComboBox *>(QLatin1StringView(box));
        QVERIFY(combo);
        const int index = combo->findData(data);
        QVERIFY2(index >= 0, box);
        combo->setCurrentIndex(index);
    }

    // Compares each drawn group, at the columns whose x is a step, with core's exact aggregate of
    // the same runs from the store; returns how many columns were compared.
    int compareWithAggregate(const std::vector<DrawnGroup> &drawn, const QList<ferry::run::GroupAggregate> &exact,
                             GroupStatistic statistic, ferry::run::Band band) const
    {
        int compared = 0;
        for (const DrawnGroup &g : drawn) {
            const auto it = std::find_if(exact.begin(), exact.end(), [&g](const ferry::run::GroupAggregate &a) {
                return a.group.label == g.label;
            });
            if (it == exact.end()) {
                qWarning("no aggregate for %s", qPrintable(g.label));
                return -1;
            }
            for (std::size_t i = 0; i < g.stats.size(); ++i) {
                const ferry::run::GroupStats &s = g.stats[i];
                const auto at = std::find_if(it->points.begin(), it->points.end(),
                                             [&s](const ferry::run::GroupStats &p) { return p.x == s.x; });
                if (at == it->points.end())
                    continue;
                const bool same = s.n == at->n && close(s.mean, at->mean) && close(s.median, at->median) &&
                                  close(s.std, at->std) && s.min == at->min && s.max == at->max;
                const double center = statistic == GroupStatistic::Mean ? at->mean : at->median;
                const bool drawnSame = close(g.center[i], center) && close(g.low[i], ferry::run::bandLow(*at, band)) &&
                                       close(g.high[i], ferry::run::bandHigh(*at, band));
                if (!same || !drawnSame) {
                    qWarning("%s at step %g: n %d/%d mean %.17g/%.17g median %.17g/%.17g line %.17g",
                             qPrintable(g.label), s.x, s.n, at->n, s.mean, at->mean, s.median, at->median, g.center[i]);
                    return -1;
                }
                ++compared;
            }
        }
        return compared;
    }

private Q_SLOTS:
    // Five runs: lr 0.01 (a1 every step to 100, a2 every third to 99 with a NaN at 51) and lr 0.1
    // (b1 every second, b2 from step 10, b3 every fifth); seeds differ, opt does not; a1 and a2
    // tagged baseline. val_loss and accuracy.
    void initTestCase()
    {
        auto opened = ferry::run::RunStore::open(ferry::run::RunStore::pathInWorkspace(m_dir.path()));
        QVERIFY(opened);
        m_store = std::move(*opened);
        struct Plan {
            QString id, lr, seed;
            int every, first, last;
        };
        const QList<Plan> plans{{u"a1"_s, u"0.01"_s, u"1"_s, 1, 0, 100},
                                {u"a2"_s, u"0.01"_s, u"2"_s, 3, 0, 99},
                                {u"b1"_s, u"0.1"_s, u"1"_s, 2, 0, 100},
                                {u"b2"_s, u"0.1"_s, u"2"_s, 1, 10, 100},
                                {u"b3"_s, u"0.1"_s, u"3"_s, 5, 0, 100}};
        for (qsizetype k = 0; k < plans.size(); ++k) {
            const Plan &p = plans[k];
            RunRecord r;
            r.id = p.id;
            r.name = u"train"_s;
            r.status = ferry::run::RunStatus::Succeeded;
            r.createdMs = r.startedMs = kGroupsT0;
            if (p.id.startsWith(u'a'))
                r.tags = {u"baseline"_s};
            m_store->createRun(r);
            const QList<ferry::run::Hyperparameter> params{{u"lr"_s, p.lr}, {u"seed"_s, p.seed}, {u"opt"_s, u"adam"_s}};
            m_store->setParams(r.id, params);
            for (const auto &hp : params)
                m_params[r.id].insert(hp.name, hp.value);
            QList<ferry::run::MetricPoint> points;
            for (int s = p.first; s <= p.last; s += p.every) {
                const double v =
                    p.id == "a2"_L1 && s == 51 ? std::numeric_limits<double>::quiet_NaN() : groupValue(int(k), s);
                points.append({u"val_loss"_s, double(s), v, kGroupsT0 + 1000 * s + 300 * k, ferry::run::kNoEpoch});
                points.append(
                    {u"accuracy"_s, double(s), 1 - v / 3, kGroupsT0 + 1000 * s + 300 * k, ferry::run::kNoEpoch});
            }
            m_store->appendMetrics(r.id, points, 1);
            m_records << r;
        }
        m_store->flush();
    }

    void groupsDrawTheNumbersAggregatePrints()
    {
        const auto panel = panelOf(seriesOf());
        // Each parameter that differs among the runs, tags, sweep, experiment: not opt, the same for all.
        QCOMPARE(panel->groupChoices(),
                 (QStringList{QString(), u"hp.lr"_s, u"hp.seed"_s, u"tag"_s, u"sweep"_s, u"experiment"_s}));
        LossChart *chart = panel->chart();
        QCOMPARE(chart->drawnMetrics(), QStringList{u"val_loss"_s}); // losses first, alone in their panel
        choose(*panel, "groupBy", u"hp.lr"_s);
        QVERIFY(chart->isGrouped());
        for (LossChart *other : panel->panels())
            QCOMPARE(other->groups().size(), 2);
        // One column per step: where a column's x is a step, the aggregate's row of that step.
        const int columns = chart->plotRect().width();
        chart->setXRange(0, columns - 1);
        std::vector<DrawnGroup> drawn = render(chart);
        QCOMPARE(drawn.size(), std::size_t(2));
        QCOMPARE(drawn[0].label, u"lr=0.01"_s);
        QCOMPARE(drawn[0].runs, 2);
        QCOMPARE(drawn[1].label, u"lr=0.1"_s);
        QCOMPARE(drawn[1].runs, 3);
        QCOMPARE(drawn[0].stats.size(), std::size_t(columns));
        const auto by = *ferry::run::GroupBy::parse(u"hp.lr"_s);
        const QList<ferry::run::GroupAggregate> exact = ferry::run::aggregateGroups(
            *m_store, m_records, ferry::run::groupRuns(*m_store, m_records, by), u"val_loss"_s);
        // Every step of both unions (lr=0.1 lacks 1, 3, 7 and 9) lies in the view.
        const int steps = int(exact[0].points.size() + exact[1].points.size());
        QCOMPARE(steps, 101 + 97);
        QCOMPARE(compareWithAggregate(drawn, exact, GroupStatistic::Mean, ferry::run::Band::Std), steps);
        // n follows the runs: b2 starts at step 10, a2 ends at 99 and has a hole around 51.
        QCOMPARE(drawn[1].stats[5].n, 2);
        QCOMPARE(drawn[1].stats[10].n, 3);
        QCOMPARE(drawn[0].stats[50].n, 1);
        QCOMPARE(drawn[0].stats[100].n, 1);
        QCOMPARE(drawn[0].stats[101].n, 0);
        QVERIFY(std::isnan(drawn[0].center[101]));
        // The legend names the groups, their runs and what is drawn; the colours are the palette's.
        const QStringList legend = chart->legendText();
        QVERIFY2(legend.contains(u"solid: val_loss: mean ± std"_s), qPrintable(legend.join(u" | "_s)));
        QVERIFY2(legend.contains(u"lr=0.01 (n=2)"_s) && legend.contains(u"lr=0.1 (n=3)"_s),
                 qPrintable(legend.join(u" | "_s)));
        const QList<QColor> colors = groupColors(2);
        QCOMPARE(drawn[0].color, colors[0]);
        QCOMPARE(drawn[1].color, colors[1]);
        QCOMPARE(colors[0], runPaletteColor(0));
        QCOMPARE(colors[1], runPaletteColor(1));
        // The lines are in the picture: the group's colour at its mean's pixel.
        QImage image(chart->size(), QImage::Format_RGB32);
        chart->render(image);
        const auto [y0, y1] = chart->yRange();
        const QRect plot = chart->plotRect();
        const int column = 30;
        const double mean = drawn[1].center[std::size_t(column)];
        const int row = plot.top() + int((y1 - mean) / (y1 - y0) * (plot.height() - 1));
        bool found = false;
        for (int dy = -2; dy <= 2 && !found; ++dy) {
            const QColor c = image.pixelColor(plot.left() + column, row + dy);
            found = std::abs(c.red() - colors[1].red()) + std::abs(c.green() - colors[1].green()) +
                        std::abs(c.blue() - colors[1].blue()) <
                    40;
        }
        QVERIFY2(found, "the group's line is not where its mean is");
        // A hover reads a group's line and band at the x under the mouse.
        QVERIFY(chart->hoverText(QPoint(plot.left() + 20, plot.center().y())).contains(u"lr=0.1: "_s));

        // The band: min to max.
        choose(*panel, "groupBand", int(ferry::run::Band::MinMax));
        drawn = render(chart);
        QCOMPARE(compareWithAggregate(drawn, exact, GroupStatistic::Mean, ferry::run::Band::MinMax), steps);
        QVERIFY(chart->legendText().contains(u"solid: val_loss: mean, min–max"_s));
        // The line: the median.
        choose(*panel, "groupStatistic", int(GroupStatistic::Median));
        drawn = render(chart);
        QCOMPARE(compareWithAggregate(drawn, exact, GroupStatistic::Median, ferry::run::Band::MinMax), steps);
        QVERIFY(chart->legendText().contains(u"solid: val_loss: median, min–max"_s));

        // By tags: the baseline runs, and the others.
        choose(*panel, "groupBy", u"tag"_s);
        drawn = render(chart);
        QCOMPARE(drawn.size(), std::size_t(2));
        QCOMPARE(drawn[0].label, u"tags: baseline"_s);
        QCOMPARE(drawn[1].label, u"no tags"_s);

        // Ungroup, one click: each run its own line and legend entry again.
        auto *ungroup = panel->findChild<QToolButton *>(u"ungroup"_s);
        QVERIFY(ungroup && !ungroup->isHidden());
        QVERIFY(!panel->findChild<QComboBox *>(u"groupBand"_s)->isHidden());
        QTest::mouseClick(ungroup, Qt::LeftButton);
        QCOMPARE(panel->groupBy(), QString());
        QVERIFY(!chart->isGrouped());
        QVERIFY(ungroup->isHidden());
        QVERIFY(panel->findChild<QComboBox *>(u"groupBand"_s)->isHidden()); // only while grouped
        QVERIFY(render(chart).empty());
        QCOMPARE(chart->legendRuns(), (QStringList{u"a1"_s, u"a2"_s, u"b1"_s, u"b2"_s, u"b3"_s}));
        QCOMPARE(chart->legendText(), (QStringList{u"a1"_s, u"a2"_s, u"b1"_s, u"b2"_s, u"b3"_s}));
        QCOMPARE(chart->visibleSeries().size(), std::size_t(5));
    }

    // A click on a group's legend entry hides its line and band in every panel, its entry drawn
    // dimmed and still there to show it again; hovering the entry highlights the group.
    void legendClickHidesAndShowsAGroup()
    {
        const auto panel = panelOf(seriesOf());
        panel->show();
        QVERIFY(QTest::qWaitForWindowExposed(panel.get()));
        choose(*panel, "groupBy", u"hp.lr"_s);
        LossChart *chart = panel->chart();
        const int column = 30;
        QCOMPARE(render(chart).size(), std::size_t(2));
        const ChartGroup group = chart->groups()[1]; // lr=0.1
        QCOMPARE(group.label, u"lr=0.1"_s);
        const QRect entry = chart->legendGroupRect(group.key);
        QVERIFY(entry.isValid());
        QVERIFY(!chart->legendGroupRect(chart->groups()[0].key).intersects(entry));
        const QPoint swatch(entry.left() + 8, entry.center().y());
        QImage image(chart->size(), QImage::Format_RGB32);
        chart->render(image);
        QCOMPARE(image.pixelColor(swatch), group.color);
        const int plain = pixelsOf(image, chart->plotRect(), column, group.color);
        QVERIFY(plain >= 2);
        const double top = chart->yRange().second; // lr=0.1's runs start highest, above 2
        QVERIFY(top > 2);

        // Hovering the entry: the group highlighted, its line a pixel thicker.
        QSignalSpy hovered(chart, &LossChart::hoveredGroupChanged);
        QTest::mouseMove(chart, entry.center());
        QCOMPARE(hovered.size(), 1);
        QCOMPARE(chart->highlightedGroup(), std::optional<QString>(group.key));
        QVERIFY(chart->hoverText().contains(u"Click to hide"_s));
        chart->render(image);
        QVERIFY(pixelsOf(image, chart->plotRect(), column, group.color) > plain);

        // The click: hidden in every panel, the other group drawn as before.
        QSignalSpy visibility(chart, &LossChart::groupVisibilityChanged);
        QTest::mouseClick(chart, Qt::LeftButton, Qt::NoModifier, entry.center());
        QVERIFY(!chart->isGroupVisible(group.key));
        QCOMPARE(visibility.size(), 1);
        std::vector<DrawnGroup> drawn = render(chart);
        QCOMPARE(drawn.size(), std::size_t(1));
        QCOMPARE(drawn[0].label, u"lr=0.01"_s);
        QCOMPARE(panel->panels().size(), 2);
        for (LossChart *other : panel->panels()) {
            QVERIFY(!other->isGroupVisible(group.key));
            for (const DrawnGroup &g : render(other))
                QVERIFY(g.key != group.key);
        }
        QVERIFY2(chart->yRange().second < 1.5, "the y axis still fits the hidden group");
        chart->render(image);
        QCOMPARE(pixelsOf(image, chart->plotRect(), column, group.color), 0);
        QVERIFY(!chart->hoverText(QPoint(chart->plotRect().left() + 20, chart->plotRect().center().y()))
                     .contains(u"lr=0.1: "_s));
        // Still in the legend, dimmed, to be shown again.
        QVERIFY(chart->legendText().contains(u"lr=0.1 (n=3)"_s));
        QCOMPARE(chart->legendGroupRect(group.key), entry);
        QVERIFY(image.pixelColor(swatch) != group.color);
        QVERIFY(chart->hoverText(entry.center()).contains(u"Click to show"_s));
        // Another grouping forgets it; groups set again with its key keep it (a run's points arriving).
        choose(*panel, "groupBy", u"hp.seed"_s);
        choose(*panel, "groupBy", u"hp.lr"_s);
        QVERIFY(chart->isGroupVisible(group.key));
        QTest::mouseClick(chart, Qt::LeftButton, Qt::NoModifier, chart->legendGroupRect(group.key).center());
        QVERIFY(!chart->isGroupVisible(group.key));
        QList<ChartGroup> again = chart->groups();
        again[0].runIds.removeLast();
        chart->setGroups(again);
        QVERIFY(!chart->isGroupVisible(group.key));
        QCOMPARE(render(chart).size(), std::size_t(1));
        // The second click shows it again, everywhere.
        QTest::mouseClick(chart, Qt::LeftButton, Qt::NoModifier, chart->legendGroupRect(group.key).center());
        QVERIFY(chart->isGroupVisible(group.key));
        for (LossChart *other : panel->panels())
            QVERIFY(other->isGroupVisible(group.key));
        QCOMPARE(render(chart).size(), std::size_t(2));
        chart->render(image);
        QCOMPARE(image.pixelColor(chart->legendGroupRect(group.key).left() + 8, swatch.y()), group.color);

        // The group of runs without a key (by tags: "no tags", key empty) hides the same way, and
        // no group is highlighted while the mouse is off the legend.
        choose(*panel, "groupBy", u"tag"_s);
        const ChartGroup none = chart->groups()[1];
        QCOMPARE(none.label, u"no tags"_s);
        QVERIFY(none.key.isEmpty());
        QTest::mouseMove(chart, chart->plotRect().center());
        QCOMPARE(chart->highlightedGroup(), std::nullopt);
        QTest::mouseClick(chart, Qt::LeftButton, Qt::NoModifier, chart->legendGroupRect(none.key).center());
        QVERIFY(!chart->isGroupVisible(none.key));
        drawn = render(chart);
        QCOMPARE(drawn.size(), std::size_t(1));
        QCOMPARE(drawn[0].label, u"tags: baseline"_s);
    }

    // On time since start each run counts from its own first point: a1 and a2 (points 1 s apart,
    // a2's 0.3 s later) line up by their steps.
    void groupsOnTheTimeAxis()
    {
        const auto panel = panelOf(seriesOf());
        panel->setGroupBy(u"hp.lr"_s);
        panel->setXAxis(XAxisMode::WallTime);
        LossChart *chart = panel->chart();
        QCOMPARE(chart->xAxisMode(), XAxisMode::WallTime);
        chart->setXRange(0, 99);
        const std::vector<DrawnGroup> drawn = render(chart);
        QCOMPARE(drawn.size(), std::size_t(2));
        // Seconds 0..99 at the plot's columns: at 0 s and 99 s both runs of lr=0.01 count.
        QCOMPARE(drawn[0].stats.front().n, 2);
        QCOMPARE(drawn[0].stats.back().n, 2);
        QVERIFY(close(drawn[0].stats.front().mean, (groupValue(0, 0) + groupValue(1, 0)) / 2));
    }

    // Groups, line, band, x axis, scales and hidden panels are the workspace's: a new panel on
    // the same file has them, another workspace has its own, a damaged file gives the defaults.
    void settingsAreKeptPerWorkspace()
    {
        const QString file = m_dir.filePath(u"ws1-chart.json"_s);
        const auto series = seriesOf();
        {
            const auto panel = panelOf(series);
            QVERIFY(panel->setSettingsFile(file));
            QCOMPARE(panel->settings(), ChartSettings{});
            QCOMPARE(panel->panels().size(), 2); // val_loss, accuracy
            const QString accuracy = panel->panelKey(panel->panels()[1]);
            QVERIFY(!accuracy.isEmpty());
            panel->setPanelHidden(accuracy, true);
            choose(*panel, "groupBy", u"hp.seed"_s);
            choose(*panel, "groupStatistic", int(GroupStatistic::Median));
            choose(*panel, "groupBand", int(ferry::run::Band::MinMax));
            panel->setXAxis(XAxisMode::Metric, u"accuracy"_s);
            QFile saved(file);
            QVERIFY(saved.open(QIODevice::ReadOnly));
            const QJsonObject o = QJsonDocument::fromJson(saved.readAll()).object();
            QCOMPARE(o.value(u"groupBy"_s).toString(), u"hp.seed"_s);
            QCOMPARE(o.value(u"statistic"_s).toString(), u"median"_s);
            QCOMPARE(o.value(u"band"_s).toString(), u"minmax"_s);
            QCOMPARE(o.value(u"xAxis"_s).toString(), u"metrics.accuracy"_s);
            QCOMPARE(o.value(u"hiddenPanels"_s).toArray().size(), 1);
        }
        {
            const auto panel = panelOf(series);
            QVERIFY(panel->setSettingsFile(file));
            QCOMPARE(panel->groupBy(), u"hp.seed"_s);
            LossChart *chart = panel->chart();
            QVERIFY(chart->isGrouped());
            QCOMPARE(chart->groups().size(), 3);
            QCOMPARE(chart->groupStatistic(), GroupStatistic::Median);
            QCOMPARE(chart->groupBand(), ferry::run::Band::MinMax);
            QCOMPARE(chart->xAxisMode(), XAxisMode::Metric);
            QCOMPARE(chart->xMetric(), u"accuracy"_s);
            QCOMPARE(panel->hiddenPanels().size(), 1);
            QCOMPARE(panel->panels().size(), 1);
            // Another workspace: its own settings (none yet), so the defaults.
            QVERIFY(panel->setSettingsFile(m_dir.filePath(u"ws2-chart.json"_s)));
            QCOMPARE(panel->groupBy(), QString());
            QVERIFY(!chart->isGrouped());
            QCOMPARE(panel->hiddenPanels().size(), 0);
            QCOMPARE(panel->panels().size(), 2);
            QCOMPARE(chart->xAxisMode(), XAxisMode::Step);
        }
        // A file not written by Ferry: an error that says what to do, and the defaults.
        const QString damaged = m_dir.filePath(u"damaged-chart.json"_s);
        QFile out(damaged);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("[1, 2");
        out.close();
        const auto panel = panelOf(series);
        const auto read = panel->setSettingsFile(damaged);
        QVERIFY(!read);
        QVERIFY(read.error().hint.contains(u"delete the file"_s));
        QCOMPARE(panel->settings(), ChartSettings{});
    }
};

FERRY_TEST_MAIN(TestChartGroups)
#include "tst_chartgroups.moc"
