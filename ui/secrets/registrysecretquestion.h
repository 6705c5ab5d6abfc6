// Asks before a registry password secret is sent to a registry the user never bound it to.
#pragma once

// The window's question before a registry password goes where the user never sent it (review N1).
#include "env/environment.h"

#include <QSettings>

#include <functional>

namespace ferry::ui {

// Before an image is built or a container run starts from `environment`: when it names a
// keychain secret as the password of a registry the user never sent that secret to (review N1,
// targets::unboundRegistry), `confirm` asks whether to send it there. Yes binds the secret to that
// registry (secrets/secretbinding.h) and returns true; no returns false, and nothing is read from
// the keychain. An environment that names no secret, or one already bound, asks nothing.
bool allowRegistrySecret(const env::Environment &environment, QSettings &settings,
                         const std::function<bool(const QString &question)> &confirm);

} // namespace ferry::ui
