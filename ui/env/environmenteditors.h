// The open environment editors as tabs, one per file.
#pragma once

#include "common/diagnostic.h"

#include <QStringList>
#include <QTabWidget>

class QAction;

namespace ferry::ui {

class EnvironmentEditor;

// The open environment editors, one tab each (a file opens once). The window puts this where
// it likes and connects its signals: problems to the problems panel, messages to the status bar.
class EnvironmentEditors : public QTabWidget {
    Q_OBJECT
public:
    explicit EnvironmentEditors(QWidget *parent = nullptr);

    // Opens `path` (or shows its tab when it is open already).
    EnvironmentEditor *open(const QString &path);
    EnvironmentEditor *editorFor(const QString &path) const;
    EnvironmentEditor *currentEditor() const;
    QList<EnvironmentEditor *> editors() const;

    void setWorkspaceRoot(const QString &root); // new environments go to its environments/
    void setSecretNames(const QStringList &names);
    // The container engine and terminal emulator from the settings (empty: automatic).
    void setTools(const QString &engine, const QString &terminal);
    // "New Environment…" and "Open Environment File…", for the window's menu.
    QList<QAction *> menuActions() const { return m_actions; }

    // Asks about unsaved edits in each; false when the user wants to stay.
    bool closeAll();
    // Closes every editor without asking (after closeAll() said yes).
    void removeAll();

public Q_SLOTS:
    void newEnvironment();
    void chooseFileToOpen();

Q_SIGNALS:
    void problemsChanged(const QString &source, const ferry::Diagnostics &problems);
    void message(const QString &text);
    void problem(const ferry::Error &error); // an editor's image build or dev container failed
    void secretValueOffered(const QString &secretName, const QString &value);
    void opened(); // an editor was opened or shown: the window brings this into view

private:
    EnvironmentEditor *add();
    bool closeEditor(int index);

    QString m_workspaceRoot;
    QStringList m_secretNames;
    QString m_engine, m_terminal;
    QList<QAction *> m_actions;
};

} // namespace ferry::ui
