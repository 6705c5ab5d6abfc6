// Kernels started, listed, stopped and removed the way runs are: a kernel is a run whose program is
// the keeper (docs/kernels.md), on the run's targets.
#pragma once

#include "common/error.h"
#include "kernelhost/kernelfolder.h"
#include "run/runspec.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace ferry::kernels {

// What a new kernel gets: the environment a run would get (its interpreter, variables and
// secrets), the target, the data channels (SM_CHANNEL_<NAME>, /opt/ml/input/data/<name> where
// a run gets them), the folder it works in (a work folder linking to its entries, as a run's).
struct KernelRequest {
    QString environmentFile; // empty: this machine's python3
    run::TargetSpec target;
    QList<run::DataChannel> channels;
    QString workingFolder;
    double idleStopMinutes = -1; // -1: the target's default (defaultIdleStopMinutes); 0: never
    // The kernel's command after the interpreter; "{connection_file}" is filled in by the keeper.
    QStringList kernelArguments{QStringLiteral("-m"), QStringLiteral("ipykernel_launcher"), QStringLiteral("-f"),
                                QStringLiteral("{connection_file}")};
    // Keychain secrets the kernel gets as variables (VARIABLE, secret name); none unless asked.
    QList<std::pair<QString, QString>> secretVariables;
    // What the start is doing, as it goes (on a host: the upload, the submission, Slurm's queue).
    std::function<void(const QString &)> progress;
};

// Off (0) where the kernel costs nothing while it waits (this machine, a container), an hour on
// an SSH host or a Slurm allocation, which someone pays for.
int defaultIdleStopMinutes(run::TargetKind kind);

// The kernel's spec as its run sees it: keeperArguments naming the kernel's command, the
// environment applied, the idle stop. Its diagnostics when the environment file has errors.
Expected<run::RunSpec> kernelSpec(const QString &id, const KernelRequest &request);

// A new kernel's id: "20261207-071500-kernel-3f2a".
QString newKernelId();

// Starts a kernel in `kernelsDir` and returns its folder once its keeper listens (keeper.json),
// or the step that failed and why: the start on the target, the keeper, the kernel (its last
// lines; a Python without ipykernel is named as such); refused before anything once the workspace's
// month's budget is spent (cost/budget.h). Blocks up to `timeoutMs` (and while a Slurm job waits in
// the queue, however long that is: that time is not counted): call it off the GUI thread.
Expected<KernelFolder> startKernel(const QString &kernelsDir, const KernelRequest &request, const QString &ferryBinary,
                                   int timeoutMs = 60000);

// What the kernel's run used at its last system sample (system.samples, written beside its log
// every 5 s as for any run): its GPUs as nvidia-smi saw them.
struct GpuUse {
    int gpus = 0;
    double memoryUsedMiB = 0;      // summed over them
    double utilizationPercent = 0; // their mean
    // How long every one of them had been at 0 % at that sample, by the idle-GPU rule's count
    // (tracking/idlegpu.h: a gap starts it again), over the samples the file's end holds (about
    // the last half hour: at least that much when it says so); 0: one of them is not idle.
    qint64 idleMs = 0;
};
// The last sample's GPUs in a run's system.samples (read from its end); nullopt without one.
std::optional<GpuUse> lastGpuUse(const QString &samplesFile);

// A kernel as a list shows it.
struct KernelSummary {
    QString id;
    QString folder;
    run::TargetSpec target;
    QString environmentFile;
    QString interpreter;
    QString workingFolder;
    QString state; // starting, idle, busy, dead
    qint64 startedMs = 0;
    qint64 lastActivityMs = 0;
    qint64 memoryBytes = 0;
    qint64 peakMemoryBytes = 0;
    int restarts = 0;
    std::optional<GpuUse> gpu;    // while it runs, on a machine with NVIDIA GPUs
    std::optional<KernelEnd> end; // when dead: why (never just "dead")
    bool alive() const { return state != u"dead"; }
};

// The kernel in `folder` now (its target probed: blocking).
Expected<KernelSummary> describeKernel(const QString &folder, const QString &ferryBinary);
// How the kernel in `folder` ended, as well as its place can say: `end` (its kernel-exit.json)
// when that is precise; when its keeper could only say "terminated" or name a signal, the cause
// Slurm recorded (the job's time limit, memory, node), waiting up to `waitMs` for it to be done
// with the job (completing). Blocking.
KernelEnd explainedEnd(const QString &folder, const KernelEnd &end, const QString &ferryBinary, int waitMs = 15000);
// Every kernel of `kernelsDir`, oldest first; a folder that cannot be read is left out and named in `problems`.
QList<KernelSummary> listKernels(const QString &kernelsDir, const QString &ferryBinary,
                                 QList<Error> *problems = nullptr);
// A kernel's time on its target, as the cost report prices it (cost/kernelcost.h): its spec, its
// start, its end (0 while it runs; a dead kernel without a recorded end: its last activity).
struct KernelSession {
    QString id;
    run::RunSpec spec;
    qint64 startedMs = 0;
    qint64 finishedMs = 0;
};
// Every kernel of `kernelsDir` as listKernels lists them (probed: blocking), with its spec.
QList<KernelSession> kernelSessions(const QString &kernelsDir, const QString &ferryBinary,
                                    QList<Error> *problems = nullptr);
// The folder of the kernel whose id is `idOrSuffixOrPrefix` (or starts or ends with it); why not when none or several.
Expected<QString> findKernel(const QString &kernelsDir, const QString &idOrPrefix);

// Stops the kernel and releases what it held (the keeper stops it: TERM, grace, KILL; then its
// target's cancel, as a run's; anything left of the kernel's processes is killed). Returns it as
// it ended.
Expected<KernelSummary> stopKernel(const QString &folder, const QString &ferryBinary, int graceMs = 10000);
// Restarts the kernel in place, on any target: a shutdown_request with restart, after which its
// keeper starts the same kernel again (same sockets, same journal, a `restarted` event in it; a
// kernel busy in a cell that does not return is killed after the keeper's grace). Returns once
// the new kernel answers (kernel_info), so what is sent after it runs there; or why not.
Expected<void> restartKernel(const QString &folder, const QString &ferryBinary, int timeoutMs = 60000);
// SIGINT to the kernel through its keeper (for a kernel that does not take interrupt_request).
Expected<void> interruptKernelBySignal(const QString &folder, const QString &ferryBinary = {});
// Removes a kernel's record and folder, stopping it first when it runs; on a host, its run's
// folder there too.
Expected<void> removeKernel(const QString &folder, const QString &ferryBinary);

} // namespace ferry::kernels
