#include "targets/hostprobe.h"

#include "targets/remotescripts.h"

using namespace Qt::StringLiterals;

namespace ferry::targets {

Expected<HostInfo> probeHost(RemoteShell &shell)
{
    const ShellResult r = shell.runScript(scripts::hostProbe, nvidiaSmiQuery());
    if (!r.ok())
        return Error{u"cannot probe %1: %2"_s.arg(shell.place(), r.errorText()),
                     {},
                     0,
                     0,
                     r.hostKeyRefused ? QString() : u"check that 'ssh HOST' works in a terminal"_s};
    HostInfo info;
    const QByteArray marker = "--gpus--\n";
    const qsizetype split = r.out.indexOf(marker);
    const QByteArray head = split < 0 ? r.out : r.out.left(split);
    for (const QByteArray &line : head.split('\n')) {
        const qsizetype eq = line.indexOf('=');
        if (eq <= 0)
            continue;
        const QByteArray key = line.left(eq);
        const QString value = QString::fromUtf8(line.mid(eq + 1)).trimmed();
        if (key == "os")
            info.os = value;
        else if (key == "kernel")
            info.kernel = value;
        else if (key == "home")
            info.home = value;
        else if (key == "uid")
            info.uid = value.toInt();
        else if (key == "gid")
            info.gid = value.toInt();
        else if (key == "diskFreeKiB")
            info.diskFreeKiB = value.isEmpty() ? -1 : value.toLongLong();
        else if (key == "cpus")
            info.cpus = std::max(1, value.toInt());
        else if (key == "python")
            info.python = value;
        else if (key == "docker")
            info.docker = value;
        else if (key == "slurm")
            info.slurm = value;
    }
    if (split >= 0) {
        const auto gpus = parseNvidiaSmi(r.out.mid(split + marker.size()));
        if (gpus)
            info.gpus = *gpus;
        else
            info.gpuProblem = gpus.error().message;
    }
    return info;
}

} // namespace ferry::targets
