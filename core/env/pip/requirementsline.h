// Reads one logical line of a requirements.txt as pip 23 does; internal to the requirements-file
// reader.
#pragma once

// Internal to the requirements-file reader: what one logical line of a requirements.txt says,
// read the way pip 23 reads it (pip/_internal/req/req_file.py): a requirement with its
// per-requirement options, or option lines (-r/-c includes, -e, index options).

#include "common/diagnostic.h"
#include "env/pip/requirementsfile.h"

#include <QList>
#include <QString>

#include <optional>

namespace ferry::env::pep508 {

struct LineProblem {
    Diagnostic::Severity severity = Diagnostic::Severity::Error;
    QString message;
    QString hint;
    qsizetype offset = 0; // into the logical line
};

struct LineInclude {
    QString target;       // the file name as written (quotes removed)
    qsizetype offset = 0; // of the file name in the logical line
    bool constraint = false;
};

struct PipLine {
    std::optional<PipRequirement> entry; // a requirement, editable, archive or verbatim line
    QList<LineInclude> includes;
    PipOptions options; // the global options this line sets
    QList<LineProblem> problems;
};

// pip's comment rule: a `#` at the start of the line or after whitespace starts a comment,
// which is removed together with the whitespace before it.
QString removeComment(const QString &line);

// Reads one logical line (continuations joined, comment removed; surrounding whitespace is
// allowed). An empty line gives an empty PipLine.
PipLine parseLogicalLine(const QString &line);

// A value as a requirements file must spell it so that pip's shlex splitting gives it back.
QString shellQuote(const QString &value);

} // namespace ferry::env::pep508
