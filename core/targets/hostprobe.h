// Probes in one call what a host offers a run: OS, CPUs, disk, Python, container engine, Slurm and
// GPUs.
#pragma once

#include "common/error.h"
#include "targets/gpuinfo.h"
#include "targets/remoteshell.h"

#include <QList>
#include <QString>

namespace ferry::targets {

// What a host offers a run, from one call.
struct HostInfo {
    QString os;     // "Debian GNU/Linux 12 (bookworm)"
    QString kernel; // "Linux 6.1.0-13-amd64"
    QString home;
    int uid = -1; // the login's user and group: files a container writes stay theirs
    int gid = -1;
    qint64 diskFreeKiB = -1; // in the home folder's file system; -1: unknown
    int cpus = 1;
    QString python; // "3.11.2"; empty: no python3
    QString docker; // the engine's version; empty: none that answers
    QString slurm;  // "slurm 22.05.8"; empty: no sbatch
    QList<GpuInfo> gpus;
    QString gpuProblem; // nvidia-smi is there but answered something unreadable
};

Expected<HostInfo> probeHost(RemoteShell &shell);

} // namespace ferry::targets
