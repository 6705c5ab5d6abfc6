#include "snapshot/sourcefiles.h"
#include "snapshot/secretfiles.h"

#include <algorithm>
#include <fnmatch.h>

using namespace Qt::StringLiterals;

namespace ferry::snapshot {

SourceExcludes::SourceExcludes(const QStringList &userPatterns) : m_patterns{u".git"_s, u".ferry"_s}
{
    for (const QString &p : userPatterns) {
        const QString trimmed = p.trimmed();
        if (!trimmed.isEmpty() && !m_patterns.contains(trimmed))
            m_patterns << trimmed;
    }
}

QStringList SourceExcludes::rsyncPatterns() const
{
    QStringList out;
    for (const QString &p : m_patterns) {
        QString trimmed = p;
        while (trimmed.endsWith(u'/') && trimmed.size() > 1)
            trimmed.chop(1);
        out << (trimmed.contains(u'/') && !trimmed.startsWith(u'/') ? u'/' + trimmed : trimmed);
    }
    return out;
}

namespace {

// One pattern against a path's parts: a name anywhere, or a path from the top and what is under it.
bool patternMatches(const QString &pattern, const QStringList &parts)
{
    if (!pattern.contains(u'/')) { // a name, anywhere
        const QByteArray p = pattern.toUtf8();
        return std::any_of(parts.begin(), parts.end(), [&](const QString &part) {
            return ::fnmatch(p.constData(), part.toUtf8().constData(), 0) == 0;
        });
    }
    QString anchored = pattern;
    while (anchored.startsWith(u'/'))
        anchored.remove(0, 1);
    while (anchored.endsWith(u'/'))
        anchored.chop(1);
    const QByteArray p = anchored.toUtf8();
    QString prefix;
    for (const QString &part : parts) {
        prefix = prefix.isEmpty() ? part : prefix + u'/' + part;
        if (::fnmatch(p.constData(), prefix.toUtf8().constData(), FNM_PATHNAME) == 0)
            return true;
    }
    return false;
}

bool anyMatches(const QStringList &patterns, const QString &relativePath)
{
    const QStringList parts = relativePath.split(u'/', Qt::SkipEmptyParts);
    return std::any_of(patterns.begin(), patterns.end(),
                       [&](const QString &pattern) { return patternMatches(pattern, parts); });
}

} // namespace

bool SourceExcludes::excluded(const QString &relativePath) const
{
    return anyMatches(m_patterns, relativePath);
}

QStringList secretFilePatterns()
{
    // docs/snapshots.md lists them: change both together.
    return u".env .env.* *.env .envrc *.pem *.key *.p12 *.pfx *.jks *.keystore *.ppk *.kdbx id_rsa* id_dsa* "
           u"id_ecdsa* id_ed25519* .ssh .aws .gnupg .netrc _netrc .pgpass .npmrc .pypirc .git-credentials .htpasswd "
           u"credentials credentials.* *credentials*.json client_secret*.json service-account*.json secrets.*"_s.split(
               u' ');
}

bool looksSecret(const QString &relativePath)
{
    static const QStringList patterns = secretFilePatterns();
    return anyMatches(patterns, relativePath);
}

} // namespace ferry::snapshot
