// SshTarget: runs a script detached on an SSH host, in the environment's image or the host's
// Python.
#pragma once

#include "targets/remotetarget.h"
#include "targets/sshshell.h"

namespace ferry::targets {

// `ssh:HOST`: the run in the environment's image built on the host (when the run has an
// environment; see remoteimage.h) or in the host's Python, started detached there (`setsid`, so it survives
// the connection and the login), under a small runner script that gives the script the
// training contract, touches a heartbeat and writes exit.json (see remotescripts.cpp).
// Target options: "remoteDir" (run folders on the host, default ~/.ferry/runs, ~/.ferry/kernels
// for a kernel's), "exclude" (more source exclusions), "remoteChannels" (data already on the
// host), "gpus" (SM_NUM_GPUS; default: the host's GPUs), "acceptHostKey", "hostPython" (no image
// even with an environment).
class SshTarget final : public RemoteTarget {
public:
    explicit SshTarget(const QString &host, SshOptions options = SshOptions::defaults(), int startTimeoutMs = 30000);

    Expected<void> start(const QString &runDir, const run::RunSpec &spec) override;
    Expected<RunProbe> cancel(const QString &runDir, int graceMs) override;
    // Whether the run goes in the environment's image built on the host (it has an environment
    // and no "hostPython"), not in the host's Python.
    static bool runsInImage(const run::RunSpec &spec);

protected:
    Expected<RunProbe> judge(const QString &runDir, RemoteRun &run, const RemoteRecord &record,
                             const RemoteStatus &status) override;

private:
    int m_startTimeoutMs;
};

} // namespace ferry::targets
