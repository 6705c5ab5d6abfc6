// Splits a notebook cell into logical Python and IPython lines, and finds literal assignments among
// them.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::notebook {

// One logical line of a notebook cell: a Python statement line (with the lines it continues
// over: open brackets, strings, backslashes) or one line of IPython syntax.
struct LogicalLine {
    enum class Kind {
        Python,
        Blank, // empty or only a comment
        Magic, // %line_magic, x = %magic
        Shell, // !command, x = !command
        Help,  // obj? / ?obj
    };
    Kind kind = Kind::Python;
    int firstLine = 0; // 0-based physical lines of the cell
    int lastLine = 0;
    int indent = 0; // columns of leading whitespace on the first line
    QString text;   // the physical lines joined with '\n'
    QString code;   // the first line without its trailing comment (Python lines only)

    bool isIPython() const { return kind == Kind::Magic || kind == Kind::Shell || kind == Kind::Help; }
};

// Splits a cell into logical lines, the way Python's tokenizer would (brackets, string literals
// of every quote style, comments, backslash continuations), except that a line of IPython syntax
// is one logical line on its own and its quotes are not read as strings. Never fails: an
// unterminated bracket or string simply runs to the end of the cell.
QList<LogicalLine> logicalLines(const QString &source);

// The cell magic of a cell ("%%time" -> "time"), or "" when its first non-blank line is no `%%`.
QString cellMagic(const QString &source);

// A top-level `NAME = LITERAL` (optionally `NAME: TYPE = LITERAL`, optionally a comment after):
// the literal is an int, a float, a plain string or True/False.
struct LiteralAssignment {
    QString name;
    QString type;  // "int", "float", "str" or "bool"
    QString value; // the literal as written ("1e-3", "'adam'", "True")
};
std::optional<LiteralAssignment> literalAssignment(const LogicalLine &line);

// The names a logical line assigns to (`a = ...`, `a += ...`, `a: T = ...`, `a, b = ...`, `for a in`).
QStringList assignedNames(const LogicalLine &line);

} // namespace ferry::notebook
