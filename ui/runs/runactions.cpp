#include "ui/runs/runactions.h"

#include "env/formats.h"
#include "env/spechash.h"
#include "run/runenvironment.h"
#include "run/runsecrets.h"
#include "store/runstore.h"
#include "targets/remotetarget.h"
#include "targets/targetfactory.h"
#include "tracking/runlauncher.h"
#include "ui/launch/launchdialog.h"
#include "ui/runs/exportrundialog.h"

#include <QDir>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

RunActions::RunActions(QSettings &settings, QString ferryBinary, QWidget *dialogParent)
    : QObject(dialogParent), m_settings(settings), m_ferryBinary(std::move(ferryBinary)), m_parent(dialogParent)
{
}

RunActions::~RunActions()
{
    finishLaunches();
}

void RunActions::setWorkspace(run::RunStore *store, const QString &root, const QString &runsDir)
{
    finishLaunches();
    m_store = store;
    m_root = root;
    m_runsDir = runsDir;
}

void RunActions::finishLaunches()
{
    for (QFuture<QString> &launch : m_launches)
        launch.waitForFinished();
    m_launches.clear();
}

void RunActions::startScriptRun(const QString &script, const QList<run::DataChannel> &channels)
{
    if (!m_store) {
        Q_EMIT problem(tr("Open a workspace first: runs are kept in it"));
        return;
    }
    LaunchDialog dialog(m_settings, m_root, m_parent);
    if (!script.isEmpty())
        dialog.setScript(script);
    dialog.setChannels(channels);
    if (m_secretNames)
        dialog.setSecretNames(m_secretNames());
    if (dialog.exec() != QDialog::Accepted)
        return;
    dialog.remember();
    launch(dialog.spec());
}

void RunActions::rerun(const run::RunSpec &spec)
{
    if (!m_store)
        return;
    startScriptRun(QDir(spec.sourceDir).filePath(spec.script), spec.channels);
}

void RunActions::launch(const run::RunSpec &requested)
{
    if (!m_store)
        return;
    run::RunSpec spec = requested;
    if (!spec.environmentFile.isEmpty()) {
        const env::EnvironmentRead read = env::readEnvironment(spec.environmentFile);
        if (env::hasErrors(read.diagnostics)) {
            Q_EMIT problem(tr("Environment %1 has errors: run 'ferry env check' on it").arg(spec.environmentFile));
            return;
        }
        run::applyEnvironment(spec, read.environment, spec.environmentFile); // secrets: checked in the worker
    }
    Q_EMIT starting(spec.id);
    Q_EMIT message(tr("Starting %1 on %2 …").arg(spec.script, spec.target.toString()));
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher] {
        if (!watcher->result().isEmpty())
            Q_EMIT problem(tr("Run: %1").arg(watcher->result()));
        Q_EMIT runsChanged();
        watcher->deleteLater();
    });
    // A container run may build its image first: minutes, never on the GUI thread.
    const QFuture<QString> launch =
        QtConcurrent::run([store = m_store, spec, ferry = m_ferryBinary, dir = m_runsDir]() -> QString {
            auto target = targets::makeTarget(spec.target, ferry);
            if (!target)
                return QStringLiteral("this Ferry cannot drive the %1 target").arg(spec.target.toString());
            if (const auto secrets = run::checkRunSecrets(spec);
                !secrets) // before the run starts (keychain: off the GUI thread)
                return secrets.error().toString();
            const auto launched = run::launchRun(*store, *target, dir, spec);
            return launched ? launched->error : launched.error().toString(); // error: a start not confirmed
        });
    m_launches.removeIf([](const QFuture<QString> &f) { return f.isFinished(); });
    m_launches << launch;
    watcher->setFuture(launch);
    Q_EMIT runsChanged();
}

void RunActions::cancel(const QString &runId, const run::RunSpec &spec)
{
    Q_EMIT message(tr("Cancelling %1 …").arg(runId));
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, runId] {
        if (!watcher->result().isEmpty())
            Q_EMIT problem(tr("Cancel %1: %2").arg(runId, watcher->result()));
        Q_EMIT runsChanged();
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(
        [target = spec.target, dir = QDir(m_runsDir).filePath(runId), ferry = m_ferryBinary]() -> QString {
            auto driver = targets::makeTarget(target, ferry);
            if (!driver)
                return QStringLiteral("this Ferry cannot drive the %1 target").arg(target.toString());
            const auto cancelled = driver->cancel(dir, 5000);
            return cancelled ? QString() : cancelled.error().toString();
        }));
}

void RunActions::remove(const QString &runId)
{
    if (!m_store)
        return;
    const QString dir = QDir(m_runsDir).filePath(runId);
    const auto hostFolder = targets::RemoteTarget::remoteFolderOf(dir);
    const auto forget = [this, runId, dir] {
        m_store->deleteRun(runId);
        QDir(dir).removeRecursively();
        Q_EMIT runsChanged();
        Q_EMIT message(tr("Deleted run %1").arg(runId));
    };
    if (!hostFolder) {
        forget();
        return;
    }
    // The folder on the host holds the run's data copies and model (review M2): asked, as
    // `ferry runs delete --remote | --keep-remote` must say.
    const auto spec = run::RunSpec::fromJson(m_store->run(runId).value_or(run::RunRecord{}).spec);
    const QString host = spec ? spec->target.toString() : tr("its host");
    QMessageBox question(QMessageBox::Question, tr("Delete run"),
                         tr("Delete run %1?\n\nIts folder on %2 (%3) holds its uploaded data and results.")
                             .arg(runId, host, *hostFolder),
                         QMessageBox::Cancel, m_parent);
    QPushButton *removeThere = question.addButton(tr("Delete here and on the host"), QMessageBox::DestructiveRole);
    QPushButton *keepThere = question.addButton(tr("Delete here, keep it on the host"), QMessageBox::AcceptRole);
    question.setDefaultButton(QMessageBox::Cancel);
    question.exec();
    if (question.clickedButton() == keepThere) {
        forget();
        return;
    }
    if (question.clickedButton() != removeThere || !spec)
        return;
    Q_EMIT message(tr("Removing %1 on %2 …").arg(*hostFolder, host));
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, runId, forget] {
        if (watcher->result().isEmpty())
            forget();
        else
            Q_EMIT problem(tr("Delete %1: %2 (nothing was deleted)").arg(runId, watcher->result()));
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([target = spec->target, dir, ferry = m_ferryBinary]() -> QString {
        auto driver = targets::makeTarget(target, ferry);
        auto *remote = dynamic_cast<targets::RemoteTarget *>(driver.get());
        if (!remote)
            return QStringLiteral("this Ferry cannot drive the %1 target").arg(target.toString());
        const auto removed = remote->removeRemoteFolder(dir);
        return removed ? QString() : removed.error().toString();
    }));
}

void RunActions::exportRun(const run::RunSpec &spec)
{
    std::optional<env::Environment> environment;
    if (!spec.environmentFile.isEmpty()) {
        const env::EnvironmentRead read = env::readEnvironment(spec.environmentFile);
        if (env::hasErrors(read.diagnostics)) {
            Q_EMIT problem(tr("Export: %1 has errors; fix them to describe the run's image").arg(spec.environmentFile));
            return;
        }
        environment = read.environment;
    }
    ExportRunDialog dialog(spec, environment, m_parent);
    if (dialog.exec() == QDialog::Accepted)
        Q_EMIT message(tr("Wrote %1").arg(dialog.outputPath()));
}

} // namespace ferry::ui
