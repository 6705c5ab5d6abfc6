// The environments open in the window: an editor per file, each a tab of the document area.
#pragma once

#include "common/diagnostic.h"

#include <QObject>
#include <QStringList>

class QAction;

namespace ferry::ui {

class DocumentArea;
class EnvironmentEditor;

// The environment documents: opens a file in an editor, a tab of the document area (a file
// opens once), with what every editor is given (the workspace's root, the secret names, the
// container engine and terminal from the settings), and passes on what the editors report:
// the window connects problems to the problems panel, messages to the status bar. Closing,
// saving and the unsaved-edits question are the area's (ui/document/documentarea.h).
class EnvironmentEditors : public QObject {
    Q_OBJECT
public:
    explicit EnvironmentEditors(DocumentArea *area, QObject *parent = nullptr);

    // Opens `path` (or shows its tab when it is open already).
    EnvironmentEditor *open(const QString &path);
    EnvironmentEditor *editorFor(const QString &path) const;
    EnvironmentEditor *currentEditor() const; // nullptr: another tab is current
    QList<EnvironmentEditor *> editors() const;

    void setWorkspaceRoot(const QString &root); // new environments go to its environments/
    void setSecretNames(const QStringList &names);
    // The container engine and terminal emulator from the settings (empty: automatic).
    void setTools(const QString &engine, const QString &terminal);
    // "New Environment…" and "Open Environment File…", for the window's menu.
    QList<QAction *> menuActions() const { return m_actions; }

public Q_SLOTS:
    void newEnvironment();
    void chooseFileToOpen();

Q_SIGNALS:
    void problemsChanged(const QString &source, const ferry::Diagnostics &problems);
    void message(const QString &text);
    void problem(const ferry::Error &error); // an editor's image build or dev container failed
    void secretValueOffered(const QString &secretName, const QString &value);

private:
    EnvironmentEditor *make();

    DocumentArea *m_area;
    QString m_workspaceRoot;
    QStringList m_secretNames;
    QString m_engine, m_terminal;
    QList<QAction *> m_actions;
};

} // namespace ferry::ui
