#include "targets/targetfactory.h"

#include "targets/containertarget.h"
#include "targets/embeddedtarget.h"
#include "targets/localtarget.h"
#include "targets/slurmtarget.h"
#include "targets/sshtarget.h"

#include <QSettings>

namespace ferry::targets {

std::unique_ptr<Target> makeTarget(const run::TargetSpec &spec, const QString &ferryBinary)
{
    switch (spec.kind) {
    case run::TargetKind::Local:
        return std::make_unique<LocalTarget>(ferryBinary);
    case run::TargetKind::Container:
        // The engine recorded with the run (validated again), else the settings' (containerengine.h).
        return std::make_unique<ContainerTarget>(ContainerTarget::engineSettingFor(spec, QSettings()),
                                                 ContainerTarget::kDefaultBuildTimeoutMs, ferryBinary);
    case run::TargetKind::Embedded:
        return std::make_unique<EmbeddedTarget>();
    case run::TargetKind::Ssh:
        return std::make_unique<SshTarget>(spec.host, SshOptions::forHost(spec.host, spec.options, ferryBinary));
    case run::TargetKind::Slurm:
        return std::make_unique<SlurmTarget>(spec.host, SshOptions::forHost(spec.host, spec.options, ferryBinary));
    }
    return nullptr;
}

} // namespace ferry::targets
