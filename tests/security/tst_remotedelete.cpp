// M2 (review security-2026-12-01, issue 14 "secrets leave nothing behind"): deleting an SSH
// run offers to remove its folder on the host (data copies, model). `ferry runs delete ID`
// against the real test sshd: without --remote or --keep-remote it deletes nothing and names
// both (CI has no terminal to ask); --keep-remote leaves the host's folder, --remote removes it.
#include "support/remote.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::test::ferryCli;
using ferry::test::kHost;
using ferry::test::SshSandbox;

namespace {

// A finished SSH run of hello.py in `ws`, its folder on the host under ws/host: its id.
QString finishedRun(const SshSandbox &sandbox, const QTemporaryDir &ws)
{
    QFile script(ws.filePath(u"hello.py"_s));
    if (!QFile::exists(script.fileName()) && script.open(QIODevice::WriteOnly)) {
        script.write("print('hello')\n");
        script.close();
    }
    const auto ran = ferryCli(sandbox, ws.path(),
                              {u"run"_s, u"hello.py"_s, u"--target"_s, u"ssh:"_s + kHost, u"--remote-dir"_s,
                               ws.filePath(u"host"_s), u"--follow"_s});
    if (ran.exitCode != 0)
        qWarning("ferry run: %s", qPrintable(ran.err));
    return ran.out.section(u'\n', 0, 0).trimmed();
}

int runCount(const SshSandbox &sandbox, const QTemporaryDir &ws)
{
    const auto list = ferryCli(sandbox, ws.path(), {u"runs"_s, u"list"_s, u"--json"_s});
    return static_cast<int>(QJsonDocument::fromJson(list.out.toUtf8()).array().size());
}

} // namespace

class TestRemoteDelete : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deleteNamesWhatHappensOnTheHost()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString kept = finishedRun(sandbox, ws);
        const QString removed = finishedRun(sandbox, ws);
        QVERIFY(!kept.isEmpty() && !removed.isEmpty());
        const QString keptThere = ws.filePath(u"host/"_s + kept);
        const QString removedThere = ws.filePath(u"host/"_s + removed);
        QVERIFY(QFile::exists(keptThere + u"/log"_s));
        QVERIFY(QFile::exists(removedThere + u"/log"_s));
        QCOMPARE(runCount(sandbox, ws), 2);

        // Neither flag: nothing deleted, both flags named.
        const auto asked = ferryCli(sandbox, ws.path(), {u"runs"_s, u"delete"_s, kept});
        QCOMPARE(asked.exitCode, 1);
        QVERIFY2(asked.err.contains(u"--remote"_s) && asked.err.contains(u"--keep-remote"_s), qPrintable(asked.err));
        QCOMPARE(runCount(sandbox, ws), 2);
        QVERIFY(QFile::exists(keptThere + u"/log"_s));
        QVERIFY(QFile::exists(ws.filePath(u".ferry/runs/"_s + kept + u"/spec.json"_s)));

        const auto keep = ferryCli(sandbox, ws.path(), {u"runs"_s, u"delete"_s, kept, u"--keep-remote"_s});
        QVERIFY2(keep.exitCode == 0, qPrintable(keep.err));
        QCOMPARE(runCount(sandbox, ws), 1);
        QVERIFY(!QFileInfo::exists(ws.filePath(u".ferry/runs/"_s + kept)));
        QVERIFY(QFile::exists(keptThere + u"/log"_s)); // left on the host

        const auto remove = ferryCli(sandbox, ws.path(), {u"runs"_s, u"delete"_s, removed, u"--remote"_s});
        QVERIFY2(remove.exitCode == 0, qPrintable(remove.err));
        QCOMPARE(runCount(sandbox, ws), 0);
        QVERIFY(!QFileInfo::exists(ws.filePath(u".ferry/runs/"_s + removed)));
        QVERIFY2(!QFileInfo::exists(removedThere), "the folder on the host is gone");
        QVERIFY(QFile::exists(keptThere + u"/log"_s)); // only the run's own folder
    }

    // A remote.json that names another folder (not the run's own) is not obeyed.
    void deleteRemovesOnlyTheRunsOwnFolder()
    {
        const SshSandbox sandbox;
        QTemporaryDir ws;
        const QString id = finishedRun(sandbox, ws);
        QVERIFY(!id.isEmpty());
        const QString victim = ws.filePath(u"precious"_s);
        QVERIFY(QDir().mkpath(victim));
        QFile(victim + u"/keep.txt"_s).open(QIODevice::WriteOnly);
        QFile record(ws.filePath(u".ferry/runs/"_s + id + u"/remote.json"_s));
        QVERIFY(record.open(QIODevice::WriteOnly | QIODevice::Truncate));
        record.write(
            QJsonDocument(QJsonObject{{u"host"_s, kHost}, {u"dir"_s, victim}, {u"jobId"_s, QString()}}).toJson());
        record.close();
        const auto refused = ferryCli(sandbox, ws.path(), {u"runs"_s, u"delete"_s, id, u"--remote"_s});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains(u"not removed"_s), qPrintable(refused.err));
        QVERIFY(QFile::exists(victim + u"/keep.txt"_s));
        QCOMPARE(runCount(sandbox, ws), 1);
    }
};

FERRY_TEST_GUILESS_MAIN(TestRemoteDelete)
#include "tst_remotedelete.moc"
