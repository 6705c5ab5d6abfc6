// Renders the main screens to PNGs (tests/gui/screenshots.sh runs it under Xvfb):
//   ferry_screenshots OUTPUT_DIR
// first-start.png (the window at its first-start size for the screen), workspace-with-runs.png
// (a workspace with runs, reopened: the newest curves charted with nothing selected),
// environment-editor.png (what `ferry environments/example.yml` opens), empty.png (first start,
// 1600×900), datasets.png (the example's dataset previewed), workbench.png (an
// embedded run and a script run overlaid in the chart), metric-panels.png (an embedded run, a
// Hugging Face run and a Lightning run in the metric panels), details.png (a run's details and log),
// launch.png (the launch dialog), launch-slurm.png (for a Slurm cluster), launch-run-arguments.png
// (run arguments that undo the isolation, named beside an unchecked box), export.png (a run for AzureML), settings.png,
// settings-hosts.png (a host's login key), about.png.
#include "screenshot.h"
#include "store/runstore.h"
#include "support/testenv.h"
#include "windowharness.h"

#include "training/trainerloader.h"
#include "ui/chart/losschart.h"
#include "ui/chart/losschartpanel.h"
#include "ui/document/documentarea.h"
#include "ui/launch/launchdialog.h"
#include "ui/launch/remotetargetfields.h"
#include "ui/runs/exportrundialog.h"
#include "ui/runs/runsview.h"
#include "ui/settings/hostspage.h"
#include "ui/settings/settingsdialog.h"
#include "ui/train/trainpanel.h"
#include "ui/window/aboutdialog.h"
#include "ui/window/mainwindow.h"
#include "workspace/recentworkspaces.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

