// What the tests of kernels on a host share (tst_sshkernel, tst_slurmkernel): the fixtures' sshd as
// the host (or the cluster's login host), a workspace, the host's Debian Python, and the checks of
// a cut connection and of a stop.
#pragma once

#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernellink.h"
#include "run/contract.h"

#include "support/files.h"
#include "support/kernel.h"
#include "support/remote.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <functional>
#include <memory>

namespace ferry::test {

struct HostKernelCase {
    std::unique_ptr<SshSandbox> sandbox;
    QTemporaryDir dir;
    QString ws;
    QString env; // the host's Python with ipykernel and matplotlib (Debian's): the one on PATH may lack them
    QString id;  // the kernel the test case started

    // The sandbox, the workspace, the environment file; this process set to attach as `ferry`
    // does (the replay): the same known_hosts, sockets and config.
    void prepare()
    {
        sandbox = std::make_unique<SshSandbox>();
        QVERIFY(dir.isValid());
        ws = dir.filePath(QStringLiteral("ws"));
        QVERIFY(QDir().mkpath(ws));
        const QProcessEnvironment environment = sandbox->environment();
        for (const char *name : {"FERRY_SSH_CONFIG", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"})
            qputenv(name, environment.value(QString::fromLatin1(name)).toLocal8Bit());
        env = writeDebianPythonEnvironment(dir.filePath(QStringLiteral("debian.yml")));
        QVERIFY(!env.isEmpty());
    }

    KernelCli cli() const { return KernelCli{ws, sandbox->environment()}; }
    CliResult kernel(const QStringList &args) const { return cli()(args); }
    QString folderOf(const QString &kernel) const { return ws + QStringLiteral("/.ferry/kernels/") + kernel; }
    // Where the runs' folders go on the host (--remote-dir).
    QString hostRoot() const { return dir.filePath(QStringLiteral("host")); }
    // The keeper's folder of the kernel on the host.
    QString keeperThere() const { return hostRoot() + QLatin1Char('/') + id + QStringLiteral("/kernel"); }
    // The kernel's journal on the host, and its copy here.
    std::pair<QByteArray, QByteArray> journals() const
    {
        return {readFile(keeperThere() + QStringLiteral("/journal")),
                readFile(kernels::KernelFolder(folderOf(id)).journalFile())};
    }

    // The cells every target's kernel runs (cellsKeepStateAndShowOutputs), then `list`: this kernel
    // alone, on `target`, idle, its memory measured where it runs.
    void cellsRunAndTheListSaysSo(const QString &target, const char *plotCell = kMatplotlibCell) const
    {
        cellsKeepStateAndShowOutputs(cli(), id, plotCell);
        // The state is the keeper's status.json as the link last brought it (a quarter second
        // after a change on the host, then the copy): the idle that ended the last cell reaches
        // the list a moment after the cell's outputs.
        QJsonObject k;
        const auto listed = [&] {
            const QJsonArray kernels = jsonObject(kernel({QStringLiteral("list"), QStringLiteral("--json")}))
                                           .value(QStringLiteral("kernels"))
                                           .toArray();
            k = kernels.size() == 1 ? kernels[0].toObject() : QJsonObject{};
            return kernels.size() == 1 && k.value(QStringLiteral("state")).toString() == u"idle";
        };
        QTRY_VERIFY2_WITH_TIMEOUT(listed(), qPrintable(QString::fromUtf8(QJsonDocument(k).toJson())), 10000);
        QCOMPARE(k.value(QStringLiteral("target")).toString(), target);
        QVERIFY(k.value(QStringLiteral("memoryBytes")).toDouble() > 1e6);
    }

    // A cell printing 200,000 lines (numberedLinesCell) while `cut` (given the `exec` running it)
    // kills what its link runs: the link starts it again and the copy goes on from where it was.
    // Then Ferry's side is killed mid-cell too; attached again, the journal holds every line once,
    // in order, and the copy here is a prefix of the host's journal.
    void cutMidCellLosesNothing(const std::function<void(QProcess &exec)> &cut) const
    {
        QProcess exec;
        cli().startExec(exec, id, numberedLinesCell(0.3));
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("\n"),
                                  qPrintable(QString::fromUtf8(out + exec.readAllStandardError())), 30000);
        cut(exec);
        if (QTest::currentTestFailed())
            return;
        const qsizetype before = (out += exec.readAllStandardOutput()).size();
        // The copy goes on through new processes.
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).size() > before + 1000,
                                  qPrintable(QString::fromUtf8(exec.readAllStandardError())), 30000);
        // Through ssh (a link between two of its processes for a moment under load: looked for
        // until one runs).
        QTRY_VERIFY_WITH_TIMEOUT(!childrenNamed(exec.processId(), "ssh").isEmpty(), 10000);
        QVERIFY(!out.endsWith("199999\n"));
        QByteArray expected; // what it printed so far: each line once, in order, across the cut
        for (int i = 0; expected.size() < out.size(); ++i)
            expected += QByteArray::number(i) + '\n';
        QVERIFY(expected.startsWith(out));
        ::kill(pid_t(exec.processId()), SIGKILL);
        QVERIFY(exec.waitForFinished());
        // Its ssh processes end with it, and the copies on the host with them.
        QTRY_VERIFY_WITH_TIMEOUT(childrenNamed(exec.processId(), "ssh").isEmpty(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(keeperProcesses("follow", keeperThere()).size(), 0, 10000);

        replayHasEveryLineOnce(folderOf(id));
        const auto [there, here] = journals();
        QVERIFY(here.size() > 1000000 && there.startsWith(here));
    }

    // `ferry kernel stop`: the kernel says it was stopped, no process of it is left here (the
    // host, the node), nor its socket folder, its journal came whole before its end did, and a
    // cell is refused. Then `remove` leaves nothing here or on the host.
    void stopAndRemoveLeaveNothing() const
    {
        const CliResult stopped = kernel({QStringLiteral("stop"), id});
        QVERIFY2(stopped.exitCode == 0, qPrintable(stopped.err));
        const QJsonObject k = cli().shown(id);
        QCOMPARE(k.value(QStringLiteral("state")).toString(), QStringLiteral("dead"));
        QCOMPARE(k.value(QStringLiteral("end")).toObject().value(QStringLiteral("reason")).toString(),
                 QStringLiteral("stopped"));
        QCOMPARE(markedProcesses(id), QList<qint64>());
        QVERIFY(!QFileInfo::exists(ferry::run::hostKernelSocketDir(id)));
        const auto [there, here] = journals();
        QVERIFY(here == there);
        QCOMPARE(kernel({QStringLiteral("exec"), id, QStringLiteral("1")}).exitCode, 1);
        QCOMPARE(kernel({QStringLiteral("remove"), id}).exitCode, 0);
        QVERIFY(!QFileInfo::exists(folderOf(id)));
        QVERIFY(!QFileInfo::exists(hostRoot() + QLatin1Char('/') + id));
    }
};

} // namespace ferry::test
