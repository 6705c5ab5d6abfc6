// The run details pane: header, parameters, the contract variables a local process gets,
// artifacts, actions enabled by the run's state and requested through signals; reading the
// run from a real store.
#include "run/contract.h"
#include "run/rundirectory.h"
#include "support/files.h"
#include "support/testmain.h"
#include "ui/runs/rundetailsview.h"

#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUrl>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::ui::RunDetails;
using ferry::ui::RunDetailsView;

namespace {

run::RunSpec spec(const QString &id)
{
    run::RunSpec s;
    s.id = id;
    s.script = u"train.py"_s;
    s.sourceDir = u"/home/me/project"_s;
    s.hyperparameters = {{u"epochs"_s, u"10"_s}, {u"lr"_s, u"0.01"_s}};
    s.channels = {{u"training"_s, u"/data/train"_s}};
    return s;
}

RunDetails details(const QString &workspace, run::RunStatus status, const QString &target = u"local"_s)
{
    const QString id = u"20261130-061500-train-3fa2"_s;
    RunDetails d;
    d.record = run::newRunRecord(spec(id));
    d.record.status = status;
    d.record.target = target;
    d.params = spec(id).hyperparameters;
    d.artifacts = {{u"model.tar.gz"_s, u"model"_s, 2048}, {u"log"_s, u"log"_s, 100}};
    d.runDir = run::RunDirectory::pathFor(workspace, id);
    return d;
}

QString cell(const QTableWidget *table, const QString &name)
{
    for (int i = 0; i < table->rowCount(); ++i) {
        if (table->item(i, 0)->text() == name)
            return table->item(i, 1)->text();
    }
    return u"<missing>"_s;
}

// Receives what QDesktopServices::openUrl would hand to the desktop.
class UrlCatcher : public QObject {
    Q_OBJECT
public:
    QList<QUrl> urls;
public Q_SLOTS:
    void open(const QUrl &url) { urls.append(url); }
};

} // namespace

class TestRunDetailsView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void showsParamsAndContract();
    void actionsFollowState_data();
    void actionsFollowState();
    void signalsCarryTheRun();
    void embeddedRun();
    void openFolderAndModel();
    void readsFromStore();
    void controlSequencesAreNotShown();
    void failedRunShowsTheEndOfItsLog();
    void staysNarrowBesideTheChart();
};

