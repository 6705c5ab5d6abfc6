// What the kernel tests of every target share: `ferry kernel` run as a user runs it, and the checks
// each target's kernel passes (cells, an interrupted sleep, a replay, a restart of a busy kernel).
#pragma once

#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernelhost.h"

#include "support/cli.h"
#include "support/process.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include <algorithm>
#include <utility>

namespace ferry::test {

// `ferry kernel ...` in one workspace, with the environment a target needs (an SSH sandbox's).
struct KernelCli {
    QString workspace;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();

    QStringList arguments(const QStringList &args) const
    {
        return QStringList{QStringLiteral("kernel")} + args + QStringList{QStringLiteral("--workspace"), workspace};
    }
    CliResult operator()(const QStringList &args) const
    {
        return textOf(runCommand(ferryBinary(), arguments(args), workspace, {}, environment));
    }
    // `ferry kernel exec ID CODE` running beside the test.
    void startExec(QProcess &exec, const QString &id, const QString &code) const
    {
        exec.setProcessEnvironment(environment);
        exec.setWorkingDirectory(workspace);
        exec.start(ferryBinary(), arguments({QStringLiteral("exec"), id, code}));
        QVERIFY(exec.waitForStarted());
    }
    QJsonObject shown(const QString &id) const
    {
        return jsonObject((*this)({QStringLiteral("show"), id, QStringLiteral("--json")}));
    }
};

// An environment of Debian's own Python at `path` (/usr/bin/python3, with python3-ipykernel and
// matplotlib: the python3 on PATH may lack them); its path, empty when it could not be written.
inline QString writeDebianPythonEnvironment(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("name: debian\nversion: 1\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n");
    return path;
}

// Stops every kernel in `kernelsDir` (a test's workspace's .ferry/kernels, at its end); what
// could not be stopped, in words.
inline QStringList stopKernelsIn(const QString &kernelsDir)
{
    QStringList failed;
    for (const QString &kernel : QDir(kernelsDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const auto stopped = kernels::stopKernel(kernelsDir + QLatin1Char('/') + kernel, ferryBinary());
        if (!stopped)
            failed << stopped.error().toString();
    }
    return failed;
}

// An environment in `folder` whose Python cannot import ipykernel (Debian's, without its site
// packages: `-S`, through a wrapper script); its path, empty when it could not be written.
inline QString writePythonWithoutIpykernelEnvironment(const QString &folder)
{
    const QString wrapper = folder + QStringLiteral("/bare-python");
    QFile script(wrapper);
    if (!script.open(QIODevice::WriteOnly))
        return {};
    script.write("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
    script.close();
    if (!script.setPermissions(script.permissions() | QFile::ExeOwner))
        return {};
    const QString path = folder + QStringLiteral("/bare.yml");
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write("name: bare\nversion: 1\npython:\n  interpreter: " + wrapper.toUtf8() + "\n  user_managed: true\n");
    return path;
}

// The processes of this machine (the test's host and node) whose command line passes `keep`
// (its words, as /proc/PID/cmdline has them), zombies left out.
template <typename Keep> inline QList<qint64> processesWhere(const Keep &keep)
{
    QList<qint64> pids;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        QFile cmdline(QStringLiteral("/proc/") + entry + QStringLiteral("/cmdline"));
        QFile stat(QStringLiteral("/proc/") + entry + QStringLiteral("/stat"));
        if (!number || pid == QCoreApplication::applicationPid() || !cmdline.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> words = cmdline.readAll().split('\0');
        const bool zombie = stat.open(QIODevice::ReadOnly) && stat.readAll().contains(") Z ");
        if (!zombie && keep(words))
            pids << pid;
    }
    return pids;
}

// Processes whose command line holds `text` in one of its words (ssh's control master names its
// socket in its title).
inline QList<qint64> processesWith(const QByteArray &text)
{
    return processesWhere([&](const QList<QByteArray> &words) {
        return std::any_of(words.begin(), words.end(), [&](const QByteArray &w) { return w.contains(text); });
    });
}

// `keeper.py ACTION` (follow, bridge) at work on something in `path` (the kernel's folder on the
// host, its socket folder on the node).
inline QList<qint64> keeperProcesses(const QByteArray &action, const QString &path)
{
    const QByteArray prefix = QFile::encodeName(path);
    return processesWhere([&](const QList<QByteArray> &words) {
        return words.contains(action) &&
               std::any_of(words.begin(), words.end(), [&](const QByteArray &w) { return w.startsWith(prefix); }) &&
               std::any_of(words.begin(), words.end(), [](const QByteArray &w) { return w.endsWith("keeper.py"); });
    });
}

// Processes of this machine whose environment carries FERRY_RUN_ID=id (a kernel's keeper, the
// kernel, its run's runner).
inline QList<qint64> markedProcesses(const QString &id)
{
    QList<qint64> pids;
    const QByteArray marker = "FERRY_RUN_ID=" + id.toUtf8();
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        QFile environ(QStringLiteral("/proc/") + entry + QStringLiteral("/environ"));
        if (!number || !environ.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> variables = environ.readAll().split('\0');
        QFile stat(QStringLiteral("/proc/") + entry + QStringLiteral("/stat"));
        const bool zombie = stat.open(QIODevice::ReadOnly) && stat.readAll().contains(") Z ");
        if (variables.contains(marker) && !zombie)
            pids << pid;
    }
    return pids;
}

// The children of `parent` whose command is `name` (the link's ssh processes of a `ferry`).
inline QList<qint64> childrenNamed(qint64 parent, const QByteArray &name)
{
    QList<qint64> pids;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat(QStringLiteral("/proc/") + entry + QStringLiteral("/stat"));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const qsizetype open = line.indexOf('(');
        const qsizetype close = line.lastIndexOf(')');
        if (open < 0 || close < open)
            continue;
        const QList<QByteArray> fields = line.mid(close + 2).split(' ');
        if (line.mid(open + 1, close - open - 1) == name && fields.size() > 1 && fields.at(1).toLongLong() == parent)
            pids << entry.toLongLong();
    }
    return pids;
}

// A plot with matplotlib (Debian's, on this machine), and a PNG made with the standard library
// (ferry-kernel:bookworm has no plotting library) displayed as one.
inline constexpr char kMatplotlibCell[] = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()";
inline constexpr char kStandardLibraryPngCell[] = R"PY(import struct, zlib
from IPython.display import Image, display
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
rows = b''.join(b'\x00' + bytes([x * 16, 0, 255 - x * 16]) * 16 for x in range(16))
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16, 16, 8, 2, 0, 0, 0)) + \
      chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
