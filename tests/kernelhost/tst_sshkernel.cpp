// Kernels on an SSH host (the test sshd on 127.0.0.1: the host is this machine) through `ferry
// kernel` as a user runs it: a real ipykernel under its keeper in the host's Python, reached
// through SSH forwards and a copy of its journal. State kept between cells, output, an error, a
// plot, an interrupted sleep(600), a restart; a cell of 200,000 lines while the connection is cut
// (the link's ssh processes and the ControlMaster killed) and Ferry's side killed after, which
// ends with every line once, in order, when Ferry attaches again; a stop that leaves nothing on
// the host; a Python without ipykernel named as such; Slurm and an image refused before anything
// starts.
#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernellink.h"

#include "support/cli.h"
#include "support/files.h"
#include "support/kernel.h"
#include "support/remote.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ferry::test;
using namespace ferry::kernels;

namespace {

// Processes of this machine (the host) whose environment carries FERRY_RUN_ID=id.
QList<qint64> markedProcesses(const QString &id)
{
    QList<qint64> pids;
    const QByteArray marker = "FERRY_RUN_ID=" + id.toUtf8();
    for (const QString &entry : QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        QFile environ(u"/proc/"_s + entry + u"/environ"_s);
        if (!number || !environ.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> variables = environ.readAll().split('\0');
        QFile stat(u"/proc/"_s + entry + u"/stat"_s);
        const bool zombie = stat.open(QIODevice::ReadOnly) && stat.readAll().contains(") Z ");
        if (variables.contains(marker) && !zombie)
            pids << pid;
    }
    return pids;
}

// The children of `parent` whose command is `name` (the link's ssh processes of a `ferry`).
QList<qint64> childrenNamed(qint64 parent, const QByteArray &name)
{
    QList<qint64> pids;
    for (const QString &entry : QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile stat(u"/proc/"_s + entry + u"/stat"_s);
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

// The journal copies (`keeper.py follow`) running on the host for the kernel folder `dir`.
int followers(const QString &dir)
{
    int count = 0;
    for (const QString &entry : QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile cmdline(u"/proc/"_s + entry + u"/cmdline"_s);
        if (!cmdline.open(QIODevice::ReadOnly))
            continue;
        const QList<QByteArray> args = cmdline.readAll().split('\0');
        count += args.contains("follow") && args.contains(QFile::encodeName(dir));
    }
    return count;
}

} // namespace

class TestSshKernel : public QObject {
    Q_OBJECT

    std::unique_ptr<SshSandbox> m_sandbox;
    QTemporaryDir m_dir;
    QString m_ws;
    QString m_env;
    QString m_id;

    KernelCli cli() const { return KernelCli{m_ws, m_sandbox->environment()}; }
    CliResult kernel(const QStringList &args) const { return cli()(args); }
    QString folderOf(const QString &id) const { return m_ws + u"/.ferry/kernels/"_s + id; }
    QString hostRoot() const { return m_dir.filePath(u"host"_s); }
    // The kernel's journal on the host, and its copy here.
    std::pair<QByteArray, QByteArray> journals() const
    {
        return {readFile(hostRoot() + u'/' + m_id + u"/kernel/journal"_s),
                readFile(KernelFolder(folderOf(m_id)).journalFile())};
    }

    // The ControlMaster's pid (`ssh -O check`), 0 when none runs.
    qint64 controlMaster() const
    {
        QProcess check;
        check.start(u"ssh"_s, m_sandbox->shell().sshOptions() << u"-O"_s << u"check"_s << u"--"_s << kHost);
        check.waitForFinished(10000);
        const auto match = QRegularExpression(u"pid=(\\d+)"_s).match(QString::fromUtf8(check.readAllStandardError()));
        return match.hasMatch() ? match.captured(1).toLongLong() : 0;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_sandbox = std::make_unique<SshSandbox>();
        QVERIFY(m_dir.isValid());
        m_ws = m_dir.filePath(u"ws"_s);
        QVERIFY(QDir().mkpath(m_ws));
        // This process attaches too (the replay): the same known_hosts, sockets and config.
        const QProcessEnvironment env = m_sandbox->environment();
        for (const QString &name : {u"FERRY_SSH_CONFIG"_s, u"XDG_CONFIG_HOME"_s, u"XDG_RUNTIME_DIR"_s})
            qputenv(name.toLocal8Bit().constData(), env.value(name).toLocal8Bit());
        // The host's Python with ipykernel and matplotlib (Debian's): the one on PATH may lack them.
        m_env = ferry::test::writeDebianPythonEnvironment(m_dir.filePath(u"debian.yml"_s));
        QVERIFY(!m_env.isEmpty());
        const CliResult started = kernel({u"start"_s, u"--target"_s, u"ssh:"_s + kHost, u"--env"_s, m_env,
                                          u"--host-python"_s, u"--remote-dir"_s, hostRoot()});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        m_id = started.out.trimmed();
        QVERIFY2(m_id.contains(u"-kernel-"_s), qPrintable(m_id));
    }

    // Whatever a failed (or a chosen few) test function left: stopped there, removed.
    void cleanupTestCase()
    {
        for (const QJsonValue &k : jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray())
            (void)kernel({u"remove"_s, k.toObject().value(u"id"_s).toString()});
    }

    // The keeper's folder on the host as the keeper wants it; its sockets in a private folder
    // of their own there.
    void theHostHoldsTheKernel()
    {
        const QString there = hostRoot() + u'/' + m_id + u"/kernel"_s;
        struct stat st {};
        QCOMPARE(::lstat(QFile::encodeName(there).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        QCOMPARE(::lstat(QFile::encodeName(there + u"/connection.json"_s).constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        QVERIFY(QFileInfo::exists(there + u"/journal"_s));
        QVERIFY(QFileInfo(hostSocketDir(m_id)).isDir());
        const auto keeper = KernelFolder(folderOf(m_id)).readKeeper(); // the copy here
        QVERIFY(keeper && *keeper);
        QCOMPARE((*keeper)->socketDir, hostSocketDir(m_id));
        QVERIFY(!markedProcesses(m_id).isEmpty());
    }

    void cellsKeepStateAndShowOutputs()
    {
        ferry::test::cellsKeepStateAndShowOutputs(cli(), m_id);
        const QJsonArray kernels = jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray();
        QCOMPARE(kernels.size(), 1);
        QCOMPARE(kernels[0].toObject().value(u"target"_s).toString(), u"ssh:"_s + kHost);
        QVERIFY(kernels[0].toObject().value(u"memoryBytes"_s).toDouble() > 1e6);
    }

    void interruptsASleep() { ferry::test::interruptsASleep(cli(), m_id); }

    // A cell printing 200,000 lines while the connection is cut (the `exec`'s forward and journal
    // copy killed, and the ControlMaster): its link starts them again and the copy goes on from
    // where it was. Then Ferry's side is killed mid-cell too; attached again, the journal holds
    // every line once, in order.
    void cutConnectionLosesNothing()
    {
        QProcess exec;
        cli().startExec(exec, m_id, numberedLinesCell(0.3));
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("\n"),
                                  qPrintable(QString::fromUtf8(out + exec.readAllStandardError())), 30000);
        const QList<qint64> links = childrenNamed(exec.processId(), "ssh");
        QVERIFY2(links.size() == 2, qPrintable(u"%1 ssh processes"_s.arg(links.size()))); // forward, journal copy
        QCOMPARE(followers(hostRoot() + u'/' + m_id + u"/kernel"_s), 1);
        const qint64 master = controlMaster();
        QVERIFY(master > 0);
        for (const qint64 pid : links)
            ::kill(pid_t(pid), SIGKILL);
        ::kill(pid_t(master), SIGKILL);
        const qsizetype before = (out += exec.readAllStandardOutput()).size();
        // The copy goes on through new processes (a new master among them).
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).size() > before + 1000,
                                  qPrintable(QString::fromUtf8(exec.readAllStandardError())), 30000);
        QVERIFY(!childrenNamed(exec.processId(), "ssh").isEmpty());
        QVERIFY(!out.endsWith("199999\n"));
        QByteArray expected; // what it printed so far: each line once, in order, across the cut
        for (int i = 0; expected.size() < out.size(); ++i)
            expected += QByteArray::number(i) + '\n';
        QVERIFY(expected.startsWith(out));
        ::kill(pid_t(exec.processId()), SIGKILL);
        QVERIFY(exec.waitForFinished());
        // Its ssh processes end with it, and the copies on the host with them.
        QTRY_VERIFY_WITH_TIMEOUT(childrenNamed(exec.processId(), "ssh").isEmpty(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(followers(hostRoot() + u'/' + m_id + u"/kernel"_s), 0, 10000);

        replayHasEveryLineOnce(folderOf(m_id));
        // The copy here is the host's journal, byte for byte (so far: the kernel lives on).
        const auto [there, here] = journals();
        QVERIFY(here.size() > 1000000 && there.startsWith(here));
    }

    void restartGivesAFreshKernel() { ferry::test::restartGivesAFreshKernel(cli(), m_id); }

    void stopLeavesNothingOnTheHost()
    {
        const CliResult stopped = kernel({u"stop"_s, m_id});
        QVERIFY2(stopped.exitCode == 0, qPrintable(stopped.err));
        const QJsonObject k = cli().shown(m_id);
        QCOMPARE(k.value(u"state"_s).toString(), u"dead"_s);
        QCOMPARE(k.value(u"end"_s).toObject().value(u"reason"_s).toString(), u"stopped"_s);
        QCOMPARE(markedProcesses(m_id), QList<qint64>());
        QVERIFY(!QFileInfo::exists(hostSocketDir(m_id)));
        // The journal came whole before the end did.
        const auto [there, here] = journals();
        QVERIFY(here == there);
        QCOMPARE(kernel({u"exec"_s, m_id, u"1"_s}).exitCode, 1);
        QCOMPARE(kernel({u"remove"_s, m_id}).exitCode, 0);
        QVERIFY(!QFileInfo::exists(folderOf(m_id)));
        QVERIFY(!QFileInfo::exists(hostRoot() + u'/' + m_id));
    }

    // The host's Python without ipykernel (no site packages): named as such, with the way to add
    // it; nothing left running there.
    void pythonWithoutIpykernelIsNamed()
    {
        const QString env = ferry::test::writePythonWithoutIpykernelEnvironment(m_dir.path());
        QVERIFY(!env.isEmpty());
        const CliResult started = kernel({u"start"_s, u"--target"_s, u"ssh:"_s + kHost, u"--env"_s, env,
                                          u"--host-python"_s, u"--remote-dir"_s, hostRoot()});
        QCOMPARE(started.exitCode, 1);
        QVERIFY2(started.err.contains(u"has no ipykernel"_s) && started.err.contains(u"ferry env add"_s),
                 qPrintable(started.err));
        QString id;
        for (const QJsonValue &k : jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray()) {
            if (k.toObject().value(u"id"_s).toString() != m_id) {
                id = k.toObject().value(u"id"_s).toString();
                QCOMPARE(k.toObject().value(u"state"_s).toString(), u"dead"_s);
            }
        }
        QVERIFY(!id.isEmpty());
        // The runner's own end (its watcher's last second) and nothing else.
        QTRY_COMPARE_WITH_TIMEOUT(markedProcesses(id), QList<qint64>(), 10000);
        QVERIFY(!QFileInfo::exists(hostSocketDir(id)));
        QCOMPARE(kernel({u"remove"_s, id}).exitCode, 0);
        QVERIFY(!QFileInfo::exists(hostRoot() + u'/' + id));
    }

    // Slurm, and an SSH host with the environment's image, are refused before anything starts.
    void notYetTargetsAreRefused()
    {
        const auto kernels = [&] { return jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray(); };
        const QJsonArray before = kernels();
        const CliResult slurm = kernel({u"start"_s, u"--target"_s, u"slurm:"_s + kHost});
        QCOMPARE(slurm.exitCode, 1);
        QVERIFY2(slurm.err.contains(u"later version"_s), qPrintable(slurm.err));
        const CliResult image = kernel({u"start"_s, u"--target"_s, u"ssh:"_s + kHost, u"--env"_s, m_env});
        QCOMPARE(image.exitCode, 1);
        QVERIFY2(image.err.contains(u"--host-python"_s), qPrintable(image.err));
        QCOMPARE(kernels().size(), before.size()); // nothing made
    }
};

FERRY_TEST_GUILESS_MAIN(TestSshKernel)
#include "tst_sshkernel.moc"