void TestRunDetailsView::showsParamsAndContract()
{
    QTemporaryDir workspace;
    RunDetailsView view;
    RunDetails d = details(workspace.path(), run::RunStatus::Failed);
    d.record.error = u"CUDA out of memory"_s;
    d.record.exitCode = 1;
    QSignalSpy shown(&view, &RunDetailsView::detailsShown);
    view.setDetails(d);
    QCOMPARE(shown.size(), 1);
    QCOMPARE(view.runId(), d.record.id);

    QStringList labels;
    for (const QLabel *label : view.findChildren<QLabel *>())
        labels << label->text();
    const QString all = labels.join(u'\n');
    QVERIFY2(all.contains(d.record.id), qPrintable(all));
    QVERIFY(all.contains(u"failed"_s));
    QVERIFY(all.contains(u"CUDA out of memory"_s));
    QVERIFY(all.contains(u"train.py"_s));
    QVERIFY(all.contains(u"As given to a local process"_s));

    QCOMPARE(view.paramsTable()->rowCount(), 2);
    QCOMPARE(cell(view.paramsTable(), u"epochs"_s), u"10"_s);
    QCOMPARE(cell(view.paramsTable(), u"lr"_s), u"0.01"_s);

    const QString runDir = QDir::cleanPath(d.runDir);
    QCOMPARE(cell(view.contractTable(), u"SM_MODEL_DIR"_s), runDir + u"/model"_s);
    QCOMPARE(cell(view.contractTable(), u"SM_OUTPUT_DATA_DIR"_s), runDir + u"/output/data"_s);
    QCOMPARE(cell(view.contractTable(), u"SM_CHANNEL_TRAINING"_s), u"/data/train"_s);
    QCOMPARE(cell(view.contractTable(), u"SM_HP_EPOCHS"_s), u"10"_s);
    QCOMPARE(cell(view.contractTable(), u"SM_NUM_GPUS"_s), u"0"_s);
    QVERIFY(cell(view.contractTable(), u"SM_NUM_CPUS"_s).toInt() >= 1);
    QCOMPARE(view.contractTable()->rowCount(), RunDetailsView::localContract(spec(d.record.id), d.runDir).size());

    QCOMPARE(view.artifactsList()->topLevelItemCount(), 2);
    QCOMPARE(view.artifactsList()->topLevelItem(0)->text(0), u"model.tar.gz"_s);
    QCOMPARE(view.artifactsList()->topLevelItem(0)->text(1), u"model"_s);
    QVERIFY(!view.artifactsList()->topLevelItem(0)->text(2).isEmpty());

    // What it ran: its snapshot, git state and the run it reproduces.
    run::RunSpec withCode = spec(d.record.id);
    withCode.snapshot = snapshot::Snapshot{};
    withCode.snapshot->tree = u"2a59543f5bee00112233"_s;
    withCode.snapshot->files = 12;
    withCode.snapshot->git = {true, u"ceff83431723aabbccdd"_s, u"main"_s, true};
    withCode.rerunOf = u"20261129-101010-train-0001"_s;
    RunDetails rerun = d;
    rerun.record.spec = withCode.toJson();
    view.setDetails(rerun);
    QStringList now;
    for (const QLabel *label : view.findChildren<QLabel *>())
        now << label->text();
    const QString shownNow = now.join(u'\n');
    QVERIFY2(shownNow.contains(u"Code: snapshot 2a59543f5bee, 12 files"_s), qPrintable(shownNow));
    QVERIFY2(shownNow.contains(u"Git: ceff83431723 on main, with uncommitted changes"_s), qPrintable(shownNow));
    QVERIFY2(shownNow.contains(u"Rerun of: 20261129-101010-train-0001"_s), qPrintable(shownNow));

    // Without stored parameters, those in the spec are shown.
    view.setDetails(d);
    d.params.clear();
    view.setDetails(d);
    QCOMPARE(view.paramsTable()->rowCount(), 2);

    view.clear();
    QVERIFY(view.runId().isEmpty());
    QCOMPARE(view.paramsTable()->rowCount(), 0);
    QCOMPARE(view.contractTable()->rowCount(), 0);
    QVERIFY(!view.cancelButton()->isEnabled());
    QVERIFY(!view.deleteButton()->isEnabled());
    QVERIFY(!view.rerunButton()->isEnabled());
}

// Review 2026-12-06 L3: a run's error, name and parameters (an imported run's come from elsewhere)
// holding an OSC 52 clipboard write, a window title and a screen clear are shown as the log view
// and the command line show them: the visible text, no control character.
void TestRunDetailsView::controlSequencesAreNotShown()
{
    QTemporaryDir workspace;
    RunDetailsView view;
    RunDetails d = details(workspace.path(), run::RunStatus::Failed);
    d.record.name = u"run \x1b]0;title\x07named"_s;
    d.record.error = u"failed \x1b]52;c;cHduZWQ=\x07\x1b[2Jhere"_s;
    d.params = {{u"note"_s, u"\x1b]0;param title\x07value"_s}};
    view.setDetails(d);
    QStringList labels;
    for (const QLabel *label : view.findChildren<QLabel *>())
        labels << label->text();
    const QString all = labels.join(u'\n');
    QVERIFY2(all.contains(u"failed here"_s) && all.contains(u"run named"_s), qPrintable(all));
    QCOMPARE(cell(view.paramsTable(), u"note"_s), u"value"_s);
    for (const QString &text : {all, cell(view.paramsTable(), u"note"_s)}) {
        for (const QChar c : text)
            QVERIFY2(c == u'\n' || c == u'\t' || c.unicode() >= 0x20, qPrintable(text));
    }
}

