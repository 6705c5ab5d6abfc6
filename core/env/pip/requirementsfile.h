// Reads and writes pip requirements files: entries, editable and archive lines, hashes and global
// options.
#pragma once

#include "common/diagnostic.h"
#include "env/pip/requirement.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::env {

// One entry of a pip requirements list: what one logical line of requirements.txt says.
struct PipRequirement {
    enum class Kind {
        Requirement, // a PEP 508 requirement (`requests[socks]>=2 ; python_version>"3.8"`, `pkg @ URL`)
        Editable,    // `-e ./path` or `-e git+https://host/repo.git@v1#egg=name`
        Archive,     // a bare path or URL to a wheel, sdist or VCS checkout
        Verbatim,    // a line Ferry cannot model: kept as written, reported as a warning
    };
    Kind kind = Kind::Requirement;
    Requirement requirement; // Kind::Requirement
    QString target;          // Kind::Editable / Kind::Archive: the path or URL as written
    QStringList hashes;      // `--hash=sha256:...` values ("sha256:..."), in the order written
    QStringList options;     // other per-requirement options, as written (e.g. `--config-settings=k=v`)
    QString text;            // the logical line as written: continuations joined, comment removed

    // One spelling per meaning, for hashing: the requirement's canonical form (or the
    // target), then sorted hashes and options.
    QString canonical() const;
    // The line to write into a requirements.txt.
    QString toLine() const;

    bool operator==(const PipRequirement &) const = default;
};

// pip's global options, from option lines of requirements files or an environment's
// pip_options. `${VAR}` references are kept as written, never expanded.
struct PipOptions {
    QString indexUrl;           // -i / --index-url
    QStringList extraIndexUrls; // --extra-index-url
    QStringList findLinks;      // -f / --find-links
    QStringList trustedHosts;   // --trusted-host
    bool pre = false;           // --pre
    bool noIndex = false;       // --no-index
    QStringList other;          // other option lines, verbatim

    bool isEmpty() const { return *this == PipOptions(); }
    // Option lines for the top of a requirements.txt.
    QStringList toLines() const;
    bool operator==(const PipOptions &) const = default;
};

struct RequirementsFile {
    QList<PipRequirement> requirements; // in order; `-r` includes are flattened in place
    QList<PipRequirement> constraints;  // read from `-c` files
    PipOptions options;
    Diagnostics diagnostics; // errors (unparsable requirement, missing include, cycle) and warnings
};

// Reads a requirements file, following `-r`/`-c` relative to the including file, with
// cycle detection. Every problem is a diagnostic with file:line:column; never throws.
RequirementsFile readRequirementsFile(const QString &path);
// The same for text already in memory; `path` names it in diagnostics and anchors includes.
RequirementsFile parseRequirementsText(const QString &text, const QString &path);
// One entry as written in an environment file's pip list (a single logical line, which may
// carry `--hash` and other per-requirement options). Column in the Error is 1-based.
Expected<PipRequirement> parsePipLine(const QString &line);
// A requirements.txt: option lines, then one line per requirement.
QString writeRequirementsText(const QList<PipRequirement> &requirements, const PipOptions &options);

} // namespace ferry::env
