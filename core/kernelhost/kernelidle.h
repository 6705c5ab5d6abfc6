// Idle hardware for kernels: the idle-GPU rule (tracking/idlegpu.h) over each live kernel's
// system.samples, as the window polls them (docs/cost.md, *Idle hardware*).
#pragma once

#include "tracking/idlegpu.h"

#include <QList>
#include <QString>

#include <map>

namespace ferry::kernels {

// A kernel's GPU at 0 % for the rule's duration.
struct IdleKernelGpu {
    QString kernelId;
    QString folder;
    int gpu = 0;
    qint64 sinceMs = 0; // the first sample of the stretch at 0 %
};

// Every kernel of a kernels folder that has not ended (no kernel-exit.json), its samples read as
// they grow; each idle stretch of each GPU is returned once, while it lasts. A kernel that ended
// is forgotten. Reads files only (no probe of the target): cheap enough for the GUI thread.
class KernelIdleWatch {
public:
    explicit KernelIdleWatch(qint64 idleMs) : m_idleMs(idleMs) {}
    QList<IdleKernelGpu> poll(const QString &kernelsDir);
    qint64 idleMs() const { return m_idleMs; }

private:
    qint64 m_idleMs;
    std::map<QString, run::IdleGpuFileWatch> m_kernels; // by id
};

} // namespace ferry::kernels
