// WorkspaceSession, offscreen: one open workspace's run store, runs loader, chart feeder and run
// monitor, opened for a folder with runs and taken down in order, also while the monitor follows
// a live run (reopened, it re-attaches); a folder whose run database cannot open gives an Error.
#include "store/runstore.h"
#include "support/files.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/targetfactory.h"
#include "tracking/runlauncher.h"
#include "ui/chart/losschart.h"
#include "ui/chart/seriesstore.h"
#include "ui/runs/runsmodel.h"
#include "ui/session/chartfeeder.h"
#include "ui/session/runmonitorworker.h"
#include "ui/session/workspacesession.h"
#include "workspace/workspace.h"

#include <QFileInfo>
#include <QPointer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using ui::WorkspaceSession;

namespace {

// A finished run with a 20-point loss curve, created `offsetMs` after an arbitrary moment.
void addFinishedRun(run::RunStore &store, const QString &id, qint64 offsetMs)
{
    run::RunRecord record;
    record.id = id;
    record.name = u"train "_s + id;
    record.status = run::RunStatus::Succeeded;
    record.target = u"local"_s;
    record.createdMs = record.startedMs = 1'700'000'000'000 + offsetMs;
    record.finishedMs = record.startedMs + 400;
    store.createRun(record);
    QList<run::MetricPoint> points;
    for (int step = 0; step < 20; ++step)
        points << run::MetricPoint{u"loss"_s, double(step), 1.0 / (step + 1), record.startedMs + step};
    store.appendMetrics(id, points, 100);
}

// The points of `metric` the chart holds, all runs together.
qsizetype chartPoints(ui::LossChart &chart, const QString &metric)
{
    chart.refresh(); // drains the series store now
    qsizetype n = 0;
    const ui::SeriesStore &series = *chart.store();
    for (int i = 0; i < series.seriesCount(); ++i) {
        if (series.data(i).key().metric == metric)
            n += series.data(i).size();
    }
    return n;
}

run::RunSpec metricsRun(int steps, double delay)
{
    run::RunSpec spec;
    spec.script = u"metrics.py"_s;
    spec.sourceDir = QStringLiteral(FERRY_TEST_DATA "/runs/scripts");
    spec.id = run::newRunId(spec.script);
    spec.hyperparameters = {{u"steps"_s, QString::number(steps)}, {u"delay"_s, QString::number(delay)}};
    return spec;
}

} // namespace

