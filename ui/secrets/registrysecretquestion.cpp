#include "ui/secrets/registrysecretquestion.h"

#include "secrets/secretbinding.h"
#include "targets/containerengine.h"

#include <QCoreApplication>

namespace ferry::ui {

bool allowRegistrySecret(const env::Environment &environment, QSettings &settings,
                         const std::function<bool(const QString &question)> &confirm)
{
    const QString destination = targets::unboundRegistry(environment, settings);
    if (destination.isEmpty())
        return true;
    const QString secret = environment.docker.registry.passwordSecret.trimmed();
    const QString registry = destination.mid(destination.indexOf(u':') + 1);
    const QString question =
        QCoreApplication::translate("ferry::ui::allowRegistrySecret",
                                    "Environment %1 sends your keychain secret %2 as the password of registry %3, "
                                    "where you have not sent it before. An environment file can come from "
                                    "elsewhere (a cloned repository, an imported run). Send %2 to %3, now and "
                                    "for later builds?")
            .arg(environment.name, secret, registry);
    if (!confirm || !confirm(question))
        return false;
    secrets::bindSecret(settings, secret, destination);
    return true;
}

} // namespace ferry::ui
