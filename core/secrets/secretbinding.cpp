#include "secrets/secretbinding.h"

using namespace Qt::StringLiterals;

namespace ferry::secrets {

namespace {

QString keyOf(const QString &secret)
{
    return u"secrets/bindings/"_s + secret;
}

} // namespace

QString registryDestination(const QString &address)
{
    const QString host = address.trimmed().toLower();
    return u"registry:"_s + (host.isEmpty() || host == u"index.docker.io"_s ? u"docker.io"_s : host);
}

QStringList boundDestinations(const QSettings &settings, const QString &secret)
{
    QStringList bound = settings.value(keyOf(secret)).toStringList();
    bound.sort();
    return bound;
}

bool isBound(const QSettings &settings, const QString &secret, const QString &destination)
{
    return boundDestinations(settings, secret).contains(destination);
}

void bindSecret(QSettings &settings, const QString &secret, const QString &destination)
{
    QStringList bound = boundDestinations(settings, secret);
    if (bound.contains(destination))
        return;
    bound << destination;
    bound.sort();
    settings.setValue(keyOf(secret), bound);
    settings.sync();
}

} // namespace ferry::secrets
