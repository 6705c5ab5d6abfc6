// RunActions: what the window does with script runs: launching, re-running, cancelling, deleting
// and exporting.
#pragma once

#include "common/error.h"
#include "run/runspec.h"
#include "store/runstore.h"

#include <QFuture>
#include <QList>
#include <QObject>
#include <QSet>
#include <QStringList>

#include <functional>
#include <optional>

class QSettings;
class QWidget;

namespace ferry::ui {

class LaunchDialog;

// What the window does with script runs: the launch dialog, starting a run in the background
// (a container run may build its image first; secrets are checked in the keychain before it
// starts), re-running with changes, cancelling through the run's target, deleting, and the
// export for AzureML or SageMaker. Outcomes go out as signals; the window shows them.
class RunActions : public QObject {
    Q_OBJECT
public:
    RunActions(QSettings &settings, QString ferryBinary, QWidget *dialogParent);
    ~RunActions() override;

    // The open workspace (its run store and runs folder); a null store: none.
    void setWorkspace(run::RunStore *store, const QString &root, const QString &runsDir);
    // Waits for the runs being started: they write to the store.
    void finishLaunches();
    // The keychain's secret names, offered by the launch dialog.
    void setSecretNames(std::function<QStringList()> names) { m_secretNames = std::move(names); }
    // How a yes/no question is asked (a message box by default; tests answer it).
    void setConfirm(std::function<bool(const QString &question)> confirm) { m_confirm = std::move(confirm); }

    // The launch dialog for `script` (empty: the user picks), with these data channels.
    void startScriptRun(const QString &script, const QList<run::DataChannel> &channels);
    // A notebook's job (the notebook's Run as Job): the launch dialog with its script, its
    // hyperparameters, its environment and target chosen, and the notebook and cells recorded.
    void startNotebookJob(const QString &script, const QList<run::DataChannel> &channels,
                          const QList<run::Hyperparameter> &hyperparameters, const QString &environmentFile,
                          const run::TargetSpec &target, const QString &notebook, const QStringList &cells);
    // The launch dialog filled from a script run's spec: its script, data and parameters.
    void rerun(const run::RunSpec &spec);
    void launch(const run::RunSpec &spec);
    // The run again exactly as it was: the code of its snapshot, its parameters, target, data
    // and environment (tracking/rerun.h, as `ferry runs rerun`), started like a launched run.
    void rerunExactly(const run::RunRecord &record);
    void cancel(const QString &runId, const run::RunSpec &spec);
    void remove(const QString &runId);
    void exportRun(const run::RunSpec &spec);

    // The logs of ranks 1.. of a run across nodes still going are on its host: copied into its
    // folder here (ranks/K.log), as `ferry runs logs --rank K` does; one copy at a time a run.
    void fetchRankLogs(const QString &runId, const run::RunSpec &spec);

Q_SIGNALS:
    void problem(const ferry::Error &error);
    void message(const QString &text);
    void starting(const QString &runId); // the window selects it once the table has it
    void runsChanged();                  // the table should read the store again

private:
    // `configure` sets what a caller presets (a notebook's environment, target and origin).
    void openLaunchDialog(const QString &script, const QList<run::DataChannel> &channels,
                          const QList<run::Hyperparameter> &values,
                          const std::function<void(LaunchDialog &)> &configure = {});
    // In the background, with its secrets checked first; a rerun's `original` (the run it
    // repeats): the data that changed since it are said as warnings once started.
    void start(const run::RunSpec &spec, const std::optional<run::RunSpec> &original = std::nullopt);

    struct PreparedRerun {
        run::RunSpec spec;
        QString rebuild;   // the image to build again first (run::imageToRebuild), if any
        QStringList notes; // what a rerun of a run from elsewhere left out
    };
    // A run from elsewhere: asked (ForeignRerunDialog) before it starts; its folder goes on Cancel.
    std::optional<run::RunSpec> askForeignRerun(const PreparedRerun &prepared, const run::RunSpec &original);

    QSettings &m_settings;
    QString m_ferryBinary;
    QSet<QString> m_fetchingRanks; // runs whose rank logs are being copied
    QWidget *m_parent;
    run::RunStore *m_store = nullptr;
    QString m_root, m_runsDir;
    std::function<QStringList()> m_secretNames;
    std::function<bool(const QString &)> m_confirm;
    QList<QFuture<Expected<QStringList>>> m_launches; // their warnings
    QList<QFuture<Expected<PreparedRerun>>> m_reruns; // their snapshots being written
    int m_workspaceCount = 0;                         // workspaces set so far: a rerun starts in its own
};

} // namespace ferry::ui
