// Converts a Jupyter notebook into a runnable Python script, offering its first cells' constants as
// hyperparameters.
#pragma once

#include "notebook/notebook.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::notebook {

// A constant of the notebook's first code cells, offered as a hyperparameter.
struct Hyperparameter {
    QString name;
    QString type;  // "int", "float", "str" or "bool"
    QString value; // the default as Python source ("0.01", "'adam'", "True")
    int cell = 0;  // 0-based notebook cell
    int line = 0;  // 0-based line in that cell
};

// IPython syntax that a plain Python script cannot run, commented out in the script.
struct IPythonLine {
    QString kind; // "magic", "cell magic", "shell" or "help"
    QString text;
    int cell = 0;
    int line = 0;
};

struct ConversionOptions {
    bool hyperparameters = true; // add the argparse block
    QString sourceName;          // shown in the script's header (the notebook's file name)
    QStringList skipped;         // constants found but not to be offered (the user said no)
    // The script is written one folder below the notebook's (Run as Job's notebook-jobs/): it
    // changes into the notebook's folder first, where the cells' relative paths point, as in
    // Jupyter, whatever folder it is started from.
    bool fromNotebookFolder = false;
};

struct Conversion {
    QString script; // percent format: `# %%` cells, markdown as `# %% [markdown]` comments
    QList<Hyperparameter> hyperparameters;
    QList<IPythonLine> ipython;
    int codeCells = 0;
    int markdownCells = 0;

    // What --json prints: hyperparameters, commented IPython lines, cell counts.
    QJsonObject proposalJson() const;
};

// Only Python notebooks become training scripts: an Error naming the notebook's language otherwise
// (a notebook that does not say is taken as Python).
Expected<void> checkPythonNotebook(const Notebook &notebook);

// Finds the hyperparameters: top-level `NAME = LITERAL` in the first five code cells, up to the
// first top-level block statement (def, class, for, while, with, try, if, a decorator), or in the
// cell tagged "parameters" (papermill's convention) when there is one. A name assigned again
// anywhere (a counter, a value computed from data) is left out, and so are `_private` names.
QList<Hyperparameter> discoverHyperparameters(const Notebook &notebook);

// The percent-format script. With hyperparameters, an argparse cell follows the last cell that
// defines one: it takes `--NAME VALUE` (the defaults are the notebook's values) and the training
// contract (--model-dir from SM_MODEL_DIR, --output-data-dir, one option per SM_CHANNELS entry
// defaulting to SM_CHANNEL_<NAME>), and assigns the parsed values back to the same names, so the
// cells below run unchanged.
Conversion convertNotebook(const Notebook &notebook, const ConversionOptions &options = {});

} // namespace ferry::notebook
