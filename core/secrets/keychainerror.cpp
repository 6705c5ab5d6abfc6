#include "secrets/keychainerror.h"

#include <qt6keychain/keychain.h>

using namespace Qt::StringLiterals;

namespace ferry::secrets {

namespace {

QString verb(SecretOperation operation)
{
    switch (operation) {
    case SecretOperation::Read:
        return u"read"_s;
    case SecretOperation::Write:
        return u"store"_s;
    case SecretOperation::Remove:
        break;
    }
    return u"delete"_s;
}

// How to get a Secret Service, said once for every "not available" case.
const QString kServiceHint =
    u"Ferry keeps secrets only in the OS keychain, never in a plain file. Start a Secret Service "
    u"provider in your desktop session (GNOME Keyring, KWallet with its Secret Service, or KeePassXC) "
    u"and unlock it; on a headless machine run Ferry inside one: dbus-run-session -- sh -c "
    u"'gnome-keyring-daemon --unlock --components=secrets < password-file; ferry secret ...'"_s;

// keychainError's message for an entry that is not there (isMissingSecret tells it by this).
const QString kMissingPrefix = u"no secret named '"_s;

} // namespace

bool isMissingSecret(const Error &error)
{
    return error.message.startsWith(kMissingPrefix);
}

Error keychainError(SecretOperation operation, const QString &name, int code, const QString &text)
{
    Error error;
    const QString what = u"cannot %1 secret '%2'"_s.arg(verb(operation), name);
    if (code == QKeychain::EntryNotFound) {
        error.message = kMissingPrefix + name + u"' in the keychain"_s;
        error.hint = u"store it with 'ferry secret set %1' (the value is read from a prompt or standard input); "
                     u"'ferry secret list' shows the names Ferry knows"_s.arg(name);
        return error;
    }
    if (text.contains("autolaunch D-Bus"_L1) || text.contains("DBUS_SESSION_BUS_ADDRESS"_L1) ||
        text.contains("D-Bus is not running"_L1)) {
        error.message = what + u": no D-Bus session bus, so no Secret Service can be reached (%1)"_s.arg(text);
        error.hint = u"run Ferry inside your desktop session (DBUS_SESSION_BUS_ADDRESS must be set). "_s + kServiceHint;
        return error;
    }
    if (text.contains("org.freedesktop.secrets"_L1) || code == QKeychain::NoBackendAvailable) {
        error.message = what + u": no Secret Service on the session bus: nothing provides "
                               u"org.freedesktop.secrets (%1)"_s.arg(text);
        error.hint =
            u"install and start a keyring, e.g. 'apt install gnome-keyring' and log in again. "_s + kServiceHint;
        return error;
    }
    if (text.contains("/collection/"_L1) || text.contains("locked"_L1, Qt::CaseInsensitive) ||
        text.contains("prompt"_L1, Qt::CaseInsensitive) || code == QKeychain::AccessDenied ||
        code == QKeychain::AccessDeniedByUser) {
        error.message = what + u": the keyring is locked or has no default collection (%1)"_s.arg(text);
        error.hint = u"unlock your login keyring (e.g. in Seahorse, 'Passwords and Keys'), or create one, and try "
                     u"again. "_s +
                     kServiceHint;
        return error;
    }
    error.message = what + u": the keychain reported error %1: %2"_s.arg(code).arg(text);
    error.hint = kServiceHint;
    return error;
}

Error keychainTimeout(SecretOperation operation, const QString &name, int timeoutMs)
{
    Error error;
    error.message = u"cannot %1 secret '%2': the keychain did not answer within %3 s"_s.arg(verb(operation), name)
                        .arg(timeoutMs / 1000.0);
    error.hint = u"the keyring may be waiting for you to unlock it: unlock it and try again. "_s + kServiceHint;
    return error;
}

} // namespace ferry::secrets
