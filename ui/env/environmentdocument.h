// One environment being edited: its model, undo stack, file and the problems it has.
#pragma once

#include "common/error.h"
#include "env/environment.h"
#include "env/environmentvalidator.h"
#include "env/environmentversions.h"

#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

class QFileSystemWatcher;
class QUndoStack;

namespace ferry::ui {

// What merges repeated edits into one undo step: the same field, or the same cell of a table
// (row and column of the field's list); without a key an edit is a step of its own.
struct EditKey {
    env::Field field = env::Field::Name;
    int row = -1;
    int column = -1;
    bool operator==(const EditKey &) const = default;
};

// One environment being edited: the model, its undo stack and its file. Every change goes
// through edit() as an undo command holding whole before/after values, so undo restores the
// environment exactly; repeated edits with the same merge key (one cell, one field) merge into
// one command.
class EnvironmentDocument : public QObject {
    Q_OBJECT
public:
    explicit EnvironmentDocument(QObject *parent = nullptr);
    ~EnvironmentDocument() override;

    const env::Environment &environment() const { return m_environment; }
    QUndoStack *undoStack() const { return m_undo; }

    // Reads a file of any importable format. A Ferry file is then this document's file; any
    // other format is imported: the document has no file until saved (path() is empty).
    // Errors in the file are listed (and the environment still shown, as far as it was read).
    env::Diagnostics load(const QString &path);
    // A new, unsaved environment (from a template): saved to `path` on the first save.
    void setNew(const env::Environment &environment, const QString &path);

    QString path() const { return m_path; } // the Ferry file; empty: not saved yet
    // Where a document without a file is saved by save() without a path (empty: ask the user).
    QString suggestedPath() const { return m_suggestedPath; }
    void setSuggestedPath(const QString &path) { m_suggestedPath = path; }
    QString sourcePath() const { return m_sourcePath; } // the file read (an imported file), or path()
    QString baseDir() const;                            // where relative paths in the environment start
    QString title() const;                              // "name.yml"; its name until it has a file
    bool isDirty() const;
    bool existsOnDisk() const;

    // Saves atomically; a changed spec under the same name becomes the next version (the
    // earlier one is kept in the versions folder). An empty `path` saves to path().
    Expected<env::VersionedSave> save(const QString &path = {});
    // Reads the file again, dropping unsaved edits and the undo history.
    env::Diagnostics reload();

    // Applies `change` to a copy of the environment and pushes it as an undo command named
    // `text`, unless it changes nothing. Returns whether it changed anything.
    bool edit(const QString &text, std::optional<EditKey> key, const std::function<void(env::Environment &)> &change);
    // The whole environment replaced in one undo command (an import, a merge).
    bool replace(const QString &text, const env::Environment &environment);

    // What env::validate finds in the environment, kept up to date as it is edited.
    const env::Findings &problems() const { return m_problems; }
    env::Findings problemsOf(env::Field field) const;
    // The findings' texts for a field (or table row), one a line; empty when it is fine.
    QString problemAt(env::Field field, int row = -1) const;
    bool hasErrors() const;
    // The findings as the Problems panel lists them: severity, where in the form ("conda row 2:
    // ..."), the hint; saved and unchanged, each at the line of the file that holds its value.
    env::Diagnostics problemDiagnostics() const;

    // Called by the undo commands only.
    void apply(const env::Environment &environment);

Q_SIGNALS:
    void changed();
    void problemsChanged();
    void dirtyChanged(bool dirty);
    void pathChanged(const QString &path);
    // The file changed on disk while there are unsaved edits: the editor asks what to do.
    void changedOnDisk();
    // The file changed on disk and was read again (there were no unsaved edits).
    void reloadedFromDisk();

private:
    void watch();
    void fileChanged();
    void setPath(const QString &path);

    env::Environment m_environment;
    QString m_path;
    QString m_sourcePath;
    QString m_suggestedPath;
    QString m_diskText; // what the file held when last read or written: our own writes are no change
    QUndoStack *m_undo;
    QFileSystemWatcher *m_watcher;
    env::Findings m_problems;
};

} // namespace ferry::ui
