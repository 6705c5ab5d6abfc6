// Requirement: a PEP 508 dependency specification parsed as pip's packaging library does, with its
// canonical form.
#pragma once

#include "common/error.h"

#include <QString>
#include <QStringList>

namespace ferry::env {

// A PEP 508 dependency specification, as `packaging.requirements.Requirement` reads it:
// `name[extra1,extra2] (>=1.0,<2) ; python_version >= "3.8"` or `name @ https://...`.
struct Requirement {
    QString name;       // as written
    QStringList extras; // as written, in order, without duplicates
    // The specifier set rendered like str(packaging SpecifierSet): each specifier without
    // spaces ("==1.0", ">=2.0.*"), sorted, joined by commas. Empty: any version.
    QString specifier;
    QString url; // for `name @ URL`
    // The marker rendered like str(packaging Marker): `python_version >= "3.8" and
    // (os_name == "nt" or ...)`, double quotes, single spaces. Empty: no marker.
    QString marker;
    QString text; // as written (trimmed)

    // PEP 503: lower-case, runs of `-`, `_`, `.` become one `-`.
    QString normalizedName() const;
    // One spelling per meaning (normalised name, sorted normalised extras, specifier, url,
    // marker). Used for hashing and export.
    QString canonical() const;

    bool operator==(const Requirement &) const = default;
};

QString normalizePackageName(const QString &name);

// Parses one PEP 508 string. On failure the Error's column (1-based) points into `text` and
// its message says what was expected there; the caller fills in path and line.
Expected<Requirement> parseRequirement(const QString &text);

} // namespace ferry::env
