// Kernels on this machine through `ferry kernel` as a user runs it (a real ipykernel under its
// keeper, started the way a run starts): state kept between cells, output, an error, a plot, an
// interrupted sleep(600), an exec whose output is closed (an error, not SIGPIPE), a restart of a
// busy kernel, a death explained, a Python without ipykernel named as such, a replay that misses
// nothing after Ferry's side was killed mid-cell, and a stop that leaves nothing behind.
#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernelhost.h"
#include "run/rundirectory.h"

#include "support/cli.h"
#include "support/kernel.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ferry::test;
using namespace ferry::kernels;

class TestLocalKernel : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_ws;
    QString m_env;
    QString m_id;

    KernelCli kernel; // `ferry kernel ...` in m_ws (support/kernel.h)
    QJsonObject shown(const QString &id) const { return kernel.shown(id); }
    QString folderOf(const QString &id) { return m_ws + u"/.ferry/kernels/"_s + id; }

    QString startKernel(const QString &env)
    {
        const CliResult started = kernel({u"start"_s, u"--env"_s, env});
        if (started.exitCode != 0)
            qWarning("%s", qPrintable(started.err));
        return started.out.trimmed();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_ws = m_dir.filePath(u"ws"_s);
        kernel.workspace = m_ws;
        QVERIFY(QDir().mkpath(m_ws));
        m_env = ferry::test::writeDebianPythonEnvironment(m_dir.filePath(u"debian.yml"_s));
        QVERIFY(!m_env.isEmpty());
        m_id = startKernel(m_env);
        QVERIFY2(m_id.contains(u"-kernel-"_s), qPrintable(m_id));
    }

    // What a failed (or a skipped) function left running: stopped, so no kernel outlives the test.
    void cleanupTestCase() { (void)ferry::test::stopKernelsIn(m_ws + u"/.ferry/kernels"_s); }

    void cellsKeepStateAndShowOutputs() { ferry::test::cellsKeepStateAndShowOutputs(KernelCli{m_ws}, m_id); }

    void listAndShow()
    {
        const QJsonArray kernels = jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray();
        QCOMPARE(kernels.size(), 1);
        const QJsonObject k = kernels[0].toObject();
        QCOMPARE(k.value(u"id"_s).toString(), m_id);
        QCOMPARE(k.value(u"target"_s).toString(), u"local"_s);
        QCOMPARE(k.value(u"environment"_s).toString(), m_env);
        QVERIFY(k.value(u"memoryBytes"_s).toDouble() > 1e6);
        QVERIFY(k.value(u"end"_s).isNull());
        // status.json follows the kernel's state within a quarter of a second.
        QTRY_VERIFY_WITH_TIMEOUT(QStringList({u"idle"_s, u"busy"_s}).contains(shown(m_id).value(u"state"_s).toString()),
                                 10000);
        // Private: the folders 0700, the connection file (its key) 0600.
        const KernelFolder folder(folderOf(m_id));
        const auto mode = [](const QString &path) {
            struct stat st {};
            // (jupyter_client, which ipykernel rewrites its connection file with, adds the sticky
            // bit to the file's folder, against cleaners of temporary folders: the access bits matter)
            return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
        };
        QCOMPARE(mode(folder.path()), 0700);
        QCOMPARE(mode(folder.keeperDir()), 0700);
        QCOMPARE(mode(folder.ferrySocketDir()), 0700);
        QCOMPARE(mode(folder.connectionFile()), 0600);
        // A prefix or the last characters name it too.
        QCOMPARE(shown(m_id.right(4)).value(u"id"_s).toString(), m_id);
    }

    void interruptsASleep() { ferry::test::interruptsASleep(KernelCli{m_ws}, m_id); }

    // Ferry's side killed while a cell prints 200,000 lines: the cell goes on, and a replay of the
    // journal has every line once, in order.
    void replayAfterFerryKilled()
    {
        QProcess exec;
        KernelCli{m_ws}.startExec(exec, m_id, numberedLinesCell(0.1));
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("\n"),
                                  qPrintable(QString::fromUtf8(out + exec.readAllStandardError())), 30000);
        exec.kill();
        QVERIFY(exec.waitForFinished());
        replayHasEveryLineOnce(folderOf(m_id));
    }

    void closedOutputEndsExecNotTheKernel() { ferry::test::closedOutputEndsExecNotTheKernel(KernelCli{m_ws}, m_id); }

    void restartGivesAFreshKernel() { ferry::test::restartGivesAFreshKernel(KernelCli{m_ws}, m_id); }

    void stopLeavesNothing()
    {
        const auto keeper = KernelFolder(folderOf(m_id)).readKeeper();
        QVERIFY(keeper && *keeper);
        const CliResult stopped = kernel({u"stop"_s, m_id});
        QCOMPARE(stopped.exitCode, 0);
        const QJsonObject k = shown(m_id);
        QCOMPARE(k.value(u"state"_s).toString(), u"dead"_s);
        QCOMPARE(k.value(u"end"_s).toObject().value(u"reason"_s).toString(), u"stopped"_s);
        QVERIFY(!processAlive((*keeper)->keeperPid));
        QVERIFY(!processAlive((*keeper)->kernelPid));
        QVERIFY(ferry::run::liveGroupMembers((*keeper)->kernelPid, (*keeper)->kernelPid).isEmpty());
        QVERIFY(!QFileInfo::exists((*keeper)->socketDir));
        QCOMPARE(kernel({u"exec"_s, m_id, u"1"_s}).exitCode, 1);
        QCOMPARE(kernel({u"remove"_s, m_id}).exitCode, 0);
        QVERIFY(!QFileInfo::exists(folderOf(m_id)));
    }

    void deathExplained()
    {
        const QString id = startKernel(m_env);
        QVERIFY(!id.isEmpty());
        const CliResult killed = kernel({u"exec"_s, id, u"import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"_s});
        QCOMPARE(killed.exitCode, 1);
        QVERIFY2(killed.err.contains(u"killed by signal 9 (SIGKILL)"_s), qPrintable(killed.err));
        const QJsonObject end = shown(id).value(u"end"_s).toObject();
        QCOMPARE(end.value(u"reason"_s).toString(), u"signal"_s);
        QCOMPARE(end.value(u"signal"_s).toInt(), 9);
        QVERIFY(end.value(u"peakMemoryBytes"_s).toDouble() > 1e6);
        QCOMPARE(kernel({u"remove"_s, id}).exitCode, 0);
    }

    // A kernel idle past its idle stop (minutes; 0.05 is 3 s) is stopped, and says why.
    void idleStop()
    {
        const CliResult started = kernel({u"start"_s, u"--env"_s, m_env, u"--idle-stop"_s, u"0.05"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = started.out.trimmed();
        QTRY_COMPARE_WITH_TIMEOUT(shown(id).value(u"state"_s).toString(), u"dead"_s, 60000);
        QCOMPARE(shown(id).value(u"end"_s).toObject().value(u"reason"_s).toString(), u"idle"_s);
        QCOMPARE(kernel({u"remove"_s, id}).exitCode, 0);
    }

    // A kernel that never opens its sockets: the start says which step hung, and stops it.
    void neverReady()
    {
        ferry::kernels::KernelRequest request;
        request.environmentFile = m_env;
        request.workingFolder = m_ws;
        request.kernelArguments = {u"-c"_s, u"import time; print('stuck', flush=True); time.sleep(600)"_s};
        const auto started = ferry::kernels::startKernel(m_ws + u"/.ferry/kernels"_s, request, ferryBinary(), 4000);
        QVERIFY(!started);
        QVERIFY2(started.error().message.contains(u"did not open its sockets within 4 s"_s) &&
                     started.error().message.contains(u"stuck"_s),
                 qPrintable(started.error().toString()));
        for (const auto &k : ferry::kernels::listKernels(m_ws + u"/.ferry/kernels"_s, ferryBinary()))
            QVERIFY2(!k.alive(), qPrintable(k.id));
    }

    void pythonWithoutIpykernel()
    {
        // A Python that cannot import ipykernel (no site packages): named as such, nothing left running.
        const QString env = ferry::test::writePythonWithoutIpykernelEnvironment(m_dir.path());
        QVERIFY(!env.isEmpty());
        const CliResult started = kernel({u"start"_s, u"--env"_s, env});
        QCOMPARE(started.exitCode, 1);
        QVERIFY2(started.err.contains(u"has no ipykernel"_s) && started.err.contains(u"ferry env add"_s),
                 qPrintable(started.err));
        const QJsonArray kernels = jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray();
        for (const QJsonValue &k : kernels)
            if (k.toObject().value(u"id"_s).toString() != m_id) // the test case's own kernel may still run
                QCOMPARE(k.toObject().value(u"state"_s).toString(), u"dead"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestLocalKernel)
#include "tst_localkernel.moc"
