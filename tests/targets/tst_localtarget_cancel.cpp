// Cancelling local runs: the whole process group goes (children, grandchildren, ones that
// ignore SIGTERM), with or without the supervisor, and the end is recorded as a cancel.
#include "run/archive.h"
#include "run/rundirectory.h"
#include "support/targets.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/localtarget.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace ferry::run;
using namespace ferry::targets;

namespace {

using ferry::test::kScripts;
using ferry::test::localTarget;
constexpr int kGraceMs = 1000;

using ferry::test::waitFor;

struct Family {
    QString runDir;
    SupervisorRecord supervisor;
    QList<qint64> pids; // the script's child and grandchildren
};

// Starts family.py and waits until its child and grandchildren are all up.
Family startFamily(const QTemporaryDir &ws, bool handleTerm = false)
{
    Family f;
    RunSpec spec;
    spec.id = newRunId(u"family.py"_s);
    spec.script = u"family.py"_s;
    spec.sourceDir = kScripts;
    spec.interpreter = u"/usr/bin/python3"_s;
    const QString ready = ws.filePath(spec.id + u".ready"_s);
    spec.hyperparameters = {{u"ready-file"_s, ready}, {u"handle-term"_s, handleTerm ? u"true"_s : u"false"_s}};
    f.runDir = RunDirectory::pathFor(ws.path(), spec.id);
    const auto started = localTarget().start(f.runDir, spec);
    if (!started) {
        qWarning("%s", qPrintable(started.error().toString()));
        return f;
    }
    if (!waitFor([&] { return QFileInfo::exists(ready); }))
        return f;
    QFile file(ready);
    if (!file.open(QIODevice::ReadOnly))
        return f;
    const QJsonObject pids = QJsonDocument::fromJson(file.readAll()).object();
    f.pids << pids[u"child"_s].toInteger();
    for (const QJsonValue &v : pids[u"grandchildren"_s].toArray())
        f.pids << v.toInteger();
    f.supervisor = *RunDirectory(f.runDir).readSupervisor().value();
    return f;
}

// Every live process in the group, found by scanning /proc independently of the target.
QList<qint64> survivorsInGroup(qint64 group)
{
    QList<qint64> found;
    for (const QString &entry : QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        const auto state = processState(pid);
        if (state && !state->zombie && state->processGroup == group)
            found << pid;
    }
    return found;
}

bool isGone(qint64 pid, qint64 group)
{
    const auto state = processState(pid);
    return !state || state->zombie || state->processGroup != group; // gone, or the pid reused
}

} // namespace

class TestLocalTargetCancel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cancelStopsTheWholeFamily()
    {
        QTemporaryDir ws;
        const Family f = startFamily(ws);
        QCOMPARE(f.pids.size(), 3);
        const qint64 group = f.supervisor.processGroup;
        QVERIFY(survivorsInGroup(group).size() >= 4); // script, child, two sh, sleeps

        const auto cancelled = localTarget().cancel(f.runDir, kGraceMs);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QCOMPARE(survivorsInGroup(group), QList<qint64>());
        for (const qint64 pid : f.pids)
            QVERIFY2(isGone(pid, group), qPrintable(QString::number(pid)));

        const auto exit = RunDirectory(f.runDir).readExit();
        QVERIFY(exit && exit->has_value());
        QVERIFY((*exit)->cancelled);
        QVERIFY((*exit)->signal == SIGTERM || (*exit)->signal == SIGKILL);
        QVERIFY(waitFor([&] { return localTarget().probe(f.runDir)->archived; }));
        QVERIFY(waitFor([&] { return !supervisorAlive(f.supervisor); }));
    }

    // Supervisor killed: the run is still running while its group lives (M4); cancel finds the
    // group by group and session ids, stops it, and records the end itself.
    void cancelWithoutTheSupervisor()
    {
        QTemporaryDir ws;
        const Family f = startFamily(ws);
        QCOMPARE(f.pids.size(), 3);
        QCOMPARE(::kill(static_cast<pid_t>(f.supervisor.supervisorPid), SIGKILL), 0);
        QVERIFY(waitFor([&] { return !supervisorAlive(f.supervisor); }));
        const auto orphaned = localTarget().probe(f.runDir);
        QCOMPARE(orphaned->state, RunState::Running);
        QVERIFY2(orphaned->detail.contains(u"is gone"_s), qPrintable(orphaned->detail));
        QVERIFY(!survivorsInGroup(f.supervisor.processGroup).isEmpty()); // the script goes on

        const auto cancelled = localTarget().cancel(f.runDir, kGraceMs);
        QVERIFY2(cancelled, qPrintable(cancelled ? QString() : cancelled.error().toString()));
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QVERIFY(cancelled->archived);
        QCOMPARE(survivorsInGroup(f.supervisor.processGroup), QList<qint64>());
        QCOMPARE((*RunDirectory(f.runDir).readExit())->signal, SIGKILL); // one grandchild ignores TERM
    }

    // A script that saves its work on SIGTERM and exits 0 was still cancelled; what it saved
    // is packed.
    void gracefulScriptIsCancelledWithItsWork()
    {
        QTemporaryDir ws;
        const Family f = startFamily(ws, true);
        QCOMPARE(f.pids.size(), 3);
        const auto cancelled = localTarget().cancel(f.runDir, kGraceMs);
        QVERIFY(cancelled);
        QCOMPARE(cancelled->state, RunState::Cancelled);
        QCOMPARE(survivorsInGroup(f.supervisor.processGroup), QList<qint64>());
        QVERIFY(waitFor([&] { return localTarget().probe(f.runDir)->archived; }));
        const QString model = RunDirectory(f.runDir).modelArchive();
        QCOMPARE(*readArchiveFile(model, u"model.pth"_s), QByteArray("saved on SIGTERM"));
    }

    void cancelAfterTheEndChangesNothing()
    {
        QTemporaryDir ws;
        RunSpec spec;
        spec.id = u"done"_s;
        spec.script = u"fail.py"_s;
        spec.sourceDir = kScripts;
        spec.interpreter = u"/usr/bin/python3"_s;
        const QString runDir = RunDirectory::pathFor(ws.path(), spec.id);
        QVERIFY(localTarget().start(runDir, spec));
        QVERIFY(waitFor([&] { return localTarget().probe(runDir)->archived; }));
        const auto before = *RunDirectory(runDir).readExit();
        const auto cancelled = localTarget().cancel(runDir, kGraceMs);
        QVERIFY(cancelled);
        QCOMPARE(cancelled->state, RunState::Failed);
        QCOMPARE(*RunDirectory(runDir).readExit(), before);
    }
};

FERRY_TEST_GUILESS_MAIN(TestLocalTargetCancel)
#include "tst_localtarget_cancel.moc"
