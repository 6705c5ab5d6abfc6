// RunDetailsView: one run's header, parameters, contract variables, artifacts, tags and note, with
// its actions.
#pragma once

#include "common/error.h"
#include "run/hostfacts.h"
#include "run/runspec.h"
#include "store/runstore.h"
#include "ui/runs/runsmodel.h"

#include <QFutureWatcher>
#include <QHash>
#include <QPointer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;
class QTabWidget;
class QTreeWidget;
class QUrl;

namespace ferry::ui {

// What the details pane shows of one run, read off the GUI thread.
struct RunDetails {
    run::RunRecord record;
    QList<run::Hyperparameter> params;
    QList<run::Artifact> artifacts;
    QString runDir; // <workspace>/.ferry/runs/<id>
    bool runDirExists = false;
    bool modelArchiveExists = false;
    std::optional<run::HostFacts> host; // the host as the run saw it (run/hostfacts.h)
    QString imageId;                    // a container run's image (targets/imagerecord.h)
    QString logTail;                    // a failed or lost run's last log lines (its traceback)
};

// One run: its header (name, id, status, error; a failed run's last log lines), parameters, the training-contract
// variables it was given, its artifacts, its tags and note (edited here, saved to the store), and the actions that
// apply to its state. The actions are only requested here (signals); the window carries them out.
class RunDetailsView : public QWidget {
    Q_OBJECT
public:
    explicit RunDetailsView(QWidget *parent = nullptr);
    ~RunDetailsView() override; // waits for a read in progress

    // The store must outlive this view or be replaced first (this waits for a read using it).
    void setStore(run::RunStore *store, const QString &workspaceDir);

    // The blocking read behind showRun; any thread. Empty when the run is not in the store.
    static std::optional<RunDetails> load(const run::RunStore &store, const QString &workspaceDir,
                                          const QString &runId);
    // The contract variables a local process of this run gets (gpus 0, this machine's cpus).
    static QList<std::pair<QString, QString>> localContract(const run::RunSpec &spec, const QString &runDir);

    QString runId() const { return m_details ? m_details->record.id : QString(); }
    const std::optional<RunDetails> &details() const { return m_details; }

    QTableWidget *paramsTable() const { return m_params; }
    QTableWidget *contractTable() const { return m_contract; }
    QTreeWidget *artifactsList() const { return m_artifacts; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *reattachButton() const { return m_reattach; }
    QPushButton *rerunButton() const { return m_rerun; }
    QPushButton *rerunExactlyButton() const { return m_rerunExactly; }
    QPushButton *deleteButton() const { return m_delete; }
    QPushButton *exportButton() const { return m_export; }
    QPushButton *openFolderButton() const { return m_openFolder; }
    QPushButton *revealModelButton() const { return m_revealModel; }
    QLineEdit *tagsEdit() const { return m_tags; } // the tags, separated by spaces
    QPlainTextEdit *noteEdit() const { return m_note; }
    QPushButton *saveNotesButton() const { return m_saveNotes; }
    QLabel *notesError() const { return m_notesError; } // a tag that cannot be one
    QLabel *errorLabel() const { return m_error; }
    // Progress, ETA and cost so far (docs/cost.md), as the runs table's model has them; hidden
    // when the run has none of them.
    QLabel *liveLabel() const { return m_live; }
    // Where the live line comes from: the runs table's model (its progress, rates and clock);
    // read again whenever that model's row of the shown run changes. Not owned.
    void setRunsModel(const RunsModel *model);
    QPlainTextEdit *failureLog() const { return m_failureLog; } // shown for a failed or lost run
    static constexpr int kFailureLogLines = 12;

public Q_SLOTS:
    void showRun(const QString &runId); // reads it on a worker thread; empty id: nothing shown
    void setDetails(const ferry::ui::RunDetails &details);
    // Connect RunsLoader::loaded here: the shown run is read again when its record changed
    // (status, error, ...), and cleared when it left the store.
    void runsUpdated(const QList<ferry::ui::RunRow> &rows);
    void clear();

Q_SIGNALS:
    void cancelRequested(const QString &runId);
    void reattachRequested(const QString &runId);
    void rerunRequested(const ferry::run::RunSpec &spec);  // open the launcher with this spec
    void rerunExactlyRequested(const QString &runId);      // the run again, the code of its snapshot
    void exportRequested(const ferry::run::RunSpec &spec); // write it for AzureML or SageMaker
    void deleteRequested(const QString &runId);
    void problem(const ferry::Error &error);
    void detailsShown(const QString &runId); // after the pane was filled (or cleared: empty)

private:
    void loaded();
    void showTitle();
    void showLive();
    void updateActions();
    void openUrl(const QUrl &url, const QString &what);
    QWidget *notesPage();
    void showNotes(const run::RunRecord &record);
    void saveNotes();

    run::RunStore *m_store = nullptr;
    QString m_workspace;
    QString m_requested; // the run a read is under way for
    bool m_readAgain = false;
    QFutureWatcher<std::optional<RunDetails>> m_watcher;
    std::optional<RunDetails> m_details;
    std::optional<run::RunSpec> m_spec; // parsed from the record; empty when it does not parse

    QLabel *m_title;
    QLabel *m_id;
    QLabel *m_info;
    QLabel *m_live;
    QPointer<const RunsModel> m_model;
    QLabel *m_error;
    QPlainTextEdit *m_failureLog;
    QPushButton *m_cancel;
    QPushButton *m_reattach;
    QPushButton *m_rerun;
    QPushButton *m_rerunExactly = nullptr;
    QPushButton *m_delete;
    QPushButton *m_export;
    QTabWidget *m_tabs;
    QTableWidget *m_params;
    QTableWidget *m_contract;
    QTreeWidget *m_artifacts;
    QPushButton *m_openFolder;
    QPushButton *m_revealModel;
    QLineEdit *m_tags;
    QPlainTextEdit *m_note;
    QPushButton *m_saveNotes;
    QLabel *m_notesError;
    QString m_notesOf;               // the run whose tags and note the edits hold
    QHash<QString, QString> m_names; // run id -> its name in the runs table (runsUpdated)
};

} // namespace ferry::ui
