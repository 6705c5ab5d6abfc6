// The hidden state of a notebook's kernel made visible: after each cell, one silent query
// (core/notebook/kernelquery.h) asks the kernel for the names of the cells that ran (for the stale
// marks, core/notebook/celldependencies.h) and, while the pane is shown, the user's variables (the
// variables pane). One query is out at a time: a cell that ends meanwhile asks again once it
// answers, so Run All of fifty cells asks twice, not fifty times. A query sent while the kernel
// runs waits behind the cell in its queue; one the kernel aborted (a cell raised before it) is
// asked again.
#pragma once

#include "kernelhost/notebookkernel.h"
#include "notebook/celldependencies.h"

#include <QObject>

namespace ferry::ui {

class NotebookEditor;
class VariablesPane;

class NamespaceWatcher : public QObject {
    Q_OBJECT
public:
    NamespaceWatcher(NotebookEditor &editor, kernels::NotebookKernel &kernel, VariablesPane &pane);

    // What Run Stale Cells runs: the stale cells and those that read what they bind, in order.
    QStringList cellsToRun() const;
    // Asks now (the pane was shown): the variables, and the names not known yet.
    void refresh();
    // A query is out, or is to go when the one out answers.
    bool pending() const { return !m_request.isEmpty() || m_again; }
    // Queries sent since it was made (one per burst of cells, not one per cell).
    int queriesSent() const { return m_sent; }

Q_SIGNALS:
    // A query's answer was applied (the marks and the pane are up to date with it).
    void answered();

private:
    void cellStarted(const QString &cellId);
    void replyReceived(const QString &requestId, const kernels::JupyterMessage &reply);
    void kernelStateChanged(kernels::NotebookKernel::State state);
    void ask();
    void showStale();
    QStringList codeCells() const;

    NotebookEditor &m_editor;
    kernels::NotebookKernel &m_kernel;
    VariablesPane &m_pane;
    notebook::CellDependencies m_dependencies;
    QString m_request;    // the query out
    QStringList m_asked;  // the sources it asked names for
    bool m_again = false; // something changed while it was out
    int m_aborts = 0;     // answers "aborted" in a row
    int m_sent = 0;
};

} // namespace ferry::ui
