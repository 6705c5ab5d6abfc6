// RunStore's writer thread and the commands it commits, batching whatever queued up during a
// transaction.
#pragma once

#include "common/error.h"
#include "store/runstore.h"
#include "store/runstoreschema.h"

#include <QString>
#include <QStringList>

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

namespace ferry::run {

namespace runstorecommand {
struct CreateRun {
    RunRecord record;
};
struct SetStatus {
    QString runId;
    RunStatus status;
    std::optional<int> exitCode;
    QString error;
    qint64 finishedMs; // 0: keep
    qint64 startedMs;  // 0: keep; else set when not yet set
};
struct SetParams {
    QString runId;
    QList<Hyperparameter> params;
};
struct AddArtifact {
    QString runId;
    Artifact artifact;
};
// The outcome of a compare-and-swap append: `applied` when the stored offset was the expected
// one (the points and the new offset are committed); else nothing was written and
// `storedOffset` is the offset another follower has stored meanwhile. A failed transaction
// (nothing written) replies with its Error instead.
struct MetricsCommit {
    bool applied = false;
    qint64 storedOffset = 0;
};
struct AppendMetrics {
    QString runId;
    QList<MetricPoint> points;
    qint64 logOffset;
    // Set: compare-and-swap. The points are stored only if the run's stored offset is this one,
    // and `reply` receives the outcome once committed.
    std::optional<qint64> expectedOffset = std::nullopt;
    std::shared_ptr<std::promise<Expected<MetricsCommit>>> reply = nullptr;
};
// Points read from a file beside the log: compare-and-swap on how far that file is read, like
// the log's offset. `claims`: the names this file gives; a name no file gave before is from
// then on the file's only, and the points the log gave of it are deleted in this transaction.
struct AppendSourceMetrics {
    QString runId;
    QString source;
    QList<MetricPoint> points;
    qint64 expectedPosition = 0;
    qint64 newPosition = 0;
    QStringList claims;
    std::shared_ptr<std::promise<Expected<MetricsCommit>>> reply = nullptr;
    QList<MediaItem> media; // indexed with the points (RunStore::addMedia)
};
// Media items indexed (or replaced: their kind, tag, step and sample name one); with
// `caughtUpSource`, that file's media are indexed as far as it is read (RunStore::mediaBehind).
struct AddMedia {
    QString runId;
    QList<MediaItem> items;
    QString caughtUpSource;
};
struct DeleteRun {
    QString runId;
};
// A run's tags: all replaced by `add` when `replace`, else `add` added and `remove` removed.
struct EditTags {
    QString runId;
    QStringList add;
    QStringList remove;
    bool replace = false;
};
struct SetNote {
    QString runId;
    QString note;
};
// VACUUM, between transactions: the file gives back every free page.
struct Compact {
    std::shared_ptr<std::promise<Expected<RunStore::Compaction>>> reply;
};
} // namespace runstorecommand

using RunStoreCommand =
    std::variant<runstorecommand::CreateRun, runstorecommand::SetStatus, runstorecommand::SetParams,
                 runstorecommand::AddArtifact, runstorecommand::AppendMetrics, runstorecommand::AppendSourceMetrics,
                 runstorecommand::DeleteRun, runstorecommand::Compact, runstorecommand::EditTags,
                 runstorecommand::SetNote, runstorecommand::AddMedia>;

// RunStore's writer: one thread with its own connection that commits queued commands. What
// has queued up while a transaction ran goes into the next one, so a busy store commits
// large transactions and an idle one commits each write at once.
class RunStoreWriter {
public:
    // Starts the thread, which opens the database and brings its schema up to date.
    // `progress` hears of a conversion of an older store (on the writer thread, before start returns).
    static Expected<std::unique_ptr<RunStoreWriter>> start(const QString &path, const QString &connection,
                                                           const runstoreschema::MigrationProgress &progress = {});
    ~RunStoreWriter();

    // Called on the writer thread for each command that could not be committed.
    void setFailureHandler(std::function<void(const Error &)> handler);

    // Queues a command; waits while too many points are queued. False once stopped.
    bool post(RunStoreCommand command);
    void flush();
    void stop(); // commits what is queued, then ends the thread

    struct Statements;

private:
    RunStoreWriter(QString path, QString connection);
    void run(std::promise<Expected<void>> opened);
    using Batch = std::vector<RunStoreCommand>;
    void commit(Batch::iterator first, Batch::iterator last);
    void compact(const runstorecommand::Compact &command);
    static void replyFailed(const RunStoreCommand &command, const Error &error);
    Expected<void> execute(const RunStoreCommand &command);
    void fail(const Error &error);

    const QString m_path;
    const QString m_connection;
    std::function<void(const Error &)> m_onFailure;
    runstoreschema::MigrationProgress m_progress; // while the database is opened
    std::unique_ptr<Statements> m_statements;     // the writer thread's alone

    std::mutex m_mutex;
    std::condition_variable m_wake;    // writer: work or stop
    std::condition_variable m_space;   // producers: queue below the limit
    std::condition_variable m_drained; // flush: commands done
    std::deque<RunStoreCommand> m_queue;
    qsizetype m_queuedPoints = 0;
    quint64 m_posted = 0;
    quint64 m_done = 0;
    bool m_stopping = false;
    bool m_running = false;
    std::thread m_thread;
};

} // namespace ferry::run
