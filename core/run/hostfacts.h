// The host a run ran on (hostname, OS, CPU, memory, GPUs), gathered and read back.
#pragma once

// The host as a run saw it: hostname, OS, CPU model and cores, memory, GPUs (model, count).
// Gathered where the script runs by one POSIX sh function (kHostFactsScript): by the launch for
// a local run and the embedded trainer, inside the container for a container run, by the runner
// on the node for an SSH or Slurm run. Its "key=value" lines are the run folder's `host.txt`
// (kHostFactsFile), fetched with the log from a remote host; `ferry runs show`, `ferry runs diff`
// and the run details pane read it from there.
#include "common/error.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

namespace ferry::run {

inline constexpr QLatin1String kHostFactsFile{"host.txt"};

// Defines `ferry_host_facts`, which prints the facts as "key=value" lines: hostname, os (the
// PRETTY_NAME of /etc/os-release), cpu (/proc/cpuinfo's model name), cores, memoryKiB, and a
// gpu line per GPU nvidia-smi names.
extern const char kHostFactsScript[];

struct HostFacts {
    QString hostname;
    QString os;
    QString cpu;
    int cores = 0;
    qint64 memoryKiB = 0;
    QStringList gpus; // one model name per GPU
    bool operator==(const HostFacts &) const = default;

    bool empty() const { return hostname.isEmpty() && os.isEmpty() && cpu.isEmpty() && cores == 0; }
    // "2 × NVIDIA H100 80GB HBM3", "none".
    QString gpuText() const;
    // (field, value) for show and diff: gpu, cpu, memory, os, hostname.
    QList<std::pair<QString, QString>> fields() const;
    // The known fields on one line, "gpu none; cpu Xeon (2 cores); memory 23.4 GiB; ...": what
    // `ferry runs show` and the run details pane print.
    QString summary() const;
    static HostFacts parse(const QByteArray &text);
};

// Runs the script here (blocking, at most a few seconds: nvidia-smi is bounded).
QByteArray gatherLocalHostFacts();

// Writes this machine's facts into `runDir`/host.txt.
Expected<void> writeLocalHostFacts(const QString &runDir);

// The facts a run recorded; nullopt when it has none (a run of an earlier Ferry, a remote run
// whose runner has not reported yet).
std::optional<HostFacts> readHostFacts(const QString &runDir);

} // namespace ferry::run
