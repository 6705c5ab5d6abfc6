// M9 (security review 2026-12-01; issue 14 item 9): the SSH control-socket folder is the
// user's own. Another local user squats the names Ferry once fell back to in the shared /tmp
// (/tmp/ferry-ssh, Qt's /tmp/runtime-<user>, /tmp/ferry-ssh-<uid>-<tag> for a long runtime
// folder) and listens there at the socket name ssh would use; a mux client would hand it its
// command and stdin, secrets included. With XDG_RUNTIME_DIR unset, or pointing at a squat,
// Ferry's ssh must use a private 0700 folder of its own (real ssh to the test sshd still works)
// and the squatter gets no connection; a control folder opened to others is refused clearly.
#include "common/privatedir.h"
#include "common/safefile.h"
#include "squatter.h"
#include "support/remote.h"
#include "support/testmain.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <utility>
#include <vector>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::test;

namespace {

QString userName()
{
    const QString user = qEnvironmentVariable("USER");
    return user.isEmpty() ? u"root"_s : user;
}

// A shell to the test sshd with Ferry's own choice of control folder.
targets::SshShell shellWith(const SshSandbox &sandbox, const QString &controlDir)
{
    targets::SshOptions o = sandbox.options();
    o.controlDir = controlDir;
    return targets::SshShell(kHost, o);
}

} // namespace

class TestSshControlSquat : public QObject {
    Q_OBJECT

