#include "ui/runs/runactions.h"

#include "env/formats.h"
#include "env/spechash.h"
#include "run/runenvironment.h"
#include "run/runsecrets.h"
#include "snapshot/snapshot.h"
#include "store/runstore.h"
#include "targets/containerengine.h"
#include "targets/remotetarget.h"
#include "targets/targetfactory.h"
#include "tracking/rerun.h"
#include "tracking/runlauncher.h"
#include "ui/launch/launchdialog.h"
#include "ui/runs/exportrundialog.h"
#include "ui/runs/foreignrerundialog.h"
#include "ui/secrets/registrysecretquestion.h"

#include <QDir>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// An environment that has errors, said with `message` at the place of the first one (the
// Problems panel opens the file there).
Error atFirstError(const QString &message, const env::Diagnostics &diagnostics)
{
    for (const env::Diagnostic &d : diagnostics) {
        if (d.isError())
            return Error{message, d.where.path, d.where.line, d.where.column, {}};
    }
    return Error{message, {}, 0, 0, {}};
}

Error cannotDrive(const run::TargetSpec &target)
{
    return Error{QStringLiteral("this Ferry cannot drive the %1 target").arg(target.toString()), {}, 0, 0, {}};
}

// `work` on the SSH or Slurm host of a run's target (in a worker thread: it reaches the host).
Expected<void> onRemoteHost(const run::TargetSpec &target, const QString &ferry,
                            const std::function<Expected<void>(targets::RemoteTarget &)> &work)
{
    auto driver = targets::makeTarget(target, ferry);
    auto *remote = dynamic_cast<targets::RemoteTarget *>(driver.get());
    if (!remote)
        return cannotDrive(target);
    return work(*remote);
}

} // namespace

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
    ++m_workspaceCount;
    m_store = store;
    m_root = root;
    m_runsDir = runsDir;
}

void RunActions::finishLaunches()
{
    for (QFuture<Expected<PreparedRerun>> &rerun : m_reruns)
        rerun.waitForFinished();
    m_reruns.clear();
    for (QFuture<Expected<QStringList>> &launch : m_launches)
        launch.waitForFinished();
    m_launches.clear();
}

void RunActions::startScriptRun(const QString &script, const QList<run::DataChannel> &channels)
{
    openLaunchDialog(script, channels, {});
}

void RunActions::startNotebookJob(const QString &script, const QList<run::DataChannel> &channels,
                                  const QList<run::Hyperparameter> &hyperparameters, const QString &environmentFile,
                                  const run::TargetSpec &target, const QString &notebook, const QStringList &cells)
{
    openLaunchDialog(script, channels, hyperparameters, [&](LaunchDialog &dialog) {
        dialog.setEnvironmentAndTarget(environmentFile, target);
        dialog.setNotebookOrigin(QDir(m_root).relativeFilePath(notebook), cells);
    });
}

void RunActions::openLaunchDialog(const QString &script, const QList<run::DataChannel> &channels,
                                  const QList<run::Hyperparameter> &values,
                                  const std::function<void(LaunchDialog &)> &configure)
{
    if (!m_store) {
        Q_EMIT problem(Error{tr("Open a workspace first: runs are kept in it"), {}, 0, 0, {}});
        return;
    }
    LaunchDialog dialog(m_settings, m_root, m_parent);
    dialog.setHistory(m_store->runs()); // what the estimate rests on
    if (!script.isEmpty())
        dialog.setScript(script);
    dialog.setChannels(channels);
    dialog.setHyperparameters(values);
    if (configure)
        configure(dialog);
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
    if (spec.fromElsewhere()) { // no source folder here: its code is its snapshot's, asked for as exactly
        Q_EMIT problem(Error{tr("Run %1 came from elsewhere: re-run it exactly (you choose where, with what data "
                                "and secrets), then re-run that run with changes")
                                 .arg(spec.id),
                             {},
                             0,
                             0,
                             {}});
        return;
    }
    openLaunchDialog(QDir(spec.sourceDir).filePath(spec.script), spec.channels, spec.hyperparameters);
}

void RunActions::launch(const run::RunSpec &requested)
{
    if (!m_store)
        return;
    run::RunSpec spec = requested;
    if (!spec.environmentFile.isEmpty()) {
        const Diagnostics diagnostics = run::applyEnvironmentFile(spec, spec.environmentFile);
        if (hasErrors(diagnostics)) { // secrets: checked in the worker
            Q_EMIT problem(atFirstError(
                tr("Environment %1 has errors: run 'ferry env check' on it").arg(spec.environmentFile), diagnostics));
            return;
        }
    }
    start(spec);
}

