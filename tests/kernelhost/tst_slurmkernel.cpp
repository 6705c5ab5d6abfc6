// Kernels on a Slurm cluster (the test Slurm, reached through the test sshd as its login host; its
// one node is this machine) through `ferry kernel` as a user runs it: a real ipykernel under its
// keeper in a job with the resources asked (the time limit read back from scontrol, a fake GPU in
// its CUDA_VISIBLE_DEVICES), reached through bridges (steps of its job) and a copy of its journal.
// State kept between cells, output, an error, a plot, an interrupted sleep(600) (by the protocol,
// and by the keeper's signal through a step), a restart; a cell of 200,000 lines while the
// connection is cut (the link's ssh processes, its own connection and the shared one killed), which
// ends with every line once, in order, when Ferry attaches again; a stop that ends the job and
// leaves nothing; what a kernel cannot be (across nodes, requeued) refused before anything starts.
// A real time limit takes a minute and more (Slurm's resolution is a minute, its check runs every
// 30 s): how a job that hit it is said is checked by tst_slurmjob and tst_kernelrecords instead.
#include "kernelhost/kernelfolder.h"
#include "kernelhost/kernelhost.h"
#include "kernelhost/kernellink.h"
#include "run/rundirectory.h"
#include "targets/remoterun.h"

#include "support/cli.h"
#include "support/hostkernel.h"
#include "support/kernel.h"
#include "support/remote.h"
#include "support/testmain.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <csignal>
#include <functional>

using namespace Qt::StringLiterals;
using namespace ferry::test;
using namespace ferry::kernels;

class TestSlurmKernel : public QObject {
    Q_OBJECT

    HostKernelCase m_case;
    const QString &m_id = m_case.id;
    QString m_job;

    KernelCli cli() const { return m_case.cli(); }
    CliResult kernel(const QStringList &args) const { return m_case.kernel(args); }
    QString folderOf(const QString &id) const { return m_case.folderOf(id); }

    // A Slurm command on the login host (the test sshd's sessions know the cluster).
    QString onLoginHost(const QStringList &argv) const
    {
        auto shell = m_case.sandbox->shell();
        const auto r = shell.run(argv);
        return r.reached ? QString::fromUtf8(r.out).trimmed() : u"(unreachable: %1)"_s.arg(r.errorText());
    }
    QString jobLine() const { return onLoginHost({u"scontrol"_s, u"show"_s, u"job"_s, m_job, u"-o"_s}); }

    // A cell asleep, reported by `exec` running beside the test; its end, after `interrupt`.
    void interruptAsleep(const std::function<void()> &interrupt)
    {
        QProcess exec;
        cli().startExec(exec, m_id, u"import time\nprint('asleep', flush=True)\ntime.sleep(600)"_s);
        QByteArray out;
        QTRY_VERIFY2_WITH_TIMEOUT((out += exec.readAllStandardOutput()).contains("asleep"),
                                  qPrintable(QString::fromUtf8(out + exec.readAllStandardError())), 30000);
        interrupt();
        QVERIFY(exec.waitForFinished(30000));
        QCOMPARE(exec.exitCode(), 1);
        QVERIFY(exec.readAllStandardError().contains("KeyboardInterrupt"));
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_case.prepare();
        QElapsedTimer clock;
        clock.start();
        const CliResult started =
            kernel({u"start"_s, u"--target"_s, u"slurm:"_s + kHost, u"--env"_s, m_case.env, u"--remote-dir"_s,
                    m_case.hostRoot(), u"--time"_s, u"0:10:00"_s, u"--gpus"_s, u"1"_s, u"--mem"_s, u"1G"_s});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        qInfo("a kernel in a Slurm allocation, ready in %lld ms", clock.elapsed());
        m_case.id = started.out.trimmed();
        QVERIFY2(m_id.contains(u"-kernel-"_s), qPrintable(m_id));
        QVERIFY2(started.err.contains(u"submitted as Slurm job"_s), qPrintable(started.err));
        const auto record = ferry::targets::RemoteRecord::read(folderOf(m_id));
        QVERIFY(record && *record);
        m_job = (*record)->jobId;
        QVERIFY(!m_job.isEmpty());
    }

    // Whatever a failed test function left: stopped (the job cancelled), removed.
    void cleanupTestCase()
    {
        for (const QJsonValue &k : jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray())
            (void)kernel({u"remove"_s, k.toObject().value(u"id"_s).toString()});
    }

    // The job has what was asked (read back from Slurm), the kernel runs in it on its node, the
    // keeper's folder is in the run's folder (shared with the login host), the sockets in a
    // private folder of the node's /tmp, the idle stop an hour.
    void theAllocationIsWhatWasAsked()
    {
        const QString job = jobLine();
        QVERIFY2(job.contains(u"JobState=RUNNING"_s), qPrintable(job));
        QVERIFY2(job.contains(u" TimeLimit=00:10:00 "_s), qPrintable(job));
        QVERIFY2(job.contains(u"gpu:1"_s), qPrintable(job));
        QVERIFY2(job.contains(u"MinMemoryNode=1G"_s), qPrintable(job));
        const CliResult inside = kernel({u"exec"_s, m_id,
                                         u"import os\nprint(os.environ['SLURM_JOB_ID'], "
                                         "os.environ.get('CUDA_VISIBLE_DEVICES'), os.environ['FERRY_RUN_ID'])"_s});
        QCOMPARE(inside.exitCode, 0);
        QCOMPARE(inside.out, u"%1 0 %2\n"_s.arg(m_job, m_id));
        QVERIFY(QFileInfo(m_case.keeperThere() + u"/journal"_s).isFile());
        QVERIFY(QFileInfo(ferry::run::hostKernelSocketDir(m_id)).isDir());
        const auto keeper = KernelFolder(folderOf(m_id)).readKeeper(); // the copy here
        QVERIFY(keeper && *keeper);
        QCOMPARE((*keeper)->socketDir, ferry::run::hostKernelSocketDir(m_id));
        const auto spec = ferry::run::RunDirectory(folderOf(m_id)).readSpec();
        QVERIFY(spec);
        QVERIFY2(spec->keeperArguments.join(u' ').contains(u"--idle-stop 3600"_s),
                 qPrintable(spec->keeperArguments.join(u' ')));
        QVERIFY(!markedProcesses(m_id).isEmpty());
    }

