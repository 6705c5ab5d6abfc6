// How Ferry reaches a kernel's files and sockets on its target: nothing to do for this machine and a
// container (the files are here, the sockets too or mounted), forwards and a journal mirror for a
// kernel on an SSH host, bridges through Slurm steps and the same mirror for a kernel on a Slurm
// node.
#pragma once

#include "common/error.h"
#include "kernelhost/kernelfolder.h"
#include "run/runspec.h"

#include <QString>

#include <memory>

namespace ferry::kernels {

// Where the kernel binds its sockets, as the kernel sees it (connection.json's folder), given the
// folder where Ferry reaches them (`ferrySocketDir`, the `sockets` file): the same folder on this
// machine, the mount of it in a container (here or on an SSH host), a short private folder of its
// own on an SSH host or a Slurm node (run::hostKernelSocketDir()).
QString kernelSideSocketDir(const run::RunSpec &spec, const QString &ferrySocketDir);

// Why a kernel cannot be started on this target (yet), checked before anything is made: this
// machine's Slurm (slurm:local), a Slurm job across nodes or one Slurm may requeue.
Expected<void> checkKernelTarget(const run::RunSpec &spec);

// What must run while a client talks to a kernel whose files or sockets are elsewhere: on an SSH
// host, the socket forwards, on a Slurm node, a bridge (a step of the kernel's job, through the
// login host) for each connection to its sockets; on both, the copy of the journal and records
// into the local keeper folder.
// Its processes are driven by the owner's event loop (QProcess signals): call ensure() now and
// then (KernelConnection does, ten times a second). Ends what it started when destroyed.
class KernelLink {
public:
    virtual ~KernelLink() = default;
    // Whether the link works now; what died (a cut connection) is started again, after a pause
    // that grows while it keeps failing. The journal's copy goes on from its local size, so
    // nothing is copied twice.
    virtual Expected<void> ensure() = 0;
    // The folder where this link's sockets are (each link has its own, so two clients of one
    // kernel never take each other's sockets); empty: the kernel folder's `sockets` one.
    virtual QString ferrySocketDir() const { return {}; }
};

// The link the kernel in `folder` needs: nullptr where none is (this machine, a container, a
// kernel whose end, and so its whole journal, is here already); an Error when it cannot be made.
Expected<std::unique_ptr<KernelLink>> openKernelLink(const KernelFolder &folder, const run::RunSpec &spec,
                                                     const QString &ferryBinary);

// Brings the local copies of the keeper's small records (keeper.json, status.json) up to date for
// a kernel on a host, and once the kernel has ended there the journal's copy to its end, then
// kernel-exit.json (so whoever sees it here has the whole journal, as on the kernel's machine).
// Nothing for this machine and a container. Blocks (one or two SSH calls).
void refreshKernelRecords(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary);

// Sends the keeper a signal ("HUP": restart, "USR1": interrupt) on the kernel's host (a Slurm
// node: through a step of its job), when keeper.json's keeper still runs there. An Error for a kernel that is not on a
// host.
Expected<void> signalHostKeeper(const KernelFolder &folder, const run::RunSpec &spec, const QString &signal,
                                const QString &ferryBinary);

// Before a stop: `stop-request` where the keeper reads it (written here already; on a host, also
// there), so that its kernel-exit.json says "stopped".
Expected<void> requestStopOnHost(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary);

// After a stop on a host (the run cancelled): the socket folder on an SSH host removed (the keeper
// removes it as it ends; not when it was killed; a Slurm node is out of reach once the job has
// ended), the local copies brought to the end
// (refreshKernelRecords). Nothing for this machine and a container.
Expected<void> releaseKernelHost(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary);

} // namespace ferry::kernels
