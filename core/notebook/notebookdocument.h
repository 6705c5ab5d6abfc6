// A notebook as the window edits it: every cell with its outputs, and everything Ferry does not own
// kept as it was read, so that saving writes back what Jupyter would and a notebook opened and saved
// without edits is unchanged byte for byte. Read from nbformat 4 (.ipynb) or the percent format of
// jupytext (.py: `# %%` cells, `# %% [markdown]` with commented lines).
#pragma once

#include "common/error.h"
#include "notebook/notebook.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace ferry::notebook {

struct DocumentCell {
    QString id; // nbformat 4.5's cell id (written from minor version 5 on)
    CellKind kind = CellKind::Code;
    QString source;
    QJsonObject metadata;
    QJsonArray outputs;                       // code cells: nbformat outputs, as read or as the kernel gave them
    QJsonValue executionCount = QJsonValue(); // code cells: null, or the count
    QJsonObject other;                        // the cell's other keys, as read (attachments, ...)

    // A fresh cell id as nbformat makes them (8 hex digits).
    static QString newId();
    QStringList tags() const;
};

class NotebookDocument {
public:
    enum class Format { Ipynb, Percent };
    static Format formatFor(const QString &path); // .py: percent; anything else: ipynb

    // An Error names the file, the line (broken JSON) or the cell, and what to do; nothing is
    // written to the file either way.
    static Expected<NotebookDocument> read(const QString &path);
    static Expected<NotebookDocument> parse(const QByteArray &bytes, const QString &path, Format format);
    // A new notebook of one empty code cell (nbformat 4.5; a Python 3 kernelspec).
    static NotebookDocument blank(const QString &path);

    QString path;
    Format format = Format::Ipynb;
    int minor = 5;         // nbformat_minor
    QJsonObject metadata;  // the notebook's, kept whole (Ferry's own keys under "ferry")
    QJsonObject other;     // top-level keys besides nbformat, nbformat_minor, metadata, cells
    QString percentHeader; // a .py's lines before its first cell (the jupytext header), kept
    QList<DocumentCell> cells;
    QString warning; // opened, but something to say (a newer minor version)

    // The file's bytes: the bytes read when nothing differs from them, else as Jupyter writes a
    // notebook (.ipynb) or as jupytext writes the percent format (code and markdown only).
    QByteArray toBytes() const;
    // Writes toBytes() to `path` (safely: a temporary file renamed over it); later saves compare
    // with what was written.
    Expected<void> save(const QString &path);
    // Whether toBytes() differs from the file as read or last saved.
    bool differsFromFile() const;

    // The cells as the script conversion reads them (core/notebook/conversion.h).
    Notebook toNotebook() const;

    // Ferry's choices for the notebook's kernel, kept in metadata.ferry: the environment file
    // (relative to the notebook's folder when under it) and the target ("local", "container",
    // "ssh:HOST", "slurm:HOST").
    QString environment() const;
    QString target() const;
    void setKernelChoice(const QString &environment, const QString &target);

private:
    QJsonObject toJson() const;
    QByteArray canonicalBytes() const;

    QByteArray m_fileBytes;     // as read or last saved
    QByteArray m_fileCanonical; // canonicalBytes() of the document as read or last saved
};

} // namespace ferry::notebook