void TestRunDetailsView::actionsFollowState_data()
{
    QTest::addColumn<run::RunStatus>("status");
    QTest::addColumn<bool>("cancel");
    QTest::addColumn<bool>("reattach");
    QTest::addColumn<bool>("remove");
    QTest::newRow("created") << run::RunStatus::Created << true << true << false;
    QTest::newRow("building") << run::RunStatus::Building << true << true << false;
    QTest::newRow("running") << run::RunStatus::Running << true << true << false;
    QTest::newRow("succeeded") << run::RunStatus::Succeeded << false << false << true;
    QTest::newRow("failed") << run::RunStatus::Failed << false << false << true;
    QTest::newRow("cancelled") << run::RunStatus::Cancelled << false << false << true;
    QTest::newRow("lost") << run::RunStatus::Lost << false << true << true;
}

void TestRunDetailsView::actionsFollowState()
{
    QFETCH(run::RunStatus, status);
    QFETCH(bool, cancel);
    QFETCH(bool, reattach);
    QFETCH(bool, remove);
    QTemporaryDir workspace;
    RunDetailsView view;
    view.setDetails(details(workspace.path(), status));
    QCOMPARE(view.cancelButton()->isEnabled(), cancel);
    QCOMPARE(view.reattachButton()->isEnabled(), reattach);
    QCOMPARE(view.deleteButton()->isEnabled(), remove);
    QVERIFY(view.rerunButton()->isEnabled());
    QVERIFY(!view.openFolderButton()->isEnabled()); // no run folder on disk
    QVERIFY(!view.revealModelButton()->isEnabled());
}

void TestRunDetailsView::signalsCarryTheRun()
{
    QTemporaryDir workspace;
    RunDetailsView view;
    QSignalSpy cancel(&view, &RunDetailsView::cancelRequested);
    QSignalSpy reattach(&view, &RunDetailsView::reattachRequested);
    QSignalSpy rerun(&view, &RunDetailsView::rerunRequested);
    QSignalSpy remove(&view, &RunDetailsView::deleteRequested);
    RunDetails d = details(workspace.path(), run::RunStatus::Running);
    view.setDetails(d);
    QTest::mouseClick(view.cancelButton(), Qt::LeftButton);
    QTest::mouseClick(view.reattachButton(), Qt::LeftButton);
    QTest::mouseClick(view.deleteButton(), Qt::LeftButton); // disabled while running
    QCOMPARE(cancel.size(), 1);
    QCOMPARE(cancel.at(0).at(0).toString(), d.record.id);
    QCOMPARE(reattach.size(), 1);
    QCOMPARE(reattach.at(0).at(0).toString(), d.record.id);
    QCOMPARE(remove.size(), 0);

    d.record.status = run::RunStatus::Succeeded;
    view.setDetails(d);
    QTest::mouseClick(view.deleteButton(), Qt::LeftButton);
    QTest::mouseClick(view.rerunButton(), Qt::LeftButton);
    QCOMPARE(remove.size(), 1);
    QCOMPARE(remove.at(0).at(0).toString(), d.record.id);
    QCOMPARE(rerun.size(), 1);
    QCOMPARE(rerun.at(0).at(0).value<run::RunSpec>(), spec(d.record.id));

    // A spec that cannot be read: no re-run.
    d.record.spec = QJsonObject{{u"id"_s, 42}};
    view.setDetails(d);
    QVERIFY(!view.rerunButton()->isEnabled());
}

void TestRunDetailsView::embeddedRun()
{
    QTemporaryDir workspace;
    run::RunSpec s;
    s.id = u"20261130-070000-iris-77aa"_s;
    s.target.kind = run::TargetKind::Embedded;
    s.channels = {{u"training"_s, u"/data/iris.csv"_s}};
    RunDetails d;
    d.record = run::newRunRecord(s);
    d.record.name = u"iris"_s;
    d.record.status = run::RunStatus::Running;
    d.runDir = run::RunDirectory::pathFor(workspace.path(), s.id);
    RunDetailsView view;
    view.setDetails(d);
    QVERIFY(view.cancelButton()->isEnabled());
    QVERIFY(!view.reattachButton()->isEnabled()); // it lives in the process that started it
    QStringList labels;
    for (const QLabel *label : view.findChildren<QLabel *>())
        labels << label->text();
    QVERIFY(labels.join(u'\n').contains(u"/data/iris.csv"_s));
    QCOMPARE(d.record.target, u"embedded"_s);
}

