// The workbench's parts on their own, offscreen: drops routed by kind (local files only),
// datasets detected and previewed, the launch dialog's hyperparameters read from the script
// and remembered per script, a launch applying its environment, and the train panel training an
// embedded run (cancel included).
#include "ferry/version.h"
#include "run/rundirectory.h"
#include "store/runstore.h"
#include "support/files.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/targetfactory.h"
#include "tracking/runmonitor.h"
#include "training/trainerloader.h"
#include "ui/chart/losschart.h"
#include "ui/chart/seriesstore.h"
#include "ui/data/datasetpanel.h"
#include "ui/data/droprouter.h"
#include "ui/launch/launchdialog.h"
#include "ui/runs/runactions.h"
#include "ui/session/chartfeeder.h"
#include "ui/train/trainpanel.h"
#include "ui/window/aboutdialog.h"
#include "ui/workspace/workspaceoverview.h"

#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <random>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::writeFile;

namespace {

QByteArray twoClassCsv(int rows)
{
    std::mt19937_64 rng(1);
    std::normal_distribution<double> normal(0.0, 1.0);
    QByteArray csv = "a,b,label\n";
    for (int i = 0; i < rows; ++i) {
        const double a = normal(rng);
        const double b = normal(rng);
        csv += QByteArray::number(a, 'f', 4) + ',' + QByteArray::number(b, 'f', 4) + (a + b > 0 ? ",up\n" : ",down\n");
    }
    return csv;
}

// An idx image file: magic 0x00000803, count, rows, cols, then the pixels.
QByteArray idxImages(int count, int size)
{
    QByteArray bytes;
    const auto be32 = [&](quint32 v) {
        for (int shift = 24; shift >= 0; shift -= 8)
            bytes += static_cast<char>((v >> shift) & 0xff);
    };
    be32(0x00000803);
    be32(static_cast<quint32>(count));
    be32(static_cast<quint32>(size));
    be32(static_cast<quint32>(size));
    bytes += QByteArray(count * size * size, '\x7f');
    return bytes;
}

QByteArray idxLabels(int count)
{
    QByteArray bytes("\x00\x00\x08\x01", 4);
    for (int shift = 24; shift >= 0; shift -= 8)
        bytes += static_cast<char>((static_cast<quint32>(count) >> shift) & 0xff);
    for (int i = 0; i < count; ++i)
        bytes += static_cast<char>(i % 3);
    return bytes;
}

} // namespace

class TestWorkbenchParts : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    QString ws(const QString &file = {}) const { return file.isEmpty() ? m_ws.path() : m_ws.filePath(file); }

