// The Media tab's views (ui/media/) over real runs with media, offscreen: event files written through
// the records' protobuf (tests/metrics/media_writer.py steps) and an output/images folder written
// here, followed into a real store (tracking/metricsources.h). The image slider, driven by keys,
// shows each run's image at the step (the latest at or before it), runs side by side; the bytes
// shown are the ones the run wrote at that step; a click opens one at full size; a step written
// later appears; a run without images says how to log them; the histogram view draws each step's
// bins as written and the pointer reads them; a decompression bomb, a 60,000 x 60,000 header and a
// histogram out of order are refused with a message, and nothing crashes.
#include "support/process.h"
#include "support/testmain.h"

#include "common/crc32c.h"
#include "metrics/media.h"
#include "store/runstore.h"
#include "tracking/metricsources.h"
#include "ui/media/distributionsview.h"
#include "ui/media/histogramplot.h"
#include "ui/media/imagesview.h"
#include "ui/media/mediareads.h"
#include "ui/media/mediaview.h"

#include <QApplication>
#include <QBuffer>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

const QString kMediaViewsProto = QStringLiteral(FERRY_SOURCE_DIR "/core/metrics/tensorboard_event.proto");
const QString kMediaViewsWriter = QStringLiteral(FERRY_SOURCE_DIR "/tests/metrics/media_writer.py");
const QString kMediaViewsEvents = u"output/tensorboard/events.out.tfevents.1700000000.host.1.0"_s;

bool writeBytes(const QString &path, QByteArrayView bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes.data(), bytes.size()) == bytes.size();
}

