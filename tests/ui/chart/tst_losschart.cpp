// The loss chart widget, driven offscreen: zoom, pan, reset, legend, log y, smoothing,
// tooltip, export, x axis modes, live refresh; the panel of charts with thousands of metrics.
#include "support/cost.h"
#include "support/testmain.h"
#include "ui/chart/chartaxis.h"
#include "ui/chart/losschart.h"
#include "ui/chart/losschartpanel.h"
#include "ui/chart/runcolors.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QWheelEvent>

#include <cmath>
#include <thread>

using namespace Qt::StringLiterals;
using namespace ferry::ui;

namespace {

constexpr qint64 T0 = 1'700'000'000'000;

// value of run r at step s
double lossAt(int run, int step)
{
    return (1.0 + run) * 10.0 / (1.0 + step);
}

class CountPaints : public QObject {
public:
    int paints = 0;
    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == QEvent::Paint)
            ++paints;
        return false;
    }
};

} // namespace

class TestLossChart : public QObject {
    Q_OBJECT

    std::shared_ptr<SeriesStore> m_store;
    std::unique_ptr<LossChart> m_chart;
    QTemporaryDir m_dir;

    static bool wheel(QWidget *widget, const QPoint &pos, int delta, Qt::KeyboardModifiers modifiers)
    {
        QWheelEvent event(pos, widget->mapToGlobal(pos), QPoint(), QPoint(0, delta), Qt::NoButton, modifiers,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(widget, &event);
        return event.isAccepted();
    }
    void wheel(const QPoint &pos, int delta) { wheel(m_chart.get(), pos, delta, Qt::ControlModifier); }
    // The widget x of an axis value (inverse of the chart's pixel mapping).
    int pixelAtX(double x) const
    {
        const auto [x0, x1] = m_chart->xRange();
        const QRect plot = m_chart->plotRect();
        return plot.left() + int(std::lround((x - x0) / (x1 - x0) * (plot.width() - 1)));
    }

private Q_SLOTS:
    void init()
    {
        m_store = std::make_shared<SeriesStore>();
        // Three runs, loss by step 0..1000 (every 10 ms), and val_loss at steps 0, 100, .., 900,
        // which are epochs 0..9.
        for (int r = 0; r < 3; ++r) {
            const QString run = u"run-%1"_s.arg(QChar(u'a' + r));
            std::vector<ChartPoint> points;
            for (int s = 0; s <= 1000; ++s)
                points.push_back({double(s), T0 + r * 5000 + s * 10, lossAt(r, s)});
            m_store->append(m_store->series(run, u"loss"_s), points);
            std::vector<ChartPoint> epochs;
            for (int e = 0; e < 10; ++e)
                epochs.push_back({double(e) * 100, T0 + r * 5000 + e * 1000, 0.5 / (1 + e), double(e)});
            m_store->append(m_store->series(run, u"val_loss"_s), epochs);
        }
        m_chart = std::make_unique<LossChart>();
        m_chart->resize(900, 500);
        m_chart->setStore(m_store);
        m_chart->setMetrics({u"loss"_s});
        m_chart->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_chart.get()));
    }

    void cleanup()
    {
        m_chart.reset();
        m_store.reset();
    }

    void followsTheDataUntilZoomed()
    {
        QCOMPARE(m_chart->xRange(), (std::pair{0.0, 1000.0}));
        QVERIFY(!m_chart->isZoomed());
        QCOMPARE(m_chart->legendRuns(), (QStringList{u"run-a"_s, u"run-b"_s, u"run-c"_s}));
        QCOMPARE(m_chart->visibleSeries().size(), std::size_t(3));
    }

    void liveDataMovesTheAutomaticViewOnlyNowAndThen()
    {
        const int id = m_store->series(u"run-a"_s, u"loss"_s);
        auto add = [&](double step, double value) {
            const ChartPoint p{step, T0, value};
            m_store->append(id, &p, 1);
            m_chart->refresh();
        };
        add(1010, 0.0099); // beyond both ranges: they grow, with headroom
        const auto grown = m_chart->xRange();
        QCOMPARE(grown.first, 0.0);
        QVERIFY(grown.second >= 1010 + 100); // headroom
        const auto y = m_chart->yRange();
        add(1050, 0.0098);
        QCOMPARE(m_chart->xRange(), grown); // still fits: the view stays
        QCOMPARE(m_chart->yRange(), y);
        add(5000, 40); // far out: the view follows
        QVERIFY(m_chart->xRange().second >= 5000);
        QVERIFY(m_chart->yRange().second >= 40);
    }

    void wheelZoomsXAroundTheCursor()
    {
        const QRect plot = m_chart->plotRect();
        const int px = pixelAtX(250);
        wheel(QPoint(px, plot.center().y()), 120);
        const auto [x0, x1] = m_chart->xRange();
        QVERIFY(m_chart->isZoomed());
        QVERIFY2(x1 - x0 < 1000 * 0.81 && x1 - x0 > 1000 * 0.79, qPrintable(u"%1..%2"_s.arg(x0).arg(x1)));
        QVERIFY(x0 > 0 && x0 < 250 && x1 > 250 && x1 < 1000);
        QVERIFY(std::abs((250 - x0) / (x1 - x0) - 0.25) < 0.01); // the value under the cursor stays put
        wheel(QPoint(px, plot.center().y()), -120);
        QVERIFY(std::abs(m_chart->xRange().second - m_chart->xRange().first - 1000) < 1e-6);
    }

    void rubberBandZoomsToTheBandAndDoubleClickResets()
    {
        const auto before = m_chart->xRange();
        const auto yBefore = m_chart->yRange();
        const QRect plot = m_chart->plotRect();
        const QPoint from(pixelAtX(200), plot.top() + 50), to(pixelAtX(400), plot.top() + 150);
        QTest::mousePress(m_chart.get(), Qt::LeftButton, Qt::NoModifier, from);
        QTest::mouseMove(m_chart.get(), to);
        QTest::mouseRelease(m_chart.get(), Qt::LeftButton, Qt::NoModifier, to);
        const auto [x0, x1] = m_chart->xRange();
        QVERIFY2(std::abs(x0 - 200) < 2 && std::abs(x1 - 400) < 2, qPrintable(u"%1..%2"_s.arg(x0).arg(x1)));
        const auto [y0, y1] = m_chart->yRange();
        const double perRow = (yBefore.second - yBefore.first) / (plot.height() - 1);
        QVERIFY(std::abs(y1 - (yBefore.second - 50 * perRow)) < perRow);
        QVERIFY(std::abs(y0 - (yBefore.second - 150 * perRow)) < perRow);

        QTest::mouseDClick(m_chart.get(), Qt::LeftButton, Qt::NoModifier, plot.center());
        QVERIFY(!m_chart->isZoomed());
        QCOMPARE(m_chart->xRange(), before);
        QCOMPARE(m_chart->yRange(), yBefore);
    }

    void shiftDragPans()
    {
        const QRect plot = m_chart->plotRect();
        const auto [x0, x1] = m_chart->xRange();
        const QPoint from = plot.center(), to = plot.center() + QPoint(100, 0);
        QTest::mousePress(m_chart.get(), Qt::LeftButton, Qt::ShiftModifier, from);
        QMouseEvent move(QEvent::MouseMove, to, m_chart->mapToGlobal(to), Qt::NoButton, Qt::LeftButton,
                         Qt::ShiftModifier);
        QApplication::sendEvent(m_chart.get(), &move);
        QTest::mouseRelease(m_chart.get(), Qt::LeftButton, Qt::ShiftModifier, to);
        const double shift = 100 * (x1 - x0) / (plot.width() - 1);
        QVERIFY(std::abs(m_chart->xRange().first - (x0 - shift)) < 1e-6);
        m_chart->resetZoom();
        QCOMPARE(m_chart->xRange(), (std::pair{x0, x1}));
    }

    // A long run name is not cut: too wide to go beside the plot, the legend goes in rows above
    // it, where the name is whole; hovering its entry shows it too.
    void legendTooltipHasTheFullName()
    {
        const QString name = u"resnet50-finetune-imagenet-subset-lr0.003-batch256-seed7-final"_s;
        m_chart->setRunLabel(u"run-b"_s, name);
        const QRect entry = m_chart->legendEntryRect(u"run-b"_s);
        QVERIFY(entry.isValid());
        QVERIFY(m_chart->legendText().contains(name));
        QVERIFY(entry.bottom() < m_chart->plotRect().top()); // above the plot
        QVERIFY(m_chart->fontMetrics().horizontalAdvance(name) < entry.width());
        const QString text = m_chart->hoverText(entry.center());
        QVERIFY2(text.startsWith(name + u'\n'), qPrintable(text));
        QVERIFY(text.contains(u"Click to hide"_s));
        QTest::mouseMove(m_chart.get(), entry.center());
        QCOMPARE(m_chart->hoverText(), text);
    }

    void legendClickHidesAndShowsARun()
    {
        QSignalSpy visibility(m_chart.get(), &LossChart::runVisibilityChanged);
        const QRect entry = m_chart->legendEntryRect(u"run-b"_s);
        QVERIFY(entry.isValid());
        QSignalSpy hovered(m_chart.get(), &LossChart::hoveredRun);
        QTest::mouseMove(m_chart.get(), entry.center());
        QCOMPARE(hovered.size(), 1);
        QCOMPARE(hovered.first().first().toString(), u"run-b"_s);
        QTest::mouseClick(m_chart.get(), Qt::LeftButton, Qt::NoModifier, entry.center());
        QVERIFY(!m_chart->isRunVisible(u"run-b"_s));
        QCOMPARE(visibility.size(), 1);
        for (const int id : m_chart->visibleSeries())
            QVERIFY(m_store->data(id).key().runId != u"run-b"_s);
        QCOMPARE(m_chart->visibleSeries().size(), std::size_t(2));
        // Still in the legend, to be shown again.
        QVERIFY(m_chart->legendRuns().contains(u"run-b"_s));
        QTest::mouseClick(m_chart.get(), Qt::LeftButton, Qt::NoModifier, m_chart->legendEntryRect(u"run-b"_s).center());
        QVERIFY(m_chart->isRunVisible(u"run-b"_s));
    }

    void drawsEachRunInItsColour()
    {
        QImage image(m_chart->size(), QImage::Format_RGB32);
        m_chart->render(image);
        const QRect plot = m_chart->plotRect();
        for (const QString &run : {u"run-a"_s, u"run-b"_s, u"run-c"_s}) {
            const QRgb color = m_chart->runColor(run).rgb();
            int found = 0;
            for (int y = plot.top(); y <= plot.bottom(); ++y)
                for (int x = plot.left(); x <= plot.right(); ++x)
                    found += (image.pixel(x, y) & 0xffffff) == (color & 0xffffff);
            QVERIFY2(found > 100, qPrintable(run));
        }
    }

    void logYSkipsValuesThatAreNotPositive()
    {
        const int id = m_store->series(u"run-d"_s, u"loss"_s);
        std::vector<ChartPoint> points = {{0, T0, 1}, {1, T0, 0}, {2, T0, -5}, {3, T0, std::nan("")}, {4, T0, 100}};
        m_store->append(id, points);
        m_chart->refresh();
        m_chart->setLogY(true);
        const auto [y0, y1] = m_chart->yRange();
        QVERIFY(std::isfinite(y0) && std::isfinite(y1));
        QVERIFY(y0 < std::log10(0.0099) && y1 > 2); // run-a's smallest is 10/1001; run-d reaches 100
        QImage image(m_chart->size(), QImage::Format_RGB32);
        m_chart->render(image);
        // The tooltip at step 2 (value -5) gives the nearest value that can be shown.
        m_chart->setXRange(0, 4);
        const QString text = m_chart->hoverText(QPoint(pixelAtX(2.2), m_chart->plotRect().center().y()));
        QVERIFY2(text.contains(u"run-d: 100 (step 4)"_s) || text.contains(u"run-d: 1 (step 0)"_s), qPrintable(text));
        m_chart->setLogY(false);
        QVERIFY(m_chart->yRange().first < -5);
    }

    void smoothingShowsTheEmaAndKeepsTheRawCurve()
    {
        m_chart->setSmoothing(0.6);
        // The EMA of run-a at step 2, by hand: values 10, 5, 10/3; weight 0.6.
        double last = 0;
        double ema = 0;
        for (int s = 0; s <= 2; ++s) {
            last = last * 0.6 + 0.4 * lossAt(0, s);
            ema = last / (1 - std::pow(0.6, s + 1));
        }
        m_chart->setXRange(0, 10);
        const QString text = m_chart->hoverText(QPoint(pixelAtX(2), m_chart->plotRect().center().y()));
        QVERIFY2(text.contains(u"run-a: %1 (step 2)"_s.arg(QString::number(ema, 'g', 4))), qPrintable(text));
        // The raw curve stays, faint: run-a's colour at 25 % over white somewhere in the plot.
        QImage image(m_chart->size(), QImage::Format_RGB32);
        m_chart->render(image);
        const QColor c = m_chart->runColor(u"run-a"_s);
        auto faint = [](int v) { return 255 + (v - 255) * 64 / 255; }; // alpha 0.25 = 64/255
        int found = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor p = image.pixelColor(x, y);
                found += std::abs(p.red() - faint(c.red())) <= 2 && std::abs(p.green() - faint(c.green())) <= 2 &&
                         std::abs(p.blue() - faint(c.blue())) <= 2;
            }
        QVERIFY(found > 20);
    }

    void tooltipListsTheNearestValueOfEveryVisibleRun()
    {
        const QPoint pos(pixelAtX(500), m_chart->plotRect().center().y());
        QTest::mouseMove(m_chart.get(), pos);
        const double step =
            std::round(m_chart->xRange().first + (pos.x() - m_chart->plotRect().left()) *
                                                     (m_chart->xRange().second - m_chart->xRange().first) /
                                                     (m_chart->plotRect().width() - 1));
        QString text = m_chart->hoverText();
        const QStringList lines = text.split(u'\n');
        QCOMPARE(lines.size(), 4); // the x, then one line per run
        for (int r = 0; r < 3; ++r) {
            const QString expected = u"run-%1: %2 (step %3)"_s.arg(QChar(u'a' + r))
                                         .arg(QString::number(lossAt(r, int(step)), 'g', 4))
                                         .arg(step);
            QVERIFY2(text.contains(expected), qPrintable(text + u" / "_s + expected));
        }
        m_chart->setRunVisible(u"run-c"_s, false);
        m_chart->setRunLabel(u"run-a"_s, u"baseline"_s);
        text = m_chart->hoverText(pos);
        QVERIFY(!text.contains(u"run-c"_s));
        QVERIFY(text.contains(u"baseline: "_s));
    }

    void csvExportHasEveryPointOfTheVisibleSeries()
    {
        m_chart->setRunVisible(u"run-c"_s, false);
        const QString path = m_dir.filePath(u"loss.csv"_s);
        const auto written = m_chart->exportCsv(path);
        QVERIFY2(written, qPrintable(written ? QString() : written.error().toString()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QCOMPARE(lines.first(), "run,metric,step,wall_ms,value");
        QCOMPARE(lines.size(), 1 + 2 * 1001 + 1); // header, points, the empty line after the last newline
        QVERIFY(lines.contains("run-b,loss,7," + QByteArray::number(T0 + 5000 + 70) + ',' +
                               QString::number(lossAt(1, 7), 'g', QLocale::FloatingPointShortest).toLatin1()));
        QVERIFY(!lines.contains("run-c,loss,0," + QByteArray::number(T0 + 10000) + ",30"));
        // Values read back exactly.
        const QList<QByteArray> fields = lines[3].split(',');
        QCOMPARE(fields[4].toDouble(), lossAt(0, 2));
        const auto refused = m_chart->exportCsv(m_dir.filePath(u"missing/dir/loss.csv"_s));
        QVERIFY(!refused);
        QCOMPARE(refused.error().path, m_dir.filePath(u"missing/dir/loss.csv"_s)); // where, and why
        QVERIFY(!refused.error().message.isEmpty());
    }

    void pngExportIsTheWidgetAsShown()
    {
        const QString path = m_dir.filePath(u"loss.png"_s);
        const auto written = m_chart->exportPng(path);
        QVERIFY2(written, qPrintable(written ? QString() : written.error().toString()));
        const QImage image(path);
        QCOMPARE(image.size(), m_chart->size() * m_chart->devicePixelRatio());
    }

    void xAxisModesPickTheirSeries()
    {
        m_chart->setMetrics({});
        QCOMPARE(m_chart->visibleSeries().size(), std::size_t(6)); // step mode: every series
        m_chart->setXAxisMode(XAxisMode::Epoch);
        QCOMPARE(m_chart->visibleSeries().size(), std::size_t(3)); // only val_loss carries epochs
        for (const int id : m_chart->visibleSeries())
            QCOMPARE(m_store->data(id).key().metric, u"val_loss"_s);
        QCOMPARE(m_chart->xRange(), (std::pair{0.0, 9.0}));
        m_chart->setXAxisMode(XAxisMode::WallTime);
        QCOMPARE(m_chart->visibleSeries().size(), std::size_t(6));
        // Seconds since each run's first point: every run starts at 0 and lasts 10 s.
        QCOMPARE(m_chart->xRange(), (std::pair{0.0, 10.0}));
    }

    void emptyChartSaysSo()
    {
        LossChart empty;
        empty.resize(400, 300);
        QImage image(empty.size(), QImage::Format_RGB32);
        empty.render(image);
        QVERIFY(empty.legendRuns().isEmpty());
        QVERIFY(empty.hoverText(QPoint(200, 150)).isEmpty());
        m_chart->setMetrics({u"no such metric"_s});
        QVERIFY(m_chart->visibleSeries().empty());
        m_chart->render(image);
    }

    void drainsOnItsTimerAndRepaintsOnlyOnChange()
    {
        CountPaints counter;
        m_chart->installEventFilter(&counter);
        QTest::qWait(200);
        const int idle = counter.paints;
        QTest::qWait(300);
        QCOMPARE(counter.paints, idle); // nothing arrived: no repaint
        std::thread producer([store = m_store] {
            const int id = store->series(u"run-live"_s, u"loss"_s);
            for (int s = 0; s < 200; ++s) {
                const ChartPoint p{double(s), T0 + s, 1.0};
                store->append(id, &p, 1);
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
        producer.join();
        QTRY_COMPARE(m_store->pointCount(), qsizetype(3 * 1011 + 200));
        QTRY_VERIFY(counter.paints > idle);
        QVERIFY(counter.paints - idle <= 3); // batched: not one paint per point
        QVERIFY(m_chart->legendRuns().contains(u"run-live"_s));
    }

    // A view change is drawn in the background: the frame that starts it shows the last layer
    // moved, the series it reads keep their new points pending meanwhile, and the frames after
    // it lands are exactly what render() draws.
    void viewChangesAreDrawnInTheBackgroundThenExactly()
    {
        for (int r = 0; r < 6; ++r) {
            std::vector<ChartPoint> points(200'000);
            for (std::size_t i = 0; i < points.size(); ++i)
                points[i] = {double(i) / 200, T0 + qint64(i), std::sin(double(i) * 0.01 * (r + 1)) + r};
            m_store->append(m_store->series(u"big-%1"_s.arg(r), u"loss"_s), points);
        }
        m_chart->setStore(m_store); // first paint: what is there counts as settled
        m_chart->repaint();
        QVERIFY(m_chart->lastFrameExact());
        const int builds = m_chart->layerBuilds();

        m_chart->setXRange(100, 600);
        m_chart->repaint();
        QVERIFY(!m_chart->lastFrameExact()); // the old layer, moved, while the new one is drawn
        QCOMPARE(m_chart->layerBuilds(), builds + 1);

        const int settled = m_chart->visibleSeries().front();
        const qsizetype before = m_store->data(settled).size();
        const ChartPoint late{1000.5, T0 + 1'000'000, 0.25};
        m_store->append(settled, &late, 1);
        m_chart->refresh();
        QCOMPARE(m_store->data(settled).size(), before); // held back: the other thread reads it

        QTRY_VERIFY_WITH_TIMEOUT((m_chart->repaint(), m_chart->lastFrameExact()), 10000);
        // It was drained once the layer landed; the grown series is live (drawn each frame).
        QTRY_COMPARE((m_chart->refresh(), m_store->data(settled).size()), before + 1);
        QTRY_VERIFY_WITH_TIMEOUT((m_chart->repaint(), m_chart->lastFrameExact()), 10000);
        const QImage shown = m_chart->grab().toImage().convertToFormat(QImage::Format_RGB32);
        QImage exact(shown.size(), QImage::Format_RGB32);
        exact.setDevicePixelRatio(shown.devicePixelRatio());
        m_chart->render(exact);
        QCOMPARE(shown, exact);
    }

    // Hiding a run is never shown from an old layer: the frame after it leaves the run out.
    // Review M6: 10,000 metric names, the most a run may have, each a group of its own (with 200,000
    // the window froze: a list's `contains` per series, a panel per group). Grouped in time linear
    // in the series, at most 48 panels laid out, every metric in the box.
    void thousandsOfMetricsAreListedNotAllDrawn()
    {
        auto store = std::make_shared<SeriesStore>();
        for (int i = 0; i < 10000; ++i)
            store->append(store->series(u"run-a"_s, u"metric%1"_s.arg(i)), std::vector<ChartPoint>{{0, T0, 1.0}});
        LossChartPanel panel;
        panel.resize(900, 700);
        const auto cost =
            ferry::test::measure("chart panel", u"10,000 metrics"_s, [&] { panel.setStore(std::move(store)); });
        QCOMPARE(panel.panels().size(), 48);
        const QList<QComboBox *> boxes = panel.findChildren<QComboBox *>();
        QVERIFY(std::any_of(boxes.cbegin(), boxes.cend(), [](const QComboBox *box) { return box->count() == 10002; }));
        QVERIFY2(ferry::test::secondsWithin(cost.seconds, 10), "a fraction of a second expected");
    }

    void hidingARunRedrawsTheLayerAtOnce()
    {
        m_chart->repaint();
        const int builds = m_chart->layerBuilds();
        m_chart->setRunVisible(u"run-b"_s, false);
        m_chart->repaint();
        QVERIFY(m_chart->lastFrameExact());
        QCOMPARE(m_chart->layerBuilds(), builds + 1);
        const QImage image = m_chart->grab().toImage();
        const QRgb hidden = m_chart->runColor(u"run-b"_s).rgb();
        for (int y = 0; y < image.height(); ++y) {
            const QRect plot = m_chart->plotRect();
            if (y < plot.top() || y > plot.bottom())
                continue;
            for (int x = plot.left(); x <= plot.right(); ++x)
                QVERIFY(image.pixel(x, y) != hidden);
        }
    }

    // The wheel over a chart is the list's: without Ctrl it changes nothing and is left to the
    // scroll area holding the panels, which scrolls (UX review 2026-12-06, finding 5).
    void plainWheelScrollsThePanelListCtrlZooms()
    {
        const QPoint at = m_chart->plotRect().center();
        QVERIFY(!wheel(m_chart.get(), at, -120, Qt::NoModifier));
        QVERIFY(!m_chart->isZoomed());

        auto store = std::make_shared<SeriesStore>();
        for (const QString &metric :
             {u"loss"_s, u"acc"_s, u"lr"_s, u"grad_norm"_s, u"tokens"_s, u"perplexity"_s, u"throughput"_s})
            store->append(store->series(u"run-a"_s, metric), std::vector<ChartPoint>{{0, T0, 1.0}, {1, T0, 2.0}});
        LossChartPanel panel;
        panel.resize(900, 500);
        panel.setStore(store);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(panel.panels().size(), 7);
        auto *scroll = panel.findChild<QScrollArea *>();
        QVERIFY(scroll->verticalScrollBar()->maximum() > 0);
        QCOMPARE(scroll->verticalScrollBar()->value(), 0);
        LossChart *second = panel.panels().at(1);
        const QPoint over = second->plotRect().center();
        wheel(second, over, -360, Qt::NoModifier);
        QVERIFY(scroll->verticalScrollBar()->value() > 0);
        QVERIFY(!second->isZoomed());
        QVERIFY(wheel(second, second->plotRect().center(), 120, Qt::ControlModifier));
        QVERIFY(second->isZoomed());
    }

    // A panel says what it draws: its title, and a legend that explains the line styles of its
    // metrics beside the runs (UX review 2026-12-06, finding 3; issue 37's loss panel).
    void titleAndLegendNameRunAndMetric()
    {
        m_chart->setMetrics({u"loss"_s, u"val_loss"_s});
        m_chart->setTitle(u"loss"_s);
        m_chart->setRunLabel(u"run-a"_s, u"train (0eaa)"_s);
        QCOMPARE(m_chart->drawnMetrics(), (QStringList{u"loss"_s, u"val_loss"_s}));
        const QStringList legend = m_chart->legendText();
        QCOMPARE(legend.mid(0, 2), (QStringList{u"solid: loss"_s, u"dashed: val_loss"_s}));
        QCOMPARE(legend.mid(2), (QStringList{u"train (0eaa)"_s, u"run-b"_s, u"run-c"_s}));
        // The title is drawn above the plot: dark pixels there, none before it was set.
        QImage image(m_chart->size(), QImage::Format_RGB32);
        m_chart->render(image);
        int ink = 0;
        for (int y = 0; y < m_chart->plotRect().top() - 2; ++y)
            for (int x = 0; x < 60; ++x)
                ink += qGray(image.pixel(x, y)) < 128;
        QVERIFY(ink > 10);
        // A small panel: the names whole, in rows above the plot, not cut to "tra...d1)".
        m_chart->resize(420, 260);
        m_chart->setRunLabel(u"run-b"_s, u"train flowers.csv (0d8e)"_s);
        QVERIFY(m_chart->legendText().contains(u"train flowers.csv (0d8e)"_s));
        QVERIFY(m_chart->legendEntryRect(u"run-b"_s).bottom() < m_chart->plotRect().top());
        // Hovering a style's entry says what it is.
        QVERIFY(m_chart->legendText().contains(u"dashed: val_loss"_s));
    }

    // The tooltip's steps are whole, and a run that ended before the x under the mouse has no
    // value there (it gave run-short its last value at step 98; UX review, finding 3).
    void tooltipStepsAreWholeAndEndWithTheRun()
    {
        std::vector<ChartPoint> points;
        for (int s = 0; s <= 60; ++s)
            points.push_back({double(s), T0 + s, 0.5});
        m_store->append(m_store->series(u"run-short"_s, u"loss"_s), points);
        m_chart->refresh();
        m_chart->setXRange(0, 200);
        const QString text = m_chart->hoverText(QPoint(pixelAtX(98.93), m_chart->plotRect().center().y()));
        QVERIFY2(text.startsWith(u"step 99\n"_s), qPrintable(text));
        QVERIFY2(!text.contains(u"run-short"_s), qPrintable(text));
        QVERIFY2(text.contains(u"run-a: "_s) && text.contains(u"(step 99)"_s), qPrintable(text));
        const QString inside = m_chart->hoverText(QPoint(pixelAtX(40), m_chart->plotRect().center().y()));
        QVERIFY2(inside.contains(u"run-short: 0.5 (step 40)"_s), qPrintable(inside));
    }

    // A metric logged once is drawn, as a dot (it drew nothing on an empty -0.5..0.5 axis).
    void aSinglePointIsDrawn()
    {
        m_store->append(m_store->series(u"run-once"_s, u"seed"_s), std::vector<ChartPoint>{{0, T0, 1.0}});
        m_chart->refresh();
        m_chart->setMetrics({u"seed"_s});
        QImage image(m_chart->size(), QImage::Format_RGB32);
        m_chart->render(image);
        const QRgb color = m_chart->runColor(u"run-once"_s).rgb() & 0xffffff;
        const QRect plot = m_chart->plotRect();
        int found = 0;
        for (int y = plot.top(); y <= plot.bottom(); ++y)
            for (int x = plot.left(); x <= plot.right(); ++x)
                found += (image.pixel(x, y) & 0xffffff) == color;
        QVERIFY2(found >= 16, qPrintable(QString::number(found)));
    }

    // A constant 0.001 (the example's learning rate) is labelled 0.001 on a range around it, not
    // 0.0 on -0.4..0.4; labels always tell neighbouring ticks apart.
    void axisLabelsCarryTheDigitsThatTellValuesApart()
    {
        std::vector<ChartPoint> points;
        for (int s = 0; s < 50; ++s)
            points.push_back({double(s), T0 + s, 0.001});
        m_store->append(m_store->series(u"run-a"_s, u"lr"_s), points);
        m_chart->refresh();
        m_chart->setMetrics({u"lr"_s});
        const auto [y0, y1] = m_chart->yRange();
        QVERIFY2(y0 > 0 && y0 < 0.001 && y1 > 0.001 && y1 < 0.002, qPrintable(u"%1..%2"_s.arg(y0).arg(y1)));
        const std::vector<QString> labels = m_chart->yTickLabels();
        QVERIFY(labels.size() >= 2);
        QVERIFY(std::any_of(labels.begin(), labels.end(), [](const QString &l) { return l.toDouble() == 0.001; }));
        QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), qsizetype(labels.size()));
        for (const auto &[lo, hi] : {std::pair{1'000'000.1, 1'000'000.3}, std::pair{0.25001, 0.25004},
                                     std::pair{-3e-6, 4e-6}, std::pair{12345.0, 12346.0}}) {
            const AxisTicks ticks = linearTicks(lo, hi, 6);
            QVERIFY(ticks.labels.size() >= 2);
            QCOMPARE(QSet<QString>(ticks.labels.begin(), ticks.labels.end()).size(), qsizetype(ticks.labels.size()));
            for (std::size_t i = 0; i < ticks.labels.size(); ++i)
                QVERIFY2(std::abs(ticks.labels[i].toDouble() - ticks.values[i]) <= (hi - lo) * 1e-6,
                         qPrintable(ticks.labels[i]));
        }
        // Memory of a short run: KiB, not 0.41 MiB; a GPU's many MiB: GiB.
        QCOMPARE(linearTicks(0.3, 0.5, 4, ValueUnit::MiB).labels.front().right(4), u" KiB"_s);
        QCOMPARE(linearTicks(2048, 6144, 4, ValueUnit::MiB).labels.front().right(4), u" GiB"_s);
        QCOMPARE(formatValue(0.41, ValueUnit::MiB), u"419.84 KiB"_s);
        // Small time axes keep two labels at least.
        for (const auto &[lo, hi] : {std::pair{0.2, 290.0}, std::pair{3.0, 7.5}, std::pair{0.01, 0.4}})
            QVERIFY2(timeTicks(lo, hi, 2).labels.size() >= 2, qPrintable(u"%1..%2"_s.arg(lo).arg(hi)));
        QVERIFY(clockTicks(1'700'000'003.5, 1'700'000'290.0, 2).labels.size() >= 2);
    }

    // The x axis' choice changes the x values painted: step, time since start, the wall clock,
    // another metric of the run (loss against tokens seen), and log x (issue 37, X axis).
    void xAxisChoiceChangesThePaintedX()
    {
        for (int r = 0; r < 3; ++r) {
            std::vector<ChartPoint> tokens;
            for (int s = 0; s <= 1000; s += 2)
                tokens.push_back({double(s), T0, 512.0 * s});
            m_store->append(m_store->series(u"run-%1"_s.arg(QChar(u'a' + r)), u"tokens"_s), tokens);
        }
        m_chart->refresh();
        const int id = m_store->find(u"run-a"_s, u"loss"_s);
        QCOMPARE(m_chart->drawnX(id)[7], 7.0);
        m_chart->setXAxisMode(XAxisMode::WallTime);
        QCOMPARE(m_chart->drawnX(id)[7], 0.07); // 10 ms a step, from the run's first point
        m_chart->setXAxisMode(XAxisMode::Clock);
        QCOMPARE(m_chart->drawnX(id)[7], double(T0 + 70) / 1000);
        QVERIFY(m_chart->xTickLabels().front().contains(u':')); // a clock
        m_chart->setXAxisMode(XAxisMode::Metric);
        m_chart->setXMetric(u"tokens"_s);
        // Loss against tokens: step 7 has none, so the line between steps 6 and 8 (3072, 4096).
        const std::vector<double> x = m_chart->drawnX(id);
        QCOMPARE(x.size(), std::size_t(1001));
        QCOMPARE(x[7], 3584.0);
        QCOMPARE(m_chart->xRange(), (std::pair{0.0, 512000.0}));
        QImage image(m_chart->size(), QImage::Format_RGB32);
        m_chart->render(image); // drawn, without a crash
        QVERIFY(!m_chart->visibleSeries().empty());
        // A run without the x metric is not drawn; the x metric is not drawn against itself.
        m_store->append(m_store->series(u"run-z"_s, u"loss"_s), std::vector<ChartPoint>{{0, T0, 1.0}});
        m_chart->refresh();
        for (const int shown : m_chart->visibleSeries())
            QVERIFY(m_store->data(shown).key().runId != u"run-z"_s);
        // Log x: in log10 units, x <= 0 (tokens 0 at step 0) left out of the range: it starts at
        // step 1, 512 tokens (on the line from step 0 to step 2).
        m_chart->setLogX(true);
        const auto [lo, hi] = m_chart->xRange();
        QCOMPARE(lo, std::log10(512.0));
        QCOMPARE(hi, std::log10(512000.0));
        m_chart->render(image);
        m_chart->setXAxisMode(XAxisMode::Step);
        QCOMPARE(m_chart->xRange().first, 0.0); // step 1, log10: 0
        QVERIFY(m_chart->xTickLabels().size() >= 2);
    }

    // System metrics sit in a section of their own under their heading, on a time axis whatever
    // the x axis chosen (not the sample index as step), with tick labels on small panels; their
    // memory in KiB when it is small (UX review 2026-12-06, finding 10).
    void systemMetricsHaveATimeAxisOfTheirOwn()
    {
        auto store = std::make_shared<SeriesStore>();
        std::vector<ChartPoint> loss, cpu, memory;
        for (int s = 0; s < 100; ++s)
            loss.push_back({double(s), T0 + s * 300, 1.0 / (1 + s)});
        for (int n = 0; n < 7; ++n) {
            cpu.push_back({double(n), T0 + n * 5000, 90.0 + n});
            memory.push_back({double(n), T0 + n * 5000, 0.41});
        }
        store->append(store->series(u"run-a"_s, u"loss"_s), loss);
        store->append(store->series(u"run-a"_s, u"accuracy"_s), loss);
        store->append(store->series(u"run-a"_s, u"system/cpu_percent"_s), cpu);
        store->append(store->series(u"run-a"_s, u"system/memory_rss_mib"_s), memory);
        LossChartPanel panel;
        panel.resize(800, 900);
        panel.setStore(store);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        const QList<LossChart *> panels = panel.panels();
        QCOMPARE(panels.size(), 4);
        QCOMPARE(panels[0]->title(), u"loss"_s);
        QCOMPARE(panels[2]->title(), u"CPU"_s);
        QCOMPARE(panels[3]->title(), u"memory (resident)"_s);
        QVERIFY(panel.findChild<QLabel *>(u"systemHeading"_s)->isVisible());
        QVERIFY(panels[2]->geometry().top() > panels[1]->geometry().bottom()); // a row of their own
        for (const XAxisMode mode : {XAxisMode::Step, XAxisMode::Epoch, XAxisMode::WallTime}) {
            panel.setXAxis(mode);
            QCOMPARE(panels[0]->xAxisMode(), mode);
            QCOMPARE(panels[2]->xAxisMode(), XAxisMode::WallTime);
            QCOMPARE(panels[2]->xRange(), (std::pair{0.0, 30.0})); // seconds, not samples 0..6
            QVERIFY(panels[2]->xTickLabels().size() >= 2);
            QVERIFY(panels[3]->yTickLabels().front().endsWith(u" KiB"_s));
        }
        panel.setXAxis(XAxisMode::Clock);
        QCOMPARE(panels[2]->xAxisMode(), XAxisMode::Clock);
        QVERIFY(panels[2]->xTickLabels().size() >= 2);
    }

    // A panel's context menu hides it; the hidden-panels button and the menu bring it back.
    void aPanelCanBeHiddenAndShownAgain()
    {
        LossChartPanel panel;
        panel.resize(900, 700);
        panel.setStore(m_store);
        std::vector<ChartPoint> acc;
        for (int s = 0; s < 10; ++s)
            acc.push_back({double(s), T0, 0.5});
        m_store->append(m_store->series(u"run-a"_s, u"accuracy"_s), acc);
        panel.chart()->refresh();
        QTRY_COMPARE(panel.panels().size(), 2);
        LossChart *accuracy = panel.panels().at(1);
        QCOMPARE(accuracy->title(), u"accuracy"_s);
        auto *button = panel.findChild<QToolButton *>(u"hiddenPanels"_s);
        QVERIFY(button->isHidden());
        QMenu *menu = panel.panelMenu(accuracy);
        QAction *hide = menu->findChild<QAction *>(u"hidePanel"_s);
        QVERIFY(hide);
        QVERIFY(hide->text().contains(u"accuracy"_s));
        hide->trigger();
        QCOMPARE(panel.panels().size(), 1);
        QCOMPARE(panel.hiddenPanels(), QSet<QString>{u"accuracy"_s});
        QVERIFY(!button->isHidden());
        QCOMPARE(button->text(), u"Hidden panels (1)"_s);
        // New points do not bring it back.
        m_store->append(m_store->series(u"run-b"_s, u"accuracy"_s), acc);
        panel.chart()->refresh();
        QCOMPARE(panel.panels().size(), 1);
        const QList<QAction *> actions = button->menu()->actions();
        const auto show =
            std::find_if(actions.begin(), actions.end(), [](QAction *a) { return a->text().contains(u"accuracy"_s); });
        QVERIFY(show != actions.end());
        (*show)->trigger();
        QCOMPARE(panel.panels().size(), 2);
        QVERIFY(button->isHidden());
    }
};

FERRY_TEST_MAIN(TestLossChart)
#include "tst_losschart.moc"
