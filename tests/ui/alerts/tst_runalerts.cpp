// The window's alerts (ui/alerts/) on real local runs, offscreen, inside a private D-Bus session
// with a real notification server (tests/services/notifications.sh): rules for every run from the
// settings and a run's own from its Alerts… dialog reach the run monitor, a rule crossing, NaN, a
// stall and the runs' ends come as notifications, and clicking one (the server's ActionInvoked
// with "default") opens that run in the window; a sweep's end opens the sweeps window; an idle GPU
// of a real local kernel is said, a click on it brings its notebook forward, and the kernel is
// stopped when the settings ask; the kernels' samples are read on a worker, a round for a kernels
// folder left meanwhile dropped.
#include "common/safefile.h"
#include "metrics/systemsamples.h"
#include "run/rundirectory.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/kernel.h"
#include "support/notifications.h"
#include "ui/alerts/alertrulesedit.h"
#include "ui/alerts/alertspage.h"
#include "ui/alerts/runalerts.h"
#include "ui/document/documentarea.h"
#include "ui/notebook/notebookeditor.h"
#include "ui/runs/runsview.h"
#include "ui/sweep/sweepview.h"
#include "ui/window/mainwindow.h"
#include "ui/window/workbench.h"
#include "workspace/recentworkspaces.h"

#include <QApplication>
#include <QCheckBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>
#include <QTimer>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

QString alertsScript()
{
    return QStringLiteral(FERRY_TEST_DATA "/runs/scripts/alerts.py");
}

// `ferry run alerts.py --hp ...` in the workspace: the new run's id.
QString startAlertsRun(const QString &ws, const QStringList &hps)
{
    QStringList arguments{u"run"_s, alertsScript()};
    for (const QString &hp : hps)
        arguments << u"--hp"_s << hp;
    return test::runFerry(ws, arguments).out.trimmed();
}

} // namespace

class TestRunAlerts : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    test::NotificationServer m_server;

