#include "snapshot/sourcefiles.h"

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

bool SourceExcludes::excluded(const QString &relativePath) const
{
    const QStringList parts = relativePath.split(u'/', Qt::SkipEmptyParts);
    for (const QString &pattern : m_patterns) {
        if (!pattern.contains(u'/')) { // a name, anywhere
            const QByteArray p = pattern.toUtf8();
            for (const QString &part : parts) {
                if (::fnmatch(p.constData(), part.toUtf8().constData(), 0) == 0)
                    return true;
            }
            continue;
        }
        // A path from the top: it and everything under it.
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
    }
    return false;
}

} // namespace ferry::snapshot
