// Kernels on this machine through `ferry kernel` as a user runs it (a real ipykernel under its
// keeper, started the way a run starts): state kept between cells, output, an error, a plot, an
// interrupted sleep(600), a restart, a death explained, a Python without ipykernel named as such,
// a replay that misses nothing after Ferry's side was killed mid-cell, and a stop that leaves
// nothing behind.
#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernelhost.h"
#include "run/rundirectory.h"

#include "support/cli.h"
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

    CliResult kernel(const QStringList &args, int timeoutMs = 120000)
    {
        return runFerry(m_ws, QStringList{u"kernel"_s} + args + QStringList{u"--workspace"_s, m_ws}, timeoutMs);
    }
    QJsonObject shown(const QString &id) { return jsonObject(kernel({u"show"_s, id, u"--json"_s})); }
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
        QVERIFY(QDir().mkpath(m_ws));
        m_env = m_dir.filePath(u"debian.yml"_s);
        QFile env(m_env);
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("name: debian\nversion: 1\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n");
        env.close();
        m_id = startKernel(m_env);
        QVERIFY2(m_id.contains(u"-kernel-"_s), qPrintable(m_id));
    }

    void cellsKeepStateAndShowOutputs()
    {
        QCOMPARE(kernel({u"exec"_s, m_id, u"x = 41"_s}).exitCode, 0);
        const CliResult printed = kernel({u"exec"_s, m_id, u"print(x + 1)\nx * 2"_s});
        QCOMPARE(printed.exitCode, 0);
        QCOMPARE(printed.out, u"42\n82\n"_s);
        const CliResult raised = kernel({u"exec"_s, m_id, u"1 / 0"_s});
        QCOMPARE(raised.exitCode, 1);
        QVERIFY2(raised.err.contains(u"ZeroDivisionError"_s), qPrintable(raised.err));
        const CliResult plotted =
            kernel({u"exec"_s, m_id, u"import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()"_s});
        QCOMPARE(plotted.exitCode, 0);
        const QString line = plotted.out.trimmed();
        QVERIFY2(line.startsWith(u"[image/png: "_s) && line.endsWith(u".png]"_s), qPrintable(line));
        QFile png(line.mid(12).chopped(1));
        QVERIFY(png.open(QIODevice::ReadOnly));
        QVERIFY(png.read(8).startsWith("\x89PNG"));
    }

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
        QTRY_VERIFY_WITH_TIMEOUT(QStringList({u"idle"_s, u"busy"_s}).contains(shown(m_id).value(u"state"_s).toString()), 10000);
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

    void interruptsASleep()
    {
        QProcess exec;
        exec.setWorkingDirectory(m_ws);
        exec.start(ferryBinary(), {u"kernel"_s, u"exec"_s, m_id, u"import time\nprint('asleep', flush=True)\ntime.sleep(600)"_s,
                                   u"--workspace"_s, m_ws});
        QVERIFY(exec.waitForStarted());
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("asleep"),
                                  qPrintable(QString::fromUtf8(out + exec.readAllStandardError())), 30000);
        QCOMPARE(kernel({u"interrupt"_s, m_id}).exitCode, 0);
        QVERIFY(exec.waitForFinished(30000));
        QCOMPARE(exec.exitCode(), 1);
        QVERIFY(exec.readAllStandardError().contains("KeyboardInterrupt"));
        QCOMPARE(kernel({u"exec"_s, m_id, u"print(x)"_s}).out, u"41\n"_s);
    }

    // Ferry's side killed while a cell prints 200,000 lines: the cell goes on, and a replay of the
    // journal has every line once, in order.
    void replayAfterFerryKilled()
    {
        QProcess exec;
        exec.setWorkingDirectory(m_ws);
        exec.start(ferryBinary(), {u"kernel"_s, u"exec"_s, m_id,
                                   u"import time\nfor i in range(200000):\n    print(i)\n    if i % 20000 == 0: time.sleep(0.1)"_s,
                                   u"--workspace"_s, m_ws});
        QVERIFY(exec.waitForStarted());
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("\n"),
                                  qPrintable(QString::fromUtf8(out + exec.readAllStandardError())), 30000);
        exec.kill();
        QVERIFY(exec.waitForFinished());

        auto connection = KernelConnection::open(folderOf(m_id), 0);
        QVERIFY(connection);
        QString requestId;
        QString text;
        bool idle = false;
        (*connection)->follow(
            [&](const JupyterMessage &m) {
                if (m.type() == u"execute_input" && m.content.value(u"code"_s).toString().contains(u"range(200000)"_s))
                    requestId = m.parentId();
                else if (!requestId.isEmpty() && m.parentId() == requestId && m.type() == u"stream")
                    text += m.content.value(u"text"_s).toString();
                else if (!requestId.isEmpty() && m.parentId() == requestId && m.type() == u"status" &&
                         m.content.value(u"execution_state"_s).toString() == u"idle")
                    idle = true;
            },
            [&] { return idle; });
        QVERIFY(idle);
        const QStringList lines = text.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 200000);
        for (int i = 0; i < lines.size(); ++i)
            if (lines[i] != QString::number(i))
                QFAIL(qPrintable(u"line %1 is '%2'"_s.arg(i).arg(lines[i])));
        QCOMPARE((*connection)->client().droppedMessages(), quint64(0));
    }

    void restartGivesAFreshKernel()
    {
        QCOMPARE(kernel({u"restart"_s, m_id}).exitCode, 0);
        QTRY_COMPARE_WITH_TIMEOUT(shown(m_id).value(u"restarts"_s).toInt(), 1, 30000);
        const CliResult after = kernel({u"exec"_s, m_id, u"print(x)"_s});
        QCOMPARE(after.exitCode, 1);
        QVERIFY2(after.err.contains(u"NameError"_s), qPrintable(after.err));
        QCOMPARE(kernel({u"exec"_s, m_id, u"print('back')"_s}).out, u"back\n"_s);
    }

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
        const QString wrapper = m_dir.filePath(u"bare-python"_s);
        QFile script(wrapper);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
        script.close();
        QVERIFY(script.setPermissions(script.permissions() | QFile::ExeOwner));
        const QString env = m_dir.filePath(u"bare.yml"_s);
        QFile file(env);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("name: bare\nversion: 1\npython:\n  interpreter: " + wrapper.toUtf8() + "\n  user_managed: true\n");
        file.close();
        const CliResult started = kernel({u"start"_s, u"--env"_s, env});
        QCOMPARE(started.exitCode, 1);
        QVERIFY2(started.err.contains(u"has no ipykernel"_s) && started.err.contains(u"ferry env add"_s), qPrintable(started.err));
        const QJsonArray kernels = jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray();
        for (const QJsonValue &k : kernels)
            QCOMPARE(k.toObject().value(u"state"_s).toString(), u"dead"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestLocalKernel)
#include "tst_localkernel.moc"