void TestRunDetailsView::openFolderAndModel()
{
    QTemporaryDir workspace;
    RunDetails d = details(workspace.path(), run::RunStatus::Succeeded);
    QVERIFY(QDir().mkpath(d.runDir));
    QFile archive(run::RunDirectory(d.runDir).modelArchive());
    QVERIFY(archive.open(QIODevice::WriteOnly));
    archive.write("x");
    archive.close();
    d.runDirExists = true;
    d.modelArchiveExists = true;

    UrlCatcher catcher;
    QDesktopServices::setUrlHandler(u"file"_s, &catcher, "open");
    RunDetailsView view;
    view.setDetails(d);
    QVERIFY(view.openFolderButton()->isEnabled());
    QVERIFY(view.revealModelButton()->isEnabled());
    QTest::mouseClick(view.openFolderButton(), Qt::LeftButton);
    QTest::mouseClick(view.revealModelButton(), Qt::LeftButton);
    QDesktopServices::unsetUrlHandler(u"file"_s);
    QCOMPARE(catcher.urls.size(), 2);
    QCOMPARE(QDir::cleanPath(catcher.urls.at(0).toLocalFile()), QDir::cleanPath(d.runDir));
    QCOMPARE(QDir::cleanPath(catcher.urls.at(1).toLocalFile()), QDir::cleanPath(d.runDir));
}

void TestRunDetailsView::readsFromStore()
{
    QTemporaryDir workspace;
    auto opened = run::RunStore::open(run::RunStore::pathInWorkspace(workspace.path()));
    QVERIFY2(opened.hasValue(), opened.hasValue() ? "" : qPrintable(opened.error().toString()));
    std::unique_ptr<run::RunStore> store = std::move(*opened);
    const run::RunSpec s = spec(u"20261130-061500-train-3fa2"_s);
    store->createRun(run::newRunRecord(s));
    store->setParams(s.id, {{u"epochs"_s, u"12"_s}});
    store->setStatus(s.id, run::RunStatus::Running);
    store->addArtifact(s.id, {u"model.tar.gz"_s, u"model"_s, 10});
    store->flush();
    const QString runDir = run::RunDirectory::pathFor(workspace.path(), s.id);
    QVERIFY(QDir().mkpath(runDir));

    RunDetailsView view;
    view.setStore(store.get(), workspace.path());
    QSignalSpy shown(&view, &RunDetailsView::detailsShown);
    view.showRun(s.id);
    QVERIFY(shown.wait(5000));
    QCOMPARE(shown.last().at(0).toString(), s.id);
    QCOMPARE(cell(view.paramsTable(), u"epochs"_s), u"12"_s);
    QCOMPARE(view.artifactsList()->topLevelItemCount(), 1);
    QVERIFY(view.openFolderButton()->isEnabled());
    QVERIFY(!view.revealModelButton()->isEnabled()); // recorded, but not on disk
    QVERIFY(view.cancelButton()->isEnabled());
    QCOMPARE(cell(view.contractTable(), u"SM_MODEL_DIR"_s), QDir::cleanPath(runDir) + u"/model"_s);

    // The runs table reports the run finished: the pane reads it again.
    store->setStatus(s.id, run::RunStatus::Succeeded, 0);
    store->flush();
    ui::RunRow row{*store->run(s.id), {}};
    view.runsUpdated({row});
    QVERIFY(shown.wait(5000));
    QCOMPARE(view.details()->record.status, run::RunStatus::Succeeded);
    QVERIFY(!view.cancelButton()->isEnabled());
    QVERIFY(view.deleteButton()->isEnabled());

    // Deleted from the store: the pane empties.
    store->deleteRun(s.id);
    store->flush();
    view.runsUpdated({});
    QVERIFY(view.runId().isEmpty());

    // An unknown id shows nothing.
    view.showRun(u"no-such-run"_s);
    QTRY_COMPARE(shown.size(), 4);
    QVERIFY(view.runId().isEmpty());
    view.setStore(nullptr, {});
}

