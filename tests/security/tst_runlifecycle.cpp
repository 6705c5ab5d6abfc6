// M4 (security review 2026-12-01; issue 14, "cancel is final"): a run whose supervisor was
// killed, or whose start was not confirmed in time, still has processes: Ferry must not show
// it as ended, must keep following it, and `ferry runs cancel` must stop every one of them.
// Real processes throughout: the built `ferry` (CLI and `__supervise`), Python scripts, /proc.
#include "run/rundirectory.h"
#include "store/runstore.h"
#include "support/cli.h"
#include "support/process.h"
#include "support/targets.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/localtarget.h"
#include "tracking/runfollower.h"
#include "tracking/runlauncher.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::jsonObject;
using ferry::test::runFerry;
using ferry::test::waitFor;

namespace {

using ferry::test::kScripts;

// Live processes, by an independent scan of /proc, whose group (or session) is `id`.
QList<qint64> liveWith(qint64 id, bool session)
{
    QList<qint64> found;
    for (const QString &entry : QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        const auto state = isPid ? processState(pid) : std::nullopt;
        if (state && !state->zombie && (session ? state->session : state->processGroup) == id)
            found << pid;
    }
    return found;
}

using ferry::test::processAlive;

QJsonObject shown(const QString &ws, const QString &id)
{
    return jsonObject(runFerry(ws, {u"runs"_s, u"show"_s, id, u"--json"_s}));
}

QString listedStatus(const QString &ws, const QString &id)
{
    const QJsonArray runs = test::jsonArray(runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s}));
    for (const QJsonValue &r : runs) {
        if (r[u"id"_s].toString() == id)
            return r[u"status"_s].toString();
    }
    return u"(not listed)"_s;
}

// A supervisor that stops itself before it can report: `ferry __supervise` behind a shell that
// sends itself SIGSTOP and then execs it (same pid, same start time): a start that times out.
QString stoppingSupervisor(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(u"stopping-ferry"_s);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QByteArray("#!/bin/sh\nkill -STOP $$\nexec '") + ferry::test::ferryBinary().toUtf8() +
            QByteArray("' \"$@\"\n"));
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

// A script that leaves a mark when it runs, then ends well.
run::RunSpec markingSpec(const QTemporaryDir &dir)
{
    QFile script(dir.filePath(u"mark.py"_s));
    if (script.open(QIODevice::WriteOnly))
        script.write("open('ran', 'w').write('yes')\nprint('loss: 0.25', flush=True)\n");
    run::RunSpec spec;
    spec.id = run::newRunId(u"mark.py"_s);
    spec.script = u"mark.py"_s;
    spec.sourceDir = dir.path();
    spec.interpreter = u"/usr/bin/python3"_s;
    return spec;
}

} // namespace

