// What the links to a kernel on an SSH host or a Slurm node share (kernellink.cpp, socketreach.cpp):
// where the kernel is and how to reach it, the link's ssh processes, a pause that grows.
#pragma once

#include "common/error.h"
#include "kernelhost/kernelfolder.h"
#include "run/rundirectory.h"
#include "run/runspec.h"
#include "targets/sshshell.h"

#include <QProcess>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <memory>

namespace ferry::kernels::hostlink {

using namespace Qt::StringLiterals;

inline constexpr int kFirstPauseMs = 250;
inline constexpr int kMaxPauseMs = 5000;

// Where a kernel's run is on its SSH host or Slurm cluster, and how to reach it. The shell lands on
// the SSH host, or on the cluster's login host, whose file system the compute nodes share: the
// run's folder (the keeper's, the journal) is read there; the kernel's processes and sockets are on
// its node, reached through a step of its job.
struct HostKernel {
    targets::SshShell shell;
    QString kernelDir;   // the keeper's folder there
    QString socketDir;   // the kernel's sockets on its machine (mounted into the container, in an image)
    QString interpreter; // what runs keeper.py on the host: the run's, or python3 when the kernel is in an image
    QString runId;       // in the environment's image on an SSH host: the run whose container (ferry-<id>) holds it
    QString jobId;       // the kernel's Slurm job; empty: an SSH host (the kernel runs where the shell lands)

    // The words that run a command on the kernel's machine from where the shell lands: none on an
    // SSH host; a step of the kernel's job on Slurm (`--overlap`: beside the batch step, sharing its
    // resources; the job has one node, which srun picks).
    QStringList onKernelMachine() const
    {
        if (jobId.isEmpty())
            return {};
        return {u"srun"_s, u"--jobid="_s + jobId, u"--overlap"_s, u"--nodes=1"_s, u"--ntasks=1"_s, u"--mpi=none"_s};
    }
    // Where the kernel is, for messages: "host 'gpu1'", "Slurm job 42 (host 'login')".
    QString place() const { return jobId.isEmpty() ? shell.place() : u"Slurm job %1 (%2)"_s.arg(jobId, shell.place()); }
};

// The kernel in `folder` on its host, from its run's records (refused for a target it cannot be on).
Expected<HostKernel> hostKernel(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary);

// An ssh of a link ends with the process that started it, however that one ends (a crash, a
// kill): no forward is left running for nobody.
void endWithThisProcess(QProcess &process);
// An ssh of a link on its way, fed by the event loop: ends with this process, talks to the host
// as the shell does (the passphrase helper).
std::unique_ptr<QProcess> linkProcess(const HostKernel &host);
// TERM, a second, KILL: ssh ends its connection (or its session of a shared one) at once.
void endProcess(QProcess &process);
// The end of what a process said on stderr, kept as it goes (the last 2,000 bytes).
void keepEnd(QByteArray &said, const QByteArray &more);
// The last lines of what an ssh said, for a message.
QString saidOf(const QByteArray &stderrEnd);

// A pause that grows while something keeps failing: kFirstPauseMs, twice that ... kMaxPauseMs.
struct Pause {
    int failures = 0;
    qint64 untilMs = 0;
    bool due() const { return run::nowMs() >= untilMs; }
    void failed()
    {
        untilMs = run::nowMs() + std::min(kMaxPauseMs, kFirstPauseMs << std::min(failures, 5));
        ++failures;
    }
    void reset() { failures = 0; }
};

} // namespace ferry::kernels::hostlink