// A script that failed on its arguments: the pane shows argparse's complaint from the end of its
// log, not only "Exit code: 2" (review 2026-12-06, finding 8); a run that succeeded shows none.
void TestRunDetailsView::failedRunShowsTheEndOfItsLog()
{
    QTemporaryDir workspace;
    auto opened = run::RunStore::open(run::RunStore::pathInWorkspace(workspace.path()));
    QVERIFY(opened.hasValue());
    std::unique_ptr<run::RunStore> store = std::move(*opened);
    const run::RunSpec failed = spec(u"20261206-101530-train-0eaa"_s);
    const run::RunSpec fine = spec(u"20261206-101541-train-cfbb"_s);
    for (const run::RunSpec &s : {failed, fine}) {
        store->createRun(run::newRunRecord(s));
        store->setStatus(s.id, run::RunStatus::Running);
        QVERIFY(QDir().mkpath(run::RunDirectory::pathFor(workspace.path(), s.id)));
    }
    store->setStatus(failed.id, run::RunStatus::Failed, 2);
    store->setStatus(fine.id, run::RunStatus::Succeeded, 0);
    store->flush();
    QByteArray log;
    for (int i = 0; i < 40; ++i)
        log += "starting lr=0.01 seed=" + QByteArray::number(i) + "\n";
    log += "usage: train.py [-h] [--lr LR] [--seed SEED]\n"
           "train.py: error: argument --lr: invalid float value: 'fast'\n";
    test::writeFileOrStop(run::RunDirectory(run::RunDirectory::pathFor(workspace.path(), failed.id)).logFile(), log);
    test::writeFileOrStop(run::RunDirectory(run::RunDirectory::pathFor(workspace.path(), fine.id)).logFile(), "done\n");

    RunDetailsView view;
    view.setStore(store.get(), workspace.path());
    QSignalSpy shown(&view, &RunDetailsView::detailsShown);
    view.showRun(failed.id);
    QVERIFY(shown.wait(5000));
    QVERIFY(!view.failureLog()->isHidden());
    const QString tail = view.failureLog()->toPlainText();
    QVERIFY2(tail.endsWith(u"train.py: error: argument --lr: invalid float value: 'fast'"_s), qPrintable(tail));
    QVERIFY(tail.contains(u"usage: train.py"_s));
    QCOMPARE(tail.split(u'\n').size(), RunDetailsView::kFailureLogLines);
    QVERIFY(!view.errorLabel()->isHidden());
    QVERIFY2(view.errorLabel()->text().contains(u"exit code 2"_s), qPrintable(view.errorLabel()->text()));

    view.showRun(fine.id);
    QVERIFY(shown.wait(5000));
    QVERIFY(view.failureLog()->isHidden());
    QVERIFY(view.errorLabel()->isHidden());
    view.clear();
    QVERIFY(view.failureLog()->isHidden());
    view.setStore(nullptr, {});
}

// The pane sits in the side dock beside the chart: a run with long lines (an image tag, a
// snapshot, data paths) must not make it wider than the dock's own minimum, or the chart's
// controls are squeezed to nothing when it comes forward (review 2026-12-06, finding 8).
void TestRunDetailsView::staysNarrowBesideTheChart()
{
    QTemporaryDir workspace;
    RunDetailsView view;
    RunDetails d = details(workspace.path(), run::RunStatus::Failed);
    d.record.environmentTag = u"ferry:torch-cpu-with-a-long-environment-name-1-7f4aa915"_s;
    d.record.error = u"the script ended with exit code 2 after it had printed a great many things"_s;
    d.logTail = u"Traceback (most recent call last):\n  File \"/home/me/project/a/long/path/to/train.py\", line 12"_s;
    d.record.name = u"train-with-a-rather-long-name lr=0.03 seed=2 dropout=0.5"_s;
    view.setDetails(d);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY2(view.minimumSizeHint().width() <= 300, qPrintable(QString::number(view.minimumSizeHint().width())));
}

FERRY_TEST_MAIN(TestRunDetailsView)
#include "tst_rundetailsview.moc"
