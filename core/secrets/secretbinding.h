// Binds keychain secrets to the registries the user chose, so a file from elsewhere cannot send a
// password anywhere else.
#pragma once

// Where a keychain secret may go (second review N1): a registry password is sent only to the
// registries the user sent it to. An environment file is data from elsewhere (a cloned
// repository, an imported run, a dropped file): naming a secret and a registry in it never sends
// the one to the other. The user binds a secret to a registry by choosing it for that registry
// in the environment editor, by `ferry secret bind NAME --registry ADDRESS`, or by answering the
// window's question; the bindings live in the user's settings, never in a workspace.
#include <QSettings>
#include <QString>
#include <QStringList>

namespace ferry::secrets {

// The destination a registry address names: "registry:ADDRESS" (Docker Hub: "registry:docker.io").
QString registryDestination(const QString &address);

// The destinations `secret` is bound to, sorted.
QStringList boundDestinations(const QSettings &settings, const QString &secret);
bool isBound(const QSettings &settings, const QString &secret, const QString &destination);
// Binds `secret` to `destination` (as well as any it was bound to).
void bindSecret(QSettings &settings, const QString &secret, const QString &destination);

} // namespace ferry::secrets
