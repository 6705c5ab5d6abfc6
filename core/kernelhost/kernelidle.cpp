#include "kernelhost/kernelidle.h"

#include "kernelhost/kernelfolder.h"
#include "run/rundirectory.h"

#include <QDir>

namespace ferry::kernels {

QList<IdleKernelGpu> KernelIdleWatch::poll(const QString &kernelsDir)
{
    QList<IdleKernelGpu> idle;
    const QStringList ids =
        QDir(kernelsDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
    std::map<QString, run::IdleGpuFileWatch> live;
    for (const QString &id : ids) {
        const QString path = KernelFolder::pathFor(kernelsDir, id);
        const auto end = KernelFolder(path).readEnd();
        if (!end || *end) // ended, or its end unreadable: not watched
            continue;
        auto watch = m_kernels.extract(id);
        auto &mine = watch ? live.insert(std::move(watch)).position->second
                           : live.emplace(id, run::IdleGpuFileWatch(m_idleMs)).first->second;
        for (const auto &gpu : mine.poll(run::RunDirectory(path).systemSamplesFile()))
            idle << IdleKernelGpu{id, path, gpu.gpu, gpu.sinceMs};
    }
    m_kernels = std::move(live);
    return idle;
}

} // namespace ferry::kernels