class TestRunLifecycle : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // (a) kill -9 of the supervisor while the script's family runs: the run is not ended (store
    // and CLI), and `ferry runs cancel` kills every process of its group and records the cancel.
    void killedSupervisorsRunIsCancelledWithItsGroup()
    {
        QTemporaryDir ws;
        const QString ready = ws.filePath(u"ready"_s);
        const auto started =
            runFerry(ws.path(), {u"run"_s, kScripts + u"/family.py"_s, u"--hp"_s, u"ready-file="_s + ready});
        QCOMPARE(started.exitCode, 0);
        const QString id = started.out.trimmed();
        QVERIFY(waitFor([&] { return QFile::exists(ready); }, 120000, 100));
        const run::RunDirectory dir(ws.filePath(u".ferry/runs/"_s + id));
        const run::SupervisorRecord s = *dir.readSupervisor().value();
        const QList<qint64> family = liveWith(s.processGroup, false);
        QVERIFY2(family.size() >= 4, qPrintable(QString::number(family.size()))); // script, child, sh, sleeps

        QCOMPARE(::kill(static_cast<pid_t>(s.supervisorPid), SIGKILL), 0);
        QVERIFY(waitFor([&] { return !run::supervisorAlive(s); }, 10000, 100));
        // Not ended while its processes live: every view says running, with why.
        const QJsonObject show = shown(ws.path(), id);
        QCOMPARE(show[u"status"_s].toString(), u"running"_s);
        QVERIFY2(show[u"error"_s].toString().contains(u"is gone"_s), qPrintable(show[u"error"_s].toString()));
        QCOMPARE(listedStatus(ws.path(), id), u"running"_s);
        {
            auto store = run::RunStore::open(ws.filePath(u".ferry/runs.sqlite"_s));
            QVERIFY(store);
            QCOMPARE(run::runStatusText((*store)->run(id)->status), u"running"_s);
        }
        QVERIFY(!liveWith(s.processGroup, false).isEmpty()); // the script goes on

        const auto cancel = runFerry(ws.path(), {u"runs"_s, u"cancel"_s, id});
        QCOMPARE(cancel.exitCode, 0);
        QVERIFY2(cancel.err.contains(u"cancelled"_s), qPrintable(cancel.err));
        QCOMPARE(liveWith(s.processGroup, false), QList<qint64>());
        for (const qint64 pid : family)
            QVERIFY2(!processAlive(pid) || processState(pid)->processGroup != s.processGroup,
                     qPrintable(QString::number(pid)));
        QCOMPARE(shown(ws.path(), id)[u"status"_s].toString(), u"cancelled"_s);
        QVERIFY((*dir.readExit())->cancelled);
    }

    // (b) A start not confirmed in time (the supervisor stopped before it reported): shown as
    // running, with the reason; once it goes on, the run is followed to its end.
    void unconfirmedStartIsFollowedWhenItRuns()
    {
        QTemporaryDir ws;
        QTemporaryDir source;
        const QString supervisor = stoppingSupervisor(ws);
        auto store = run::RunStore::open(ws.filePath(u".ferry/runs.sqlite"_s));
        QVERIFY(store);
        targets::LocalTarget target(supervisor, 1000);
        const run::RunSpec spec = markingSpec(source);
        const auto launched = run::launchRun(**store, target, ws.filePath(u".ferry/runs"_s), spec);
        QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
        QCOMPARE(launched->status, run::RunStatus::Running);
        QVERIFY2(launched->error.contains(u"did not start the script within 1 s"_s), qPrintable(launched->error));
        (*store)->flush();
        QCOMPARE((*store)->run(spec.id)->status, run::RunStatus::Running);
        const QJsonObject show = shown(ws.path(), spec.id);
        QCOMPARE(show[u"status"_s].toString(), u"running"_s);
        QVERIFY2(show[u"error"_s].toString().startsWith(u"starting"_s), qPrintable(show[u"error"_s].toString()));
        const run::RunDirectory dir(ws.filePath(u".ferry/runs/"_s + spec.id));
        // The script writes 'ran' in its working folder, the run's code/ (run/workfolder.h).
        const QString ran = dir.path() + u"/code/ran"_s;
        QVERIFY(!QFile::exists(ran));
        const run::LaunchRecord launch = *dir.readLaunch().value();
        QVERIFY(run::launchedAlive(launch));
        QCOMPARE(::kill(static_cast<pid_t>(launch.pid), SIGCONT), 0);
        run::RunFollower follower(**store, target, dir.path(), *(*store)->run(spec.id));
        bool finished = false;
        QVERIFY(waitFor(
            [&] {
                const auto step = follower.poll();
                finished = step && step->finished;
                return finished;
            },
            120000, 100));
        (*store)->flush();
        QVERIFY(QFile::exists(ran));
        QVERIFY(!QFile::exists(source.filePath(u"ran"_s))); // not in the source folder
        const auto record = (*store)->run(spec.id);
        QCOMPARE(record->status, run::RunStatus::Succeeded);
        QVERIFY(record->exitCode.has_value());
        QCOMPARE(*record->exitCode, 0);
        QCOMPARE((*store)->metrics(spec.id, u"loss"_s).size(), 1); // its log was followed
    }

    // (b) The same unconfirmed start, cancelled from the CLI while it is stopped: the supervisor
    // dies, nothing of its session survives, the script never runs, the run is cancelled.
    void unconfirmedStartIsCancelledAndNothingSurvives()
    {
        QTemporaryDir ws;
        QTemporaryDir source;
        const QString supervisor = stoppingSupervisor(ws);
        run::RunSpec spec = markingSpec(source);
        {
            auto store = run::RunStore::open(ws.filePath(u".ferry/runs.sqlite"_s));
            QVERIFY(store);
            targets::LocalTarget target(supervisor, 1000);
            const auto launched = run::launchRun(**store, target, ws.filePath(u".ferry/runs"_s), spec);
            QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
            QCOMPARE(launched->status, run::RunStatus::Running);
            (*store)->close();
        }
        const run::RunDirectory dir(ws.filePath(u".ferry/runs/"_s + spec.id));
        const run::LaunchRecord launch = *dir.readLaunch().value();
        QVERIFY(run::launchedAlive(launch));
        QCOMPARE(listedStatus(ws.path(), spec.id), u"running"_s);

        const auto cancel = runFerry(ws.path(), {u"runs"_s, u"cancel"_s, spec.id});
        QCOMPARE(cancel.exitCode, 0);
        QVERIFY2(cancel.err.contains(u"cancelled"_s), qPrintable(cancel.err));
        QVERIFY(!run::launchedAlive(launch));
        QCOMPARE(liveWith(launch.pid, true), QList<qint64>());
        QVERIFY(!QFile::exists(dir.path() + u"/code/ran"_s)); // and nothing is left that could write it
        QVERIFY(!QFile::exists(dir.supervisorFile()));
        QCOMPARE(shown(ws.path(), spec.id)[u"status"_s].toString(), u"cancelled"_s);
        QVERIFY((*dir.readExit())->cancelled);
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunLifecycle)
#include "tst_runlifecycle.moc"
