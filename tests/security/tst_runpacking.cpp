// L1 (security review 2026-12-06): a run makes its model folder cost hours to pack. The review
// reproduced it with an 8 TiB sparse file in model/ (a container's model/ is writable): the
// supervisor read about 1 GB/s of zeros while the run showed "packing", and SIGTERM did not stop
// it. Here the real `ferry run` of a Python script (local target, the real supervisor) does the
// attack:
// - a 1 TiB sparse file (os.truncate) beside a small model: the run ends within seconds, the big
//   file left out with a note in the log naming it, its size and the setting; a 2 GiB file with
//   holes is packed by its data; the setting (runs/maxPackedFileGiB) lowered, it is left out too;
// - a model folder of 128 hard links to one 64 MiB file of random bytes (8 GiB to compress, minutes
//   of a core): `ferry runs cancel` while it packs stops packing at once, the archive left empty
//   with a note, nothing of the run running any more.
#include "run/archive.h"
#include "run/rundirectory.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/process.h"
#include "support/testmain.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

const QByteArray kSparse = R"(import os
model = os.environ['SM_MODEL_DIR']
with open(os.path.join(model, 'huge.bin'), 'wb') as f:
    os.truncate(f.fileno(), 1 << 40)
with open(os.path.join(model, 'holes.bin'), 'wb') as f:
    f.write(b'head')
    f.seek((2 << 30) - 4)
    f.write(b'tail')
with open(os.path.join(model, 'weights.bin'), 'wb') as f:
    f.write(b'w' * 1000)
print('made', flush=True)
)";

const QByteArray kLinks = R"(import os
model = os.environ['SM_MODEL_DIR']
first = os.path.join(model, 'weights-000.bin')
with open(first, 'wb') as f:
    f.write(os.urandom(64 << 20))
for i in range(1, 128):
    os.link(first, os.path.join(model, 'weights-%03d.bin' % i))
print('made', flush=True)
)";

// The pid in the run's supervisor.json; 0 when there is none.
qint64 supervisorPid(const QString &runDir)
{
    const QJsonObject record =
        QJsonDocument::fromJson(test::readFile(run::RunDirectory(runDir).supervisorFile())).object();
    return record[u"supervisorPid"_s].toInteger();
}

using ferry::test::processAlive;

} // namespace

class TestRunPacking : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;
    QList<qint64> m_supervisors; // stopped at the end whatever happened

    QString runDirOf(const QString &id) const { return m_ws + u"/.ferry/runs/"_s + id; }

    // The settings file the `ferry` under test reads (XDG_CONFIG_HOME is the test's own).
    static QString settingsFile()
    {
        return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/Ferry/ferry.conf"_s;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_ws = m_dir.filePath(u"ws"_s);
        test::writeFileOrStop(m_ws + u"/sparse.py"_s, kSparse);
        test::writeFileOrStop(m_ws + u"/links.py"_s, kLinks);
        test::writeFileOrStop(
            m_ws + u"/environments/local.yml"_s,
            "ferry: 1\nname: l1-local\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n");
        QFile::remove(settingsFile());
    }

    void cleanupTestCase()
    {
        for (const qint64 pid : std::as_const(m_supervisors))
            if (processAlive(pid))
                ::kill(static_cast<pid_t>(pid), SIGKILL);
        QFile::remove(settingsFile());
    }

    void aSparseTerabyteIsLeftOutWithinSeconds()
    {
        QElapsedTimer timer;
        timer.start();
        const auto r = test::runFerry(
            m_ws, {u"run"_s, u"sparse.py"_s, u"--env"_s, u"environments/local.yml"_s, u"--follow"_s}, 120000);
        qInfo("a run with a 1 TiB sparse file and a 2 GiB one with holes in model/: %lld ms", timer.elapsed());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString id =
            test::jsonArray(test::runFerry(m_ws, {u"runs"_s, u"list"_s, u"--json"_s})).first()[u"id"_s].toString();
        const run::RunDirectory dir(runDirOf(id));
        const QByteArray log = test::readFile(dir.logFile());
        QVERIFY2(log.contains("ferry: model/huge.bin is not in model.tar.gz: it is 1.0 TiB (1099511627776 bytes)") &&
                     log.contains("(setting runs/maxPackedFileGiB)"),
                 log.constData());
        QVERIFY2(r.out.contains(u"huge.bin is not in model.tar.gz"_s), qPrintable(r.out)); // followed: the note too
        QCOMPARE(*run::archiveEntries(dir.modelArchive()), (QStringList{u"holes.bin"_s, u"weights.bin"_s}));
        QVERIFY(QFileInfo(dir.modelArchive()).size() < 64 * 1024);     // the holes take no room
        QVERIFY(QFileInfo::exists(dir.path() + u"/model/huge.bin"_s)); // it stays in the run's folder

        // The limit is the user's: at 1 GiB, the 2 GiB file stays out too.
        {
            QSettings settings(settingsFile(), QSettings::IniFormat);
            settings.setValue(u"runs/maxPackedFileGiB"_s, 1);
        }
        const auto lowered = test::runFerry(
            m_ws, {u"run"_s, u"sparse.py"_s, u"--env"_s, u"environments/local.yml"_s, u"--follow"_s}, 120000);
        QFile::remove(settingsFile());
        QVERIFY2(lowered.exitCode == 0, qPrintable(lowered.err));
        QVERIFY2(lowered.out.contains(u"holes.bin is not in model.tar.gz: it is 2.0 GiB"_s) &&
                     lowered.out.contains(u"more than the 1.0 GiB"_s),
                 qPrintable(lowered.out));
    }

    void cancelStopsPackingAtOnce()
    {
        const auto started =
            test::runFerry(m_ws, {u"run"_s, u"links.py"_s, u"--env"_s, u"environments/local.yml"_s}, 120000);
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();
        const run::RunDirectory dir(runDirOf(id));
        QVERIFY(test::waitFor([&] { return supervisorPid(dir.path()) > 0; }, 60000));
        const qint64 supervisor = supervisorPid(dir.path());
        m_supervisors << supervisor;
        // The script has ended and the supervisor packs (8 GiB to compress: minutes).
        QVERIFY(test::waitFor([&] { return QFileInfo::exists(dir.exitFile()); }, 60000));
        QTest::qSleep(500);
        QVERIFY2(!QFileInfo::exists(dir.modelArchive()), "packed already: make the model bigger");

        QElapsedTimer timer;
        timer.start();
        const auto cancelled = test::runFerry(m_ws, {u"runs"_s, u"cancel"_s, id}, 120000);
        qInfo("ferry runs cancel while 8 GiB were being packed: %lld ms", timer.elapsed());
        QVERIFY2(cancelled.exitCode == 0, qPrintable(cancelled.err));
        QVERIFY(!processAlive(supervisor));
        // Stopped, not finished: the archive holds nothing, and the log says why.
        QCOMPARE(*run::archiveEntries(dir.modelArchive()), QStringList());
        const QByteArray log = test::readFile(dir.logFile());
        QVERIFY2(log.contains("ferry: packing model/ was cancelled: model.tar.gz holds nothing; the files are still in "
                              "the run's folder"),
                 log.constData());
        QCOMPARE(QDir(dir.path()).entryList({u"*.tmp-*"_s}, QDir::Files | QDir::Hidden), QStringList());
        const auto logs = test::runFerry(m_ws, {u"runs"_s, u"logs"_s, id});
        QVERIFY2(logs.out.contains(u"packing model/ was cancelled"_s), qPrintable(logs.out));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunPacking)
#include "tst_runpacking.moc"
