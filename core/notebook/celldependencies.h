// Which cells are stale: a cell that ran, read a name, and a cell that ran after it bound that
// name again (its output no longer says what the kernel holds). Pure bookkeeping, no kernel: the
// runs come from the kernel's execute_input (in the order it ran them), the names of each source
// from the kernel's `ast` (kernelquery.h), whenever they come.
//
// The rule: cell Y is stale when it ran in this kernel, and some other cell X started after Y's
// last start, with X's source (as it ran) binding a name Y's source (as it ran) reads, whether X
// sits above or below Y. A cell that never ran in this kernel is never stale: what it shows (the
// file's outputs, or nothing) came from no state of this kernel; Run All is its action.
#pragma once

#include "notebook/kernelquery.h"

#include <QHash>
#include <QString>
#include <QStringList>

namespace ferry::notebook {

class CellDependencies {
public:
    // Cell `cellId` began to run `source` (the kernel's execute_input).
    void started(const QString &cellId, const QString &source);
    // What `source` (a cell as it ran) binds and reads: the kernel's names of analyzableSource(source).
    void setNames(const QString &source, const CellNames &names);
    // The sources of runs whose names are not known yet, in the order they ran.
    QStringList sourcesWithoutNames() const;
    // The kernel restarted: nothing ran in it.
    void clear();
    bool ran(const QString &cellId) const { return m_runs.contains(cellId); }

    // The stale cells among `cellIds` (the notebook's cells, in order) with the names that changed
    // since each ran (in the order it reads them).
    QHash<QString, QStringList> stale(const QStringList &cellIds) const;
    // What "Run Stale Cells" runs: the stale cells and, transitively, the cells that ran and read
    // a name one of those binds (they would be stale once it ran), in `cellIds` order.
    QStringList toRun(const QStringList &cellIds) const;

private:
    struct Run {
        int order = 0;
        QString source;
    };
    const CellNames *names(const QString &cellId) const;

    QHash<QString, Run> m_runs; // by cell id: its last run
    QHash<QString, CellNames> m_names;
    int m_order = 0;
};

} // namespace ferry::notebook
