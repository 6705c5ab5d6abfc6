// NotebookKernel: the kernel of one open notebook, as a window drives it: started off the GUI
// thread, cells queued while it starts, each message routed to the cell whose execution caused
// it, interrupt, restart, stop, and a death said in words. No call blocks the caller's thread.
#pragma once

#include "common/error.h"
#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernelhost.h"
#include "kernels/jupytermessage.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace ferry::kernels {

class NotebookKernel : public QObject {
    Q_OBJECT
public:
    enum class State { None, Starting, Idle, Busy, Restarting, Dead };
    Q_ENUM(State)

    // Kernels go to `kernelsDir` (the workspace's); `ferryBinary` reaches hosts (empty: this program).
    NotebookKernel(QString kernelsDir, QString ferryBinary, QObject *parent = nullptr);
    ~NotebookKernel() override;

    // The notebook whose kernel this is (its absolute path): written beside the kernel's records
    // (`notebook` in its folder), so that the notebook opened again finds it (runningKernelFor).
    void setNotebook(const QString &path) { m_notebook = path; }
    // The kernel in `kernelsDir` that `notebookPath` started and that has not ended (by its
    // records), the newest when there are several; empty when none.
    static QString runningKernelFor(const QString &kernelsDir, const QString &notebookPath);
    // The notebook that started the kernel in `folder` (its `notebook` file); empty when none (a
    // kernel of `ferry kernel start`) or when the file cannot be read.
    static QString notebookOf(const QString &folder);

    // Starts a kernel for the notebook (off this thread); cells asked meanwhile wait their turn.
    void start(const KernelRequest &request);
    // Attaches to the kernel in `folder` that still runs (a notebook opened again): its journal is
    // replayed from the start, each execution's messages going to the cell that asked for it.
    void attach(const QString &folder);

    // Runs `code` for the cell `cellId`: at once when the kernel is ready, else once it is. The
    // kernel drops what was queued after a cell that raised (stop_on_error), and says so
    // ("aborted") for each. False when there is no kernel to run it (none, or dead).
    bool execute(const QString &cellId, const QString &code);
    // Cells waiting for the kernel to start, or sent and not finished.
    QStringList pendingCells() const;
    void interrupt();
    void restart();
    // Stops the kernel and releases what it holds (container, host processes, allocation).
    void stop();
    // complete_request / inspect_request: the answer comes as replyReceived with the returned id.
    QString complete(const QString &code, int cursorPos);
    QString inspect(const QString &code, int cursorPos);
    // A silent execute_request of `userExpressions` alone (no code, no history, no count, no
    // output): the kernel evaluates them after what it runs now; its execute_reply comes as
    // replyReceived with the returned id. Empty when the kernel is not ready (starting, dead).
    QString evaluate(const QJsonObject &userExpressions);

    State state() const { return m_state; }
    QString stateText() const; // "idle", "busy", "dead: killed by the OOM killer (...)", ...
    QString folder() const { return m_connection ? m_connection->folder().path() : m_folder; }

Q_SIGNALS:
    void stateChanged(ferry::kernels::NotebookKernel::State state, const QString &text);
    // What the start is doing (the upload, the queue), as it goes.
    void progress(const QString &text);
    // A new execution of the cell began (its execute_input came: its count) — its earlier outputs go.
    void cellStarted(const QString &cellId, int executionCount);
    // An iopub message of the cell's current execution (stream, display_data, execute_result,
    // error, clear_output, update_display_data...).
    void cellMessage(const QString &cellId, const ferry::kernels::JupyterMessage &message);
    // The execution's end, after its outputs (its reply and its idle both came): "ok", "error" or
    // "aborted" (the kernel dropped it after an error, or it died, or restarted, meanwhile).
    void cellFinished(const QString &cellId, const QString &status, int executionCount);
    // A shell reply to complete, inspect or evaluate.
    void replyReceived(const QString &requestId, const ferry::kernels::JupyterMessage &reply);
    // The kernel's first folder, once it started (to reattach later).
    void folderChanged(const QString &folder);

private:
    void started(const Expected<KernelFolder> &folder);
    void connectTo(const QString &folder, qint64 journalOffset);
    void onMessage(Channel channel, const JupyterMessage &message);
    void tick();
    void setState(State state, const QString &detail = {});
    void send(const QString &cellId, const QString &code);
    struct Reply {
        QString status;
        int executionCount = -1;
    };
    void finish(const QString &request, const Reply &reply);
    void failAll(const QString &status);
    void rememberRequest(const QString &requestId, const QString &cellId);
    void readRequests();
    QString requestsFile() const;

    QString m_kernelsDir;
    QString m_ferryBinary;
    QString m_folder;
    QString m_notebook;
    std::unique_ptr<KernelConnection> m_connection;
    State m_state = State::None;
    QString m_detail;
    QList<std::pair<QString, QString>> m_queue; // (cell, code) waiting for the kernel
    QHash<QString, QString> m_cells;            // request msg_id -> cell id
    QStringList m_running;                      // request ids sent, not finished, in order
    QSet<QString> m_sent;                       // request ids this client sent (the others: replayed)
    QHash<QString, int> m_counts;               // replayed executions: their count, until idle
    QSet<QString> m_errors;                     // replayed executions that raised
    QHash<QString, Reply> m_replies;            // sent executions answered, their idle not read yet
    QSet<QString> m_idle;                       // sent executions idle, their reply not read yet
    QString m_readyRequest;                     // the kernel_info that says it is ready
    int m_restartsSeen = 0;
    QTimer m_tick;
    int m_ticks = 0;
    std::shared_ptr<bool> m_alive = std::make_shared<bool>(true); // for the start's thread
};

} // namespace ferry::kernels
