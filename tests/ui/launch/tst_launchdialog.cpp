// The launch dialog as a new user meets it (review 2026-12-06, finding 12): no error before
// anything is typed, Start disabled until the run can start and why said in the dialog, the Value
// column wide enough to read; and the estimate of the run's time and cost beside Start.
#include "support/files.h"
#include "support/runhistory.h"
#include "support/testmain.h"
#include "ui/launch/launchdialog.h"
#include "ui/launch/remotetargetfields.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::ui::LaunchDialog;

namespace {

// A script with a learning rate of a long default and a long help, and an epochs count.
const QByteArray kLaunchScript = "import argparse\n"
                                 "p = argparse.ArgumentParser()\n"
                                 "p.add_argument('--epochs', type=int, default=5, help='passes')\n"
                                 "p.add_argument('--lr', type=float, default=0.056, help='the learning rate of the "
                                 "optimiser, the step it takes along the gradient at every batch of every epoch')\n"
                                 "p.parse_args()\n";

// Every label of the dialog that says something went wrong (red, or the words of one).
QStringList errorsShown(const LaunchDialog &dialog)
{
    QStringList shown;
    for (const QLabel *label : dialog.findChildren<QLabel *>()) {
        const QString text = label->text();
        if (label->isVisibleTo(&dialog) && (text.contains(u"error"_s) || text.contains(u"no such"_s) ||
                                            text.contains(u"is a folder"_s) || text.contains(u"not a file"_s)))
            shown << text;
    }
    return shown;
}

} // namespace