private Q_SLOTS:
    void aboutListsTheVersions()
    {
        const QString versions = ui::AboutDialog::versions();
        QVERIFY(versions.startsWith(u"Ferry "_s + QString::fromLatin1(kVersion) + u'\n'));
        QVERIFY(versions.contains(u"Qt "_s + QString::fromLatin1(qVersion())));
        const QString torch = QString::fromLatin1(kLibtorchVersion);
        QCOMPARE(torch.isEmpty(), !FERRY_HAS_TRAINER);
        if (!torch.isEmpty())
            QVERIFY2(versions.contains(u"libtorch "_s + torch), qPrintable(versions));
        ui::AboutDialog about;
        QCOMPARE(about.findChild<QLabel *>(u"versions"_s)->text(), versions);
        about.findChild<QPushButton *>(u"copyVersions"_s)->click();
        QCOMPARE(QGuiApplication::clipboard()->text(), versions);
    }

    void initTestCase()
    {
        QVERIFY(m_ws.isValid());
        QVERIFY(writeFile(ws(u"data/points.csv"_s), twoClassCsv(400)));
        for (const QString &cls : {u"cats"_s, u"dogs"_s}) {
            QVERIFY(QDir().mkpath(ws(u"images/"_s + cls)));
            for (int i = 0; i < 3; ++i) {
                QImage image(16, 16, QImage::Format_RGB32);
                image.fill(cls == u"cats"_s ? Qt::white : Qt::black);
                QVERIFY(image.save(ws(u"images/%1/%2.png"_s.arg(cls).arg(i))));
            }
        }
        QVERIFY(writeFile(ws(u"mnist/train-images-idx3-ubyte"_s), idxImages(6, 4)));
        QVERIFY(writeFile(ws(u"mnist/train-labels-idx1-ubyte"_s), idxLabels(6)));
        QVERIFY(writeFile(ws(u"notes.ipynb"_s), "{}"));
        QVERIFY(writeFile(ws(u"environment.yml"_s), "name: x\ndependencies: [python=3.11]\n"));
        QVERIFY(writeFile(ws(u"train.py"_s), "import argparse, os\np = argparse.ArgumentParser()\n"
                                             "p.add_argument('--epochs', type=int, default=5, help='passes')\n"
                                             "p.add_argument('--lr', type=float, default=0.1)\n"
                                             "p.add_argument('--fast', action='store_true')\n"
                                             "p.add_argument('--model-dir', default=os.environ['SM_MODEL_DIR'])\n"));
    }

    // The workspace by purpose: environments with their image tags, scripts, datasets (files and
    // image folders), and it follows the folder as it changes.
    void overviewGroupsTheWorkspace()
    {
        QVERIFY(writeFile(ws(u"environments/demo.yml"_s),
                          "ferry: 1\nname: demo\ndocker: {base_image: 'python:3.11-slim'}\n"));
        ui::WorkspaceOverview overview;
        overview.setRoot(ws());
        using Kind = ui::WorkspaceOverview::Kind;
        QCOMPARE(overview.entries(Kind::Environment), QStringList{u"environments/demo.yml"_s});
        QCOMPARE(overview.entries(Kind::Script), QStringList{u"train.py"_s});
        QCOMPARE(overview.entries(Kind::Dataset),
                 (QStringList{u"data/points.csv"_s, u"images/"_s, u"mnist/train-images-idx3-ubyte"_s,
                              u"mnist/train-labels-idx1-ubyte"_s}));
        // The image tag, once the file is read (off the GUI thread).
        QTRY_VERIFY(overview.topLevelItem(0)->child(0)->text(0).contains(u"demo-1-"_s));
        QSignalSpy activated(&overview, &ui::WorkspaceOverview::entryActivated);
        Q_EMIT overview.itemActivated(overview.topLevelItem(1)->child(0), 0);
        QCOMPARE(activated.size(), 1);
        QCOMPARE(activated.first().at(1).toString(), ws(u"train.py"_s));
        QVERIFY(writeFile(ws(u"evaluate.py"_s), "print(1)\n"));
        QTRY_COMPARE(overview.entries(Kind::Script), (QStringList{u"evaluate.py"_s, u"train.py"_s}));
        QVERIFY(QFile::remove(ws(u"evaluate.py"_s)));
        QVERIFY(QFile::remove(ws(u"environments/demo.yml"_s)));
    }

    // The chart gets the selected runs' points from the store: the snapshot, then exactly what
    // came since, once each; a new selection starts afresh; epoch-level metrics of embedded runs
    // are marked as such.
    void chartFeederDeliversEachPointOnce()
    {
        QTemporaryDir dir;
        auto store = run::RunStore::open(dir.filePath(u"runs.sqlite"_s));
        QVERIFY(store);
        run::RunSpec spec;
        spec.id = u"r1"_s;
        spec.script = u"train.py"_s;
        (*store)->createRun(run::newRunRecord(spec));
        spec.id = u"r2"_s;
        (*store)->createRun(run::newRunRecord(spec));
        const auto points = [](const QString &name, int from, int count) {
            QList<run::MetricPoint> list;
            for (int i = from; i < from + count; ++i)
                list.append({name, double(i), 1.0 / (i + 1), 1000 + i,
                             name == u"val_loss"_s ? double(i) : std::numeric_limits<double>::quiet_NaN()});
            return list;
        };
        (*store)->appendMetrics(u"r1"_s, points(u"loss"_s, 0, 100), 10);
        (*store)->appendMetrics(u"r2"_s, points(u"loss"_s, 0, 7), 10);
        (*store)->appendMetrics(u"r1"_s, points(u"val_loss"_s, 1, 3), 20);
        (*store)->flush();

        ui::LossChart chart;
        ui::ChartFeeder feeder(&chart);
        feeder.setStore(store->get());
        QSignalSpy loaded(&feeder, &ui::ChartFeeder::loaded);
        feeder.setRuns({u"r1"_s}, {{u"r1"_s, u"first"_s}});
        QVERIFY(loaded.wait(10000));
        const auto total = [&chart](const QString &metric) {
            chart.refresh(); // drains the store now
            qsizetype n = 0;
            const ui::SeriesStore &series = *chart.store();
            for (int i = 0; i < series.seriesCount(); ++i)
                if (series.data(i).key().metric == metric)
                    n += series.data(i).size();
            return n;
        };
        QCOMPARE(total(u"loss"_s), 100);
        QCOMPARE(total(u"val_loss"_s), 3);
        for (int i = 0; i < chart.store()->seriesCount(); ++i) {
            // The store's epochs reach the chart: val_loss carries them, loss none.
            const ui::SeriesData &data = chart.store()->data(i);
            QCOMPARE(data.hasEpochs(), data.key().metric == u"val_loss"_s);
        }
        QCOMPARE(chart.runLabel(u"r1"_s), u"first"_s);

        (*store)->appendMetrics(u"r1"_s, points(u"loss"_s, 100, 50), 30);
        (*store)->appendMetrics(u"r2"_s, points(u"loss"_s, 7, 5), 30); // not shown
        (*store)->flush();
        feeder.runsChanged({u"r1"_s, u"r2"_s});
        QTRY_COMPARE(total(u"loss"_s), 150);
        feeder.runsChanged({u"r1"_s}); // nothing new: nothing added
        QTest::qWait(200);
        QCOMPARE(total(u"loss"_s), 150);

        feeder.setRuns({u"r2"_s}, {});
        QVERIFY(loaded.wait(10000));
        QCOMPARE(total(u"loss"_s), 12);
        QCOMPARE(total(u"val_loss"_s), 0);
        feeder.setStore(nullptr);
    }

    void dropsAreRoutedByKind()
    {
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(ws(u"data/points.csv"_s)), QUrl::fromLocalFile(ws(u"images"_s)),
                      QUrl::fromLocalFile(ws(u"mnist/train-images-idx3-ubyte"_s)),
                      QUrl::fromLocalFile(ws(u"notes.ipynb"_s)), QUrl::fromLocalFile(ws(u"environment.yml"_s)),
                      QUrl(u"https://example.org/data.csv"_s), QUrl::fromLocalFile(ws(u"missing.csv"_s))});
        const ui::DropPlan plan = ui::planDrop(mime);
        QCOMPARE(plan.items.size(), 5);
        QCOMPARE(plan.items[0].kind, ui::DropPlan::Kind::Dataset);
        QCOMPARE(plan.items[1].kind, ui::DropPlan::Kind::Dataset);
        QCOMPARE(plan.items[2].kind, ui::DropPlan::Kind::Dataset);
        QCOMPARE(plan.items[3].kind, ui::DropPlan::Kind::Notebook);
        QCOMPARE(plan.items[4].kind, ui::DropPlan::Kind::Environment);
        QCOMPARE(plan.refused.size(), 2);
        QVERIFY2(plan.refused[0].contains(u"only local files"_s), qPrintable(plan.refused[0]));
        QVERIFY2(plan.refused[1].contains(u"does not exist"_s), qPrintable(plan.refused[1]));

        QMimeData remoteOnly;
        remoteOnly.setUrls({QUrl(u"https://example.org/x.csv"_s)});
        QVERIFY(!ui::planDrop(remoteOnly).acceptable());
    }

    void datasetsArePreviewed()
    {
        ui::DatasetPanel panel;
        QSignalSpy added(&panel, &ui::DatasetPanel::datasetAdded);
        panel.addDataset(ws(u"data/points.csv"_s));
        QVERIFY(added.wait(10000));
        QCOMPARE(added.last().at(0).toString(), u"training"_s);
        auto *head = panel.findChild<QTableWidget *>(u"head"_s);
        QCOMPARE(head->columnCount(), 3);
        QVERIFY(head->rowCount() > 0);
        QCOMPARE(head->horizontalHeaderItem(0)->text(), u"a\nnumber"_s);
        QCOMPARE(head->horizontalHeaderItem(2)->text(), u"label\ntext"_s);
        QVERIFY(panel.findChild<QLabel *>(u"summary"_s)->text().contains(u"400 samples"_s));

        panel.addDataset(ws(u"images"_s));
        QVERIFY(added.wait(10000));
        QCOMPARE(added.last().at(0).toString(), u"validation"_s);
        QCOMPARE(panel.findChild<QListWidget *>(u"thumbnails"_s)->count(), 6); // 3 per class
        QVERIFY(panel.findChild<QLabel *>(u"summary"_s)->text().contains(u"cats 3"_s));

        panel.addDataset(ws(u"mnist/train-images-idx3-ubyte"_s));
        QVERIFY(added.wait(10000));
        QVERIFY2(panel.findChild<QLabel *>(u"summary"_s)->text().contains(u"1 × 4 × 4"_s),
                 qPrintable(panel.findChild<QLabel *>(u"summary"_s)->text()));
        QCOMPARE(panel.channels().size(), 3);
        QCOMPARE(panel.channels().at(1).path, ws(u"images"_s));

        QSignalSpy problem(&panel, &ui::DatasetPanel::problem);
        panel.addDataset(ws(u"notes.ipynb"_s));
        QVERIFY(problem.wait(10000));
        QCOMPARE(panel.channels().size(), 3);
    }

    void launchDialogReadsAndRemembers()
    {
        QSettings settings(ws(u"settings.ini"_s), QSettings::IniFormat);
        run::RunSpec first;
        {
            ui::LaunchDialog dialog(settings, ws());
            dialog.setScript(ws(u"train.py"_s));
            QTableWidget *table = dialog.hyperparameterTable();
            QCOMPARE(table->rowCount(), 3); // epochs, lr, fast; model-dir is the contract's
            QCOMPARE(table->item(0, 1)->text(), u"epochs"_s);
            QCOMPARE(table->item(0, 2)->text(), u"5"_s);
            QCOMPARE(table->item(0, 5)->text(), u"passes"_s);
            QCOMPARE(table->item(1, 3)->text(), u"float"_s);
            QVERIFY(dialog.spec().hyperparameters.isEmpty()); // nothing chosen yet
            table->item(1, 2)->setText(u"0.02"_s);            // typing a value selects it
            dialog.setChannels({{u"training"_s, ws(u"data"_s)}});
            first = dialog.spec();
            QCOMPARE(first.script, u"train.py"_s);
            QCOMPARE(first.hyperparameters, (QList<run::Hyperparameter>{{u"lr"_s, u"0.02"_s}}));
            QCOMPARE(first.channels.size(), 1);
            dialog.remember();
        }
        ui::LaunchDialog again(settings, ws());
        again.setScript(ws(u"train.py"_s));
        QCOMPARE(again.spec().hyperparameters, first.hyperparameters);
    }

    // The window's launch applies an environment as `ferry run --env` does, its interpreter
    // included (before, only the command line adopted it: review 2026-12-01 §4).
    void runActionsApplyTheEnvironment()
    {
        QVERIFY(writeFile(ws(u"environments/host.yml"_s),
                          "ferry: 1\nname: host\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n"
                          "variables:\n  GREETING: hello\n"));
        auto store = run::RunStore::open(ws(u"actions/runs.sqlite"_s));
        QVERIFY(store);
        const QString runsDir = ws(u"actions/runs"_s);
        QSettings settings(ws(u"actions.ini"_s), QSettings::IniFormat);
        ui::RunActions actions(settings, ferry::test::ferryBinary(), nullptr);
        actions.setWorkspace(store->get(), ws(), runsDir);
        run::RunSpec spec;
        spec.id = run::newRunId(u"train.py"_s);
        spec.script = u"train.py"_s;
        spec.sourceDir = ws();
        spec.environmentFile = ws(u"environments/host.yml"_s);
        QCOMPARE(spec.interpreter, u"python3"_s);
        actions.launch(spec);
        actions.finishLaunches();
        const run::RunDirectory dir(QDir(runsDir).filePath(spec.id));
        const auto started = dir.readSpec();
        QVERIFY2(started, qPrintable(started ? QString() : started.error().toString()));
        QCOMPARE(started->interpreter, u"/usr/bin/python3"_s);
        QCOMPARE(started->variables, (QList<std::pair<QString, QString>>{{u"GREETING"_s, u"hello"_s}}));
        QVERIFY(started->environmentTag.startsWith(u"host-"_s));
        // The run ends before its folder goes with the workspace.
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(dir.exitFile()) && QFile::exists(dir.modelArchive()), 60000);
    }

    void trainPanelTrainsAndCancels()
    {
        if (!FERRY_HAS_TRAINER)
            QSKIP("this build has no trainer plugin (FERRY_TRAINER=OFF)");
        auto store = run::RunStore::open(ws(u".ferry/runs.sqlite"_s));
        QVERIFY(store);
        const QString runsDir = ws(u".ferry/runs"_s);
        QVERIFY(QDir().mkpath(runsDir));
        run::TrainerLoader loader({(ferry::test::buildDir() + QStringLiteral("/bin"))});
        ui::TrainPanel panel([&loader] { return loader.load(); });
        auto *train = panel.findChild<QPushButton *>(u"train"_s);
        QVERIFY(!train->isEnabled()); // no workspace, no data
        panel.setWorkspace(store->get(), runsDir, ws());
        panel.setDataset(ws(u"data/points.csv"_s));
        QVERIFY(train->isEnabled());
        run::TrainingConfig c = panel.config();
        c.epochs = 3;
        c.layers = {8};
        panel.setConfig(c);
        QSignalSpy started(&panel, &ui::TrainPanel::runStarted);
        QSignalSpy finished(&panel, &ui::TrainPanel::runFinished);
        QTest::mouseClick(train, Qt::LeftButton);
        QVERIFY(finished.wait(60000));
        QCOMPARE(started.size(), 1);
        QCOMPARE(finished.last().at(1).toString(), u"completed"_s);
        const QString id = started.first().first().toString();
        // The run is like any other: a monitor stores its metrics and its end.
        run::RunMonitor monitor(**store, runsDir, [](const run::TargetSpec &spec) {
            return targets::makeTarget(spec, ferry::test::ferryBinary());
        });
        QVERIFY(QTest::qWaitFor(
            [&] {
                for (const auto &change : monitor.poll())
                    if (change.finished)
                        return true;
                return false;
            },
            10000));
        (*store)->flush();
        QCOMPARE((*store)->run(id)->status, run::RunStatus::Succeeded);
        QCOMPARE((*store)->metricCount(id, u"val_accuracy"_s), 3);

        // A long one, cancelled from the panel.
        c.epochs = 100000;
        panel.setConfig(c);
        QVERIFY(QTest::qWaitFor([&] { return train->isEnabled(); }, 10000)); // the first thread has ended
        QTest::mouseClick(train, Qt::LeftButton);
        QVERIFY(started.wait(30000));
        auto *cancel = panel.findChild<QPushButton *>(u"cancel"_s);
        QVERIFY(cancel->isEnabled());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.last().at(1).toString(), u"cancelled"_s);
        QVERIFY(QTest::qWaitFor([&] { return train->isEnabled(); }, 5000));
    }
};

FERRY_TEST_MAIN(TestWorkbenchParts)
#include "tst_workbenchparts.moc"
