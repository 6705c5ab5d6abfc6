// Turns QtKeychain's error codes into Errors a user can act on, a missing or locked Secret Service
// included.
#pragma once

#include "common/error.h"
#include "secrets/secretstore.h"

namespace ferry::secrets {

// What went wrong, said for the user, from QtKeychain's error code (QKeychain::Error) and text.
// A missing or locked Secret Service (no D-Bus session, no provider of org.freedesktop.secrets,
// no unlocked default collection) is named as such with the way to fix it.
Error keychainError(SecretOperation operation, const QString &name, int code, const QString &text);

// Whether `error` is keychainError's "no secret of that name": the keychain answered.
bool isMissingSecret(const Error &error);

// The keychain did not answer within `timeoutMs`.
Error keychainTimeout(SecretOperation operation, const QString &name, int timeoutMs);

} // namespace ferry::secrets
