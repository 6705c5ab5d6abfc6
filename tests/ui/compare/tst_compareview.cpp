// The compare view and "Re-run exactly" on real runs: a script in a git repository run through
// the built `ferry` three times, with an uncommitted change and another parameter between them.
// The view shows the changed lines (highlighted), the differing parameter and not the equal one,
// each run's git state and the metrics (last, best, at a chosen step) with the curves overlaid;
// the window's Compare action opens it on the selected runs. Re-run exactly starts a run with
// the first version's code, recording which run it reproduces.
#include "store/runstore.h"
#include "support/cli.h"
#include "support/diffruns.h"
#include "support/files.h"
#include "support/git.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "support/wait.h"
#include "ui/chart/chartaxis.h"
#include "ui/chart/losschartpanel.h"
#include "ui/compare/compareview.h"
#include "ui/compare/diffhighlighter.h"
#include "ui/runs/runactions.h"
#include "ui/runs/runsview.h"
#include "ui/window/mainwindow.h"
#include "workspace/recentworkspaces.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QTreeWidget>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

void changeScale(const QString &ws, const QString &scale)
{
    QString script = QString::fromUtf8(test::kDiffScript);
    script.replace(u"scale = 1.0"_s, u"scale = "_s + scale);
    test::writeFileOrStop(ws + u"/train.py"_s, script.toUtf8()); // not committed
}

// The row of the table whose first column reads `text`; -1: none.
int rowOf(const QTableWidget *table, const QString &text)
{
    for (int row = 0; row < table->rowCount(); ++row) {
        if (table->item(row, 0) && table->item(row, 0)->text() == text)
            return row;
    }
    return -1;
}

// The background the highlighter gave the line of the diff that reads `line`.
QColor backgroundOf(const QPlainTextEdit *edit, const QString &line)
{
    for (QTextBlock block = edit->document()->begin(); block.isValid(); block = block.next()) {
        if (block.text() != line)
            continue;
        const QList<QTextLayout::FormatRange> formats = block.layout()->formats();
        return formats.isEmpty() ? QColor() : formats.first().format.background().color();
    }
    return {};
}

} // namespace

class TestCompareView : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;
    QString m_a, m_b, m_c; // scale 1.0 lr 0.01 (committed), scale 0.5 lr 0.1, scale 0.25 lr 0.1

