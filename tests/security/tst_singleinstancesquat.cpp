// L4 (security review 2026-12-01; issue 14 item 9): the single-instance socket lives in the
// user's private folder. Another local user listens at the old predictable name in the shared
// /tmp (Qt put a bare name there) and offers a squatted XDG_RUNTIME_DIR (theirs, 0777): a
// second `ferry PATH...` (the real binary) must never hand the squatter its paths, and must
// still hand them to the real first instance.
#include "common/privatedir.h"
#include "squatter.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "ui/window/singleinstance.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <memory>
#include <vector>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::test;

namespace {

QString uniqueName()
{
    return u"ferry-test-"_s + QUuid::createUuid().toString(QUuid::Id128).left(12);
}

} // namespace

class TestSingleInstanceSquat : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QTemporaryDir m_cache;

    // The real `ferry`, offscreen, as instance `name`, in the environment this test has.
    void startFerry(QProcess &process, const QString &name, const QStringList &arguments)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"FERRY_INSTANCE_NAME"_s, name);
        env.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        env.insert(u"XDG_CONFIG_HOME"_s, m_dir.filePath(u"config"_s));
        process.setProcessEnvironment(env);
        process.setWorkingDirectory(m_dir.path());
        process.start(ferry::test::ferryBinary(), arguments);
    }

    // The victim's first instance and second `ferry`, with the squatter's traps in place.
    void handOverPastTheSquatter(const QString &name, std::vector<std::unique_ptr<SquatterSocket>> &traps)
    {
        ui::SingleInstance running(name);
        QVERIFY2(running.listen(), qPrintable(running.errorString()));
        const QString socket = running.socketPath();
        QVERIFY2(checkPrivateDir(QFileInfo(socket).path()), qPrintable(socket));
        QVERIFY2(!socket.startsWith(u"/tmp/"_s + name), qPrintable(socket));
        QSignalSpy received(&running, &ui::SingleInstance::pathsReceived);

        QProcess second;
        startFerry(second, name, {u"secret-plans.csv"_s});
        QVERIFY(received.wait(30000));
        QCOMPARE(received.front().front().toStringList(), QStringList{m_dir.filePath(u"secret-plans.csv"_s)});
        QVERIFY(second.waitForFinished(30000));
        QCOMPARE(second.exitStatus(), QProcess::NormalExit);
        QCOMPARE(second.exitCode(), 0);
        for (const auto &trap : traps)
            QCOMPARE(trap->connections(), 0);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QFile csv(m_dir.filePath(u"secret-plans.csv"_s));
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("a,b\n1,2\n");
        qputenv("XDG_CACHE_HOME", QFile::encodeName(m_cache.path())); // in the children too
    }

    void cleanupTestCase()
    {
        qunsetenv("XDG_RUNTIME_DIR");
        if (const auto mine = privateTempDir())
            QDir(*mine).removeRecursively();
    }

    // No XDG_RUNTIME_DIR: the old name /tmp/<name> is the squatter's socket.
    void squatterAtTheOldNameGetsNothing()
    {
        qunsetenv("XDG_RUNTIME_DIR");
        const QString name = uniqueName();
        std::vector<std::unique_ptr<SquatterSocket>> traps;
        traps.push_back(std::make_unique<SquatterSocket>(QDir::tempPath() + u'/' + name));
        QVERIFY(traps.back()->listening());
        handOverPastTheSquatter(name, traps);
    }

    // XDG_RUNTIME_DIR names another user's open folder, with a socket of theirs in it.
    void squattedRuntimeFolderIsNotUsed()
    {
        QTemporaryDir parent;
        const QString squat = parent.filePath(u"rt"_s);
        QString why;
        QVERIFY2(plantSquattedFolder(squat, why), qPrintable(why));
        const QString name = uniqueName();
        std::vector<std::unique_ptr<SquatterSocket>> traps;
        traps.push_back(std::make_unique<SquatterSocket>(squat + u'/' + name));
        traps.push_back(std::make_unique<SquatterSocket>(QDir::tempPath() + u'/' + name));
        for (const auto &trap : traps)
            QVERIFY(trap->listening());
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(squat));
        handOverPastTheSquatter(name, traps);
        qunsetenv("XDG_RUNTIME_DIR");
        QCOMPARE(entriesOf(squat), QStringList{name}); // nothing of the victim's in there
    }

    // A private XDG_RUNTIME_DIR is used as it is: the socket sits in it.
    void privateRuntimeFolderHoldsTheSocket()
    {
        QTemporaryDir parent;
        const QString runtime = parent.filePath(u"rt"_s);
        QVERIFY(ensurePrivateDir(runtime));
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime));
        const QString name = uniqueName();
        QCOMPARE(*ui::SingleInstance::socketPath(name), runtime + u'/' + name);
        std::vector<std::unique_ptr<SquatterSocket>> traps;
        traps.push_back(std::make_unique<SquatterSocket>(QDir::tempPath() + u'/' + name));
        QVERIFY(traps.back()->listening());
        handOverPastTheSquatter(name, traps);
        qunsetenv("XDG_RUNTIME_DIR");
    }
};

FERRY_TEST_MAIN(TestSingleInstanceSquat)
#include "tst_singleinstancesquat.moc"