void RunActions::rerunExactly(const run::RunRecord &record)
{
    if (!m_store)
        return;
    Q_EMIT message(tr("Re-running %1 with the code of its snapshot …").arg(record.id));
    auto *watcher = new QFutureWatcher<Expected<PreparedRerun>>(this);
    connect(watcher, &QFutureWatcher<Expected<PreparedRerun>>::finished, this,
            [this, watcher, record, workspace = m_workspaceCount] {
                const Expected<PreparedRerun> prepared = watcher->result();
                watcher->deleteLater();
                if (!prepared) {
                    Q_EMIT problem(withContext(tr("Re-run %1").arg(record.id), prepared.error()));
                    return;
                }
                if (workspace != m_workspaceCount) // not once another workspace is open
                    return;
                const auto original = run::RunSpec::fromJson(record.spec);
                run::RunSpec spec = prepared->spec;
                if (original && original->fromElsewhere()) {
                    const auto answered = askForeignRerun(*prepared, *original);
                    if (!answered)
                        return;
                    spec = *answered;
                }
                if (!prepared->rebuild.isEmpty())
                    Q_EMIT message(tr("Image %1 is gone: rebuilding it from the environment of run %2")
                                       .arg(prepared->rebuild, record.id));
                start(spec, original ? std::optional<run::RunSpec>(*original) : std::nullopt);
            });
    // Writing the snapshot's files and asking the engine for the image: never on the GUI thread.
    const QFuture<Expected<PreparedRerun>> prepared =
        QtConcurrent::run([record, objects = snapshot::objectsDirFor(m_runsDir),
                           engine = targets::kContainerEngineSetting.get(m_settings)]() -> Expected<PreparedRerun> {
            // A run from elsewhere is prepared on its kind of target, or this machine for a remote
            // one, with nothing granted: the question that follows gives the rest.
            run::RerunChanges changes;
            if (const auto original = run::RunSpec::fromJson(record.spec); original && original->fromElsewhere()) {
                const run::TargetKind kind = original->target.onHost() ? run::TargetKind::Local : original->target.kind;
                changes.target = run::TargetSpec{kind, {}, {}};
            }
            QStringList notes;
            auto spec = run::rerunSpec(record, objects, changes, &notes);
            if (!spec)
                return spec.error();
            const QString rebuild = run::imageToRebuild(*spec, engine);
            return PreparedRerun{std::move(*spec), rebuild, notes};
        });
    m_reruns.removeIf([](const QFuture<Expected<PreparedRerun>> &f) { return f.isFinished(); });
    m_reruns << prepared;
    watcher->setFuture(prepared);
}

std::optional<run::RunSpec> RunActions::askForeignRerun(const PreparedRerun &prepared, const run::RunSpec &original)
{
    ForeignRerunDialog dialog(prepared.spec, original, prepared.notes, m_secretNames ? m_secretNames() : QStringList(),
                              m_parent);
    if (dialog.exec() == QDialog::Accepted)
        return dialog.rerun();
    (void)QtConcurrent::run([folder = prepared.spec.sourceDir] { QDir(folder).removeRecursively(); });
    Q_EMIT message(tr("Re-run of %1 not started").arg(original.id));
    return std::nullopt;
}

