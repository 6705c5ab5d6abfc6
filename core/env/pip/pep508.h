// PEP 508 version specifiers and URLs checked and normalised as packaging 23.0 does; internal to
// the parser.
#pragma once

// Internal to the PEP 508 parser: version specifiers and URLs checked the way packaging
// 23.0 checks them (packaging/specifiers.py, packaging/requirements.py), so that Ferry
// accepts and rejects exactly what pip does.

#include <QString>

#include <optional>

namespace ferry::env::pep508 {

// Length of the SPECIFIER token (Specifier's operator and version regexes, unanchored at
// the end, IGNORECASE) at `position`, or -1. `sourceIsValidUtf16`: the caller checked the whole
// source once (QStringView::isValidUtf16), so PCRE need not check it again at every token (it
// would, from its start to its end: a list of n specifiers took O(n²), tests/bench/parsers.sh).
qsizetype matchSpecifierToken(const QString &source, qsizetype position, bool sourceIsValidUtf16 = false);

// str(SpecifierSet(joined)): split at commas, each part a valid Specifier, duplicates (equal
// after canonicalize_version) dropped keeping the first, sorted, joined by commas. When a part
// is not a valid specifier, returns nothing and sets `badPart`.
std::optional<QString> specifierSetString(const QString &joined, QString *badPart);

// packaging.utils.canonicalize_version: the normalised PEP 440 spelling ("1.0RC1" -> "1rc1"),
// or the text unchanged when it is not a valid version (e.g. "1.0.*").
QString canonicalizeVersion(const QString &version, bool stripTrailingZero);

// One spelling per meaning of a specifier set already in str(SpecifierSet) form: every version
// canonicalised as packaging compares them (not `===`, which compares text), duplicates dropped,
// sorted.
QString canonicalSpecifierSet(const QString &specifierSet);

// Why packaging.requirements rejects `url` in `name @ url` ("Invalid URL given", or what
// urllib.parse raises), or an empty string when it accepts it.
QString urlProblem(const QString &url);

} // namespace ferry::env::pep508
