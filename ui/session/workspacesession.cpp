#include "ui/session/workspacesession.h"

#include "common/leftovers.h"
#include "store/runstore.h"
#include "targets/targetfactory.h"
#include "ui/runs/runsmodel.h"
#include "ui/session/chartfeeder.h"
#include "ui/session/runmonitorworker.h"
#include "ui/session/runsecretsreader.h"
#include "workspace/workspace.h"

using namespace Qt::StringLiterals;

namespace ferry::ui {

Expected<std::unique_ptr<WorkspaceSession>> WorkspaceSession::open(const workspace::Workspace &workspace,
                                                                   LossChart *chart, const QString &ferryBinary,
                                                                   secrets::SecretStore *secrets)
{
    auto store = run::RunStore::open(run::RunStore::pathInWorkspace(workspace.root()));
    if (!store)
        return store.error();
    (void)sweepRunFolderLeftovers(workspace.runsDir()); // a crash's temp files (common/leftovers.h)
    return Expected<std::unique_ptr<WorkspaceSession>>(std::unique_ptr<WorkspaceSession>(new WorkspaceSession(
        std::move(*store), workspace.runsDir(), workspace.sweepsDir(), chart, ferryBinary, secrets)));
}

WorkspaceSession::WorkspaceSession(std::unique_ptr<run::RunStore> store, const QString &runsDir,
                                   const QString &sweepsDir, LossChart *chart, const QString &ferryBinary,
                                   secrets::SecretStore *secrets)
    : m_store(std::move(store)), m_secrets(std::make_unique<RunSecretsReader>(secrets)),
      m_feeder(std::make_unique<ChartFeeder>(chart)), m_loader(std::make_unique<RunsLoader>()),
      m_monitor(new RunMonitorWorker(
          *m_store, runsDir,
          [ferryBinary](const run::TargetSpec &spec) { return targets::makeTarget(spec, ferryBinary); }, sweepsDir))
{
    m_feeder->setStore(m_store.get());
    // Unfinished runs are followed from their own thread: re-attach, live metrics, lost runs.
    m_monitorThread.setObjectName(u"run monitor"_s);
    m_monitor->moveToThread(&m_monitorThread);
    connect(&m_monitorThread, &QThread::finished, m_monitor, &QObject::deleteLater);
    connect(m_monitor, &RunMonitorWorker::changed, this,
            [this](const QStringList &ids, const QStringList &finished, const QStringList &replaced) {
                if (!replaced.isEmpty())
                    m_feeder->reloadRuns(replaced); // a file took a metric over: its log points are gone
                m_feeder->runsChanged(ids);
                if (!finished.isEmpty())
                    m_loader->reload();
            });
    // Runs with secrets are shown redacted: their values come from the keychain, asynchronously.
    connect(m_monitor, &RunMonitorWorker::secretsNeeded, m_secrets.get(), &RunSecretsReader::read);
    connect(m_secrets.get(), &RunSecretsReader::valuesRead, m_monitor, &RunMonitorWorker::setRunSecrets);
    m_monitorThread.start(); // idle until start()
}

WorkspaceSession::~WorkspaceSession()
{
    // The monitor writes to the store: stopped first, and waited for (its worker goes with it).
    m_monitorThread.quit();
    m_monitorThread.wait();
    m_monitor = nullptr;
    m_secrets.reset();
    m_loader.reset();            // waits for a read in progress
    m_feeder->setStore(nullptr); // the chart is emptied; waits until the feeder lets go of the store
    m_feeder.reset();
    m_store->close(); // flushes what was queued
    m_store.reset();
}

void WorkspaceSession::start()
{
    m_loader->setStore(m_store.get());
    m_loader->start(1000);
    QMetaObject::invokeMethod(m_monitor, [monitor = m_monitor] { monitor->start(500); });
}

} // namespace ferry::ui