display(Image(data=png))
)PY";

// State kept between cells (x is 41 after), printed output and a value, an error, a plot
// (`plotCell`) whose PNG comes back as a file.
inline void cellsKeepStateAndShowOutputs(const KernelCli &kernel, const QString &id,
                                         const char *plotCell = kMatplotlibCell)
{
    QCOMPARE(kernel({QStringLiteral("exec"), id, QStringLiteral("x = 41")}).exitCode, 0);
    const CliResult printed = kernel({QStringLiteral("exec"), id, QStringLiteral("print(x + 1)\nx * 2")});
    QCOMPARE(printed.exitCode, 0);
    QCOMPARE(printed.out, QStringLiteral("42\n82\n"));
    const CliResult raised = kernel({QStringLiteral("exec"), id, QStringLiteral("1 / 0")});
    QCOMPARE(raised.exitCode, 1);
    QVERIFY2(raised.err.contains(QStringLiteral("ZeroDivisionError")), qPrintable(raised.err));
    const CliResult plotted = kernel({QStringLiteral("exec"), id, QString::fromUtf8(plotCell)});
    QCOMPARE(plotted.exitCode, 0);
    const QString line = plotted.out.trimmed();
    QVERIFY2(line.startsWith(QStringLiteral("[image/png: ")) && line.endsWith(QStringLiteral(".png]")),
             qPrintable(line + plotted.err));
    QFile png(line.mid(12).chopped(1));
    QVERIFY(png.open(QIODevice::ReadOnly));
    QVERIFY(png.read(8).startsWith("\x89PNG"));
}

