// How Ferry reaches a kernel's files and sockets on its target: nothing to do for this machine and a
// container (the files are here, the sockets too or mounted), forwards and a journal mirror for a
// kernel on an SSH host or a Slurm node.
#pragma once

#include "common/error.h"
#include "kernelhost/kernelfolder.h"
#include "run/runspec.h"

#include <QString>

#include <memory>

namespace ferry::kernels {

// Where the kernel binds its sockets, as the kernel sees it (connection.json's folder), given the
// folder where Ferry reaches them (`ferrySocketDir`, the `sockets` file).
QString kernelSideSocketDir(const run::RunSpec &spec, const QString &ferrySocketDir);

// What must run while a client talks to a kernel whose files or sockets are elsewhere: on an SSH
// host, the socket forwards and the copy of the journal and records into the local keeper folder.
// Ends what it started when destroyed.
class KernelLink {
public:
    virtual ~KernelLink() = default;
    // Whether the link works now (a cut connection is re-made by the next call).
    virtual Expected<void> ensure() = 0;
};

// The link the kernel in `folder` needs: nullptr where none is (this machine, a container); an
// Error when it cannot be made.
Expected<std::unique_ptr<KernelLink>> openKernelLink(const KernelFolder &folder, const run::RunSpec &spec,
                                                     const QString &ferryBinary);

// Brings the local copies of the keeper's small records (keeper.json, status.json,
// kernel-exit.json) up to date for a kernel on a host; nothing for this machine and a container.
void refreshKernelRecords(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary);

} // namespace ferry::kernels
