// PEP 508 environment markers and Python string literals, read as packaging 23.0 reads them;
// internal to the parser.
#pragma once

// Internal to the PEP 508 parser: environment markers as packaging 23.0 reads and prints
// them (packaging/_parser.py, packaging/markers.py).

#include "env/pip/pep508tokenizer.h"

#include <QString>

#include <optional>

namespace ferry::env::pep508 {

// marker = marker_atom (BOOLOP marker_atom)*, read from the tokenizer's position. Returns
// str(Marker): double quotes, single spaces, packaging's parentheses and its normalisation of
// a leading `extra == "..."` comparison.
std::optional<QString> parseMarker(Tokenizer &tokenizer, ParseFailure &failure);

// ast.literal_eval of a QUOTED_STRING token ('...' or "..."): Python's escapes, line
// continuations and errors. On failure returns nothing and sets `error` to Python's reason.
std::optional<QString> evaluateStringLiteral(const QString &token, QString *error);

} // namespace ferry::env::pep508
