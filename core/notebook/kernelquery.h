// What a notebook asks its kernel without the user seeing it: the names each cell binds and reads
// (for stale cells, celldependencies.h) and the user's variables (the variables pane).
//
// Where it runs: in the kernel, as one user expression of a silent execute_request (no history, no
// count, no output; kernelquery.py exec()'d in a fresh dict, so nothing is left in the user's
// namespace and nothing is imported that was not). Not in a Python of this machine: the kernel
// may run on a host or in a container, this machine may have no Python at all, or one whose `ast`
// is older than the kernel's (a `match` or a `type X = ...` it cannot parse); the kernel's Python
// is always there and always reads the grammar of the code it runs. The price: the answer waits
// behind what the kernel runs, which is when it is wanted (after the cell).
#pragma once

#include "common/error.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::notebook {

// The names of one cell, from Python's own `ast` (as marimo reads them).
struct CellNames {
    // Bound at the top level: assignments (augmented and annotated too), for and with targets,
    // imports, def and class, a walrus, `global` names a function assigns, `del` (the name's
    // value changes). Attributes and items (`df["a"] = 1`) bind nothing, as in marimo.
    QStringList defines;
    // Used before the cell binds them (a function body's, unless the cell binds them anywhere: it
    // runs later); comprehension and class scopes do not leak; IPython lines are left out.
    QStringList reads;
    QString error; // the cell does not parse (the kernel's SyntaxError): no names
};

// One user variable: what the pane shows.
struct KernelVariable {
    QString name;
    QString type;          // "int", "numpy.ndarray", "pandas.DataFrame" (the top package only)
    bool hasShape = false; // numpy, pandas and torch objects (a 0-d array's shape is empty)
    QList<qint64> shape;
    qint64 length = -1; // built-in containers and strings
    qint64 bytes = -1;  // arrays, frames, tensors: their data; else the object itself (sys.getsizeof)
    QString dtype;      // arrays, tensors, series
    QString value;      // short scalars and strings, as repr() writes them
};

struct KernelQuery {
    QStringList sources; // cells to read names from (as the kernel ran them)
    bool variables = false;
    int mostVariables = 5000; // described; the rest only counted
};

struct KernelQueryAnswer {
    QList<CellNames> cells; // one per source asked
    bool hasVariables = false;
    QList<KernelVariable> variables;
    qint64 variableCount = 0; // all of them, also those past mostVariables
};

// The user_expressions of the execute_request that asks `query` ({"ferry": EXPRESSION}).
QJsonObject kernelQueryExpressions(const KernelQuery &query);
// The answer in an execute_reply's content; an Error when the kernel said none (an error, an
// "aborted" reply: `aborted` is then set, the question may be asked again).
Expected<KernelQueryAnswer> readKernelQueryReply(const QJsonObject &executeReply, bool *aborted = nullptr);

// A cell as `ast` can read it: IPython lines (`%magic`, `!cmd`, `obj?`) become `pass` at their
// indentation, `x = %magic` and `x = !cmd` become `x = None` (they bind x), `%time STATEMENT` its
// statement; a cell magic's body is kept for %%time, %%timeit, %%prun and %%capture (whose
// variable it binds), and dropped for the others (%%bash, %%html...): they read and bind nothing.
QString analyzableSource(const QString &cell);

// The text of kernelquery.py, compiled in (core/CMakeLists.txt).
QByteArray kernelQuerySource();

} // namespace ferry::notebook
