// L11 (security review 2026-12-01): a Ferry killed mid-start leaves /tmp/ferry-secrets-*
// (secret values), /tmp/ferry-engine-* (a registry login) and `*.tmp-*` files in run folders.
// They are swept at the next start: the real `ferry` binary is started over planted leftovers
// (makers that are gone, old temp files) and must remove them, and only them: a live process's
// folder, a fresh temp file, a script's own file in model/, a link's target, all survive.
#include "common/leftovers.h"
#include "common/processclock.h"
#include "secrets/redactor.h"
#include "support/files.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/containersecrets.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using ferry::test::readFile;
using ferry::test::writeFile;

namespace {

bool exists(const QString &path) // lstat: a link counts, dangling or not
{
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0;
}

bool makeOld(const QString &path) // modified an hour ago
{
    const struct timespec times[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
    return ::utimensat(AT_FDCWD, QFile::encodeName(path).constData(), times, AT_SYMLINK_NOFOLLOW) == 0;
}

// The pid of a process that has ended (and been reaped).
qint64 deadPid()
{
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
}

quint64 myTicks()
{
    return ferry::processState(::getpid()).value_or(ferry::ProcessState{}).startTicks;
}

} // namespace

class TestLeftoverSweep : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;    // the temp folder the swept `ferry` sees (TMPDIR)
    QTemporaryDir m_ws;     // a workspace with run folders
    QTemporaryDir m_victim; // what links point at

    QString tmp(const QString &name) const { return m_tmp.filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid() && m_ws.isValid() && m_victim.isValid());
        QVERIFY(writeFile(m_victim.filePath(u"keep.txt"_s), "victim"));
    }

    // The folders a crash leaves are named after their maker: ContainerSecrets::prepare in a
    // process that dies without cleaning up leaves one the sweep removes; while its maker lives,
    // the same sweep keeps it.
    void secretsFolderOfDeadMakerIsSwept()
    {
        qputenv("TMPDIR", m_tmp.path().toUtf8());
        int fds[2];
        QVERIFY(::pipe(fds) == 0);
        const pid_t child = ::fork();
        if (child == 0) { // "crashes" right after writing the secrets: no destructor runs
            ::close(fds[0]);
            auto *secrets = new ferry::targets::ContainerSecrets;
            ferry::secrets::Redactor redactor;
            redactor.addSecret(u"s3cr3t-value"_s);
            const bool ok = secrets->prepare({{u"TOKEN"_s, u"s3cr3t-value"_s}}, redactor, m_ws.path()).hasValue();
            const char byte = ok ? '1' : '0';
            (void)::write(fds[1], &byte, 1);
            for (;;)
                ::pause(); // alive until killed
        }
        ::close(fds[1]);
        char byte = 0;
        QCOMPARE(::read(fds[0], &byte, 1), 1);
        ::close(fds[0]);
        QCOMPARE(byte, '1');
        const QStringList made = QDir(m_tmp.path()).entryList({u"ferry-secrets-*"_s}, QDir::Dirs);
        QCOMPARE(made.size(), 1);
        QVERIFY2(made.first().startsWith(u"ferry-secrets-%1-"_s.arg(child)), qPrintable(made.first()));
        // Its maker lives: kept.
        QVERIFY(ferry::sweepTempLeftovers(m_tmp.path()).isEmpty());
        QVERIFY(QFileInfo::exists(tmp(made.first()) + u"/variables.json"_s));
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        // Its maker is gone: swept, values and all.
        QCOMPARE(ferry::sweepTempLeftovers(m_tmp.path()), QStringList{tmp(made.first())});
        QVERIFY(!exists(tmp(made.first())));
        QFile::remove(m_ws.filePath(ferry::targets::ContainerSecrets::kEntryFile));
        qunsetenv("TMPDIR");
    }

    // The next start of `ferry` (any command) sweeps: planted leftovers of dead makers go,
    // everything else stays.
    void nextStartSweeps()
    {
        const qint64 dead = deadPid();
        const QString me = QString::number(::getpid());
        const QString ticks = QString::number(myTicks());
        // Gone: a dead pid; a live pid whose start ticks differ (the pid was reused).
        const QString deadSecrets = tmp(u"ferry-secrets-%1-123-abcDEF"_s.arg(dead));
        const QString deadEngine = tmp(u"ferry-engine-%1-456-xyz123"_s.arg(dead));
        const QString reusedPid = tmp(u"ferry-secrets-%1-%2-reused"_s.arg(me).arg(myTicks() + 1));
        // Kept: this live process's own folder; a link with a leftover's name; other names.
        const QString live = tmp(u"ferry-secrets-%1-%2-liveAB"_s.arg(me, ticks));
        const QString link = tmp(u"ferry-engine-%1-789-linkAB"_s.arg(dead));
        const QString other = tmp(u"ferry-secrets-notours"_s);
        for (const QString &dir : {deadSecrets, deadEngine, reusedPid, live, other}) {
            QVERIFY(QDir().mkpath(dir));
            QVERIFY(writeFile(dir + u"/variables.json"_s, "{\"TOKEN\":\"x\"}"));
        }
        QVERIFY(QFile::link(m_victim.path(), link));

        // Run folders: old temp files go (a link among them as a link); a fresh one, a script's
        // file in model/ and Ferry's own files stay.
        const QString run = m_ws.filePath(u".ferry/runs/r1"_s);
        QVERIFY(QDir().mkpath(run + u"/model"_s));
        const QString oldExit = run + u"/exit.json.tmp-4242"_s;
        const QString oldArchive = run + u"/model.tar.gz.tmp-a1b2c3d4e5f6"_s;
        const QString oldLink = run + u"/heartbeat.tmp-zzzzzzzzzzzz"_s;
        const QString fresh = run + u"/exit.json.tmp-fresh0000000"_s;
        const QString scripts = run + u"/model/weights.tmp-1"_s;
        const QString spec = run + u"/spec.json"_s;
        for (const QString &file : {oldExit, oldArchive, fresh, scripts, spec})
            QVERIFY(writeFile(file, "x"));
        QVERIFY(QFile::link(m_victim.filePath(u"keep.txt"_s), oldLink));
        for (const QString &file : {oldExit, oldArchive, oldLink, scripts, spec})
            QVERIFY(makeOld(file));

        QProcess next;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(u"TMPDIR"_s, m_tmp.path());
        next.setProcessEnvironment(env);
        next.start(ferry::test::ferryBinary(), {u"runs"_s, u"list"_s, u"--workspace"_s, m_ws.path()});
        QVERIFY(next.waitForFinished(60000));
        QVERIFY2(next.exitCode() == 0, next.readAllStandardError().constData());

        for (const QString &gone : {deadSecrets, deadEngine, reusedPid, oldExit, oldArchive, oldLink})
            QVERIFY2(!exists(gone), qPrintable(gone));
        for (const QString &kept : {live, link, other, fresh, scripts, spec})
            QVERIFY2(exists(kept), qPrintable(kept));
        QVERIFY(QFileInfo::exists(live + u"/variables.json"_s));
        QCOMPARE(readFile(m_victim.filePath(u"keep.txt"_s)), QByteArray("victim")); // through no link
        QVERIFY(QFileInfo(link).isSymLink());
    }
};

FERRY_TEST_GUILESS_MAIN(TestLeftoverSweep)
#include "tst_leftoversweep.moc"