    QTemporaryDir m_cache; // the victim's own cache folder: where its private folder is remembered
    QStringList m_planted;

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_CACHE_HOME", QFile::encodeName(m_cache.path()));
        qunsetenv("XDG_RUNTIME_DIR");
    }

    void cleanupTestCase()
    {
        for (const QString &path : std::as_const(m_planted))
            QDir(path).removeRecursively();
        const auto mine = privateTempDir();
        if (mine)
            QDir(*mine).removeRecursively();
    }

    void squattedFoldersAreNeverUsed()
    {
        const QString runtimeSquat = u"/tmp/runtime-"_s + userName(); // Qt's fallback
        QTemporaryDir xdgSquatParent;
        const QString xdgSquat = xdgSquatParent.filePath(u"rt"_s); // an XDG_RUNTIME_DIR that is not ours
        QStringList squats{u"/tmp/ferry-ssh"_s, xdgSquat};
        // Qt's fallback may be there already, made by a Qt program of this user's (never by
        // Ferry now): squatted only when free. Either way Ferry's folder is a mkdtemp one.
        if (entryKind(runtimeSquat) == EntryKind::Missing)
            squats << runtimeSquat << runtimeSquat + u"/ferry-ssh"_s;
        for (const QString &path : std::as_const(squats)) {
            QString why;
            QVERIFY2(plantSquattedFolder(path, why), qPrintable(why));
            if (!path.endsWith(u"/ferry-ssh"_s) || path == u"/tmp/ferry-ssh"_s)
                m_planted << path;
        }

        SshSandbox sandbox;
        QStringList chosen;
        for (const QByteArray &xdg : {QByteArray(), QFile::encodeName(xdgSquat)}) {
            if (xdg.isEmpty())
                qunsetenv("XDG_RUNTIME_DIR");
            else
                qputenv("XDG_RUNTIME_DIR", xdg);
            const targets::SshOptions o = targets::SshOptions::defaults();
            QVERIFY(!o.controlDir.isEmpty());
            for (const QString &squat : std::as_const(m_planted))
                QVERIFY2(!o.controlDir.startsWith(squat), qPrintable(o.controlDir));
            const QString parent = QFileInfo(o.controlDir).path();
            QVERIFY2(checkPrivateDir(parent), qPrintable(parent));
            QVERIFY2(!o.controlDir.startsWith(runtimeSquat + u'/'), qPrintable(o.controlDir));
            QVERIFY2(QFileInfo(parent).fileName().startsWith(u"ferry-%1-"_s.arg(::geteuid())), qPrintable(parent));
            chosen << o.controlDir;
        }
        qunsetenv("XDG_RUNTIME_DIR");
        QCOMPARE(chosen[0], chosen[1]); // one remembered private folder, found again
        const QString controlDir = chosen[0];

        // A first connection tells the socket's name (%C) ssh uses for this host: the master
        // stays (ControlPersist) with its socket in the private folder until closed.
        QString socketName;
        {
            targets::SshShell shell = shellWith(sandbox, controlDir);
            const auto r = shell.run({u"true"_s}, {}, 30000);
            QVERIFY2(r.ok(), qPrintable(r.errorText()));
            QVERIFY2(checkPrivateDir(controlDir), qPrintable(controlDir));
            const QStringList sockets = entriesOf(controlDir);
            QCOMPARE(sockets.size(), 1);
            socketName = sockets.first();
            shell.closeMaster();
        }
        QCOMPARE(socketName.size(), 40);

        // The squatter listens where the old code would have connected.
        std::vector<std::unique_ptr<SquatterSocket>> traps;
        QStringList trapped{u"/tmp/ferry-ssh"_s, xdgSquat};
        if (squats.contains(runtimeSquat))
            trapped << runtimeSquat + u"/ferry-ssh"_s;
        for (const QString &dir : std::as_const(trapped)) {
            traps.push_back(std::make_unique<SquatterSocket>(dir + u'/' + socketName));
            QVERIFY2(traps.back()->listening(), qPrintable(dir));
        }
        for (const QByteArray &xdg : {QByteArray(), QFile::encodeName(xdgSquat)}) {
            if (xdg.isEmpty())
                qunsetenv("XDG_RUNTIME_DIR");
            else
                qputenv("XDG_RUNTIME_DIR", xdg);
            targets::SshShell shell = shellWith(sandbox, targets::SshOptions::defaults().controlDir);
            const auto r = shell.run({u"echo"_s, u"through-my-own-socket"_s}, {}, 30000);
            QVERIFY2(r.ok(), qPrintable(r.errorText()));
            QCOMPARE(r.out.trimmed(), QByteArray("through-my-own-socket"));
            shell.closeMaster();
        }
        qunsetenv("XDG_RUNTIME_DIR");
        for (const auto &trap : traps)
            QCOMPARE(trap->connections(), 0);
        // Nothing of the victim's was created in the squats either.
        QCOMPARE(entriesOf(u"/tmp/ferry-ssh"_s), QStringList{socketName});
        QCOMPARE(entriesOf(xdgSquat), QStringList{socketName});
    }

    // The old code's name for a long runtime folder, /tmp/ferry-ssh-<uid>-<sha1 tag>, squatted:
    // Ferry takes its private temp folder instead.
    void longRuntimeFolderFallbackIsPrivate()
    {
        QTemporaryDir longParent;
        const QString longRuntime = longParent.filePath(QString(70, u'r'));
        QVERIFY(QDir().mkdir(longRuntime));
        QVERIFY(QFile::setPermissions(longRuntime, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
        const QByteArray tag = QCryptographicHash::hash(longRuntime.toUtf8(), QCryptographicHash::Sha1).toHex().left(8);
        const QString oldName = u"/tmp/ferry-ssh-%1-%2"_s.arg(::getuid()).arg(QString::fromLatin1(tag));
        QString why;
        QVERIFY2(plantSquattedFolder(oldName, why), qPrintable(why));
        m_planted << oldName;
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(longRuntime));
        const targets::SshOptions o = targets::SshOptions::defaults();
        qunsetenv("XDG_RUNTIME_DIR");
        QVERIFY2(!o.controlDir.startsWith(oldName) && !o.controlDir.startsWith(longRuntime), qPrintable(o.controlDir));
        QVERIFY(o.controlDir.toUtf8().size() + 41 <= 100);
        QVERIFY2(checkPrivateDir(QFileInfo(o.controlDir).path()), qPrintable(o.controlDir));
    }

    // A control folder someone opened to others (or replaced by a link to theirs) is refused
    // with a clear error before ssh runs; the next Ferry process makes a new private folder.
    void openedControlFolderIsRefused()
    {
        SshSandbox sandbox;
        const QString controlDir = targets::SshOptions::defaults().controlDir;
        QVERIFY(!controlDir.isEmpty());
        QVERIFY(ensurePrivateDir(controlDir));
        const QString mine = QFileInfo(controlDir).path();
        QVERIFY(::chmod(QFile::encodeName(controlDir).constData(), 0777) == 0);
        const auto refused = shellWith(sandbox, controlDir).run({u"true"_s}, {}, 30000);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.failure.contains(u"open to other users"_s), qPrintable(refused.failure));
        QTemporaryDir upload;
        const auto rsync =
            shellWith(sandbox, controlDir)
                .rsync({u"-a"_s}, {upload.path() + u'/'}, shellWith(sandbox, controlDir).remotePath(u"/tmp/x"_s));
        QVERIFY(!rsync);
        QVERIFY2(rsync.error().toString().contains(u"open to other users"_s), qPrintable(rsync.error().toString()));

        // The private folder itself opened: a new one is made, and used.
        QVERIFY(::chmod(QFile::encodeName(mine).constData(), 0777) == 0);
        const QString next = targets::SshOptions::defaults().controlDir;
        QVERIFY2(!next.startsWith(mine + u'/'), qPrintable(next));
        QVERIFY(checkPrivateDir(QFileInfo(next).path()));
        const auto r = shellWith(sandbox, next).run({u"true"_s}, {}, 30000);
        QVERIFY2(r.ok(), qPrintable(r.errorText()));
        shellWith(sandbox, next).closeMaster();
        QDir(mine).removeRecursively();

        // A link in place of the control folder, to a folder another user owns.
        QTemporaryDir other;
        QString why;
        QVERIFY2(plantSquattedFolder(other.filePath(u"theirs"_s), why), qPrintable(why));
        QDir(next).removeRecursively();
        QVERIFY(QFile::link(other.filePath(u"theirs"_s), next));
        const auto linked = shellWith(sandbox, next).run({u"true"_s}, {}, 30000);
        QVERIFY(!linked.ok());
        QVERIFY2(linked.failure.contains(u"symbolic link"_s), qPrintable(linked.failure));
        QCOMPARE(entriesOf(other.filePath(u"theirs"_s)), QStringList());
        QFile::remove(next);
    }
};

FERRY_TEST_GUILESS_MAIN(TestSshControlSquat)
#include "tst_sshcontrolsquat.moc"
