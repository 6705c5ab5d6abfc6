// Workspace: a user's folder plus Ferry's own state in .ferry/, and where each kind of file lives
// in it.
#pragma once

#include "common/error.h"

#include <QString>

namespace ferry::workspace {

// A folder the user owns (environments/, scripts, .devcontainer/) plus Ferry's own state in
// .ferry/ (the run store and one folder per run). Opening a folder makes .ferry/ in it.
class Workspace {
public:
    // Opens an existing folder as a workspace, creating .ferry/ if it is missing.
    static Expected<Workspace> open(const QString &path);
    // Creates the folder (and environments/) if needed, then opens it.
    static Expected<Workspace> create(const QString &path);

    QString root() const { return m_root; }
    QString name() const;
    QString stateDir() const;        // <root>/.ferry
    QString runsDir() const;         // <root>/.ferry/runs
    QString environmentsDir() const; // <root>/environments
    QString sweepsDir() const;       // <root>/.ferry/sweeps: one folder per sweep (core/sweep)
    QString kernelsDir() const;      // <root>/.ferry/kernels: one folder per kernel (core/kernelhost)
    QString sweepFilesDir() const;   // <root>/sweeps: the user's sweep files

    static QString stateDirName() { return QStringLiteral(".ferry"); }

private:
    explicit Workspace(QString root) : m_root(std::move(root)) {}
    QString m_root;
};

} // namespace ferry::workspace
