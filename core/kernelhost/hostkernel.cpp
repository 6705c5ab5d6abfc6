#include "kernelhost/hostkernel.h"

#include "kernelhost/kernellink.h"

#include "common/privatedir.h"
#include "common/safefile.h"
#include "common/uniquefd.h"
#include "kernels/connectionfile.h"
#include "run/contract.h"
#include "run/distribution.h"
#include "run/rundirectory.h"
#include "targets/remoterun.h"
#include "targets/remotescripts.h"
#include "targets/shellquote.h"
#include "targets/sshshell.h"
#include "targets/sshtarget.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QProcess>
#include <QTimer>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <list>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::kernels::hostlink {

Expected<HostKernel> hostKernel(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary)
{
    if (const auto checked = checkKernelTarget(spec); !checked)
        return checked.error();
    const auto record = targets::RemoteRecord::read(folder.path());
    if (!record)
        return record.error();
    if (!*record)
        return Error{u"the kernel's run has no folder on %1: it did not start there"_s.arg(spec.target.toString()),
                     folder.path(), 0, 0, u"`ferry kernel show` says how it ended"_s};
    if (spec.target.kind == run::TargetKind::Slurm && (*record)->jobId.isEmpty())
        return Error{u"the kernel's job was not submitted to %1"_s.arg(spec.target.toString()), folder.path(), 0, 0,
                     u"`ferry kernel show` says how it ended"_s};
    const auto connection = ConnectionInfo::read(folder.connectionFile());
    if (!connection)
        return connection.error();
    // In the environment's image, the keeper's folder and the sockets' are mounted from the host,
    // where the host's Python copies the journal.
    const bool inImage = spec.target.kind == run::TargetKind::Ssh && targets::SshTarget::runsInImage(spec);
    return HostKernel{targets::SshShell(spec.target.host, targets::SshOptions::forHost(
                                                              spec.target.host, spec.target.options, ferryBinary)),
                      (*record)->dir + u'/' + run::kKeeperFolder,
                      connection->transport == u"ipc" ? run::hostKernelSocketDir(spec.id) : QString(),
                      spec.interpreter.isEmpty() || inImage ? u"python3"_s : spec.interpreter,
                      inImage ? spec.id : QString(),
                      spec.target.kind == run::TargetKind::Slurm ? (*record)->jobId : QString()};
}

// An ssh of a link ends with the process that started it, however that one ends (a crash, a
// kill): no forward is left running for nobody. (A ControlMaster that ssh forks off does not
// inherit this: it outlives it, serving the runs' commands, as always.)
void endWithThisProcess(QProcess &process)
{
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
}

// An ssh of a link on its way, fed by the event loop: ends with this process, talks to the host
// as the shell does (the passphrase helper).
std::unique_ptr<QProcess> linkProcess(const HostKernel &host)
{
    auto process = std::make_unique<QProcess>();
    endWithThisProcess(*process);
    process->setProcessEnvironment(host.shell.environment());
    return process;
}

// TERM, a second, KILL: ssh ends its connection (or its session of a shared one) at once.
void endProcess(QProcess &process)
{
    process.disconnect();
    if (process.state() == QProcess::NotRunning)
        return;
    process.terminate();
    if (!process.waitForFinished(1000)) {
        process.kill();
        process.waitForFinished(1000);
    }
}

// The end of what a process said on stderr, kept as it goes (the last 2,000 bytes).
void keepEnd(QByteArray &said, const QByteArray &more)
{
    said += more;
    if (said.size() > 2000)
        said = said.right(2000);
}

// The last lines of what an ssh said, for a message.
QString saidOf(const QByteArray &stderrEnd)
{
    const QString said = QString::fromUtf8(stderrEnd).trimmed();
    return said.isEmpty() ? QString() : u": "_s + said.section(u'\n', -2).trimmed();
}

} // namespace ferry::kernels::hostlink