bool save(QWidget &widget, const QString &dir, const QString &name)
{
    return ferry::test::saveScreenshot(widget, dir, name);
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_screenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    ferry::test::WindowHarness harness;
    ferry::ui::MainWindow &window = harness.window;
    // As a newcomer first sees it: the size the window picks for this screen.
    window.show();
    (void)QTest::qWaitForWindowExposed(&window);
    bool ok = ferry::test::saveScreenshot(window, out, u"first-start.png"_s, 500);
    const QSize firstStart = window.size(); // the newcomer's pictures keep it
    (void)harness.show();
    QSettings &settings = harness.settings;
    QTemporaryDir &temp = harness.temp;
    ok = save(window, out, u"empty.png"_s) && ok;

    const QString example = temp.filePath(u"Ferry Example"_s);
    if (!window.openExample(example))
        return 1;
    auto *side = window.findChild<QTabWidget *>(u"sideTabs"_s);
    side->setCurrentIndex(1); // datasets
    QTest::qWait(1500);
    ok = save(window, out, u"datasets.png"_s) && ok;

    // An embedded run and a script run, overlaid.
    side->setCurrentIndex(0);
    ferry::run::TrainingConfig c = window.trainPanel()->config();
    c.epochs = 60;
    c.layers = {32, 16};
    c.learningRate = 0.003;
    window.trainPanel()->setConfig(c);
    QTest::mouseClick(window.trainPanel()->findChild<QPushButton *>(u"train"_s), Qt::LeftButton);
    (void)QTest::qWaitFor([&] { return window.trainPanel()->isTraining(); }, 10000);
    (void)QTest::qWaitFor([&] { return !window.trainPanel()->isTraining(); }, 120000);
    QProcess script;
    script.setWorkingDirectory(example);
    script.start(ferry::test::ferryBinary(),
                 {u"run"_s, u"train.py"_s, u"--data"_s, u"training=data"_s, u"--hp"_s, u"epochs=60"_s, u"--follow"_s});
    script.waitForFinished(120000);
    // What other people's scripts left, played back as runs: a Hugging Face Trainer's stdout and
    // Lightning's TensorBoard logger (an event file written in pieces into lightning_logs/).
    QFile::copy(QStringLiteral(FERRY_TEST_DATA "/runs/scripts/replay.py"), example + u"/replay.py"_s);
    const QString corpus = QStringLiteral(FERRY_SOURCE_DIR "/../shared/corpus/logs/");
    const QStringList replays{u"log="_s + corpus +
                                  u"hf/stdout/EshaUbale__Language-Modeling-with-Huggiingface/train_log.txt"_s,
                              u"copy="_s + corpus +
                                  u"tfevents/Abdul-AA__Text-Generation-With-LSTM/lightning_logs/version_0/"
                                  "events.out.tfevents.1716735746.99c8c45923de.3769.0=lightning_logs/version_0/"
                                  "events.out.tfevents.1716735746.host.3769.0"_s};
    for (const QString &replay : replays) {
        QProcess run;
        run.setWorkingDirectory(example);
        run.start(ferry::test::ferryBinary(), {u"run"_s, u"replay.py"_s, u"--hp"_s, replay, u"--follow"_s});
        run.waitForFinished(120000);
    }
    QTest::qWait(2500); // the monitor stores the script's end, the table refreshes
    // The workspace closed and opened again: its newest runs are in the chart before any click.
    for (QAction *action : window.findChildren<QAction *>()) {
        if (action->text() == u"&Close Workspace"_s)
            action->trigger();
    }
    window.resize(firstStart);
    window.reopenLastWorkspace();
    ok = ferry::test::saveScreenshot(window, out, u"workspace-with-runs.png"_s, 3000) && ok;
    // `ferry environments/example.yml`: the editor in its workspace, the Dockerfile beside it.
    window.openPaths({example + u"/environments/example.yml"_s});
    if (auto *preview = window.findChild<QTabWidget *>(u"previewTabs"_s))
        preview->setCurrentIndex(2);
    ok = ferry::test::saveScreenshot(window, out, u"environment-editor.png"_s, 3000) && ok;
    window.documentArea()->closeAll();
    window.resize(1600, 900);

    QStringList ids;
    for (const ferry::run::RunRecord &r : window.store()->runs())
        ids << r.id;
    if (ids.isEmpty()) { // the pictures below need them
        std::fprintf(stderr, "no runs: the training or the script run failed (its Problems panel says why)\n");
        return 1;
    }
    window.runsView()->selectRuns(ids);
    window.chartPanel()->chart()->setMetrics({u"loss"_s});
    window.chartPanel()->chart()->setXAxisMode(ferry::ui::XAxisMode::Step);
    QTest::qWait(2000);
    ok = save(window, out, u"workbench.png"_s) && ok;

    // The metric panels: the embedded run, the Hugging Face run and the Lightning run overlaid,
    // a panel per metric group, each with its own y range.
    window.runsView()->selectRuns(ids);
    if (auto *metric = window.chartPanel()->findChild<QComboBox *>()) {
        metric->setCurrentIndex(1); // all metrics in one chart, then the panels again
        metric->setCurrentIndex(0);
    }
    window.resize(1600, 1000);
    QTest::qWait(2500);
    ok = save(window, out, u"metric-panels.png"_s) && ok;
    window.resize(1600, 900);

    // One run: its details beside, its log below.
    window.runsView()->selectRuns({ids.last()});
    side->setCurrentIndex(2);
    if (auto *bottom = window.findChild<QTabWidget *>(u"bottomTabs"_s))
        bottom->setCurrentIndex(1);
    QTest::qWait(1500);
    ok = save(window, out, u"details.png"_s) && ok;

    ferry::ui::LaunchDialog dialog(settings, example, &window);
    dialog.setScript(example + u"/train.py"_s);
    dialog.resize(860, 760);
    dialog.show();
    QTest::qWait(300);
    ok = save(dialog, out, u"launch.png"_s) && ok;
    // The same run for a Slurm cluster: the job's fields and the host's.
    dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(u"slurm"_s));
    dialog.remoteFields()->hostEdit()->setText(u"me@slurm-login.lab"_s);
    dialog.remoteFields()->partitionEdit()->setText(u"gpu"_s);
    dialog.remoteFields()->excludeEdit()->setText(u"*.ckpt"_s);
    dialog.remoteFields()->remoteDataEdit()->setText(u"training=/datasets/mnist"_s);
    dialog.resize(820, 1000);
    QTest::qWait(300);
    ok = save(dialog, out, u"launch-slurm.png"_s) && ok;
    dialog.targetBox()->setCurrentIndex(0);
    dialog.hide();

    // An environment from a cloned repository asking for --privileged and a host mount: the
    // launch dialog names them beside an unchecked box (docs/security.md, L15).
    {
        const QString cloned = example + u"/environments/cloned.yml"_s;
        QFile file(cloned);
        if (file.open(QIODevice::WriteOnly))
            file.write("ferry: 1\nname: cloned\nversion: \"1\"\ndocker:\n  base_image: python:3.11-slim\n"
                       "  run_arguments: [--privileged, -v, \"/:/host\", --network=host]\n");
        file.close();
        ferry::ui::LaunchDialog risky(settings, example, &window);
        risky.setScript(example + u"/train.py"_s);
        if (auto *environment = risky.findChild<QComboBox *>(u"environment"_s))
            environment->setCurrentIndex(environment->findData(cloned));
        risky.targetBox()->setCurrentIndex(risky.targetBox()->findData(u"container"_s));
        risky.resize(860, 520);
        risky.show();
        QTest::qWait(300);
        ok = save(risky, out, u"launch-run-arguments.png"_s) && ok;
        risky.hide();
        QFile::remove(cloned);
    }

    // The script run handed to AzureML, previewed.
    const auto scriptRun = std::find_if(
        ids.begin(), ids.end(), [&](const QString &id) { return window.store()->run(id)->target == u"local"_s; });
    if (const auto record = window.store()->run(scriptRun == ids.end() ? ids.last() : *scriptRun)) {
        if (const auto spec = ferry::run::RunSpec::fromJson(record->spec)) {
            ferry::ui::ExportRunDialog exporter(*spec, std::nullopt, &window);
            exporter.computeEdit()->setText(u"gpu-cluster"_s);
            exporter.registeredEnvironmentEdit()->setText(u"azureml:ferry-example@latest"_s);
            exporter.show();
            QTest::qWait(300);
            ok = save(exporter, out, u"export.png"_s) && ok;
        }
    }
    ferry::ui::SettingsDialog settingsDialog(settings, &window);
    settingsDialog.show();
    QTest::qWait(300);
    ok = save(settingsDialog, out, u"settings.png"_s) && ok;
    auto *hosts = new ferry::ui::HostsPage(
        {u"gpu-box"_s, u"me@slurm-login.lab"_s},
        {{u"gpu-box"_s, ferry::targets::SshKeySetting{QDir::homePath() + u"/.ssh/id_ed25519"_s, u"GPU_BOX_KEY"_s}}},
        {u"GPU_BOX_KEY"_s, u"HF_TOKEN"_s});
    settingsDialog.addPage(u"Hosts"_s, hosts);
    settingsDialog.showPage(u"Hosts"_s);
    hosts->hostList()->setCurrentRow(0);
    QTest::qWait(300);
    ok = save(settingsDialog, out, u"settings-hosts.png"_s) && ok;
    ferry::ui::AboutDialog about(&window);
    about.show();
    QTest::qWait(300);
    ok = save(about, out, u"about.png"_s) && ok;
    return ok ? 0 : 1;
}
