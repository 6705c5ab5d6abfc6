// The environment editor's image panel: build the image, start a devcontainer, open a terminal.
#pragma once

#include "common/error.h"

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <functional>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace ferry::ui {

class EnvironmentDocument;

// Which image actions can be taken now.
struct ImageActionInputs {
    bool engineFound = false;      // docker or podman is installed
    bool busy = false;             // a build or devcontainer start is running
    bool hasFile = false;          // the environment is saved to a file (the devcontainer needs one)
    bool containerRunning = false; // a devcontainer was started from this editor
    bool terminalFound = false;    // a terminal emulator is installed
};
struct ImageActionStates {
    bool build = false;
    bool cancel = false;
    bool devcontainer = false;
    bool terminal = false;
    QString hint; // why something is off, for the status line
};
ImageActionStates imageActionStates(const ImageActionInputs &inputs);

// Builds the environment's image (the log streamed, a progress bar, cancellable), starts its
// devcontainer (Dev Containers CLI if installed, the engine otherwise), opens a terminal in it,
// and says whether the image for the current spec exists already. The work runs off the GUI
// thread through core/targets.
class ImagePanel : public QWidget {
    Q_OBJECT
public:
    explicit ImagePanel(EnvironmentDocument *document, QWidget *parent = nullptr);
    ~ImagePanel() override;

    void setWorkspaceRoot(const QString &root);
    void setEngineProgram(const QString &program);   // docker, podman or a path; empty: found on PATH
    void setTerminalProgram(const QString &program); // the terminal emulator; empty: automatic
    // Asked before building an environment with problems, and to save before the devcontainer.
    void setConfirm(std::function<bool(const QString &question)> confirm) { m_confirm = std::move(confirm); }
    void setEnsureSaved(std::function<bool()> ensureSaved) { m_ensureSaved = std::move(ensureSaved); }

    ImageActionStates states() const;
    QString imageStatus() const; // the status line
    QString log() const;
    bool isBusy() const { return m_busy; }

public Q_SLOTS:
    void build();
    void cancel();
    void startDevcontainer();
    void openTerminal();
    void checkImage();

Q_SIGNALS:
    void finished(bool ok, const QString &message);
    // A build or a dev container that failed (not one cancelled): "Image: " and why, as the
    // engine or the Dev Containers CLI said it, for the Problems panel.
    void problem(const ferry::Error &error);
    void imageChecked(bool exists);

private:
    void appendLog(const QString &text);
    void setBusy(bool busy, const QString &what);
    void updateButtons();
    QString environmentFile() const;

    EnvironmentDocument *m_document;
    QString m_workspaceRoot;
    QString m_engine;
    QString m_terminalProgram; // from the settings; empty: automatic
    std::function<bool(const QString &)> m_confirm;
    std::function<bool()> m_ensureSaved;
    std::atomic<bool> m_cancel{false};
    bool m_busy = false;
    QFutureWatcher<Expected<void>> m_work; // a build or devcontainer start: done, or why not
    QFutureWatcher<int> m_check;           // 1: exists, 0: missing, -1: no engine
    QString m_checkedImage;
    QString m_containerId;
    QString m_containerUser;
    QString m_containerFolder;
    QTimer *m_checkLater;

    QPushButton *m_build;
    QPushButton *m_cancelButton;
    QPushButton *m_devcontainer;
    QPushButton *m_terminal;
    QProgressBar *m_progress;
    QLabel *m_status;
    QPlainTextEdit *m_log;
};

} // namespace ferry::ui
