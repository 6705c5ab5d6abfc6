#include "env/environmentversions.h"

#include "common/textfile.h"
#include "env/environmentfile.h"
#include "env/pip/requirementsfile.h"
#include "env/spechash.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::env {

QString versionsFolder(const QString &environmentFile)
{
    const QFileInfo info(environmentFile);
    return QDir(info.absolutePath()).filePath(u".versions/"_s + info.completeBaseName());
}

int compareVersions(const QString &a, const QString &b)
{
    static const QRegularExpression separators(u"[._-]"_s);
    const QStringList x = a.split(separators);
    const QStringList y = b.split(separators);
    for (qsizetype i = 0; i < std::max(x.size(), y.size()); ++i) {
        if (i >= x.size())
            return -1;
        if (i >= y.size())
            return 1;
        bool xNumber = false;
        bool yNumber = false;
        const qulonglong xn = x.at(i).toULongLong(&xNumber);
        const qulonglong yn = y.at(i).toULongLong(&yNumber);
        if (xNumber && yNumber) {
            if (xn != yn)
                return xn < yn ? -1 : 1;
        } else if (xNumber != yNumber) {
            return xNumber ? 1 : -1; // "1.post" < "1.2": words sort before numbers
        } else if (const int c = x.at(i).compare(y.at(i)); c != 0) {
            return c;
        }
    }
    return 0;
}

QList<StoredVersion> storedVersions(const QString &environmentFile)
{
    QList<StoredVersion> versions;
    const QDir dir(versionsFolder(environmentFile));
    for (const QFileInfo &file : dir.entryInfoList({u"*.yml"_s}, QDir::Files))
        versions << StoredVersion{file.completeBaseName(), file.absoluteFilePath()};
    std::sort(versions.begin(), versions.end(),
              [](const StoredVersion &a, const StoredVersion &b) { return compareVersions(a.version, b.version) < 0; });
    return versions;
}

bool isNewVersion(const Environment &saved, const Environment &edited)
{
    return canonicalImageSpec(saved) != canonicalImageSpec(edited) || saved.variables != edited.variables ||
           saved.secretVariables != edited.secretVariables;
}

QString nextVersion(const QStringList &taken)
{
    if (taken.isEmpty())
        return u"1"_s;
    QString highest = taken.first();
    for (const QString &v : taken)
        if (compareVersions(v, highest) > 0)
            highest = v;
    static const QRegularExpression lastNumber(u"(\\d+)(?!.*\\d)"_s);
    const QRegularExpressionMatch m = lastNumber.match(highest);
    if (!m.hasMatch())
        return highest + u".2"_s;
    const qulonglong n = m.captured(1).toULongLong() + 1;
    return highest.left(m.capturedStart(1)) + QString::number(n) + highest.mid(m.capturedEnd(1));
}

Expected<VersionedSave> saveVersioned(const QString &environmentFile, const Environment &edited)
{
    VersionedSave result{edited, {}};
    if (QFileInfo::exists(environmentFile)) {
        const auto text = readTextFile(environmentFile);
        const EnvironmentRead onDisk = text ? parseEnvironmentYaml(*text, environmentFile) : EnvironmentRead{{}, {}};
        // Only a readable file of the same environment is an earlier version of this one.
        if (text && !hasErrors(onDisk.diagnostics) && onDisk.environment.name == edited.name &&
            isNewVersion(onDisk.environment, edited)) {
            QStringList taken;
            for (const StoredVersion &v : storedVersions(environmentFile))
                taken << v.version;
            const QString kept = onDisk.environment.version;
            if (!taken.contains(kept)) {
                const QString folder = versionsFolder(environmentFile);
                if (!QDir().mkpath(folder))
                    return Error{u"cannot create the versions folder"_s, folder, 0, 0,
                                 u"check that the workspace is writable"_s};
                const auto stored = writeTextFileAtomically(QDir(folder).filePath(kept + u".yml"_s), *text);
                if (!stored)
                    return stored.error();
                taken << kept;
                result.storedVersion = kept;
            }
            if (taken.contains(edited.version))
                result.written.version = nextVersion(taken);
        }
    }
    if (const auto written = writeTextFileAtomically(environmentFile, writeEnvironmentYaml(result.written)); !written)
        return written.error();
    return result;
}

Expected<PackagesAdded> addPipPackages(const QString &environmentFile, const QStringList &requirements)
{
    const auto text = readTextFile(environmentFile);
    if (!text)
        return text.error();
    const EnvironmentRead read = parseEnvironmentYaml(*text, environmentFile);
    for (const Diagnostic &d : read.diagnostics)
        if (d.isError())
            return d.where;
    PackagesAdded result;
    result.before = read.environment;
    Environment edited = read.environment;
    for (const QString &line : requirements) {
        const auto parsed = parsePipLine(line);
        if (!parsed)
            return Error{u"'%1' is no pip requirement: %2"_s.arg(line, parsed.error().message), environmentFile, 0, 0,
                         u"write it as pip does: ipykernel, ipykernel>=6"_s};
        const QString name = parsed->requirement.normalizedName();
        const bool named = std::any_of(edited.python.pipRequirements.cbegin(), edited.python.pipRequirements.cend(),
                                       [&](const PipRequirement &r) { return r.requirement.normalizedName() == name; });
        if (named) {
            result.present << line;
            continue;
        }
        edited.python.pipRequirements << *parsed;
        result.added << line;
    }
    if (result.added.isEmpty()) {
        result.saved = VersionedSave{read.environment, {}};
        return result;
    }
    const auto saved = saveVersioned(environmentFile, edited);
    if (!saved)
        return saved.error();
    result.saved = *saved;
    return result;
}

} // namespace ferry::env