private Q_SLOTS:
    void initTestCase()
    {
        m_ws = m_dir.filePath(u"project"_s);
        QDir().mkpath(m_ws);
        test::writeFileOrStop(m_ws + u"/train.py"_s, test::kDiffScript);
        test::writeFileOrStop(m_ws + u"/README.md"_s, "notes\n");
        QVERIFY(test::git(m_ws, {u"init"_s, u"-q"_s, u"-b"_s, u"main"_s}));
        QVERIFY(test::git(m_ws, {u"add"_s, u"train.py"_s, u"README.md"_s}));
        QVERIFY(test::git(m_ws, {u"commit"_s, u"-q"_s, u"-m"_s, u"first"_s}));
        m_a = test::startDiffRun(m_ws, u"0.01"_s);
        changeScale(m_ws, u"0.5"_s);
        m_b = test::startDiffRun(m_ws, u"0.1"_s);
        changeScale(m_ws, u"0.25"_s);
        m_c = test::startDiffRun(m_ws, u"0.1"_s);
        QVERIFY(!m_a.isEmpty() && m_a != m_b && m_b != m_c);
    }

    void showsTheChangedLinesTheDifferingParameterAndTheMetrics()
    {
        auto opened = run::RunStore::open(run::RunStore::pathInWorkspace(m_ws));
        QVERIFY(opened);
        std::unique_ptr<run::RunStore> store = std::move(*opened);
        ui::CompareView view;
        view.resize(1200, 800);
        view.show();
        view.setStore(store.get(), m_ws + u"/.ferry/runs"_s);
        QSignalSpy loaded(&view, &ui::CompareView::loaded);
        view.compare({m_a, m_b, m_c});
        QVERIFY(loaded.wait(30000));

        // Parameters: lr differs, epochs does not (shown only with "show all").
        QTableWidget *parameters = view.parameterTable();
        QCOMPARE(parameters->rowCount(), 1);
        QCOMPARE(parameters->columnCount(), 4);
        QCOMPARE(parameters->item(0, 0)->text(), u"lr"_s);
        QCOMPARE(parameters->item(0, 1)->text(), u"0.01"_s);
        QCOMPARE(parameters->item(0, 2)->text(), u"0.1"_s);
        QCOMPARE(parameters->item(0, 3)->text(), u"0.1"_s);
        view.showAllParameters()->setChecked(true);
        QCOMPARE(parameters->rowCount(), 2);
        QCOMPARE(parameters->item(rowOf(parameters, u"epochs"_s), 1)->text(), u"3"_s);
        view.showAllParameters()->setChecked(false);
        QCOMPARE(parameters->rowCount(), 1);

        // Code: the baseline against the second run, then the third; only train.py differs.
        QCOMPARE(view.codeAgainst()->count(), 2);
        QCOMPARE(view.fileList()->count(), 1);
        QCOMPARE(view.fileList()->item(0)->text(), u"M  train.py"_s);
        const QString diff = view.diffText()->toPlainText();
        QVERIFY2(diff.contains(u"\n-scale = 1.0\n+scale = 0.5\n"_s), qPrintable(diff));
        const QStringList lines = diff.split(u'\n');
        QCOMPARE(std::count_if(lines.cbegin(), lines.cend(), [](const QString &l) { return l.startsWith(u'-'); }),
                 1 + 1); // "--- a/" and the one line
        QVERIFY(!diff.contains(u"README"_s));
        QCOMPARE(backgroundOf(view.diffText(), u"+scale = 0.5"_s),
                 ui::DiffHighlighter::background(ui::DiffHighlighter::LineKind::Added));
        QCOMPARE(backgroundOf(view.diffText(), u"-scale = 1.0"_s),
                 ui::DiffHighlighter::background(ui::DiffHighlighter::LineKind::Removed));
        view.codeAgainst()->setCurrentIndex(1);
        QVERIFY(view.diffText()->toPlainText().contains(u"\n-scale = 1.0\n+scale = 0.25\n"_s));

        // Where each run stood: the baseline's code was committed, the others' was not.
        QTableWidget *setup = view.setupTable();
        const int dirty = rowOf(setup, u"Uncommitted changes"_s);
        QCOMPARE(setup->item(dirty, 1)->text(), u"no"_s);
        QCOMPARE(setup->item(dirty, 2)->text(), u"yes"_s);
        QCOMPARE(setup->item(rowOf(setup, u"Git branch"_s), 3)->text(), u"main"_s);

        // Metrics: loss = scale * lr / step, steps 1 to 3.
        QTableWidget *metrics = view.metricTable();
        const int last = rowOf(metrics, u"loss · last"_s), best = rowOf(metrics, u"loss · best"_s);
        QVERIFY(last >= 0 && best >= 0);
        QCOMPARE(metrics->item(last, 1)->data(Qt::UserRole).toDouble(), 0.01 / 3);
        QCOMPARE(metrics->item(last, 2)->data(Qt::UserRole).toDouble(), 0.5 * 0.1 / 3);
        QCOMPARE(metrics->item(last, 3)->data(Qt::UserRole).toDouble(), 0.25 * 0.1 / 3);
        QCOMPARE(metrics->item(best, 2)->data(Qt::UserRole).toDouble(), 0.5 * 0.1 / 3); // a loss: the least
        QCOMPARE(view.stepBox()->maximum(), 3);
        view.stepBox()->setValue(1);
        const int atOne = rowOf(metrics, u"loss · at step 1"_s);
        QVERIFY(atOne >= 0);
        QCOMPARE(metrics->item(atOne, 1)->data(Qt::UserRole).toDouble(), 0.01);
        QCOMPARE(metrics->item(atOne, 2)->data(Qt::UserRole).toDouble(), 0.5 * 0.1);
        QCOMPARE(metrics->item(atOne, 2)->text(), ui::formatValue(0.05));
        // After the runs, each other run's difference from the baseline; a loss that rose is worse (red).
        QCOMPARE(metrics->columnCount(), 1 + 3 + 2);
        QVERIFY(metrics->horizontalHeaderItem(4)->text().startsWith(u"Δ "_s));
        QVERIFY(metrics->horizontalHeaderItem(4)->text().contains(m_b));
        QCOMPARE(metrics->item(atOne, 4)->data(Qt::UserRole).toDouble(), 0.5 * 0.1 - 0.01);
        QCOMPARE(metrics->item(atOne, 5)->data(Qt::UserRole).toDouble(), 0.25 * 0.1 - 0.01);
        QVERIFY2(metrics->item(atOne, 4)->text().startsWith(u"+"_s + ui::formatValue(0.04)),
                 qPrintable(metrics->item(atOne, 4)->text()));
        QVERIFY(metrics->item(atOne, 4)->text().endsWith(u"(+400.0%)"_s));
        QCOMPARE(metrics->item(atOne, 4)->foreground().color(), QColor(0xc6, 0x28, 0x28));
        // Their snapshots and git states differ: the setup tab does not say that nothing else does.
        QTreeWidgetItem *pair = view.otherDifferences()->topLevelItem(0);
        QVERIFY(pair);
        QVERIFY2(pair->text(1).startsWith(u"differ in: parameters lr; code (1 file)"_s), qPrintable(pair->text(1)));
        QVERIFY2(pair->text(1).contains(u"snapshot"_s) && pair->text(1).contains(u"uncommitted changes"_s),
                 qPrintable(pair->text(1)));
        // The curves of the three runs, overlaid in the chart panels.
        QTRY_COMPARE(view.curves()->chart()->legendRuns().size(), 3);
        for (const QString &id : {m_a, m_b, m_c})
            QVERIFY(view.curves()->chart()->legendRuns().contains(id));
    }

    // A window of its own that closes as a dialog does: Escape, Ctrl+W, its Close button.
    void closesWithEscapeCtrlWAndItsButton()
    {
        ui::CompareView view;
        view.setWindowFlag(Qt::Window);
        const auto open = [&] {
            view.show();
            view.activateWindow();
            return QTest::qWaitForWindowActive(&view);
        };
        QVERIFY(open());
        QTest::keyClick(view.tabs(), Qt::Key_Escape);
        QTRY_VERIFY(!view.isVisible());
        QVERIFY(open());
        QTest::keyClick(view.tabs(), Qt::Key_W, Qt::ControlModifier);
        QTRY_VERIFY(!view.isVisible());
        QVERIFY(open());
        QVERIFY(view.closeButton() && view.closeButton()->isVisible());
        QTest::mouseClick(view.closeButton(), Qt::LeftButton);
        QTRY_VERIFY(!view.isVisible());
    }

    // Two trainings of the embedded trainer: no code of their own, which is said as such, not as
    // "started before Ferry kept snapshots" (review 2026-12-06, finding 11).
    void embeddedRunsAreNotSaidToLackASnapshot()
    {
        QTemporaryDir dir;
        auto opened = run::RunStore::open(run::RunStore::pathInWorkspace(dir.path()));
        QVERIFY(opened);
        std::unique_ptr<run::RunStore> store = std::move(*opened);
        for (const QString &id : {u"20261206-1-iris-aaaa"_s, u"20261206-2-iris-bbbb"_s}) {
            run::RunSpec spec;
            spec.id = id;
            spec.target.kind = run::TargetKind::Embedded;
            spec.hyperparameters = {{u"lr"_s, id.endsWith(u"aaaa"_s) ? u"0.01"_s : u"0.1"_s}};
            run::RunRecord record = run::newRunRecord(spec);
            record.name = u"iris"_s;
            record.status = run::RunStatus::Succeeded;
            store->createRun(record);
        }
        store->flush();
        ui::CompareView view;
        view.setStore(store.get(), dir.path() + u"/.ferry/runs"_s);
        QSignalSpy loaded(&view, &ui::CompareView::loaded);
        view.compare({u"20261206-1-iris-aaaa"_s, u"20261206-2-iris-bbbb"_s});
        QVERIFY(loaded.wait(30000));
        const QString note = view.comparison()->diffs.first().codeNote;
        QVERIFY2(note.contains(u"embedded trainer"_s), qPrintable(note));
        QVERIFY(!note.contains(u"started before"_s));
        QTableWidget *setup = view.setupTable();
        QVERIFY(setup->item(rowOf(setup, u"Snapshot"_s), 1)->text().contains(u"embedded trainer"_s));
        // Legends say what differs and end with the short id.
        QCOMPARE(view.curves()->chart()->runLabel(u"20261206-2-iris-bbbb"_s), u"iris lr=0.1 (bbbb)"_s);
    }

    void theWindowComparesTheSelectedRuns()
    {
        QSettings settings(m_dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
        workspace::RecentWorkspaces recent(settings);
        ui::MainWindow window(settings, recent, {});
        QVERIFY(window.openWorkspaceAt(m_ws));
        QTRY_VERIFY(window.runsView()->model()->rowCount() == 3);
        window.runsView()->selectRuns({m_a, m_b});
        QTRY_COMPARE(window.runsView()->selectedRunIds().size(), 2);
        QAction *compare = nullptr;
        for (QAction *action : window.findChildren<QAction *>()) {
            if (action->text() == u"&Compare Selected Runs"_s)
                compare = action;
        }
        QVERIFY(compare);
        compare->trigger();
        QVERIFY(window.compareView());
        QTRY_VERIFY_WITH_TIMEOUT(window.compareView()->comparison().has_value(), 30000);
        QCOMPARE(window.compareView()->comparison()->runs.size(), 2);
        QCOMPARE(window.compareView()->parameterTable()->item(0, 0)->text(), u"lr"_s);
    }

    // The rerun runs the code of the first run's snapshot, not the source folder as it is now.
    void rerunExactlyRunsTheFirstVersion()
    {
        QTemporaryDir dir;
        const QString ws = dir.filePath(u"project"_s); // the snapshot's files go beside it, in `dir`
        QDir().mkpath(ws);
        const QByteArray first = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr')\n"
                                 "a, _ = p.parse_known_args()\nprint('version 1, lr', a.lr)\n";
        test::writeFileOrStop(ws + u"/train.py"_s, first);
        const QString a = test::startDiffRun(ws, u"0.01"_s);
        QByteArray second = first;
        second.replace("version 1", "version 2");
        test::writeFileOrStop(ws + u"/train.py"_s, second);

        auto opened = run::RunStore::open(run::RunStore::pathInWorkspace(ws));
        QVERIFY(opened);
        std::unique_ptr<run::RunStore> store = std::move(*opened);
        const auto record = store->run(a);
        QVERIFY(record);
        QSettings settings(dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
        ui::RunActions actions(settings, test::ferryBinary(), nullptr);
        const QString runsDir = ws + u"/.ferry/runs"_s;
        actions.setWorkspace(store.get(), ws, runsDir);
        QSignalSpy starting(&actions, &ui::RunActions::starting);
        QSignalSpy problems(&actions, &ui::RunActions::problem);
        actions.rerunExactly(*record);
        QVERIFY(starting.wait(30000));
        QVERIFY(problems.isEmpty());
        const QString id = starting.first().first().toString();
        QVERIFY(!id.isEmpty() && id != a);
        const QString log = runsDir + u'/' + id + u"/log"_s;
        QVERIFY2(test::waitFor([&] { return test::readFile(log).contains("version 1, lr 0.01"); }),
                 test::readFile(log).constData());
        QVERIFY(!test::readFile(log).contains("version 2"));
        actions.finishLaunches();
        store->flush();
        const auto rerun = store->run(id);
        QVERIFY(rerun);
        const auto spec = run::RunSpec::fromJson(rerun->spec);
        QVERIFY(spec);
        QCOMPARE(spec->rerunOf, a);
        QVERIFY2(spec->sourceDir.startsWith(ws + u"/.ferry/reruns/"_s), qPrintable(spec->sourceDir)); // the snapshot
        QCOMPARE(spec->hyperparameters.first().name, u"lr"_s);
        QCOMPARE(spec->hyperparameters.first().value, u"0.01"_s);
        QCOMPARE(test::readFile(ws + u"/train.py"_s), second); // the source folder was not touched
        // The snapshot's files are written read-only: writable again, for the temporary folder to go.
        for (QDirIterator it(dir.path(), QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot,
                             QDirIterator::Subdirectories);
             it.hasNext();)
            QFile::setPermissions(it.next(), QFile::permissions(it.filePath()) | QFileDevice::WriteOwner);
    }

    // A run that kept no snapshot cannot be re-run exactly: the reason and what to do instead.
    void aRunWithoutSnapshotIsRefusedWithAHint()
    {
        QTemporaryDir dir;
        auto opened = run::RunStore::open(run::RunStore::pathInWorkspace(dir.path()));
        QVERIFY(opened);
        std::unique_ptr<run::RunStore> store = std::move(*opened);
        run::RunSpec spec;
        spec.id = u"old"_s;
        spec.sourceDir = dir.path();
        spec.script = u"train.py"_s;
        run::RunRecord record;
        record.id = u"old"_s;
        record.spec = spec.toJson();
        QSettings settings(dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
        ui::RunActions actions(settings, test::ferryBinary(), nullptr);
        actions.setWorkspace(store.get(), dir.path(), dir.path() + u"/.ferry/runs"_s);
        QSignalSpy problems(&actions, &ui::RunActions::problem);
        QSignalSpy starting(&actions, &ui::RunActions::starting);
        actions.rerunExactly(record);
        QVERIFY(problems.wait(30000));
        const auto error = problems.first().first().value<Error>();
        QVERIFY2(error.message.contains(u"no snapshot of its code"_s), qPrintable(error.message));
        QVERIFY(error.hint.contains(u"ferry run train.py"_s));
        QVERIFY(starting.isEmpty());
    }
};

FERRY_TEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
