// Keeps earlier versions of an environment file beside it, and numbers the next version when what
// the image or a run gets changes.
#pragma once

#include "common/error.h"
#include "env/environment.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::env {

// Earlier versions of an environment file are kept beside it, in the workspace the user commits:
// `environments/.versions/<file name without .yml>/<version>.yml`, each a complete environment file.

QString versionsFolder(const QString &environmentFile);

struct StoredVersion {
    QString version;
    QString path;
};
// The stored versions of `environmentFile`, oldest first (versions compare like numbers where
// they are numbers: 2 < 10).
QList<StoredVersion> storedVersions(const QString &environmentFile);

// Whether `edited` differs from `saved` in what the image or a run gets (the canonical image spec
// or the variables): such a change is a new version; a new description is not.
bool isNewVersion(const Environment &saved, const Environment &edited);

// The version after the highest of `taken`: its last number counts up ("1" → "2", "2024.9" →
// "2024.10", "beta" → "beta.2").
QString nextVersion(const QStringList &taken);

// Compares versions part by part, numbers as numbers; <0, 0 or >0.
int compareVersions(const QString &a, const QString &b);

struct VersionedSave {
    Environment written;   // as saved: with the version it got
    QString storedVersion; // the earlier version kept in the versions folder; empty: none
};
// Saves `edited` to `environmentFile` atomically. When the file holds the same environment (same
// name) and the edit is a new version (isNewVersion), the file's content is kept in the versions
// folder first, and an edit still carrying that version, or another version already kept, gets
// the next one.
Expected<VersionedSave> saveVersioned(const QString &environmentFile, const Environment &edited);

// The pip requirements (PEP 508 lines) added to the environment in `environmentFile` that it does
// not name yet (by normalized name), saved as a new version (saveVersioned: the earlier one kept,
// its diff shown by the versions view): what a kernel that lacks ipykernel is offered, never done
// silently. `added` names what was added; nothing is written when it is empty.
struct PackagesAdded {
    QStringList added;
    QStringList present; // named already: left as they were
    Environment before;
    VersionedSave saved;
};
Expected<PackagesAdded> addPipPackages(const QString &environmentFile, const QStringList &requirements);

} // namespace ferry::env
