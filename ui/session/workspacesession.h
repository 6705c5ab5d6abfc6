// WorkspaceSession: an open workspace's run store with the workers and threads reading it, started
// and stopped in order.
#pragma once

// The run side of one open workspace: its run store and the workers and threads that read it,
// owned together so they open together and go down in the one right order.

#include "common/error.h"

#include <QObject>
#include <QString>
#include <QThread>

#include <memory>

namespace ferry::run {
class RunStore;
}
namespace ferry::secrets {
class SecretStore;
}
namespace ferry::workspace {
class Workspace;
}

namespace ferry::ui {

class ChartFeeder;
class LossChart;
class RunMonitorWorker;
class RunSecretsReader;
class RunsLoader;

// For one open workspace: the run store, the loader that reads the runs table from it, the
// feeder that puts the shown runs' points into the chart, the run monitor on its own thread
// (re-attach, live metrics, lost runs) and the reader of the secrets the monitor asks for.
// The Workbench (ui/window/workbench.h) holds one while a workspace is open; its RunsController
// connects the window's panels to the parts.
// The destructor takes them down in order: the monitor's thread is stopped and joined, the
// loader and the feeder let go of the store (the chart is emptied), then the store flushes
// and closes.
class WorkspaceSession : public QObject {
    Q_OBJECT
public:
    // Opens the workspace's run store (an Error when it cannot: damaged, written by a newer
    // Ferry, a folder that cannot be written) and sweeps a crash's temp files from its run
    // folders. Nothing is read until start(). `chart`: where the feeder puts points (it must
    // outlive the session); `ferryBinary`: the supervisor of local runs; `secrets`: the keychain
    // the values of runs' secrets are read from, to redact what is shown of those runs (none:
    // nothing more is redacted than the supervisor redacted in the log already).
    static Expected<std::unique_ptr<WorkspaceSession>> open(const workspace::Workspace &workspace, LossChart *chart,
                                                            const QString &ferryBinary, secrets::SecretStore *secrets);
    ~WorkspaceSession() override;

    // The loader reads every second, the monitor follows unfinished runs every 500 ms. Once,
    // after the window has connected to their signals.
    void start();

    run::RunStore *store() const { return m_store.get(); }
    RunsLoader *loader() const { return m_loader.get(); }
    ChartFeeder *feeder() const { return m_feeder.get(); }
    // Lives on the monitor's thread: connect to its signals (queued), never call it directly.
    RunMonitorWorker *monitor() const { return m_monitor; }
    const QThread *monitorThread() const { return &m_monitorThread; }

private:
    WorkspaceSession(std::unique_ptr<run::RunStore> store, const QString &runsDir, const QString &sweepsDir,
                     LossChart *chart, const QString &ferryBinary, secrets::SecretStore *secrets);

    std::unique_ptr<run::RunStore> m_store;
    std::unique_ptr<RunSecretsReader> m_secrets;
    std::unique_ptr<ChartFeeder> m_feeder;
    std::unique_ptr<RunsLoader> m_loader;
    QThread m_monitorThread;
    RunMonitorWorker *m_monitor; // deleted on its thread as the thread finishes
};

} // namespace ferry::ui
