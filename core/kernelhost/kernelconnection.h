// KernelConnection: one client of a kept kernel (its folder's connection file and journal), with the
// waits a command line or a test needs: ready, one cell run to its end, the journal followed.
#pragma once

#include "common/error.h"
#include "kernelhost/kernelfolder.h"
#include "kernels/celloutputs.h"
#include "kernels/kernelclient.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace ferry::kernels {

class KernelLink;

class KernelConnection : public QObject {
    Q_OBJECT
public:
    // The kernel in `folder`, its iopub read from the journal from `journalOffset` (-1: from its
    // end now, for what comes next; 0: everything, for a replay).
    // `ferryBinary` makes the link to a kernel on a host (kernellink.h); empty: this program.
    static Expected<std::unique_ptr<KernelConnection>> open(const QString &folder, qint64 journalOffset = -1,
                                                            const QString &ferryBinary = {});
    ~KernelConnection() override;

    KernelClient &client() { return *m_client; }
    const KernelFolder &folder() const { return m_folder; }

    // kernel_info until the kernel answers; an Error that names the step when it does not within
    // `timeoutMs`, or says how the kernel ended meanwhile. Runs the event loop while it waits.
    Expected<QJsonObject> waitReady(int timeoutMs = 60000);

    // Runs `code` and returns its outputs once the kernel is idle after it. `onMessage` sees each
    // iopub message of the cell as it comes. Past `timeoutMs` (-1: none) the cell is interrupted,
    // and the Error says so; when the kernel ends meanwhile, the Error says how; when it restarts
    // before the cell ran or while it ran (a restart from elsewhere: the old kernel drops what it
    // had not run), the Error says which, once the new kernel has answered a later request.
    using MessageHandler = std::function<void(const JupyterMessage &)>;
    // `stopOnError`: the kernel drops what was queued after a cell that raised (the protocol's
    // stop_on_error; nbclient turns it off with allow_errors).
    // `keepOutputs` false: the result holds the reply and an error only (CellOutputs).
    Expected<CellOutputs> execute(const QString &code, const MessageHandler &onMessage, int timeoutMs = -1,
                                  bool stopOnError = true, bool keepOutputs = true);

    // Every iopub message from the journal, in order, until `stop` returns true (asked after each
    // message and every 100 ms) or the kernel has ended and its journal is read to the end.
    void follow(const MessageHandler &onMessage, const std::function<bool()> &stop);

    // Ends the wait in progress (execute, follow) at its next turn, the cell left running: for a
    // caller whose output has gone (a closed pipe). execute then returns an Error saying so.
    void stopWaiting() { m_stopWaiting = true; }

    // Starts again what the link to a kernel on a host runs and has died (a cut connection): call
    // it now and then (the waits here do, ten times a second) when driving the client yourself.
    void keepLinked();
    // Whether the last execute ran past its time and was interrupted.
    bool timedOut() const { return m_timedOut; }
    // Why the client can no longer talk to the kernel (its journal or its sockets failed), if so:
    // the waits here end with it.
    const std::optional<Error> &failure() const { return m_failure; }

    // How the kernel ended, once it has (kernel-exit.json).
    std::optional<KernelEnd> ended() const;
    // The same, as well as its place can say (explainedEnd(): a Slurm time limit...). Blocking.
    std::optional<KernelEnd> explainedEnd() const;

private:
    KernelConnection(KernelFolder folder, QString ferryBinary, std::unique_ptr<KernelLink> link,
                     std::unique_ptr<KernelClient> client);
    // Runs the event loop until `done` or `timeoutMs` (-1: no limit) or the kernel's end; true when done.
    bool waitFor(const std::function<bool()> &done, int timeoutMs);

    KernelFolder m_folder;
    QString m_ferryBinary;
    std::unique_ptr<KernelLink> m_link; // before the client: it outlives the client's sockets
    std::unique_ptr<KernelClient> m_client;
    QHash<QString, JupyterMessage> m_replies; // by the request's msg_id
    CellOutputs *m_cell = nullptr;
    MessageHandler m_onMessage;
    // The journal said the kernel restarted while the cell had no reply (execute asks the new
    // kernel whether the cell's request reached it).
    bool m_restartedMeanwhile = false;
    std::optional<Error> m_failure;
    bool m_timedOut = false;
    bool m_stopWaiting = false;
};

} // namespace ferry::kernels