private Q_SLOTS:
    void notificationsComeAndAClickOpensTheRun()
    {
        const QString ws = m_dir.filePath(u"ws"_s);
        QVERIFY(QDir().mkpath(ws));
        QSettings settings(m_dir.filePath(u"settings.ini"_s), QSettings::IniFormat);
        ui::kAlertRulesSetting.set(settings, u"stalled:1s, loss:nan"_s);
        workspace::RecentWorkspaces recent(settings);
        ui::MainWindow window(settings, recent, {});
        window.show();
        QVERIFY(window.openWorkspaceAt(ws));
        ui::RunAlerts *alerts = window.workbench()->alerts();

        // One run that succeeds at once; one that says a point, is silent for 2.5 s (a stall),
        // then crosses its own rule, turns NaN and fails.
        const QString good = startAlertsRun(ws, {u"losses=1"_s});
        const QString bad = startAlertsRun(ws, {u"losses=3:0.4:0.3:nan"_s, u"pause=2.5"_s, u"code=3"_s});
        QVERIFY(!good.isEmpty() && !bad.isEmpty());
        // Its own rule, through its Alerts… dialog: a bad rule keeps OK off and says where it breaks.
        bool sawTheError = false;
        QTimer::singleShot(0, this, [&] {
            auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            auto *edit = dialog->findChild<ui::AlertRulesEdit *>();
            QPushButton *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
            edit->lineEdit()->setText(u"loss < "_s);
            sawTheError = !ok->isEnabled() && edit->errorLabel()->isVisibleTo(dialog) &&
                          edit->errorLabel()->text() == u"column 8: expected a number after '<'"_s;
            edit->lineEdit()->setText(u"loss < 0.5"_s);
            if (ok->isEnabled())
                ok->click();
        });
        alerts->editRunRules(bad, &window);
        QVERIFY(sawTheError);
        QCOMPARE(alerts->runRules(bad), u"loss < 0.5"_s);

        const QJsonObject stalled = m_server.waitForCall(bad + u"): no new point for 1s"_s);
        QVERIFY2(!stalled.isEmpty(), qPrintable(m_server.summaries()));
        QVERIFY(!m_server.waitForCall(bad + u"): loss = 0.4 at step 1"_s).isEmpty());
        QVERIFY(!m_server.waitForCall(bad + u"): loss is nan at step 3"_s).isEmpty());
        const QJsonObject failed = m_server.waitForCall(bad + u") failed"_s);
        QVERIFY2(!failed.isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(failed[u"body"_s].toString(), u"exit code 3"_s);
        QCOMPARE(failed[u"actions"_s].toArray().first().toString(), u"default"_s);
        QVERIFY(!m_server.waitForCall(good + u") succeeded"_s).isEmpty());
        QVERIFY(alerts->runRules(bad).isEmpty()); // the run ended: its rules are done with

        // The other run current; then a click on the failed run's notification.
        QTRY_VERIFY(window.runsView()->model()->rowCount() == 2);
        window.runsView()->selectRuns({good});
        QTRY_COMPARE(window.runsView()->currentRunId(), good);
        window.showMinimized();
        QVERIFY(m_server.invoke(uint(failed[u"id"_s].toInt())));
        QTRY_COMPARE(window.runsView()->currentRunId(), bad);
        QVERIFY(!(window.windowState() & Qt::WindowMinimized));
        QVERIFY(window.isVisible());
    }

    // An idle GPU (the rule's alert, as tracking/alertwatch.h fires it over a run's samples:
    // tst_progress) is said on the desktop; with Stop the run too, the run is stopped as Cancel
    // stops it. The rule comes from Settings > Alerts: 15 minutes unless set, none at Never.
    void anIdleGpuIsSaidAndItsRunStoppedWhenAsked()
    {
        const QString ws = m_dir.filePath(u"ws-idle"_s);
        QVERIFY(QDir().mkpath(ws));
        QSettings settings(m_dir.filePath(u"settings-idle.ini"_s), QSettings::IniFormat);
        const auto idleRule = [&] {
            for (const run::AlertRule &r : ui::RunAlerts::everyRunRules(settings)) {
                if (r.kind == run::AlertRule::Kind::GpuIdle)
                    return r.text();
            }
            return QString();
        };
        QCOMPARE(idleRule(), u"gpu_idle:15m"_s);
        ui::kIdleGpuMinutesSetting.set(settings, 0);
        QCOMPARE(idleRule(), QString());
        ui::kIdleGpuMinutesSetting.set(settings, 20);
        QCOMPARE(idleRule(), u"gpu_idle:20m"_s);

        workspace::RecentWorkspaces recent(settings);
        ui::MainWindow window(settings, recent, {});
        window.show();
        QVERIFY(window.openWorkspaceAt(ws));
        ui::RunAlerts *alerts = window.workbench()->alerts();
        // A run that would go on for a minute.
        const QString id = startAlertsRun(ws, {u"losses=1:1"_s, u"pause=60"_s});
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY(window.runsView()->model()->rowOf(id) >= 0);
        run::Alert idle;
        idle.kind = run::Alert::Kind::GpuIdle;
        idle.runId = id;
        idle.runName = u"alerts"_s;
        idle.rule = u"gpu_idle:20m"_s;
        idle.metric = u"system/gpu1/utilization_percent"_s;
        idle.value = 0;
        idle.detail = u"at 0 % since 10:00:00"_s;
        QSignalSpy stops(alerts, &ui::RunAlerts::stopRequested);
        alerts->show({idle}); // Stop the run too: off by default
        const QJsonObject said = m_server.waitForCall(id + u"): GPU 1 idle (0 %) for 20m"_s);
        QVERIFY2(!said.isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(said[u"body"_s].toString(), u"rule gpu_idle:20m; at 0 % since 10:00:00"_s);
        QCOMPARE(stops.size(), 0);
        ui::kStopIdleRunsSetting.set(settings, true);
        alerts->show({idle});
        const QString summary = id + u"): GPU 1 idle (0 %) for 20m"_s;
        QVERIFY2(test::waitFor([&] { return m_server.callsSaying(summary).size() == 2; }, 20000),
                 qPrintable(m_server.summaries()));
        QVERIFY(m_server.callsSaying(summary).last()[u"body"_s].toString().endsWith(
            u"at 0 % since 10:00:00; stopped, as Settings &gt; Alerts asks"_s));
        QCOMPARE(stops.size(), 1);
        QCOMPARE(stops.at(0).at(0).toString(), id);
        // Stopped as Cancel stops it: the run ends cancelled.
        QTRY_VERIFY_WITH_TIMEOUT(
            window.runsView()->model()->rowOf(id) >= 0 &&
                window.runsView()->model()->rows().at(window.runsView()->model()->rowOf(id)).record.status ==
                    run::RunStatus::Cancelled,
            30000);
    }

    // The same rule over a live kernel's samples (a real local kernel, its system.samples given 17
    // minutes of GPU 0 at 0 % the way its sampler appends blocks): said once per idle stretch, then
    // (the settings changed: 16 min, stop too) said again and the kernel stopped as `ferry kernel
    // stop` stops it.
    void aKernelsIdleGpuIsSaidAndTheKernelStoppedWhenAsked()
    {
        const QString ws = m_dir.filePath(u"ws-kernel"_s);
        QVERIFY(QDir().mkpath(ws));
        const test::KernelCli kernel{ws};
        const QString env = test::writeDebianPythonEnvironment(m_dir.filePath(u"debian.yml"_s));
        QVERIFY(!env.isEmpty());
        const test::CliResult started = kernel({u"start"_s, u"--env"_s, env});
        const QString id = started.out.trimmed();
        QVERIFY2(id.contains(u"-kernel-"_s), qPrintable(started.err));
        const QString kernelsDir = ws + u"/.ferry/kernels"_s;
        const auto stopLeftovers = qScopeGuard([&] { (void)test::stopKernelsIn(kernelsDir); });
        const QByteArray header = "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n";
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QByteArray blocks;
        qint64 n = 100000;
        for (qint64 ms = now - 17 * 60000; ms <= now; ms += 5000)
            blocks += run::systemSampleBlock(n++, ms, 1.0, 1 << 20, header + "0, 0, 2000, 60\n");
        QVERIFY(appendToFileSafely(run::RunDirectory(kernelsDir + u'/' + id).systemSamplesFile(), blocks));

        QSettings settings(m_dir.filePath(u"settings-kernel.ini"_s), QSettings::IniFormat);
        workspace::RecentWorkspaces recent(settings);
        ui::WorkbenchServices services;
        services.ferryBinary = test::ferryBinary();
        ui::MainWindow window(settings, recent, services);
        window.show();
        QVERIFY(window.openWorkspaceAt(ws));
        ui::RunAlerts *alerts = window.workbench()->alerts();
        QSignalSpy stopped(alerts, &ui::RunAlerts::kernelStopped);
        QSignalSpy checked(alerts, &ui::RunAlerts::kernelsChecked);
        alerts->checkKernels(); // the window's round (every 30 s), now
        const QString summary = u"kernel "_s + id + u": GPU 0 idle for 15 min"_s;
        const QJsonObject said = m_server.waitForCall(summary);
        QVERIFY2(!said.isEmpty(), qPrintable(m_server.summaries()));
        QVERIFY2(said[u"body"_s].toString().startsWith(u"at 0 % since "_s), qPrintable(said[u"body"_s].toString()));
        QVERIFY(!said[u"body"_s].toString().contains(u"stopped"_s));
        QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 1, 20000);
        alerts->checkKernels(); // still idle: not said again
        QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 2, 20000);
        QCOMPARE(kernel.shown(id)[u"state"_s].toString() == u"dead"_s, false);

        // A click on it: the window comes forward; a kernel of `ferry kernel start` has no place in
        // it (said in the status bar); a notebook's kernel brings its notebook forward, opened again
        // and attached to that kernel.
        QSignalSpy status(window.workbench(), &ui::Workbench::statusMessage);
        // The server's answer (the notification's id, kept with its key) handled before the click,
        // as a person's click always comes after it.
        QVERIFY(alerts->notifier()->waitForAnswers(20000));
        window.showMinimized();
        QVERIFY(m_server.invoke(uint(said[u"id"_s].toInt())));
        const auto statusSaid = [&status](const QString &text) {
            return std::any_of(status.cbegin(), status.cend(),
                               [&text](const QList<QVariant> &args) { return args.at(0).toString() == text; });
        };
        QTRY_VERIFY_WITH_TIMEOUT(statusSaid(u"Kernel %1 is not a notebook's: ferry kernel show %1"_s.arg(id)), 20000);
        QVERIFY(!(window.windowState() & Qt::WindowMinimized));
        const QString notebookPath = ws + u"/explore.ipynb"_s;
        QVERIFY(test::writeFile(notebookPath, "{\"cells\": [], \"metadata\": {}, \"nbformat\": 4, "
                                              "\"nbformat_minor\": 5}\n"));
        QVERIFY(test::writeFile(kernelsDir + u'/' + id + u"/notebook"_s, notebookPath.toUtf8()));
        window.showMinimized();
        QVERIFY(m_server.invoke(uint(said[u"id"_s].toInt())));
        QTRY_VERIFY_WITH_TIMEOUT(qobject_cast<ui::NotebookEditor *>(window.documentArea()->currentDocument()), 20000);
        auto *editor = qobject_cast<ui::NotebookEditor *>(window.documentArea()->currentDocument());
        QCOMPARE(editor->path(), notebookPath);
        QTRY_COMPARE_WITH_TIMEOUT(editor->kernel().folder(), kernelsDir + u'/' + id, 20000);
        QVERIFY(!(window.windowState() & Qt::WindowMinimized));

        ui::kIdleGpuMinutesSetting.set(settings, 16);
        ui::kStopIdleRunsSetting.set(settings, true);
        alerts->checkKernels();
        const QJsonObject stopSaid = m_server.waitForCall(u"kernel "_s + id + u": GPU 0 idle for 16 min"_s);
        QVERIFY2(!stopSaid.isEmpty(), qPrintable(m_server.summaries()));
        QVERIFY(stopSaid[u"body"_s].toString().endsWith(u"; stopped, as Settings &gt; Alerts asks"_s));
        QCOMPARE(m_server.callsSaying(summary).size(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(stopped.size(), 1, 30000);
        QCOMPARE(stopped.at(0).at(0).toString(), id);
        QCOMPARE(stopped.at(0).at(1).toString(), QString());
        const QJsonObject shown = kernel.shown(id);
        QCOMPARE(shown[u"state"_s].toString(), u"dead"_s);
        QCOMPARE(shown[u"end"_s].toObject()[u"reason"_s].toString(), u"stopped"_s);
    }

    // A round over the kernels' samples reads them on a worker (a kernel's day of samples: some
    // MB): checkKernels returns with the round going and nothing said, the notification comes when
    // it ends, and a call while it goes starts no other. A round for a kernels folder left while it
    // read (another workspace opened) is dropped, nothing said; one whose window closed while it
    // read ends on its own, for no one.
    void aKernelsRoundReadsOnAWorkerAndAFormerFoldersIsDropped()
    {
        // Two kernels folders, a live kernel in each (no kernel-exit.json) whose GPU 0 has been at 0 %
        // for a day, its samples as its sampler appends them.
        const QByteArray header = "index, utilization.gpu [%], memory.used [MiB], power.draw [W]\n";
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QByteArray blocks;
        qint64 n = 0;
        for (qint64 ms = now - 24 * 3600 * 1000; ms <= now; ms += 5000)
            blocks += run::systemSampleBlock(n++, ms, 1.0, 1 << 20, header + "0, 0, 2000, 60\n");
        QVERIFY(blocks.size() > 2 << 20);
        const QString kernelsA = m_dir.filePath(u"ws-round-a/.ferry/kernels"_s);
        const QString kernelsB = m_dir.filePath(u"ws-round-b/.ferry/kernels"_s);
        for (const QString &folder :
             QStringList{kernelsA + u"/round-a-kernel-1"_s, kernelsB + u"/round-b-kernel-1"_s}) {
            QVERIFY(QDir().mkpath(folder));
            QVERIFY(appendToFileSafely(run::RunDirectory(folder).systemSamplesFile(), blocks));
        }
        const QString saidA = u"kernel round-a-kernel-1: GPU 0 idle for 15 min"_s;
        const QString saidB = u"kernel round-b-kernel-1: GPU 0 idle for 15 min"_s;

        QSettings settings(m_dir.filePath(u"settings-round.ini"_s), QSettings::IniFormat);
        ui::RunAlerts alerts(settings);
        QSignalSpy checked(&alerts, &ui::RunAlerts::kernelsChecked);
        alerts.watchKernels(kernelsA, {});
        alerts.checkKernels();
        QVERIFY(alerts.checkingKernels()); // returned with the round going: nothing said yet
        QCOMPARE(checked.size(), 0);
        alerts.checkKernels(); // a round still going: none more
        QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 1, 20000);
        QVERIFY(!alerts.checkingKernels());
        const QJsonObject said = m_server.waitForCall(saidA);
        QVERIFY2(!said.isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(checked.size(), 1);

        // Watched anew (its stretch would be said again), then another folder while its round reads:
        // that round's result is for a folder no longer watched, dropped.
        alerts.watchKernels(kernelsA, {});
        alerts.checkKernels();
        QVERIFY(alerts.checkingKernels());
        alerts.watchKernels(kernelsB, {});
        QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 2, 20000);
        QVERIFY(!alerts.checkingKernels());
        QVERIFY(alerts.notifier()->waitForAnswers(20000)); // whatever was sent, the server has
        QCOMPARE(m_server.callsSaying(saidA).size(), 1);
        QVERIFY(m_server.callsSaying(saidB).isEmpty());
        // The new folder's round reads its own kernels.
        alerts.checkKernels();
        QTRY_COMPARE_WITH_TIMEOUT(checked.size(), 3, 20000);
        QVERIFY2(!m_server.waitForCall(saidB).isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(m_server.callsSaying(saidA).size(), 1);

        // The window closed while a round reads: the round ends on its own, its result for no one.
        auto closing = std::make_unique<ui::RunAlerts>(settings);
        closing->watchKernels(kernelsA, {});
        closing->checkKernels();
        QVERIFY(closing->checkingKernels());
        closing.reset();
        QVERIFY(QThreadPool::globalInstance()->waitForDone(60000));
        QCoreApplication::processEvents();
        QVERIFY(alerts.notifier()->waitForAnswers(20000));
        QCOMPARE(m_server.callsSaying(saidA).size(), 1);
    }

    void aSweepsEndOpensTheSweepsWindow()
    {
        const QString ws = m_dir.filePath(u"ws-sweep"_s);
        QVERIFY(QDir().mkpath(ws));
        QSettings settings(m_dir.filePath(u"settings-sweep.ini"_s), QSettings::IniFormat);
        workspace::RecentWorkspaces recent(settings);
        ui::MainWindow window(settings, recent, {});
        QVERIFY(window.openWorkspaceAt(ws));
        sweep::SweepState state;
        state.id = u"sweep-42"_s;
        state.name = u"lr-search"_s;
        state.status = sweep::SweepStatus::Finished;
        state.trials.resize(3);
        state.trials[0].status = sweep::TrialStatus::Succeeded;
        state.trials[1].status = sweep::TrialStatus::Succeeded;
        state.trials[2].status = sweep::TrialStatus::StoppedEarly;
        window.workbench()->alerts()->showSweepsEnded({state});
        const QJsonObject call = m_server.waitForCall(u"sweep lr-search (sweep-42) finished"_s);
        QVERIFY2(!call.isEmpty(), qPrintable(m_server.summaries()));
        QCOMPARE(call[u"body"_s].toString(), u"3 trials: 2 succeeded, 1 stopped early"_s);
        QVERIFY(window.workbench()->alerts()->notifier()->waitForAnswers(20000)); // its id known, as before a click
        QVERIFY(m_server.invoke(uint(call[u"id"_s].toInt())));
        QTRY_VERIFY(window.sweepView() && window.sweepView()->isVisible());
        // Settings > Alerts off: a sweep's end is not said.
        ui::kNotifySweepEndsSetting.set(settings, false);
        state.id = u"sweep-43"_s;
        window.workbench()->alerts()->showSweepsEnded({state});
        QTest::qWait(200);
        QVERIFY(m_server.callsSaying(u"sweep-43"_s).isEmpty());
    }

    void theSettingsPageWritesOnlyRulesThatParse()
    {
        QSettings settings(m_dir.filePath(u"settings-page.ini"_s), QSettings::IniFormat);
        ui::kAlertRulesSetting.set(settings, u"loss:nan"_s);
        ui::AlertsPage page(settings);
        QCOMPARE(page.rulesEdit()->text(), u"loss:nan"_s);
        QVERIFY(page.runEndsBox()->isChecked());
        page.runEndsBox()->setChecked(false);
        page.rulesEdit()->lineEdit()->setText(u"val_loss>2.5,stalled:10m"_s);
        QVERIFY(page.apply());
        QCOMPARE(ui::kAlertRulesSetting.get(settings), u"val_loss > 2.5, stalled:10m"_s);
        QVERIFY(!ui::kNotifyRunEndsSetting.get(settings));
        page.rulesEdit()->lineEdit()->setText(u"val_loss>"_s);
        QVERIFY(!page.rulesEdit()->isValid());
        QVERIFY(!page.apply());
        QCOMPARE(ui::kAlertRulesSetting.get(settings), u"val_loss > 2.5, stalled:10m"_s); // kept
    }
};

FERRY_NOTIFICATIONS_TEST_MAIN_APP(QApplication, TestRunAlerts)
#include "tst_runalerts.moc"
