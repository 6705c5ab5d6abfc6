// Kernels on an SSH host (the test sshd on 127.0.0.1: the host is this machine) through `ferry
// kernel` as a user runs it: a real ipykernel under its keeper in the host's Python, reached
// through SSH forwards and a copy of its journal. State kept between cells, output, an error, a
// plot, an interrupted sleep(600), a restart; a cell of 200,000 lines while the connection is cut
// (the link's ssh processes and the ControlMaster killed) and Ferry's side killed after, which
// ends with every line once, in order, when Ferry attaches again; a stop that leaves nothing on
// the host; a Python without ipykernel named as such; this machine's Slurm refused before anything
// starts (a kernel in the environment's image on the host: tst_sshimagekernel; Slurm:
// tst_slurmkernel).
#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernellink.h"

#include "support/cli.h"
#include "support/hostkernel.h"
#include "support/kernel.h"
#include "support/remote.h"
#include "support/testmain.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <csignal>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace ferry::test;
using namespace ferry::kernels;

class TestSshKernel : public QObject {
    Q_OBJECT

    HostKernelCase m_case;
    const QString &m_id = m_case.id;

    KernelCli cli() const { return m_case.cli(); }
    CliResult kernel(const QStringList &args) const { return m_case.kernel(args); }
    QString folderOf(const QString &id) const { return m_case.folderOf(id); }
    QString hostRoot() const { return m_case.hostRoot(); }

private Q_SLOTS:
    void initTestCase()
    {
        m_case.prepare();
        const CliResult started = kernel({u"start"_s, u"--target"_s, u"ssh:"_s + kHost, u"--env"_s, m_case.env,
                                          u"--host-python"_s, u"--remote-dir"_s, hostRoot()});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        m_case.id = started.out.trimmed();
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
        QVERIFY(QFileInfo(ferry::run::hostKernelSocketDir(m_id)).isDir());
        const auto keeper = KernelFolder(folderOf(m_id)).readKeeper(); // the copy here
        QVERIFY(keeper && *keeper);
        QCOMPARE((*keeper)->socketDir, ferry::run::hostKernelSocketDir(m_id));
        QVERIFY(!markedProcesses(m_id).isEmpty());
    }

    void cellsKeepStateAndShowOutputs() { m_case.cellsRunAndTheListSaysSo(u"ssh:"_s + kHost); }

    void interruptsASleep() { ferry::test::interruptsASleep(cli(), m_id); }

    // A cell printing 200,000 lines while the connection is cut (the `exec`'s forward and journal
    // copy killed, and the ControlMaster): its link starts them again (a new master among them)
    // and the copy goes on from where it was; nothing lost when Ferry's side is killed after.
    void cutConnectionLosesNothing()
    {
        m_case.cutMidCellLosesNothing([&](QProcess &exec) {
            const QList<qint64> links = childrenNamed(exec.processId(), "ssh");
            QVERIFY2(links.size() == 2, qPrintable(u"%1 ssh processes"_s.arg(links.size()))); // forward, journal copy
            QCOMPARE(keeperProcesses("follow", m_case.keeperThere()).size(), 1);
            const qint64 master = m_case.sandbox->controlMaster();
            QVERIFY(master > 0);
            for (const qint64 pid : links)
                ::kill(pid_t(pid), SIGKILL);
            ::kill(pid_t(master), SIGKILL);
        });
    }

    void restartGivesAFreshKernel() { ferry::test::restartGivesAFreshKernel(cli(), m_id); }

    void stopLeavesNothingOnTheHost() { m_case.stopAndRemoveLeaveNothing(); }

    // The host's Python without ipykernel (no site packages): named as such, with the way to add
    // it; nothing left running there.
    void pythonWithoutIpykernelIsNamed()
    {
        const QString env = ferry::test::writePythonWithoutIpykernelEnvironment(m_case.dir.path());
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
        QVERIFY(!QFileInfo::exists(ferry::run::hostKernelSocketDir(id)));
        QCOMPARE(kernel({u"remove"_s, id}).exitCode, 0);
        QVERIFY(!QFileInfo::exists(hostRoot() + u'/' + id));
    }

    // This machine's Slurm is refused before anything starts.
    void notYetTargetsAreRefused()
    {
        const auto kernels = [&] { return jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray(); };
        const QJsonArray before = kernels();
        const CliResult slurm = kernel({u"start"_s, u"--target"_s, u"slurm:local"_s});
        QCOMPARE(slurm.exitCode, 1);
        QVERIFY2(slurm.err.contains(u"later version"_s), qPrintable(slurm.err));
        QCOMPARE(kernels().size(), before.size()); // nothing made
    }
};

FERRY_TEST_GUILESS_MAIN(TestSshKernel)
#include "tst_sshkernel.moc"