// A cell asleep in time.sleep(600), `ferry kernel interrupt`: it ends with KeyboardInterrupt and the
// kernel keeps its state (x from cellsKeepStateAndShowOutputs).
inline void interruptsASleep(const KernelCli &kernel, const QString &id)
{
    QProcess exec;
    kernel.startExec(exec, id, QStringLiteral("import time\nprint('asleep', flush=True)\ntime.sleep(600)"));
    QByteArray out;
    QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("asleep"),
                              qPrintable(QString::fromUtf8(out + exec.readAllStandardError())), 30000);
    QCOMPARE(kernel({QStringLiteral("interrupt"), id}).exitCode, 0);
    QVERIFY(exec.waitForFinished(30000));
    QCOMPARE(exec.exitCode(), 1);
    QVERIFY(exec.readAllStandardError().contains("KeyboardInterrupt"));
    QCOMPARE(kernel({QStringLiteral("exec"), id, QStringLiteral("print(x)")}).out, QStringLiteral("41\n"));
}

// The code of the cell that prints 200,000 numbered lines (kLines), pausing `pauseS` ten times.
inline constexpr int kLines = 200000;
inline QString numberedLinesCell(double pauseS)
{
    return QStringLiteral("import time\nfor i in range(200000):\n    print(i)\n    if i % 20000 == 0: time.sleep(%1)")
        .arg(pauseS);
}

// The kernel in `folder` attached again, its journal replayed from the start until the
// numberedLinesCell() cell is idle: every line once, in order, and no message dropped.
inline void replayHasEveryLineOnce(const QString &folder)
{
    auto connection = kernels::KernelConnection::open(folder, 0, ferryBinary());
    QVERIFY2(connection, qPrintable(connection ? QString() : connection.error().toString()));
    QString requestId;
    QString text;
    bool idle = false;
    (*connection)
        ->follow(
            [&](const kernels::JupyterMessage &m) {
                if (m.type() == u"execute_input" &&
                    m.content.value(QStringLiteral("code")).toString().contains(QStringLiteral("range(200000)")))
                    requestId = m.parentId();
                else if (!requestId.isEmpty() && m.parentId() == requestId && m.type() == u"stream")
                    text += m.content.value(QStringLiteral("text")).toString();
                else if (!requestId.isEmpty() && m.parentId() == requestId && m.type() == u"status" &&
                         m.content.value(QStringLiteral("execution_state")).toString() == u"idle")
                    idle = true;
            },
            [&] { return idle; });
    QVERIFY(idle);
    const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), kLines);
    for (int i = 0; i < lines.size(); ++i)
        if (lines[i] != QString::number(i))
            QFAIL(qPrintable(QStringLiteral("line %1 is '%2'").arg(i).arg(lines[i])));
    QCOMPARE((*connection)->client().droppedMessages(), quint64(0));
}

// A cell that prints "asleep", waits until a request is queued behind it on the kernel's shell
// socket (ipykernel reads none while a cell runs), prints "queued" and sleeps 600 s: a restart
// that comes after "queued" finds one cell running and one that has not run.
inline constexpr char kSleepWithACellQueuedCell[] = R"PY(import time
shell = get_ipython().kernel.shell_stream.socket
print('asleep', flush=True)
while not shell.poll(0):
    time.sleep(0.05)
print('queued', flush=True)
time.sleep(600)
)PY";

