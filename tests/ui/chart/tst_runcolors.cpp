// Run colours: 32 a person tells apart, one per run shown, the same in every view and after a
// restart (issue 37, "Colours that stay apart"; UX review 2026-12-06, finding 2).
#include "support/testmain.h"
#include "ui/chart/losschart.h"
#include "ui/chart/losschartpanel.h"
#include "ui/chart/runcolors.h"
#include "ui/runs/runsmodel.h"

#include <QFile>
#include <QIcon>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <array>
#include <cmath>
#include <numbers>

using namespace Qt::StringLiterals;
using namespace ferry::ui;

namespace {

using Lab = std::array<double, 3>;

Lab toLab(const QColor &color)
{
    const auto linear = [](double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    const double r = linear(color.redF()), g = linear(color.greenF()), b = linear(color.blueF());
    const double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    const double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    const double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    const auto f = [](double t) {
        constexpr double d = 6.0 / 29;
        return t > d * d * d ? std::cbrt(t) : t / (3 * d * d) + 4.0 / 29;
    };
    return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

// CIEDE2000 (Sharma, Wu, Dalal 2005): how different two colours look; about 2.3 is just noticeable.
double ciede2000(const Lab &c1, const Lab &c2)
{
    constexpr double pi = std::numbers::pi;
    const auto deg = [](double rad) { return rad * 180 / pi; };
    const auto rad = [](double d) { return d * pi / 180; };
    const double C1 = std::hypot(c1[1], c1[2]), C2 = std::hypot(c2[1], c2[2]);
    const double Cm = (C1 + C2) / 2;
    const double G = 0.5 * (1 - std::sqrt(std::pow(Cm, 7) / (std::pow(Cm, 7) + std::pow(25.0, 7))));
    const double a1 = (1 + G) * c1[1], a2 = (1 + G) * c2[1];
    const double C1p = std::hypot(a1, c1[2]), C2p = std::hypot(a2, c2[2]);
    const auto hue = [&](double b, double a) {
        const double h = deg(std::atan2(b, a));
        return h < 0 ? h + 360 : h;
    };
    const double h1 = hue(c1[2], a1), h2 = hue(c2[2], a2);
    const double dL = c2[0] - c1[0], dC = C2p - C1p;
    double dh = h2 - h1;
    if (C1p * C2p == 0)
        dh = 0;
    else if (dh > 180)
        dh -= 360;
    else if (dh < -180)
        dh += 360;
    const double dH = 2 * std::sqrt(C1p * C2p) * std::sin(rad(dh / 2));
    const double Lm = (c1[0] + c2[0]) / 2, Cmp = (C1p + C2p) / 2;
    double hm = h1 + h2;
    if (C1p * C2p != 0)
        hm = std::abs(h1 - h2) > 180 ? (hm + 360) / 2 : hm / 2;
    const double T = 1 - 0.17 * std::cos(rad(hm - 30)) + 0.24 * std::cos(rad(2 * hm)) +
                     0.32 * std::cos(rad(3 * hm + 6)) - 0.20 * std::cos(rad(4 * hm - 63));
    const double dTheta = 30 * std::exp(-std::pow((hm - 275) / 25, 2));
    const double Rc = 2 * std::sqrt(std::pow(Cmp, 7) / (std::pow(Cmp, 7) + std::pow(25.0, 7)));
    const double Sl = 1 + 0.015 * std::pow(Lm - 50, 2) / std::sqrt(20 + std::pow(Lm - 50, 2));
    const double Sc = 1 + 0.045 * Cmp, Sh = 1 + 0.015 * Cmp * T;
    const double Rt = -std::sin(rad(2 * dTheta)) * Rc;
    return std::sqrt(std::pow(dL / Sl, 2) + std::pow(dC / Sc, 2) + std::pow(dH / Sh, 2) + Rt * (dC / Sc) * (dH / Sh));
}

// `count` run ids as Ferry makes them, one a second, in the order they were created.
QStringList runIds(int count, int from = 0)
{
    QStringList ids;
    for (int i = from; i < from + count; ++i)
        ids << u"20261206-12%1%2-train-%3"_s.arg(i / 60, 2, 10, QChar(u'0'))
                   .arg(i % 60, 2, 10, QChar(u'0'))
                   .arg(i * 7919 % 65536, 4, 16, QChar(u'0'));
    return ids;
}

} // namespace

class TestRunColors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The published CIEDE2000 test pair (Sharma et al., table 1, pair 1): the metric is right.
    void ciede2000MatchesItsReference()
    {
        QVERIFY(std::abs(ciede2000({50, 2.6772, -79.7751}, {50, 0, -82.7485}) - 2.0425) < 1e-3);
    }

    // Any two of the 32 colours differ by far more than what an eye just notices (2.3), and none is
    // near the white or the dark background the chart is drawn on.
    void thePaletteColoursAreFarApart()
    {
        double closest = 1e9;
        for (int i = 0; i < kRunColorCount; ++i) {
            const Lab a = toLab(runPaletteColor(i));
            for (int j = i + 1; j < kRunColorCount; ++j)
                closest = std::min(closest, ciede2000(a, toLab(runPaletteColor(j))));
            QVERIFY2(ciede2000(a, toLab(Qt::white)) > 25, qPrintable(runPaletteColor(i).name()));
            QVERIFY2(ciede2000(a, toLab(QColor(0x2b2b2b))) > 20, qPrintable(runPaletteColor(i).name()));
        }
        QVERIFY2(closest >= 14, qPrintable(QString::number(closest)));
    }

    // Runs get the most distinct colours first, and any 32 created one after another differ:
    // shown together, nobody moves; the 33rd takes the colour of the 1st, that nobody shown
    // with it has.
    void runsCreatedTogetherGetDifferentColours()
    {
        RunColors colors;
        const QStringList ids = runIds(40);
        QSignalSpy changed(&colors, &RunColors::changed);
        colors.know(ids);
        QCOMPARE(changed.size(), 1);
        for (int i = 0; i < 40; ++i)
            QCOMPARE(colors.slot(ids[i]), i % kRunColorCount);
        QCOMPARE(colors.color(ids[0]), runPaletteColor(0));
        colors.assign(ids.mid(3, 32)); // any 32 in a row: already apart
        QCOMPARE(changed.size(), 1);
        QSet<QRgb> rgbs;
        for (const QString &id : ids.mid(3, 32))
            rgbs.insert(colors.color(id).rgb());
        QCOMPARE(rgbs.size(), 32);
        colors.know(ids); // nothing new: no signal, no write
        QCOMPARE(changed.size(), 1);
    }

    // Two runs created far apart share a colour; shown together, the later moves to a colour
    // none of those shown has, and keeps it in every view after. More than 32 shown reuse
    // colours, and nobody moves for that.
    void runsShownTogetherNeverShareAColour()
    {
        RunColors colors;
        const QStringList ids = runIds(40);
        colors.know(ids);
        QCOMPARE(colors.slot(ids[1]), colors.slot(ids[33]));
        QSignalSpy changed(&colors, &RunColors::changed);
        colors.assign({ids[33], ids[1], ids[2]});
        QCOMPARE(changed.size(), 1);
        QCOMPARE(colors.slot(ids[1]), 1);
        QCOMPARE(colors.slot(ids[2]), 2);
        QCOMPARE(colors.slot(ids[33]), 0); // the lowest none of the three has
        colors.assign({ids[33]});
        QCOMPARE(colors.slot(ids[33]), 0);
        // Runs never seen before, shown together: told apart at once.
        const QStringList unknown = runIds(32, 100);
        colors.assign(unknown);
        QSet<int> slots;
        for (const QString &id : unknown)
            slots.insert(colors.slot(id));
        QCOMPARE(slots.size(), 32);
        // 40 at once: 32 colours, some twice; nobody moved for it.
        QHash<QString, int> before;
        for (const QString &id : ids)
            before.insert(id, colors.slot(id));
        colors.assign(ids);
        for (const QString &id : ids)
            QCOMPARE(colors.slot(id), before.value(id));
    }

    // What was given is kept in the workspace's file: a restart has the same colours, collisions
    // resolved included; a damaged file is said and the colours start afresh.
    void coloursStayAcrossARestart()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"run-colors.json"_s);
        const QStringList ids = runIds(36);
        QHash<QString, QRgb> first;
        {
            RunColors colors;
            QVERIFY(colors.setFile(path));
            colors.know(ids);
            colors.assign({ids[0], ids[32]}); // ids[32] moves
            for (const QString &id : ids)
                first.insert(id, colors.color(id).rgb());
        }
        QVERIFY(first.value(ids[0]) != first.value(ids[32]));
        QVERIFY(QFile::exists(path));
        RunColors again; // the next start
        QVERIFY(again.setFile(path));
        for (const QString &id : ids)
            QCOMPARE(again.color(id).rgb(), first.value(id));
        // Without its file, the same history gives the same colours: they are derived, not random.
        RunColors derived;
        derived.know(ids);
        derived.assign({ids[0], ids[32]});
        for (const QString &id : ids)
            QCOMPARE(derived.color(id).rgb(), first.value(id));
        // Deleted runs are forgotten; runs newer than the list read are not.
        const QString newer = u"29991231-235959-train-ffff"_s;
        again.know({newer});
        again.retain(ids.mid(1));
        QCOMPARE(again.slot(ids[0]), -1);
        QVERIFY(again.slot(newer) >= 0);