QByteArray bytesOf(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A PNG of one colour, as a script saves one into output/images.
QByteArray solidPng(QColor color)
{
    QImage image(10, 8, QImage::Format_RGB32);
    image.fill(color);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

bool viewSettled(const QObject &view, const std::function<bool()> &reading)
{
    QTest::qWait(10);
    (void)view;
    return !reading();
}

} // namespace

class TestMediaViews : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws, m_runsDir;
    std::unique_ptr<run::RunStore> m_store;
    // What each run wrote: run -> step -> the image's bytes, and its colour.
    QHash<QString, QMap<qint64, QByteArray>> m_images;
    QHash<QString, QMap<qint64, QColor>> m_colors;
    // The second image of tag "grid" at each step (the images plugin's tensor holds two).
    QHash<QString, QMap<qint64, QByteArray>> m_secondImages;
    QHash<QString, QMap<qint64, QColor>> m_secondColors;
    QJsonArray m_histogramsOfA;

    QString runDir(const QString &id) const { return m_runsDir + u'/' + id; }

    void createRun(const QString &id)
    {
        run::RunSpec spec;
        spec.id = id;
        spec.script = u"train.py"_s;
        run::RunRecord record = run::newRunRecord(spec);
        record.name = u"train "_s + id;
        m_store->createRun(record);
        QDir().mkpath(runDir(id) + u"/output/tensorboard"_s);
    }

    // The run's folder followed into the store, as the window's monitor does.
    static bool follow(run::RunStore &store, const QString &dir, const QString &id)
    {
        run::MetricSources sources(store, dir, id);
        const auto read = sources.poll(true, true);
        if (!read)
            qWarning("%s", qPrintable(read.error().toString()));
        store.flush();
        return bool(read);
    }

    // An event file of images and histograms at `steps`, written by media_writer.py.
    bool writeEventRun(const QString &id, int runNumber, const QList<int> &steps, QJsonObject *written = nullptr)
    {
        QStringList args{kMediaViewsWriter, u"steps"_s, kMediaViewsProto, runDir(id) + u'/' + kMediaViewsEvents,
                         QString::number(runNumber)};
        for (int s : steps)
            args << QString::number(s);
        const auto r = ferry::test::runCommand(u"/usr/bin/python3"_s, args);
        if (r.code != 0) {
            qWarning("%s", r.err.constData());
            return false;
        }
        const QJsonObject out = QJsonDocument::fromJson(r.out).object();
        for (const QJsonValue v : out[u"images"_s].toArray()) {
            const QJsonObject o = v.toObject();
            const QJsonArray c = o[u"color"_s].toArray();
            m_images[id][o[u"step"_s].toInteger()] = QByteArray::fromHex(o[u"hex"_s].toString().toLatin1());
            m_colors[id][o[u"step"_s].toInteger()] = QColor(c[0].toInt(), c[1].toInt(), c[2].toInt());
            const QJsonArray d = o[u"secondColor"_s].toArray();
            m_secondImages[id][o[u"step"_s].toInteger()] = QByteArray::fromHex(o[u"second"_s].toString().toLatin1());
            m_secondColors[id][o[u"step"_s].toInteger()] = QColor(d[0].toInt(), d[1].toInt(), d[2].toInt());
        }
        if (written)
            *written = out;
        return follow(*m_store, runDir(id), id);
    }

    bool writeFolderImage(const QString &id, qint64 step, QColor color)
    {
        const QByteArray png = solidPng(color);
        m_images[id][step] = png;
        m_colors[id][step] = color;
        return writeBytes(runDir(id) + u"/output/images/samples/%1.png"_s.arg(step), png);
    }

    // The image a run shows at `step`: its latest at or before it.
    std::optional<qint64> expectedStep(const QString &id, qint64 step) const
    {
        const QMap<qint64, QByteArray> &steps = m_images[id];
        auto it = steps.upperBound(step);
        if (it == steps.cbegin())
            return std::nullopt;
        return (--it).key();
    }

    static bool settled(const ui::RunImagesView &view)
    {
        return viewSettled(view, [&view] { return view.isReading(); });
    }
    static bool settled(const ui::RunDistributionsView &view)
    {
        return viewSettled(view, [&view] { return view.isReading(); });
    }

    // Each cell shows its run's image at the slider's step: the item, its bytes' checksum, its colour.
    void checkCellsAt(const ui::RunImagesView &view, const QStringList &runs)
    {
        const qint64 at = view.step();
        for (const QString &id : runs) {
            const ui::ImageCell *cell = view.cellOf(id);
            QVERIFY(cell);
            const auto want = expectedStep(id, at);
            if (!want) {
                QVERIFY2(!cell->shown().item, qPrintable(id));
                QVERIFY2(cell->note().contains(u"No image at or before step %1"_s.arg(at)), qPrintable(cell->note()));
                continue;
            }
            QVERIFY2(cell->shown().item, qPrintable(u"%1 at %2"_s.arg(id).arg(at)));
            QCOMPARE(cell->shown().item->step, *want);
            QCOMPARE(cell->shown().item->checksum, crc32c(m_images[id][*want]));
            QVERIFY2(cell->shown().error.isEmpty(), qPrintable(cell->shown().error));
            const QImage &img = cell->shown().image;
            QVERIFY(!img.isNull());
            QCOMPARE(img.pixelColor(img.width() / 2, img.height() / 2), m_colors[id][*want]);
            QVERIFY(cell->note().startsWith(u"Step %1"_s.arg(*want)));
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_ws = m_dir.filePath(u"ws"_s);
        auto store = run::RunStore::open(run::RunStore::pathInWorkspace(m_ws));
        QVERIFY2(store, store ? "" : qPrintable(store.error().toString()));
        m_store = std::move(*store);
        m_runsDir = m_ws + u"/.ferry/runs"_s;
        for (const QString &id : {u"a"_s, u"b"_s, u"c"_s, u"empty"_s, u"hostile"_s})
            createRun(id);
        QJsonObject written;
        QVERIFY(writeEventRun(u"a"_s, 1, {0, 10, 20, 30}, &written));
        m_histogramsOfA = written[u"histograms"_s].toArray();
        QVERIFY(writeEventRun(u"b"_s, 2, {0, 20, 40}));
        // Run c writes its images into its output folder, as a script without TensorBoard does.
        QVERIFY(writeFolderImage(u"c"_s, 5, QColor(200, 30, 30)));
        QVERIFY(writeFolderImage(u"c"_s, 25, QColor(30, 200, 30)));
        QVERIFY(follow(*m_store, runDir(u"c"_s), u"c"_s));
        QCOMPARE(m_store->mediaSteps(u"c"_s, run::MediaKind::Image, u"samples"_s), (QList<qint64>{5, 25}));
        QCOMPARE(m_store->mediaSteps(u"a"_s, run::MediaKind::Histogram, u"weights"_s), (QList<qint64>{0, 10, 20, 30}));
    }

    void sliderShowsEachRunsImageAtTheStepSideBySide()
    {
        const QStringList runs{u"a"_s, u"b"_s, u"c"_s};
        ui::RunImagesView view;
        view.setRunLooks([](const QString &id) { return ui::RunLook{u"train "_s + id, QColor(Qt::blue)}; });
        view.resize(1200, 500);
        view.setStore(m_store.get(), m_runsDir);
        view.setRuns(runs);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY(settled(view));
        QVERIFY(!view.showsEmptyState());
        // Every run's tags; the first shown first, another chosen as the user does.
        QCOMPARE(view.index().tags, (QStringList{u"grid"_s, u"samples"_s}));
        QCOMPARE(view.tagBox()->currentText(), u"grid"_s);
        view.tagBox()->setCurrentIndex(view.tagBox()->findText(u"samples"_s));
        Q_EMIT view.tagBox()->activated(view.tagBox()->currentIndex());
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.index().tag, u"samples"_s);
        QVERIFY(!view.sampleBox()->isVisibleTo(&view)); // one image a step
        QCOMPARE(view.index().steps, (QList<qint64>{0, 5, 10, 20, 25, 30, 40}));
        QCOMPARE(view.step(), 40); // the newest first
        // Side by side: one row, in the order given.
        QCOMPARE(view.cells().size(), 3);
        for (int i = 1; i < 3; ++i) {
            QCOMPARE(view.cells().at(i)->y(), view.cells().at(0)->y());
            QVERIFY(view.cells().at(i)->x() > view.cells().at(i - 1)->x() + view.cells().at(i - 1)->width() - 1);
        }
        checkCellsAt(view, runs);

        // The slider, driven by the keyboard from its first step to its last.
        view.slider()->setFocus();
        QTest::keyClick(view.slider(), Qt::Key_Home);
        for (int i = 0; i < int(view.index().steps.size()); ++i) {
            if (i > 0)
                QTest::keyClick(view.slider(), Qt::Key_Right);
            QTRY_VERIFY(settled(view));
            QCOMPARE(view.step(), view.index().steps.at(i));
            QCOMPARE(view.stepBox()->value(), int(view.step()));
            checkCellsAt(view, runs);
        }
        // A step typed between two: the latest at or before it.
        view.stepBox()->setValue(15);
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.step(), 10);
        checkCellsAt(view, runs);
        QCOMPARE(view.cellOf(u"b"_s)->shown().item->step, 0);
        QVERIFY(view.cellOf(u"b"_s)->note().contains(u"the latest at or before 10"_s));

        // A click opens the image at full size (read off the GUI thread).
        QTest::mouseClick(view.cellOf(u"a"_s), Qt::LeftButton, {}, view.cellOf(u"a"_s)->rect().center());
        QTRY_VERIFY(view.fullImage());
        auto *label = view.fullImage()->findChild<QLabel *>(u"fullImage"_s);
        QVERIFY(label);
        QTRY_COMPARE(label->property("imageSize").toSize(), QSize(8, 6));
        QVERIFY(view.fullImage()->windowTitle().contains(u"step 10"_s));
        view.fullImage()->close();
    }

    // TensorFlow 2's images plugin: several images at a step, one chosen with the sample box.
    void samplesOfAStepAreChosen()
    {
        ui::RunImagesView view;
        view.resize(900, 400);
        view.setStore(m_store.get(), m_runsDir);
        view.setRuns({u"a"_s, u"b"_s, u"c"_s});
        view.show();
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.index().tag, u"grid"_s);
        QCOMPARE(view.index().samples, 2);
        QVERIFY(view.sampleBox()->isVisibleTo(&view));
        view.setStep(20);
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.cellOf(u"a"_s)->shown().item->checksum, crc32c(m_images[u"a"_s][20]));
        QVERIFY(view.cellOf(u"c"_s)->note().contains(u"no images at this tag"_s)); // c logs "samples" only
        view.sampleBox()->setValue(2);
        QTRY_VERIFY(settled(view));
        for (const QString &id : {u"a"_s, u"b"_s}) {
            const ui::ImageCell *cell = view.cellOf(id);
            QCOMPARE(cell->shown().item->sample, 1);
            QCOMPARE(cell->shown().item->step, 20);
            QCOMPARE(cell->shown().item->checksum, crc32c(m_secondImages[id][20]));
            const QImage &img = cell->shown().image;
            QCOMPARE(img.pixelColor(img.width() / 2, img.height() / 2), m_secondColors[id][20]);
        }
    }

    // Live: a step the run writes later appears by itself (the Media tab reads the index again while
    // in view), and a slider at the last step follows it.
    void aStepWrittenLaterAppears()
    {
        ui::RunMediaView tab;
        tab.resize(900, 500);
        tab.setStore(m_store.get(), m_runsDir);
        tab.setRuns({u"c"_s}, u"run c"_s);
        tab.show();
        const ui::RunImagesView &view = *tab.images();
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.step(), 25);
        QVERIFY(writeFolderImage(u"c"_s, 50, QColor(20, 20, 220)));
        QVERIFY(follow(*m_store, runDir(u"c"_s), u"c"_s));
        QTRY_COMPARE_WITH_TIMEOUT(view.index().steps, (QList<qint64>{5, 25, 50}), 3 * ui::RunMediaView::kRefreshMs);
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.step(), 50);
        checkCellsAt(view, {u"c"_s});
    }

    void aRunWithoutMediaSaysHowToLogThem()
    {
        ui::RunImagesView images;
        images.setStore(m_store.get(), m_runsDir);
        images.setRuns({u"empty"_s});
        QTRY_VERIFY(settled(images));
        QVERIFY(images.showsEmptyState());
        QVERIFY(images.emptyLabel()->text().contains(u"This run logged no images"_s));
        QVERIFY(images.emptyLabel()->text().contains(u"docs/metrics.md"_s));
        QVERIFY(images.emptyLabel()->text().contains(u"output/images/<tag>/<step>.png"_s));

        ui::RunDistributionsView distributions;
        distributions.setStore(m_store.get(), m_runsDir);
        distributions.setRuns({u"empty"_s});
        QTRY_VERIFY(settled(distributions));
        QVERIFY(distributions.plot()->curves().isEmpty());
        const QImage frame = distributions.plot()->grab().toImage();
        QVERIFY(!frame.isNull());

        // A run without this tag, beside one with it, says so in its cell.
        images.setRuns({u"a"_s, u"empty"_s});
        QTRY_VERIFY(settled(images));
        QVERIFY(!images.showsEmptyState());
        QVERIFY(images.cellOf(u"empty"_s)->note().contains(u"no images at this tag"_s));
    }

    void histogramViewDrawsEachStepsBins()
    {
        ui::RunDistributionsView view;
        view.resize(900, 600);
        view.setStore(m_store.get(), m_runsDir);
        view.setRuns({u"a"_s, u"b"_s});
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.runBox()->currentData().toString(), u"a"_s);
        QCOMPARE(view.tagBox()->currentText(), u"weights"_s);
        const ui::HistogramPlot *plot = view.plot();
        QCOMPARE(plot->curves().size(), m_histogramsOfA.size());
        for (int i = 0; i < int(m_histogramsOfA.size()); ++i) {
            const QJsonObject w = m_histogramsOfA.at(i).toObject();
            const auto &curve = plot->curves().at(i);
            QCOMPARE(curve.step, w[u"step"_s].toInteger());
            const QJsonArray limits = w[u"bucket_limit"_s].toArray(), counts = w[u"bucket"_s].toArray();
            QCOMPARE(qsizetype(curve.bins.size()), counts.size());
            for (int b = 0; b < int(counts.size()); ++b) {
                QCOMPARE(curve.bins[size_t(b)].count, counts.at(b).toDouble());
                QCOMPARE(curve.bins[size_t(b)].right, std::min(2.0, limits.at(b).toDouble()));     // max: 2
                QCOMPARE(curve.bins[size_t(b)].left, b == 0 ? -1.0 : limits.at(b - 1).toDouble()); // min: -1
            }
        }
        // The pointer on a bin of a step reads that bin and step, in both modes.
        for (const auto mode : {ui::HistogramPlot::Mode::Offset, ui::HistogramPlot::Mode::Overlay}) {
            view.modeBox()->setCurrentIndex(view.modeBox()->findData(int(mode)));
            QCOMPARE(plot->mode(), mode);
            for (const int curve : {0, 2, 3}) {
                // The highest bin of the step: its curve's point there stands clear of the others.
                const auto &bins = plot->curves().at(curve).bins;
                const int bin = int(std::max_element(bins.begin(), bins.end(),
                                                     [](const auto &x, const auto &y) { return x.count < y.count; }) -
                                    bins.begin());
                QTest::mouseMove(view.plot(), plot->pointOf(curve, bin).toPoint());
                QTRY_VERIFY(plot->reading());
                QCOMPARE(plot->reading()->step, plot->curves().at(curve).step);
                QCOMPARE(plot->reading()->bin, bin);
                QCOMPARE(plot->reading()->value.count, bins[size_t(bin)].count);
                QVERIFY2(plot->readout().startsWith(u"step %1 · ["_s.arg(plot->curves().at(curve).step)),
                         qPrintable(plot->readout()));
            }
        }
        // Drawn (off the GUI thread): the last step's curve in its colour where its peak is.
        QEvent leave(QEvent::Leave); // the pointer gone: the picture alone
        QApplication::sendEvent(view.plot(), &leave);
        QVERIFY(!plot->reading());
        QTRY_VERIFY(!plot->isDrawing());
        const auto &last = plot->curves().last().bins;
        const int peak = int(
            std::max_element(last.begin(), last.end(), [](const auto &x, const auto &y) { return x.count < y.count; }) -
            last.begin());
        const QImage picture = view.plot()->grab().toImage();
        const QPointF at = plot->pointOf(int(plot->curves().size()) - 1, peak) * picture.devicePixelRatio();
        QVERIFY(picture.pixelColor(at.toPoint()) != view.plot()->palette().color(QPalette::Base));
        // Another run: its own steps.
        view.runBox()->setCurrentIndex(1);
        Q_EMIT view.runBox()->activated(1);
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.series().runId, u"b"_s);
        QCOMPARE(plot->curves().size(), 3);
        QCOMPARE(plot->curves().last().step, 40);
    }

    // The attacks: files that pass for images or histograms in the index, refused when read.
    void refusedMediaShowAMessageAndNothingCrashes()
    {
        const QString dir = runDir(u"hostile"_s);
        const QString attacks = m_dir.filePath(u"attacks"_s);
        const auto r = ferry::test::runCommand(u"/usr/bin/python3"_s,
                                               {kMediaViewsWriter, u"attack-images"_s, kMediaViewsProto, attacks});
        QVERIFY2(r.code == 0, r.err.constData());
        const QByteArray bomb = bytesOf(attacks + u"/bomb.png"_s);
        QVERIFY(bomb.size() > 1000000);
        // The decoder itself refuses a bomb (Qt's allocation limit), should one reach it.
        QString why;
        QVERIFY(ui::decodeMediaImage(bomb, {}, &why).isNull());
        QVERIFY(!why.isEmpty());

        // 1. A bomb in the index (as an index from elsewhere would put it): refused by its header on reading.
        QVERIFY(writeBytes(dir + u"/output/images/samples/1.png"_s, bomb));
        run::MediaItem item;
        item.kind = run::MediaKind::Image;
        item.tag = u"samples"_s;
        item.step = 1;
        item.file = u"output/images/samples/1.png"_s;
        item.length = bomb.size();
        item.format = run::mediaformat::kPng.toString();
        item.width = item.height = 50000;
        item.checksum = crc32c(bomb);
        m_store->addMedia(u"hostile"_s, {item});
        // 2. An image indexed whole, then replaced by a 60,000 x 60,000 header.
        const QByteArray good = solidPng(Qt::red);
        QVERIFY(writeBytes(dir + u"/output/images/samples/2.png"_s, good));
        QVERIFY(follow(*m_store, dir, u"hostile"_s));
        QVERIFY(writeBytes(dir + u"/output/images/samples/2.png"_s, bytesOf(attacks + u"/huge.png"_s)));
        // 3. A histogram whose limits go down, as a line of histograms.jsonl indexed from elsewhere.
        const QByteArray line = "{\"tag\": \"w\", \"step\": 3, \"bucket_limit\": [1.0, 0.5], \"bucket\": [1, 2]}\n";
        QVERIFY(writeBytes(dir + u"/output/bad.jsonl"_s, line));
        run::MediaItem histogram;
        histogram.kind = run::MediaKind::Histogram;
        histogram.tag = u"w"_s;
        histogram.step = 3;
        histogram.file = u"output/bad.jsonl"_s;
        histogram.length = line.size();
        histogram.format = run::mediaformat::kHistogramLine.toString();
        histogram.checksum = crc32c(line);
        m_store->addMedia(u"hostile"_s, {histogram});
        m_store->flush();

        ui::RunImagesView view;
        view.resize(800, 400);
        view.setStore(m_store.get(), m_runsDir);
        view.setRuns({u"hostile"_s});
        view.show();
        QTRY_VERIFY(settled(view));
        QCOMPARE(view.index().steps, (QList<qint64>{1, 2}));
        const ui::ImageCell *cell = view.cellOf(u"hostile"_s);
        QCOMPARE(view.step(), 2);
        QVERIFY(cell->shown().image.isNull());
        QVERIFY2(cell->note().contains(u"not shown"_s), qPrintable(cell->note()));
        QVERIFY2(cell->note().contains(u"2.png"_s), qPrintable(cell->note()));
        view.setStep(1);
        QTRY_VERIFY(settled(view));
        QCOMPARE(cell->shown().item->step, 1);
        QVERIFY(cell->shown().image.isNull());
        QVERIFY2(cell->note().contains(u"not shown"_s) && cell->note().contains(u"50000"_s), qPrintable(cell->note()));
        // A refused image does not open.
        QTest::mouseClick(const_cast<ui::ImageCell *>(cell), Qt::LeftButton);
        QVERIFY(!view.fullImage());
        QVERIFY(!view.grab().isNull());

        ui::RunDistributionsView distributions;
        distributions.setStore(m_store.get(), m_runsDir);
        distributions.setRuns({u"hostile"_s});
        distributions.show();
        QTRY_VERIFY(settled(distributions));
        QVERIFY(distributions.plot()->curves().isEmpty());
        QVERIFY(distributions.notes()->isVisibleTo(&distributions));
        QVERIFY2(distributions.notes()->text().contains(u"bad.jsonl"_s), qPrintable(distributions.notes()->text()));
    }
};

FERRY_TEST_MAIN(TestMediaViews)
#include "tst_mediaviews.moc"
