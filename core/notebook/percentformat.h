// jupytext's percent format (.py notebooks): `# %%` starts a code cell, `# %% [markdown]` (or [md])
// a markdown cell whose lines are comments, `# %% [raw]` a raw one; text after the marker (a
// title, jupytext's options) is kept in the cell's metadata ("ferry": {"marker": ...}) and written
// back. The lines before the first cell (jupytext's `# ---` header) are kept as they are; code
// before any marker is a first cell of its own. Outputs are not part of the format.
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QString>

namespace ferry::notebook {

class NotebookDocument;

Expected<NotebookDocument> parsePercent(const QByteArray &bytes, const QString &path);
// The cells as jupytext writes them: a marker line, the cell's lines (markdown and raw commented
// with "# ", an empty line as "#"), one empty line between cells, a final newline.
QByteArray percentBytes(const NotebookDocument &document);

} // namespace ferry::notebook
