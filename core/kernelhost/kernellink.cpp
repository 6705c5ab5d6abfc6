#include "kernelhost/kernellink.h"

#include "run/contract.h"

using namespace Qt::StringLiterals;

namespace ferry::kernels {

QString kernelSideSocketDir(const run::RunSpec &spec, const QString &ferrySocketDir)
{
    switch (spec.target.kind) {
    case run::TargetKind::Container:
        return QString(run::kContainerSocketsMount); // the host's folder, mounted (targets/containertarget.cpp)
    default:
        return ferrySocketDir;
    }
}

Expected<std::unique_ptr<KernelLink>> openKernelLink(const KernelFolder &folder, const run::RunSpec &spec,
                                                     const QString &ferryBinary)
{
    (void)folder;
    (void)ferryBinary;
    if (spec.target.onHost())
        return Error{u"kernels on %1 come in a later version"_s.arg(spec.target.toString()), folder.path(), 0, 0, {}};
    return std::unique_ptr<KernelLink>();
}

void refreshKernelRecords(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary)
{
    (void)folder;
    (void)spec;
    (void)ferryBinary;
}

} // namespace ferry::kernels
