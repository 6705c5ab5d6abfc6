// runNotebook: every code cell of a notebook run in order in a kernel, its outputs and execution
// counts written into the notebook (nbformat 4), as `jupyter nbconvert --execute` does.
#pragma once

#include "common/error.h"
#include "kernelhost/kernelconnection.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <optional>

namespace ferry::kernels {

struct NotebookRunOptions {
    bool allowErrors = false; // go on after a cell that raised
    int cellTimeoutMs = -1;   // a cell running longer is interrupted, and the run stops there
};

struct NotebookRunResult {
    QJsonObject notebook; // the notebook with the outputs of the cells that ran
    int cellsRun = 0;
    int errors = 0;    // cells that raised
    QString stoppedAt; // "cell 4 raised ZeroDivisionError: division by zero": why the run stopped early
};

// Runs the code cells of `notebook` (the JSON of an nbformat 4 file, checked by the caller) in
// `kernel`, in order; each code cell's outputs (CellOutputs: nbformat's output types) and
// execution count replace what it had, everything else of the notebook is kept as it was
// (unknown keys included). Stops after the first cell that raised unless `allowErrors`, and
// after a cell that timed out. `progress` is told each cell before it runs (its index among all
// cells, the number of cells). An Error when the kernel ended while a cell ran: the cell, how.
Expected<NotebookRunResult> runNotebook(const QJsonObject &notebook, KernelConnection &kernel,
                                        const NotebookRunOptions &options,
                                        const std::function<void(int cell, int cells)> &progress = {});

// A cell's source as one string (nbformat allows a string or a list of lines).
QString cellSource(const QJsonObject &cell);

} // namespace ferry::kernels