    void cellsKeepStateAndShowOutputs() { m_case.cellsRunAndTheListSaysSo(u"slurm:"_s + kHost); }

    void interruptsASleep() { ferry::test::interruptsASleep(cli(), m_id); }

    // The fallback for a kernel that does not take interrupt_request: the keeper's USR1, sent on
    // the node through a step of the job.
    void interruptsBySignalOnTheNode()
    {
        interruptAsleep([&] {
            const auto signalled = interruptKernelBySignal(folderOf(m_id), ferryBinary());
            QVERIFY2(signalled, qPrintable(signalled ? QString() : signalled.error().toString()));
        });
    }

    // A cell printing 200,000 lines while the connection is cut (the `exec`'s bridges and journal
    // copy killed, the bridges' own SSH connection and the shared one too): ZeroMQ connects again
    // through new bridges, the copy goes on from where it was; nothing lost when Ferry's side is
    // killed after. The bridges on the node end with their ssh.
    void cutConnectionLosesNothing()
    {
        m_case.cutMidCellLosesNothing([&](QProcess &exec) {
            // The journal's copy and a bridge for each of shell, stdin, control and heartbeat.
            QTRY_COMPARE_WITH_TIMEOUT(childrenNamed(exec.processId(), "ssh").size(), 5, 10000);
            QCOMPARE(keeperProcesses("follow", m_case.keeperThere()).size(), 1);
            QTRY_VERIFY_WITH_TIMEOUT(keeperProcesses("bridge", ferry::run::hostKernelSocketDir(m_id)).size() >= 4,
                                     10000);
            // The bridges' connection: its master, "ssh: .../kl<pid>-1 [mux]", is no child of the exec.
            const QList<qint64> links = childrenNamed(exec.processId(), "ssh");
            QList<qint64> linkConnection = processesWith("/kl" + QByteArray::number(exec.processId()) + '-');
            linkConnection.removeIf([&](qint64 pid) { return links.contains(pid); });
            QCOMPARE(linkConnection.size(), 1);
            const qint64 master = m_case.sandbox->controlMaster();
            QVERIFY(master > 0);
            for (const qint64 pid : links + linkConnection + QList<qint64>{master})
                ::kill(pid_t(pid), SIGKILL);
        });
        QTRY_COMPARE_WITH_TIMEOUT(keeperProcesses("bridge", ferry::run::hostKernelSocketDir(m_id)).size(), 0, 10000);
    }

    void restartGivesAFreshKernel() { ferry::test::restartGivesAFreshKernel(cli(), m_id); }

    // Stop ends the job (Slurm says CANCELLED, squeue no longer lists it) and leaves no process of
    // the kernel, no step, no bridge and no socket folder on the node.
    void stopReleasesTheAllocation()
    {
        m_case.stopAndRemoveLeaveNothing();
        QCOMPARE(onLoginHost({u"squeue"_s, u"-h"_s, u"-j"_s, m_job, u"-o"_s, u"%i"_s}), QString());
        QVERIFY2(jobLine().contains(u"JobState=CANCELLED"_s), qPrintable(jobLine()));
        QCOMPARE(processesWith("--jobid=" + m_job.toUtf8()), QList<qint64>());
        QCOMPARE(keeperProcesses("bridge", ferry::run::hostKernelSocketDir(m_id)), QList<qint64>());
    }

    // What a kernel cannot be is refused before anything is made or submitted: a job across nodes
    // (a kernel is one process), one Slurm may requeue (its memory would be lost).
    void whatAKernelCannotBeIsRefused()
    {
        const QString before = onLoginHost({u"squeue"_s, u"-h"_s, u"-o"_s, u"%i"_s});
        for (const QStringList &asked : {QStringList{u"--nodes"_s, u"2"_s}, QStringList{u"--requeue"_s}}) {
            const CliResult refused = kernel(QStringList{u"start"_s, u"--target"_s, u"slurm:"_s + kHost} + asked);
            QCOMPARE(refused.exitCode, 1);
            QVERIFY2(refused.err.contains(asked.first()), qPrintable(refused.err));
        }
        QCOMPARE(jsonObject(kernel({u"list"_s, u"--json"_s})).value(u"kernels"_s).toArray().size(), 0);
        QCOMPARE(onLoginHost({u"squeue"_s, u"-h"_s, u"-o"_s, u"%i"_s}), before);
    }
};

FERRY_TEST_GUILESS_MAIN(TestSlurmKernel)
#include "tst_slurmkernel.moc"