class TestWorkspaceSession : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    workspace::Workspace createWorkspace(const QString &name)
    {
        auto created = workspace::Workspace::create(m_dir.filePath(name));
        if (!created)
            qFatal("cannot create the workspace %s: %s", qPrintable(name), qPrintable(created.error().toString()));
        return *created;
    }

    static std::unique_ptr<WorkspaceSession> openSession(const workspace::Workspace &workspace, ui::LossChart &chart)
    {
        auto opened = WorkspaceSession::open(workspace, &chart, test::ferryBinary(), nullptr);
        if (!opened)
            qWarning("%s", qPrintable(opened.error().toString()));
        return opened ? std::move(*opened) : nullptr;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Its store sees the runs already in the folder, the loader delivers them once started, the
    // feeder charts them, and the chart is emptied when the session goes.
    void opensAWorkspaceWithRuns()
    {
        const workspace::Workspace workspace = createWorkspace(u"withruns"_s);
        {
            auto store = run::RunStore::open(run::RunStore::pathInWorkspace(workspace.root()));
            QVERIFY2(store, store ? "" : qPrintable(store.error().toString()));
            for (int i = 0; i < 3; ++i)
                addFinishedRun(**store, u"run%1"_s.arg(i), i * 1000);
            (*store)->close();
        }
        ui::LossChart chart;
        std::unique_ptr<WorkspaceSession> session = openSession(workspace, chart);
        QVERIFY(session);
        QCOMPARE(session->store()->runs().size(), 3);
        QVERIFY(session->monitorThread()->isRunning());

        QSignalSpy loaded(session->loader(), &ui::RunsLoader::loaded);
        session->start();
        QVERIFY(loaded.wait(10000));
        const QList<ui::RunRow> rows = loaded.last().at(0).value<QList<ui::RunRow>>();
        QCOMPARE(rows.size(), 3);
        QCOMPARE(rows.first().record.id, u"run2"_s); // newest first
        QCOMPARE(rows.first().lastMetrics.value(u"loss"_s), 1.0 / 20);

        const QStringList newest = ui::RunsModel::newestRunsWithMetrics(rows, 2);
        QCOMPARE(newest, (QStringList{u"run2"_s, u"run1"_s}));
        QSignalSpy fed(session->feeder(), &ui::ChartFeeder::loaded);
        session->feeder()->setRuns(newest, {{u"run2"_s, u"newest"_s}});
        QVERIFY(fed.wait(10000));
        QCOMPARE(chartPoints(chart, u"loss"_s), 2 * 20);
        QCOMPARE(chart.runLabel(u"run2"_s), u"newest"_s);

        session.reset();
        QCOMPARE(chartPoints(chart, u"loss"_s), 0);
    }

    // Destroyed while the monitor follows a live run, while the loader reads and the feeder
    // loads: the monitor's thread is joined (its worker gone with it) and the store closed with
    // what was queued. The run goes on in its supervisor; a session opened again re-attaches and
    // follows it to its end, each point stored once.
    void closedWhileTheMonitorFollowsALiveRunJoinsCleanly()
    {
        const workspace::Workspace workspace = createWorkspace(u"live"_s);
        ui::LossChart chart;
        std::unique_ptr<WorkspaceSession> session = openSession(workspace, chart);
        QVERIFY(session);
        QStringList changed;
        QObject receiver; // after `changed`: queued calls to it go before the list does
        connect(session->monitor(), &ui::RunMonitorWorker::changed, &receiver,
                [&changed](const QStringList &ids, const QStringList &, const QStringList &) { changed += ids; });
        session->start();

        constexpr int kSteps = 200; // 10 s: still running when the session goes
        auto target = targets::makeTarget(run::TargetSpec{}, test::ferryBinary());
        const auto launched = run::launchRun(*session->store(), *target, workspace.runsDir(), metricsRun(kSteps, 0.05));
        QVERIFY2(launched, launched ? "" : qPrintable(launched.error().toString()));
        const QString id = launched->id;
        session->feeder()->setRuns({id}, {});
        QTRY_VERIFY_WITH_TIMEOUT(changed.contains(id), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(chartPoints(chart, u"loss"_s) > 0, 20000); // live points reach the chart

        QVERIFY(!run::isFinished(session->store()->run(id)->status));
        session->loader()->reload();
        session->feeder()->setRuns({id}, {}); // a snapshot read under way
        const QPointer<ui::RunMonitorWorker> worker = session->monitor();
        session.reset();
        QVERIFY(worker.isNull());
        QCOMPARE(chartPoints(chart, u"loss"_s), 0);

        session = openSession(workspace, chart);
        QVERIFY(session);
        session->start();
        QTRY_VERIFY_WITH_TIMEOUT(run::isFinished(session->store()->run(id)->status), 60000);
        session->store()->flush();
        QCOMPARE(session->store()->run(id)->status, run::RunStatus::Succeeded);
        QCOMPARE(session->store()->metricCount(id, u"loss"_s), kSteps);
    }

    // A damaged run database: no session, a structured Error naming the file with what to do,
    // and the file is left as it was.
    void aFolderWhoseStoreCannotOpenGivesAnError()
    {
        const workspace::Workspace workspace = createWorkspace(u"damaged"_s);
        const QString database = run::RunStore::pathInWorkspace(workspace.root());
        const QByteArray garbage(8192, 'x');
        QVERIFY(test::writeFile(database, garbage));
        ui::LossChart chart;
        const auto session = WorkspaceSession::open(workspace, &chart, test::ferryBinary(), nullptr);
        QVERIFY(!session);
        QVERIFY2(session.error().message.contains(u"not a run database"_s), qPrintable(session.error().toString()));
        QCOMPARE(session.error().path, QFileInfo(database).absoluteFilePath());
        QVERIFY(!session.error().hint.isEmpty());
        QCOMPARE(test::readFile(database), garbage);
    }
};

FERRY_TEST_MAIN(TestWorkspaceSession)
#include "tst_workspacesession.moc"