void RunActions::start(const run::RunSpec &spec, const std::optional<run::RunSpec> &original)
{
    // A container run's image may need its registry's password: sent only where the user says.
    if (spec.target.kind == run::TargetKind::Container && !spec.environmentFile.isEmpty()) {
        const auto confirm = m_confirm ? m_confirm : [this](const QString &question) {
            return QMessageBox::question(m_parent, tr("Send a keychain secret"), question) == QMessageBox::Yes;
        };
        QSettings bindings; // where ensureImage looks for them (the user's settings)
        if (!allowRegistrySecret(env::readEnvironment(spec.environmentFile).environment, bindings, confirm)) {
            Q_EMIT message(tr("Not started: %1's registry password stays in the keychain").arg(spec.script));
            return;
        }
    }
    Q_EMIT starting(spec.id);
    Q_EMIT message(tr("Starting %1 on %2 …").arg(spec.script, spec.target.toString()));
    auto *watcher = new QFutureWatcher<Expected<QStringList>>(this);
    connect(watcher, &QFutureWatcher<Expected<QStringList>>::finished, this, [this, watcher] {
        if (const Expected<QStringList> started = watcher->result(); !started)
            Q_EMIT problem(withContext(tr("Run"), started.error()));
        else
            for (const QString &warning : *started)
                Q_EMIT problem(Error{tr("Re-run: %1").arg(warning), {}, 0, 0, {}});
        Q_EMIT runsChanged();
        watcher->deleteLater();
    });
    // A container run may build its image first: minutes, never on the GUI thread.
    const QFuture<Expected<QStringList>> launch = QtConcurrent::run(
        [store = m_store, spec, original, ferry = m_ferryBinary, dir = m_runsDir]() -> Expected<QStringList> {
            auto target = targets::makeTarget(spec.target, ferry);
            if (!target)
                return cannotDrive(spec.target);
            if (const auto secrets = run::checkRunSecrets(spec);
                !secrets) // before the run starts (keychain: off the GUI thread)
                return secrets.error();
            const auto launched = run::launchRun(*store, *target, dir, spec);
            if (!launched)
                return launched.error();
            if (!launched->error.isEmpty()) // a start not confirmed: the run stays, with the reason
                return Error{launched->error, {}, 0, 0, {}};
            const auto started = run::RunSpec::fromJson(launched->spec); // with its data's fingerprints
            return original && started ? run::dataChanges(*original, *started) : QStringList{};
        });
    m_launches.removeIf([](const QFuture<Expected<QStringList>> &f) { return f.isFinished(); });
    m_launches << launch;
    watcher->setFuture(launch);
    Q_EMIT runsChanged();
}

void RunActions::cancel(const QString &runId, const run::RunSpec &spec)
{
    Q_EMIT message(tr("Cancelling %1 …").arg(runId));
    auto *watcher = new QFutureWatcher<Expected<void>>(this);
    connect(watcher, &QFutureWatcher<Expected<void>>::finished, this, [this, watcher, runId] {
        if (const Expected<void> cancelled = watcher->result(); !cancelled)
            Q_EMIT problem(withContext(tr("Cancel %1").arg(runId), cancelled.error()));
        Q_EMIT runsChanged();
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(
        [target = spec.target, dir = QDir(m_runsDir).filePath(runId), ferry = m_ferryBinary]() -> Expected<void> {
            auto driver = targets::makeTarget(target, ferry);
            if (!driver)
                return cannotDrive(target);
            if (const auto cancelled = driver->cancel(dir, 5000); !cancelled)
                return cancelled.error();
            return {};
        }));
}

void RunActions::fetchRankLogs(const QString &runId, const run::RunSpec &spec)
{
    if (m_fetchingRanks.contains(runId))
        return;
    m_fetchingRanks.insert(runId);
    auto *watcher = new QFutureWatcher<Expected<void>>(this);
    connect(watcher, &QFutureWatcher<Expected<void>>::finished, this, [this, watcher, runId] {
        m_fetchingRanks.remove(runId);
        // Quietly: the log view shows the copy when it comes; the run's own log says what went
        // wrong on the host, and the next try may pass.
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([target = spec.target, dir = QDir(m_runsDir).filePath(runId),
                                          ferry = m_ferryBinary]() -> Expected<void> {
        return onRemoteHost(target, ferry, [&](targets::RemoteTarget &remote) { return remote.fetchRankLogs(dir); });
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
    auto *watcher = new QFutureWatcher<Expected<void>>(this);
    connect(watcher, &QFutureWatcher<Expected<void>>::finished, this, [this, watcher, runId, forget] {
        if (const Expected<void> removed = watcher->result(); removed) {
            forget();
        } else {
            Error error = withContext(tr("Delete %1").arg(runId), removed.error());
            error.message += tr(" (nothing was deleted)");
            Q_EMIT problem(error);
        }
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([target = spec->target, dir, ferry = m_ferryBinary]() -> Expected<void> {
        return onRemoteHost(target, ferry,
                            [&](targets::RemoteTarget &remote) { return remote.removeRemoteFolder(dir); });
    }));
}

void RunActions::exportRun(const run::RunSpec &spec)
{
    std::optional<env::Environment> environment;
    if (!spec.environmentFile.isEmpty()) {
        const env::EnvironmentRead read = env::readEnvironment(spec.environmentFile);
        if (env::hasErrors(read.diagnostics)) {
            Q_EMIT problem(atFirstError(
                tr("Export: %1 has errors; fix them to describe the run's image").arg(spec.environmentFile),
                read.diagnostics));
            return;
        }
        environment = read.environment;
    }
    ExportRunDialog dialog(spec, environment, m_parent);
    if (dialog.exec() == QDialog::Accepted)
        Q_EMIT message(tr("Wrote %1").arg(dialog.outputPath()));
}

} // namespace ferry::ui