// `ferry kernel restart` of a kernel busy in a cell that does not return, another cell queued
// behind it: the keeper kills the kernel after its grace, and once `restart` has returned, with no
// wait, keeper.json counts it, the state is gone and a cell runs. The cell that ran, and the one
// that never did, each end (exit 1) saying so: neither waits forever nor crashes.
inline void restartGivesAFreshKernel(const KernelCli &kernel, const QString &id)
{
    const int before = kernel.shown(id).value(QStringLiteral("restarts")).toInt();
    QProcess running;
    kernel.startExec(running, id, QString::fromUtf8(kSleepWithACellQueuedCell));
    QByteArray said;
    QTRY_VERIFY2_WITH_TIMEOUT((said += running.readAllStandardOutput()).contains("asleep"),
                              qPrintable(QString::fromUtf8(said + running.readAllStandardError())), 30000);
    QProcess queued;
    kernel.startExec(queued, id, QStringLiteral("print('the queued cell ran')"));
    QTRY_VERIFY2_WITH_TIMEOUT((said += running.readAllStandardOutput()).contains("queued"),
                              qPrintable(QString::fromUtf8(said + running.readAllStandardError())), 30000);

    const CliResult restarted = kernel({QStringLiteral("restart"), id});
    QVERIFY2(restarted.exitCode == 0, qPrintable(restarted.err));
    QCOMPARE(kernel.shown(id).value(QStringLiteral("restarts")).toInt(), before + 1);
    const CliResult after = kernel({QStringLiteral("exec"), id, QStringLiteral("print(x)")});
    QCOMPARE(after.exitCode, 1);
    QVERIFY2(after.err.contains(QStringLiteral("NameError")), qPrintable(after.err));

    const std::pair<QProcess *, const char *> ends[] = {{&running, "the kernel restarted while the cell ran"},
                                                        {&queued, "the kernel restarted before the cell ran"}};
    for (const auto &[exec, words] : ends) {
        QVERIFY(exec->waitForFinished(60000));
        QCOMPARE(exec->exitStatus(), QProcess::NormalExit);
        const QByteArray err = exec->readAllStandardError();
        QVERIFY2(exec->exitCode() == 1 && err.contains(words), err.constData());
    }
    QVERIFY(!queued.readAllStandardOutput().contains("ran"));
    QCOMPARE(kernel({QStringLiteral("exec"), id, QStringLiteral("print('back')")}).out, QStringLiteral("back\n"));
}

// `ferry kernel exec ID CODE | head -n 1` while the cell prints line after line: once head has
// gone, exec ends with a message (exit 1), not killed by SIGPIPE; the cell goes on in the kernel,
// which answers after its interrupt.
inline void closedOutputEndsExecNotTheKernel(const KernelCli &kernel, const QString &id)
{
    QProcess head;
    QProcess exec;
    exec.setStandardOutputProcess(&head);
    head.start(QStringLiteral("head"), {QStringLiteral("-n"), QStringLiteral("1")});
    QVERIFY(head.waitForStarted());
    kernel.startExec(
        exec, id, QStringLiteral("import time\nfor i in range(6000):\n    print(i, flush=True)\n    time.sleep(0.1)"));
    QVERIFY(head.waitForFinished(30000));
    QCOMPARE(head.readAllStandardOutput(), QByteArray("0\n"));
    QVERIFY(exec.waitForFinished(30000));
    QCOMPARE(exec.exitStatus(), QProcess::NormalExit);
    QCOMPARE(exec.exitCode(), 1);
    const QByteArray err = exec.readAllStandardError();
    QVERIFY2(err.contains("the output was closed: the cell goes on in the kernel"), err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(kernel.shown(id).value(QStringLiteral("state")).toString(), QStringLiteral("busy"),
                              30000);
    QCOMPARE(kernel({QStringLiteral("interrupt"), id}).exitCode, 0);
    // (a request that comes while the interrupted cell's error is handled is aborted, as Jupyter's are)
    QTRY_COMPARE_WITH_TIMEOUT(kernel.shown(id).value(QStringLiteral("state")).toString(), QStringLiteral("idle"),
                              30000);
    const CliResult after = kernel({QStringLiteral("exec"), id, QStringLiteral("print('answers')")});
    QVERIFY2(after.out == QStringLiteral("answers\n"), qPrintable(after.out + after.err));
}

} // namespace ferry::test
