// How a link reaches a kernel's shell, stdin, control and heartbeat sockets on an SSH host (ssh
// forwards) or a Slurm node (a bridge per connection, through a step of its job).
#pragma once

#include "common/error.h"
#include "kernelhost/hostkernel.h"

#include <QList>
#include <QString>

#include <memory>
#include <utility>

namespace ferry::kernels::hostlink {

// How a link reaches the kernel's shell, stdin, control and heartbeat sockets (iopub comes through
// the journal) from its own folder here, where ZeroMQ connects.
class SocketReach {
public:
    virtual ~SocketReach() = default;
    // Keeps the way open while the kernel lives, trying again (after a pause that grows while it
    // keeps failing) what died; closes it once the kernel has ended. What is wrong now, if anything.
    virtual QString ensure(bool kernelEnded) = 0;
};

// The link's sockets here and the kernel's there, in pairs.
using SocketPairs = QList<std::pair<QString, QString>>;
// On an SSH host: one `ssh -N` forwarding them (started by the first ensure()).
std::unique_ptr<SocketReach> forwardReach(const HostKernel &host, const SocketPairs &sockets);
// On a Slurm node: the link's sockets listening, a bridge for each connection ZeroMQ makes, on an
// SSH connection of their own at `controlPath` (empty: none shared).
Expected<std::unique_ptr<SocketReach>> bridgeReach(const HostKernel &host, const SocketPairs &sockets,
                                                   const QString &controlPath);

} // namespace ferry::kernels::hostlink
