// Review L12: SQLite's WAL keeps its index in shared memory that only processes of one host
// share, so a workspace on a network file system (two machines opening one NFS home) would
// corrupt the run store. There the store keeps a rollback journal (and synchronous FULL). The
// network file system here is a real one: sshfs over the test sshd (tests/services/sshd.sh).
#include "common/filesystem.h"
#include "run/runspec.h"
#include "store/runstore.h"
#include "support/cli.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;

class TestNetworkStore : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_mount;

    static QString journalMode(const QString &path)
    {
        QString mode;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"raw"_s);
            db.setDatabaseName(path);
            if (db.open()) {
                QSqlQuery q(u"PRAGMA journal_mode"_s, db);
                if (q.next())
                    mode = q.value(0).toString();
            }
            db.close();
        }
        QSqlDatabase::removeDatabase(u"raw"_s);
        return mode;
    }

    static int runCommand(const QString &program, const QStringList &args, QString *output = nullptr)
    {
        const ferry::test::CliResult r = ferry::test::runProgram(program, args, {}, 60000);
        if (output)
            *output = r.out + r.err;
        return r.exitCode;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString sshd = ferry::test::sshdDir();
        QVERIFY(QDir(m_dir.path()).mkpath(u"remote"_s) && QDir(m_dir.path()).mkpath(u"mnt"_s));
        m_mount = m_dir.filePath(u"mnt"_s);
        QString out;
        const int code = runCommand(u"sshfs"_s,
                                    {u"-F"_s, sshd + u"/config"_s, u"-o"_s, u"StrictHostKeyChecking=yes"_s, u"-o"_s,
                                     u"UserKnownHostsFile="_s + sshd + u"/known_hosts"_s,
                                     u"ferrytest:"_s + m_dir.filePath(u"remote"_s), m_mount},
                                    &out);
        QVERIFY2(code == 0, qPrintable(u"sshfs: "_s + out));
    }

    void cleanupTestCase()
    {
        if (!m_mount.isEmpty())
            runCommand(u"fusermount3"_s, {u"-u"_s, m_mount});
    }

    void typesAreClassified()
    {
        for (const QString &type : {u"nfs"_s, u"nfs4"_s, u"cifs"_s, u"smb3"_s, u"ceph"_s, u"lustre"_s, u"fuse.sshfs"_s})
            QVERIFY2(isNetworkFileSystemType(type), qPrintable(type));
        for (const QString &type :
             {u"ext4"_s, u"xfs"_s, u"btrfs"_s, u"tmpfs"_s, u"overlay"_s, u"fuseblk"_s, u"fuse.bindfs"_s, QString()})
            QVERIFY2(!isNetworkFileSystemType(type), qPrintable(type));
        QCOMPARE(networkFileSystem(m_dir.path()), QString());
        QCOMPARE(networkFileSystem(m_mount), u"fuse.sshfs"_s);
        // A path that does not exist yet is judged by the folder it will be made in.
        QCOMPARE(networkFileSystem(m_mount + u"/ws/.ferry/runs.sqlite"_s), u"fuse.sshfs"_s);
    }

    // On the network file system: a rollback journal, and the store works and keeps its data.
    void theStoreOnANetworkFileSystemKeepsARollbackJournal()
    {
        const QString path = m_mount + u"/ws/.ferry/runs.sqlite"_s;
        run::RunSpec spec;
        spec.id = u"20261202-010000-train-abcd"_s;
        spec.script = u"train.py"_s;
        spec.sourceDir = m_mount + u"/ws"_s;
        {
            auto store = run::RunStore::open(path);
            QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
            (*store)->createRun(run::newRunRecord(spec));
            QList<run::MetricPoint> points;
            for (int i = 0; i < 500; ++i)
                points << run::MetricPoint{u"loss"_s, double(i), 1.0 / (i + 1), 1000 + i};
            (*store)->appendMetrics(spec.id, points, 4242);
            (*store)->flush();
            QVERIFY((*store)->integrityCheck());
        }
        QCOMPARE(journalMode(path), u"delete"_s);
        QVERIFY(!QFile::exists(path + u"-wal"_s));
        auto again = run::RunStore::open(path);
        QVERIFY(again);
        const QList<run::MetricPoint> read = (*again)->metrics(spec.id, u"loss"_s);
        QCOMPARE(read.size(), 500);
        QCOMPARE(read.at(499).value, 1.0 / 500);

        // The same store on a local disk stays in WAL mode.
        const QString local = m_dir.filePath(u"local/.ferry/runs.sqlite"_s);
        {
            auto store = run::RunStore::open(local);
            QVERIFY(store);
        }
        QCOMPARE(journalMode(local), u"wal"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestNetworkStore)
#include "tst_networkstore.moc"