        QFile damaged(path);
        QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate));
        damaged.write("{not json");
        damaged.close();
        RunColors fresh;
        const auto read = fresh.setFile(path);
        QVERIFY(!read);
        QCOMPARE(read.error().path, path);
        QCOMPARE(fresh.slot(ids[0]), -1);
    }

    // One place decides: the chart's legend, its lines and the runs table's swatch of a run
    // show the same colour, the one RunColors gives it.
    void everyViewDrawsARunInItsOneColour()
    {
        RunColors colors;
        const QStringList ids = runIds(34);
        colors.know(ids);
        colors.know({ids[0], ids[32]}); // both slot 0 until shown together
        auto store = std::make_shared<SeriesStore>();
        for (const QString &id : {ids[0], ids[32]}) {
            std::vector<ChartPoint> points;
            for (int s = 0; s < 50; ++s)
                points.push_back({double(s), 1'700'000'000'000 + s, 1.0 / (1 + s) + (id == ids[0] ? 0 : 0.5)});
            store->append(store->series(id, u"loss"_s), points);
        }
        LossChartPanel panel;
        panel.resize(900, 500);
        panel.setRunColors(&colors);
        panel.setStore(store);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTRY_VERIFY(colors.slot(ids[0]) != colors.slot(ids[32])); // told apart once drawn together
        LossChart *chart = panel.chart();
        QImage image(chart->size(), QImage::Format_RGB32);
        chart->render(image);
        for (const QString &id : {ids[0], ids[32]}) {
            const QRgb rgb = colors.color(id).rgb() & 0xffffff;
            QCOMPARE(chart->runColor(id).rgb() & 0xffffff, rgb);
            int found = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    found += (image.pixel(x, y) & 0xffffff) == rgb;
            QVERIFY2(found > 50, qPrintable(id));
        }
        RunsModel model;
        model.setRunColors(&colors);
        RunRow row;
        row.record.id = ids[32];
        model.setRows({row});
        const QImage swatch =
            model.index(0, RunsModel::StatusColumn).data(Qt::DecorationRole).value<QIcon>().pixmap(30, 16).toImage();
        QCOMPARE(swatch.pixel(6, 8) & 0xffffff, colors.color(ids[32]).rgb() & 0xffffff);
        QVERIFY(colors.color(ids[32]) != runPaletteColor(0));
    }
};

FERRY_TEST_MAIN(TestRunColors)
#include "tst_runcolors.moc"