class TestLaunchDialog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // An empty workspace: nothing to run, and nothing said to be wrong; Start waits for a script.
    void emptyWorkspaceShowsNoErrorAndStartWaits()
    {
        QTemporaryDir ws;
        QSettings settings(ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        LaunchDialog dialog(settings, ws.path());
        QVERIFY2(errorsShown(dialog).isEmpty(), qPrintable(errorsShown(dialog).join(u'\n')));
        QVERIFY(dialog.problemLabel()->text().isEmpty());
        QVERIFY(!dialog.startButton()->isEnabled());
        QCOMPARE(dialog.problem(), u"Choose the script to run"_s);
    }

    // A script that is not there: said in the dialog, Start disabled; once it is there, Start.
    void aScriptThatIsNotThereIsSaidInTheDialog()
    {
        QTemporaryDir ws;
        QSettings settings(ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        LaunchDialog dialog(settings, ws.path());
        dialog.setScript(u"train.py"_s);
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY2(dialog.problemLabel()->text().contains(u"no such script"_s),
                 qPrintable(dialog.problemLabel()->text()));
        QVERIFY(dialog.problemLabel()->isVisibleTo(&dialog));
        QVERIFY(ferry::test::writeFile(ws.filePath(u"train.py"_s), kLaunchScript));
        dialog.setScript(u"train.py"_s);
        QVERIFY2(dialog.startButton()->isEnabled(), qPrintable(dialog.problem()));
        QVERIFY(dialog.problemLabel()->text().isEmpty());
        QVERIFY(!dialog.problemLabel()->isVisibleTo(&dialog));
        // A data channel that is not there: said, Start disabled again.
        dialog.setChannels({{u"training"_s, ws.filePath(u"nothing-here"_s)}});
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY2(dialog.problemLabel()->text().contains(u"does not exist"_s),
                 qPrintable(dialog.problemLabel()->text()));
        dialog.setChannels({});
        QVERIFY(dialog.startButton()->isEnabled());
        // An SSH target without its host.
        dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(u"ssh"_s));
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY(dialog.problemLabel()->text().contains(u"host"_s));
    }

    // The run's caps (docs/cost.md) go into its spec; one that cannot be read, or a money cap at a
    // target without a rate, is said in the dialog and Start waits.
    void theCapsGoIntoTheSpecOrAreSaid()
    {
        QTemporaryDir ws;
        QVERIFY(ferry::test::writeFile(ws.filePath(u"train.py"_s), kLaunchScript));
        QSettings settings(ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        LaunchDialog dialog(settings, ws.path());
        dialog.setScript(u"train.py"_s);
        QCOMPARE(dialog.spec().budget, ferry::run::RunBudget{});
        dialog.maxTimeField()->setText(u"0:01:30"_s);
        dialog.maxCostField()->setText(u"2.50"_s);
        QVERIFY2(dialog.startButton()->isEnabled(), qPrintable(dialog.problem()));
        QCOMPARE(dialog.spec().budget.maxSeconds, qint64(90));
        QCOMPARE(dialog.spec().budget.maxCost, 2.5);
        dialog.maxTimeField()->setText(u"1:75:00"_s);
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY2(dialog.problemLabel()->text().contains(u"--max-time '1:75:00'"_s),
                 qPrintable(dialog.problemLabel()->text()));
        dialog.maxTimeField()->clear();
        QVERIFY(dialog.startButton()->isEnabled());
        dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(u"slurm"_s));
        QJsonObject remote = dialog.remoteFields()->saved();
        remote[u"host"_s] = u"gpu1"_s;
        dialog.remoteFields()->restore(remote);
        QVERIFY(!dialog.startButton()->isEnabled());
        QVERIFY2(dialog.problemLabel()->text().contains(u"--max-cost needs a rate for slurm:gpu1"_s),
                 qPrintable(dialog.problemLabel()->text()));
    }

    // The Value column shows a number whole, whatever the Help column holds.
    void valueColumnIsWideEnoughToRead()
    {
        QTemporaryDir ws;
        QVERIFY(ferry::test::writeFile(ws.filePath(u"train.py"_s), kLaunchScript));
        QSettings settings(ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        LaunchDialog dialog(settings, ws.path());
        dialog.setScript(u"train.py"_s);
        dialog.show();
        QTableWidget *table = dialog.hyperparameterTable();
        QCOMPARE(table->item(1, 2)->text(), u"0.056"_s);
        const int needed = table->fontMetrics().horizontalAdvance(u"0.000123456789"_s);
        QVERIFY2(table->columnWidth(2) >= needed, qPrintable(u"%1 < %2"_s.arg(table->columnWidth(2)).arg(needed)));
        QVERIFY(table->columnWidth(5) <= 360 || table->columnWidth(5) >= table->viewport()->width() / 3);
        QVERIFY(table->item(1, 5)->toolTip().contains(u"every epoch"_s));
    }

    // Beside Start: "no history" for a script that never ran here; with three runs of it, the
    // range from them and the cost at this machine's rate with its source.
    void theEstimateFollowsTheHistory()
    {
        QTemporaryDir ws;
        QVERIFY(ferry::test::writeFile(ws.filePath(u"train.py"_s), kLaunchScript));
        QSettings settings(ws.filePath(u"settings.ini"_s), QSettings::IniFormat);
        LaunchDialog dialog(settings, ws.path());
        dialog.setScript(u"train.py"_s);
        QVERIFY2(dialog.estimateLabel()->text().contains(u"no history"_s), qPrintable(dialog.estimateLabel()->text()));
        QList<ferry::run::RunRecord> history;
        const qint64 seconds[]{100, 130, 110};
        for (int i = 0; i < 3; ++i)
            history << ferry::test::pastRecord(ferry::test::PastRun{u"r%1"_s.arg(i), u"train.py"_s, u"local"_s,
                                                                    ferry::test::epochs(5), 1796600000000 + i,
                                                                    seconds[i]},
                                               ws.path());
        settings.setValue(u"rates/local/amount"_s, u"3.6"_s);
        settings.setValue(u"rates/local/unit"_s, u"hour"_s);
        settings.setValue(u"rates/local/source"_s, u"set by you"_s);
        dialog.setHistory(history);
        // The runs were given epochs; this one gives none (the script's default) until it is ticked.
        QVERIFY2(dialog.estimateLabel()->text().contains(u"no history"_s), qPrintable(dialog.estimateLabel()->text()));
        dialog.setHyperparameters(ferry::test::epochs(10));
        QString text = dialog.estimateLabel()->text();
        QVERIFY2(text.contains(u"from 3 comparable runs, scaled in proportion to epochs"_s), qPrintable(text));
        QVERIFY2(text.contains(u"about 3m 40s (3m 20s to 4m 20s)"_s), qPrintable(text));
        QVERIFY2(text.contains(u"Cost: about 0.22 USD (0.20 USD to 0.26 USD) at 3.60 USD/h (local, set by you)"_s),
                 qPrintable(text));
        // Another target: its own history (none) and its own rate (unknown).
        dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(u"ssh"_s));
        dialog.remoteFields()->hostEdit()->setText(u"gpu-box"_s);
        text = dialog.estimateLabel()->text();
        QVERIFY2(text.contains(u"no history"_s) && text.contains(u"no rate is set for ssh:gpu-box"_s),
                 qPrintable(text));
    }
};

FERRY_TEST_MAIN(TestLaunchDialog)
#include "tst_launchdialog.moc"
