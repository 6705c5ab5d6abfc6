// Reads a Jupyter notebook (nbformat 4) into the cells its conversion to a script needs, outputs
// dropped.
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::notebook {

// Notebooks carry their outputs (images as base64): allow far more than a text file.
inline constexpr qint64 kMaxNotebookBytes = 512LL * 1024 * 1024;
// A notebook of `size` bytes over that limit (one output of gigabytes): its size, the limit, and
// how to make it readable without losing its code.
Error notebookTooLarge(const QString &path, qint64 size);

enum class CellKind { Code, Markdown, Raw };

struct NotebookCell {
    CellKind kind = CellKind::Code;
    QString source; // the lines joined, as Jupyter shows them
    QStringList tags;
    int index = 0; // 0-based position among all cells
};

// A Jupyter notebook (nbformat 4, any minor version): what conversion needs, outputs dropped.
struct Notebook {
    QString path;
    int major = 4;
    int minor = 0;
    QString language; // from metadata (kernelspec or language_info), as written; "" when unknown
    QList<NotebookCell> cells;
};

// Reads an .ipynb file. Anything that is not an nbformat 4 notebook is refused with an Error
// naming the file, the line (for broken JSON) or the cell, and what to do.
Expected<Notebook> readNotebook(const QString &path);
// The same from bytes; `path` names them in errors.
Expected<Notebook> parseNotebook(const QByteArray &bytes, const QString &path);

} // namespace ferry::notebook
