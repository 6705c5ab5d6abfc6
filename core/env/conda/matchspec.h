// MatchSpec: a conda dependency specification, parsed and written back in one canonical spelling.
#pragma once

#include "common/error.h"

#include <QList>
#include <QString>

#include <utility>

namespace ferry::env {

// A conda MatchSpec: `numpy`, `numpy=1.17`, `numpy>=1.17,<1.19.2`, `numpy 1.17.* py38*`,
// `conda-forge::numpy`, `conda-forge/linux-64::numpy`, `numpy[version='>=1.17', build=py38*]`.
struct MatchSpec {
    QString channel; // "conda-forge", "pytorch/label/nightly", a URL; empty: any channel
    QString subdir;  // "linux-64"; empty: any
    QString name;    // lower-case package name
    // The version constraint in conda's own terms, normalised so that equivalent spellings
    // are equal: `numpy=1.17`, `numpy 1.17.*` and `numpy[version='1.17.*']` all give "1.17.*";
    // `numpy==1.17.3` and `numpy 1.17.3` give "==1.17.3"; ranges lose their spaces and
    // their comma-separated parts are sorted. Empty: any version.
    QString version;
    QString build;                                // build-string glob, e.g. "py38*"; empty: any
    QList<std::pair<QString, QString>> otherKeys; // other bracket keys (md5, license, ...), in order
    QString text;                                 // as written (trimmed)

    // One spelling per meaning: `[channel[/subdir]::]name[ version[ build]]` plus any other
    // bracket keys as `[key='value',...]`. Used for hashing and for export.
    QString canonical() const;

    bool operator==(const MatchSpec &) const = default;
};

// Parses one MatchSpec. On failure the Error's column (1-based) points into `text` and its
// message says what was expected there; the caller fills in path and line.
Expected<MatchSpec> parseMatchSpec(const QString &text);

} // namespace ferry::env
