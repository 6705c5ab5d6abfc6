// Lists what changed between two versions of an environment (settings, dependencies, variables), as
// the versions view shows it.
#pragma once

#include "env/environment.h"

#include <QList>
#include <QString>

namespace ferry::env {

// One difference between two versions of an environment, as the versions view shows it side by
// side: a dependency or variable added, removed or changed (matched by name, so a reorder is no
// change), or a setting changed.
struct EnvironmentChange {
    enum class Kind { Added, Removed, Changed };
    Kind kind = Kind::Changed;
    QString section; // "docker", "python", "conda", "pip", "pip constraints", "variables", "environment"
    QString key;     // the setting ("base image") or the dependency / variable name ("numpy")
    QString before;  // as written in the older version; empty when added
    QString after;   // as written in the newer version; empty when removed

    bool operator==(const EnvironmentChange &) const = default;
};

QString changeKindName(EnvironmentChange::Kind kind); // "added", "removed", "changed"

// What changed from `before` to `after`, section by section in the order of the editor; within
// a dependency list in the order of `after`, removed ones last. Secret variables show the
// keychain secret's name, never a value.
QList<EnvironmentChange> diffEnvironments(const Environment &before, const Environment &after);

} // namespace ferry::env
