// Diagnostic: an error or warning found while reading a file, with its location and hint, as the
// readers return them.
#pragma once

#include "common/error.h"

#include <QList>

namespace ferry {

// A finding while reading a file: errors make the input unusable, warnings do not (a line
// kept verbatim, a key dropped on export). Each carries file:line:column and a hint.
struct Diagnostic {
    enum class Severity { Error, Warning };
    Severity severity = Severity::Error;
    Error where; // message, path, line, column, hint

    bool isError() const { return severity == Severity::Error; }
    // "path:line:column: error: message" (or "warning:"), then the hint.
    QString toString() const;
};

using Diagnostics = QList<Diagnostic>;

inline bool hasErrors(const Diagnostics &diagnostics)
{
    for (const Diagnostic &d : diagnostics) {
        if (d.isError())
            return true;
    }
    return false;
}

} // namespace ferry

// The readers of environment files name them in their own namespace.
namespace ferry::env {
using ferry::Diagnostic;
using ferry::Diagnostics;
using ferry::hasErrors;
} // namespace ferry::env
