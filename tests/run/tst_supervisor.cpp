// `ferry __supervise RUN_DIR` run as a real process, and what it leaves in the run folder:
// records, heartbeat, log, exit status, archives; finalize() and packing on their own.
#include "run/archive.h"
#include "run/rundirectory.h"
#include "run/supervisor.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "support/wait.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <QElapsedTimer>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

const QString kScripts = QStringLiteral(FERRY_TEST_DATA "/runs/scripts");

using ferry::test::waitFor;

RunSpec specFor(const QString &script, QList<Hyperparameter> hps = {})
{
    RunSpec spec;
    spec.id = u"run-"_s + QFileInfo(script).completeBaseName();
    spec.script = script;
    spec.sourceDir = kScripts;
    spec.interpreter = u"/usr/bin/python3"_s;
    spec.hyperparameters = std::move(hps);
    return spec;
}

// A run folder holding spec.json, as a target prepares it.
QString prepare(const QTemporaryDir &workspace, const RunSpec &spec)
{
    const QString path = RunDirectory::pathFor(workspace.path(), spec.id);
    if (!QDir().mkpath(path) || !RunDirectory(path).writeSpec(spec))
        return {};
    return path;
}

int supervise(const QString &runDir)
{
    QProcess process;
    process.start(ferry::test::ferryBinary(), {u"__supervise"_s, runDir});
    if (!process.waitForFinished(120000))
        return -1;
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

ExitRecord exitOf(const QString &runDir)
{
    const auto exit = RunDirectory(runDir).readExit();
    return exit && exit->has_value() ? **exit : ExitRecord{-99, -99, 0, false, u"no exit.json"_s};
}

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

QString readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestSupervisor : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void recordsLogAndArchives()
    {
        QTemporaryDir ws;
        const RunSpec spec = specFor(u"report.py"_s, {{u"epochs"_s, u"2"_s}});
        const QString runDir = prepare(ws, spec);
        QVERIFY(!runDir.isEmpty());
        QCOMPARE(supervise(runDir), 0);
        const RunDirectory dir(runDir);

        const auto record = dir.readSupervisor();
        QVERIFY(record && record->has_value());
        const SupervisorRecord &s = **record;
        QCOMPARE(s.processGroup, s.childPid); // the script leads a group of its own
        QVERIFY(s.childStartTicks > 0);
        QVERIFY(s.supervisorStartTicks > 0);
        QCOMPARE(s.bootId, currentBootId());
        QVERIFY(!supervisorAlive(s)); // it has ended

        const QJsonObject report = readJson(runDir + u"/output/data/report.json"_s);
        QCOMPARE(report[u"pid"_s].toInteger(), s.childPid);
        QCOMPARE(report[u"pgid"_s].toInteger(), s.childPid);
        QCOMPARE(report[u"sid"_s].toInteger(), s.supervisorPid); // the supervisor leads a session
        QVERIFY(report[u"sid"_s].toInteger() != ::getsid(0));    // not ours
        // The run's working folder (run/workfolder.h): the script found as in its source folder.
        QCOMPARE(report[u"cwd"_s].toString(), runDir + u"/code"_s);
        QCOMPARE(QFileInfo(runDir + u"/code/report.py"_s).symLinkTarget(), kScripts + u"/report.py"_s);
        QVERIFY(QFile::exists(dir.logTimesFile())); // the log's lines are dated
        QCOMPARE(report[u"stdin"_s].toString(), QString());
        QCOMPARE(report[u"argv"_s].toVariant().toStringList(), (QStringList{u"--epochs"_s, u"2"_s}));

        const QString log = readAll(dir.logFile());
        QVERIFY2(log.contains(u"hello from the script\n"_s), qPrintable(log));
        QVERIFY(log.contains(u"to stderr\n"_s));
        QVERIFY(dir.heartbeatMs().has_value());

        const ExitRecord exit = exitOf(runDir);
        QCOMPARE(exit.exitCode, 0);
        QCOMPARE(exit.signal, 0);
        QVERIFY(!exit.cancelled);
        QVERIFY(exit.succeeded());
        QVERIFY(exit.finishedMs > 0);

        const auto entries = archiveEntries(dir.modelArchive());
        QVERIFY(entries);
        QCOMPARE(*entries, (QStringList{u"model.pth"_s, u"sub/"_s, u"sub/weights.bin"_s}));
        const auto weights = readArchiveFile(dir.modelArchive(), u"sub/weights.bin"_s);
        QVERIFY(weights);
        QCOMPARE(weights->size(), 256 * 4096);
        QCOMPARE(weights->at(255), '\xff');
        QCOMPARE(*archiveEntries(dir.outputArchive()), QStringList{u"report.json"_s});
        QVERIFY(QDir(runDir).entryList({u"*.tmp-*"_s}).isEmpty()); // no temporary file left
    }

    void heartbeatWhileRunning()
    {
        QTemporaryDir ws;
        const QString go = ws.filePath(u"go"_s);
        const QString runDir = prepare(ws, specFor(u"waiter.py"_s, {{u"go-file"_s, go}}));
        QProcess process;
        process.start(ferry::test::ferryBinary(), {u"__supervise"_s, runDir});
        const RunDirectory dir(runDir);
        QVERIFY(waitFor([&] { return dir.heartbeatMs().has_value(); }, 60000));
        const qint64 first = *dir.heartbeatMs();
        QVERIFY(waitFor([&] { return dir.heartbeatMs().value_or(first) > first; }, 60000));
        QVERIFY(!QFileInfo::exists(dir.exitFile()));
        QFile(go).open(QIODevice::WriteOnly);
        QVERIFY(process.waitForFinished(60000));
        QVERIFY(exitOf(runDir).succeeded());
    }

    void terminateIsACancel()
    {
        QTemporaryDir ws;
        const QString runDir = prepare(ws, specFor(u"waiter.py"_s, {{u"go-file"_s, ws.filePath(u"never"_s)}}));
        QProcess process;
        process.start(ferry::test::ferryBinary(), {u"__supervise"_s, runDir});
        const RunDirectory dir(runDir);
        QVERIFY(waitFor([&] { return QFileInfo::exists(dir.supervisorFile()); }, 60000));
        QCOMPARE(::kill(static_cast<pid_t>(process.processId()), SIGTERM), 0);
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        const ExitRecord exit = exitOf(runDir);
        QVERIFY(exit.cancelled);
        QCOMPARE(exit.signal, SIGTERM); // forwarded to the script's group
        QCOMPARE(exit.exitCode, -1);
        QVERIFY(QFileInfo::exists(dir.modelArchive()));
    }

    void signalEndsTheScript()
    {
        QTemporaryDir ws;
        const QString runDir = prepare(ws, specFor(u"killself.py"_s));
        QCOMPARE(supervise(runDir), 0);
        const ExitRecord exit = exitOf(runDir);
        QCOMPARE(exit.signal, SIGKILL);
        QCOMPARE(exit.exitCode, -1);
        QVERIFY(!exit.succeeded());
        QVERIFY(!exit.cancelled);
    }

    // The run ends with its script: what it left running in its group is stopped, even a
    // process that ignores SIGTERM.
    void leftoversAreStopped()
    {
        QTemporaryDir ws;
        const QString runDir = prepare(ws, specFor(u"leftovers.py"_s));
        QCOMPARE(supervise(runDir), 0);
        const qint64 stray = readJson(runDir + u"/output/data/stray.json"_s)[u"pid"_s].toInteger();
        QVERIFY(stray > 0);
        const auto record = RunDirectory(runDir).readSupervisor();
        QVERIFY(record && record->has_value());
        QVERIFY(liveGroupMembers((*record)->processGroup, (*record)->supervisorPid).isEmpty());
        const auto state = processState(stray);
        QVERIFY(!state || state->zombie || state->processGroup != (*record)->processGroup);
        QVERIFY(exitOf(runDir).succeeded());
    }

    void missingInterpreterIsRecorded()
    {
        QTemporaryDir ws;
        RunSpec spec = specFor(u"report.py"_s);
        spec.interpreter = u"python-that-does-not-exist"_s;
        const QString runDir = prepare(ws, spec);
        QCOMPARE(supervise(runDir), 0);
        const ExitRecord exit = exitOf(runDir);
        QCOMPARE(exit.exitCode, 127);
        QVERIFY2(exit.error.contains(u"cannot start the interpreter 'python-that-does-not-exist': not found"_s),
                 qPrintable(exit.error));
        QVERIFY(readAll(RunDirectory(runDir).logFile()).contains(u"ferry: cannot start the interpreter"_s));
        QVERIFY(!QFileInfo::exists(RunDirectory(runDir).supervisorFile()));
        QVERIFY(QFileInfo::exists(RunDirectory(runDir).modelArchive())); // ended runs always have archives
    }

    void missingScriptIsRecorded()
    {
        QTemporaryDir ws;
        const QString runDir = prepare(ws, specFor(u"no-such-script.py"_s));
        QCOMPARE(supervise(runDir), 0);
        const ExitRecord exit = exitOf(runDir);
        QVERIFY(!exit.succeeded());
        QVERIFY2(exit.error.contains(u"no such script"_s), qPrintable(exit.error));
    }

    void unreadableSpecIsRecorded()
    {
        QTemporaryDir ws;
        const QString runDir = ws.filePath(u"broken"_s);
        QVERIFY(QDir().mkpath(runDir));
        QFile spec(runDir + u"/spec.json"_s);
        QVERIFY(spec.open(QIODevice::WriteOnly));
        spec.write("{not json");
        spec.close();
        QCOMPARE(supervise(runDir), 0);
        QVERIFY2(exitOf(runDir).error.contains(u"spec.json"_s), qPrintable(exitOf(runDir).error));
    }

    void finalizeIsIdempotent()
    {
        QTemporaryDir ws;
        const QString runDir = prepare(ws, specFor(u"report.py"_s));
        const RunDirectory dir(runDir);
        QVERIFY(QDir().mkpath(runDir + u"/model"_s));
        const auto early = finalize(runDir);
        QVERIFY(!early); // not before the run has ended
        QVERIFY(early.error().message.contains(u"not ended"_s));

        QCOMPARE(supervise(runDir), 0);
        const QStringList entries = *archiveEntries(dir.modelArchive());
        const QDateTime packedAt = QFileInfo(dir.modelArchive()).lastModified();
        QVERIFY(finalize(runDir)); // again: nothing to do
        QCOMPARE(QFileInfo(dir.modelArchive()).lastModified(), packedAt);
        QVERIFY(QFile::remove(dir.modelArchive()));
        QVERIFY(QFile::remove(dir.outputArchive()));
        QVERIFY(finalize(runDir)); // after a crash mid-packing: packs again, the same
        QCOMPARE(*archiveEntries(dir.modelArchive()), entries);
        QVERIFY(QFileInfo::exists(dir.outputArchive()));
    }

    void packingKeepsTreeAndLinks()
    {
        QTemporaryDir ws;
        QDir root(ws.filePath(u"model"_s));
        QVERIFY(root.mkpath(u"nested/deeper"_s));
        QVERIFY(root.mkpath(u"empty"_s));
        for (const QString &name : {u"nested/deeper/a.bin"_s, u".hidden"_s, u"gewichte-ä.pth"_s}) {
            QFile f(root.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(name.toUtf8());
        }
        QVERIFY(QFile::link(u"/etc/passwd"_s, root.filePath(u"link"_s)));
        const QString archive = ws.filePath(u"model.tar.gz"_s);
        QVERIFY(packDirectory(root.path(), archive));
        const QStringList expected{u".hidden"_s, u"empty/"_s,         u"gewichte-ä.pth"_s,     u"link"_s,
                                   u"nested/"_s, u"nested/deeper/"_s, u"nested/deeper/a.bin"_s};
        QCOMPARE(*archiveEntries(archive), expected);
        QCOMPARE(*readArchiveFile(archive, u"gewichte-ä.pth"_s), u"gewichte-ä.pth"_s.toUtf8());
        QVERIFY(!readArchiveFile(archive, u"link"_s)); // a link, not the file it points to

        // GNU tar reads it the same.
        QProcess tar;
        tar.start(u"tar"_s, {u"tzvf"_s, archive});
        QVERIFY(tar.waitForFinished(60000));
        QCOMPARE(tar.exitCode(), 0);
        const QString listing = QString::fromUtf8(tar.readAllStandardOutput());
        QVERIFY2(listing.contains(u"link -> /etc/passwd"_s), qPrintable(listing));
        QVERIFY(listing.contains(u"nested/deeper/a.bin"_s));
    }

    // L1 (security review 2026-12-06): a run's model/ held a sparse file of 8 TiB, packed at its
    // apparent size (hours of zeros) while SIGTERM went unheard. Holes are now stored as holes
    // (GNU tar's sparse pax entries), a file over the limit is left out and named, and a cancel
    // stops packing at once, leaving no archive and no temp file.
    void sparseFilesArePackedByTheirData()
    {
        QTemporaryDir ws;
        QDir root(ws.filePath(u"model"_s));
        QVERIFY(root.mkpath(u"."_s));
        const auto sparse = [&](const QString &name, qint64 size, const QList<std::pair<qint64, QByteArray>> &data) {
            const int fd = ::open(QFile::encodeName(root.filePath(name)).constData(), O_WRONLY | O_CREAT, 0644);
            bool ok = fd >= 0 && ::ftruncate(fd, size) == 0;
            for (const auto &[offset, bytes] : data)
                ok = ok && ::pwrite(fd, bytes.constData(), size_t(bytes.size()), offset) == bytes.size();
            return ::close(fd) == 0 && ok;
        };
        QVERIFY(sparse(u"holes.bin"_s, qint64(8) << 30, {{0, "head"}, {(qint64(8) << 30) - 4, "tail"}}));
        QVERIFY(sparse(u"empty-but-large.bin"_s, qint64(4) << 30, {}));
        QVERIFY(sparse(u"small.bin"_s, 3 << 20, {{0, "A"}, {(2 << 20) + 7, "B"}}));
        QVERIFY(sparse(u"too-large.bin"_s, qint64(1) << 40, {}));
        const QString archive = ws.filePath(u"model.tar.gz"_s);
        PackLimits limits;
        limits.maxFileBytes = qint64(10) << 30;
        QElapsedTimer timer;
        timer.start();
        const auto packed = packDirectory(root.path(), archive, limits);
        qInfo("8 GiB + 4 GiB + 3 MiB of sparse files packed, 1 TiB left out, in %lld ms", timer.elapsed());
        QVERIFY2(packed, qPrintable(packed ? QString() : packed.error().toString()));
        QVERIFY(!packed->cancelled);
        QCOMPARE(packed->tooLarge.size(), 1);
        QCOMPARE(packed->tooLarge.first().name, u"too-large.bin"_s);
        QCOMPARE(packed->tooLarge.first().bytes, qint64(1) << 40);
        QCOMPARE(*archiveEntries(archive), (QStringList{u"empty-but-large.bin"_s, u"holes.bin"_s, u"small.bin"_s}));
        QVERIFY2(QFileInfo(archive).size() < 64 * 1024, qPrintable(QString::number(QFileInfo(archive).size())));
        // Read back, the holes are zeros and the data is where it was.
        QByteArray expected(3 << 20, '\0');
        expected[0] = 'A';
        expected[(2 << 20) + 7] = 'B';
        QCOMPARE(*readArchiveFile(archive, u"small.bin"_s), expected);
        // GNU tar reads them with their apparent sizes.
        QProcess tar;
        tar.start(u"tar"_s, {u"tzvf"_s, archive});
        QVERIFY(tar.waitForFinished(60000));
        const QString listing = QString::fromUtf8(tar.readAllStandardOutput());
        QVERIFY2(listing.contains(u"8589934592"_s) && listing.contains(u"4294967296"_s), qPrintable(listing));
    }

    void cancelStopsPackingAtOnce()
    {
        QTemporaryDir ws;
        QDir root(ws.filePath(u"model"_s));
        QVERIFY(root.mkpath(u"."_s));
        QFile data(root.filePath(u"data.bin"_s));
        QVERIFY(data.open(QIODevice::WriteOnly));
        QVERIFY(data.write(QByteArray(8 << 20, 'x')) == 8 << 20);
        data.close();
        for (int i = 0; i < 20; ++i)
            QVERIFY(QFile::copy(data.fileName(), root.filePath(u"copy-%1.bin"_s.arg(i, 2, 10, QChar(u'0')))));
        int asked = 0;
        PackLimits limits;
        limits.cancelled = [&asked] { return ++asked > 10; }; // a cancel while the first file is read
        const QString archive = ws.filePath(u"model.tar.gz"_s);
        const auto packed = packDirectory(root.path(), archive, limits);
        QVERIFY(packed);
        QVERIFY(packed->cancelled);
        QCOMPARE(asked, 11); // not asked again: nothing more was read
        QVERIFY(!QFileInfo::exists(archive));
        QCOMPARE(QDir(ws.path()).entryList(QDir::Files | QDir::Hidden), QStringList()); // no temp file left
    }

    // The limit is a setting; what is not a positive number of GiB is the default.
    void packedFileLimitIsASetting()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"ferry.conf"_s), QSettings::IniFormat);
        QCOMPARE(maxPackedFileBytes(settings), qint64(16) << 30);
        settings.setValue(kMaxPackedFileGiBSetting.key(), u"2"_s);
        QCOMPARE(maxPackedFileBytes(settings), qint64(2) << 30);
        settings.setValue(kMaxPackedFileGiBSetting.key(), u"-1"_s);
        QCOMPARE(maxPackedFileBytes(settings), qint64(16) << 30);
        settings.setValue(kMaxPackedFileGiBSetting.key(), u"lots"_s);
        QCOMPARE(maxPackedFileBytes(settings), qint64(16) << 30);
    }

    void firstExitRecordStands()
    {
        QTemporaryDir ws;
        const RunDirectory dir(ws.path());
        QVERIFY(dir.writeExit(ExitRecord{0, 0, 1, false, {}}));
        const auto second = dir.writeExit(ExitRecord{-1, 9, 2, true, u"late"_s});
        QVERIFY(!second);
        QCOMPARE(exitOf(ws.path()), (ExitRecord{0, 0, 1, false, {}}));
    }

    void hiddenFromHelp()
    {
        QProcess help;
        help.start(ferry::test::ferryBinary(), {u"--help"_s});
        QVERIFY(help.waitForFinished(60000));
        const QString text = QString::fromUtf8(help.readAllStandardOutput());
        QVERIFY(text.contains(u"Commands:"_s));
        QVERIFY(!text.contains(u"__supervise"_s));

        QProcess missing;
        missing.start(ferry::test::ferryBinary(), {u"__supervise"_s, u"/no/such/run"_s});
        QVERIFY(missing.waitForFinished(60000));
        QCOMPARE(missing.exitCode(), 1);
        QVERIFY(QString::fromUtf8(missing.readAllStandardError()).contains(u"no such run folder"_s));
    }
};

FERRY_TEST_GUILESS_MAIN(TestSupervisor)
#include "tst_supervisor.moc"
