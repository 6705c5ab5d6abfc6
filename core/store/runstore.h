// RunStore: the workspace's run database of runs, parameters, metrics and artifacts, written by one
// thread and read from any.
#pragma once

#include "common/error.h"
#include "metrics/media.h"
#include "metrics/metricparser.h"
#include "run/runspec.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace ferry::run {

enum class RunStatus { Created, Building, Running, Succeeded, Failed, Cancelled, Lost };

QString runStatusText(RunStatus status); // "created", "building", "running", ...
std::optional<RunStatus> runStatusFromText(QStringView text);
// Succeeded, failed, cancelled and lost runs are over: nothing more will be written to them.
bool isFinished(RunStatus status);

// One row of the runs table, with its experiment's name.
struct RunRecord {
    QString id;
    QString experiment; // an experiment groups runs; empty: none
    QString name;
    RunStatus status = RunStatus::Created;
    QString target;         // TargetSpec::toString()
    QString environmentTag; // the image tag the run used (name-version-hash8)
    QJsonObject spec;       // RunSpec::toJson()
    qint64 createdMs = 0;   // ms since the epoch; 0: not yet
    qint64 startedMs = 0;
    qint64 finishedMs = 0;
    std::optional<int> exitCode;
    QString error;
    qint64 logOffset = 0; // bytes of the run's log already turned into stored metric points
    QStringList tags;     // sorted, each once (checkTag)
    QString note;         // free text; empty: none
    bool operator==(const RunRecord &) const = default;
};

// A run a sweep stopped early (its metric said it would not win) is cancelled, with an error
// that begins "stopped early": it is shown so, never as failed.
inline constexpr QLatin1String kStoppedEarly{"stopped early"};
bool isStoppedEarly(const RunRecord &record);
// The status as a person reads it: runStatusText, or "stopped early".
QString runStatusLabel(const RunRecord &record);

// A new record for a run about to start, named after its script.
RunRecord newRunRecord(const RunSpec &spec, const QString &experiment = {});

struct Artifact {
    QString path; // relative to the run folder
    QString kind; // "model", "output", "log", ...
    qint64 size = 0;
    bool operator==(const Artifact &) const = default;
};

// Puts one series' points (RunStore::series) in the order RunStore::metrics gives them: by step,
// points without a step (NaN) first, equal steps in arrival order.
void orderByStep(std::vector<SeriesPoint> &points);

class RunStoreWriter;

// The workspace's run database (.ferry/runs.sqlite): runs, their parameters, metrics and
// artifacts. Every write is queued to one writer thread and returns at once; reads run on a
// connection of the calling thread, and WAL lets them proceed while the writer commits.
// All members may be called from any thread. Write failures are reported by writeFailed,
// emitted from the writer thread.
class RunStore : public QObject {
    Q_OBJECT
public:
    static constexpr int kSchemaVersion = 5;

    // Creates or migrates the database. Refuses a file that is not a run database or is
    // damaged, one written by a newer Ferry, and a folder that cannot be written. `progress`
    // hears how far the conversion of a store of an older Ferry is (points done of all; -1, -1
    // while the file is compacted after it), on another thread, before open returns.
    using Progress = std::function<void(qint64 done, qint64 total)>;
    static Expected<std::unique_ptr<RunStore>> open(const QString &databasePath, const Progress &progress = {});
    static QString pathInWorkspace(const QString &workspaceDir); // <workspace>/.ferry/runs.sqlite

    ~RunStore() override;

    QString databasePath() const { return m_path; }

    void createRun(const RunRecord &record);
    // Exit code and error describe the new status and replace the old ones. finishedMs = 0:
    // now, when the status ends the run. Running sets the start time once.
    void setStatus(const QString &runId, RunStatus status, std::optional<int> exitCode = {}, const QString &error = {},
                   qint64 finishedMs = 0);
    void setParams(const QString &runId, const QList<Hyperparameter> &params); // replaces all
    void addArtifact(const QString &runId, const Artifact &artifact);          // replaces one with the same path
    // The points and the log offset just past the last line they came from are committed
    // together: after a crash the stored offset always matches the stored points.
    void appendMetrics(const QString &runId, QList<MetricPoint> points, qint64 newLogOffset);
    // The same for a follower that shares the run with other processes (M5): the points are
    // stored only if the stored offset is still `expectedOffset` (compare-and-swap in the same
    // transaction as the points), else nothing is written. Waits for the commit; returns whether
    // the points were stored and the offset stored now (another follower's, when not).
    struct OffsetSwap {
        bool applied = false;
        qint64 storedOffset = 0;
    };
    Expected<OffsetSwap> appendMetricsAt(const QString &runId, QList<MetricPoint> points, qint64 expectedOffset,
                                         qint64 newLogOffset);
    // appendMetricsAt without the wait: the points are queued at once and wait() gives the answer
    // once they are committed (or failed), so a follower parses its next lines while the writer
    // stores these. A follower waits for one answer before it queues the next append of its run.
    class PendingSwap {
    public:
        bool valid() const { return bool(m_wait); }
        Expected<OffsetSwap> wait(); // once; then no longer valid

    private:
        friend class RunStore;
        std::function<Expected<OffsetSwap>()> m_wait;
    };
    PendingSwap postMetricsAt(const QString &runId, QList<MetricPoint> points, qint64 expectedOffset,
                              qint64 newLogOffset);
    // The same for points read from a file beside the log (`source`: its path in the run
    // folder), with how far that file is read (`position`: bytes, rows or entries, as its reader
    // counts). `claims`: the metric names the file gives; from the first time a file gives a
    // name, the points of that name the log gave are deleted, and the follower no longer takes
    // it from the log (one source per metric). `media`: the images, histograms and texts the
    // same bytes of the file hold, indexed in the same transaction (addMedia).
    Expected<OffsetSwap> appendSourceMetrics(const QString &runId, const QString &source, QList<MetricPoint> points,
                                             qint64 expectedPosition, qint64 newPosition, const QStringList &claims,
                                             QList<MediaItem> media = {});
    QHash<QString, qint64> sourcePositions(const QString &runId) const; // source → position
    QStringList claimedMetrics(const QString &runId) const;             // sorted

    // A run's images, histograms and texts (metrics/media.h): the store keeps their index, never
    // their bytes, which stay in the run folder. An item is one (kind, tag, step, sample): a later
    // one of the same replaces it (a rewritten image, a step logged twice). Deleted with the run.
    void addMedia(const QString &runId, QList<MediaItem> items);
    // The event files whose media are not indexed as far as they are read (an older Ferry read
    // them), each with how far it is read: a follower indexes their media from the start up to
    // there, then says so (`caughtUp`: the same write as the last items).
    QHash<QString, qint64> mediaBehind(const QString &runId) const;
    void addMedia(const QString &runId, QList<MediaItem> items, const QString &caughtUp);
    // The items of one kind, of one tag or (empty tag) all, ordered by tag, step and sample; of a
    // tag, those from `fromStep` on, at most `limit` of them (-1: all): a page, so that memory holds
    // a page, however many a run has.
    QList<MediaItem> media(const QString &runId, MediaKind kind, const QString &tag = {},
                           qint64 fromStep = std::numeric_limits<qint64>::min(), qsizetype limit = -1) const;
    QStringList mediaTags(const QString &runId, MediaKind kind) const;                        // sorted
    QList<qint64> mediaSteps(const QString &runId, MediaKind kind, const QString &tag) const; // sorted, each once
    std::optional<MediaItem> mediaItem(const QString &runId, MediaKind kind, const QString &tag, qint64 step,
                                       int sample = 0) const;
    // The items of each kind a run has, counted in SQLite.
    QMap<MediaKind, qint64> mediaCounts(const QString &runId) const;
    // Removes the run with its parameters, metrics and artifacts from the database (its folder
    // on disk stays). Writes of the run queued before it are committed first, later ones fail.
    void deleteRun(const QString &runId);

    // A run's tags (words a person gives it: "baseline", "paper/fig3") and its note (free text),
    // stored with its record and deleted with it. A tag is letters, digits and _ . - / : + @,
    // not starting with + or - (checkTag); a write with another is refused (writeFailed).
    static Expected<void> checkTag(const QString &tag);
    void setTags(const QString &runId, const QStringList &tags); // replaces all
    void addTags(const QString &runId, const QStringList &tags);
    void removeTags(const QString &runId, const QStringList &tags);
    void setNote(const QString &runId, const QString &note); // empty: none

    // Gives the file system every free page of the file (VACUUM; ferry runs gc), after the writes
    // queued before it. Waits; the file's size before and after.
    struct Compaction {
        qint64 bytesBefore = 0;
        qint64 bytesAfter = 0;
    };
    Expected<Compaction> compact();
    // Reads every block and checks it (checksum, structure, counts) beside PRAGMA
    // integrity_check: what `ferry doctor --store` says.
    struct Check {
        qint64 runs = 0, series = 0, blocks = 0, points = 0, bytes = 0; // bytes: of the blocks
        QStringList problems;                                           // empty: all is well
    };
    Check check() const;

    void flush(); // returns when every write queued before the call is committed (or failed)
    void close(); // flushes, then stops the writer; later writes fail, later reads are empty

    QList<RunRecord> runs() const; // newest first
    std::optional<RunRecord> run(const QString &runId) const;
    // One name, or all (empty name), ordered by name, then step, then arrival.
    QList<MetricPoint> metrics(const QString &runId, const QString &name = {}) const;
    QStringList metricNames(const QString &runId) const;                    // sorted
    qsizetype metricCount(const QString &runId, const QString &name) const; // counted in SQLite, not read
    // The last value of each metric (highest step, then latest), through the index: cheap
    // however many points a run has.
    QMap<QString, double> lastValues(const QString &runId) const;
    // One series (one metric of the run) in arrival order, read straight from its blocks.
    std::vector<SeriesPoint> series(const QString &runId, const QString &name) const;
    // For a live view: the points of each of the run's series stored since `cursor` (from an
    // empty cursor: all of them), read in one snapshot, and the cursor moved past them; each
    // point comes once. Reads only the blocks that hold new points. A series that was replaced
    // (a file's claim, see appendSourceMetrics) comes again whole under its new id.
    struct MetricCursor {
        QHash<qint64, qint64> read; // series id → its points already read
    };
    struct SeriesUpdate {
        QString name;
        SeriesColumns columns; // as a chart keeps them: no copy on the way in
    };
    QList<SeriesUpdate> metricsSince(const QString &runId, MetricCursor &cursor) const;
    // The points of one series whose step is in [fromStep, toStep], in arrival order: only the
    // blocks whose steps meet the range are read.
    std::vector<SeriesPoint> seriesRange(const QString &runId, const QString &name, double fromStep,
                                         double toStep) const;
    // Per pixel column, what a line chart of one series draws there (M4: the least and greatest
    // value, the values at the least and greatest x): x is the step, the epoch or the wall time
    // (ms), [x0, x1) cut into `columns` equal columns. Folded block by block as they are decoded;
    // blocks outside the range are not read (by their step or wall-time bounds).
    enum class Axis { Step, Epoch, WallTime };
    struct ColumnSummary {
        qint64 count = 0; // points in the column; 0: the rest is meaningless
        double min = 0, max = 0;
        double first = 0, last = 0; // the values at the least and the greatest x (the later of equal ones)
        double firstX = 0, lastX = 0;
    };
    std::vector<ColumnSummary> seriesSummary(const QString &runId, const QString &name, Axis axis, double x0, double x1,
                                             int columns) const;
    QList<Hyperparameter> params(const QString &runId) const;
    QList<Artifact> artifacts(const QString &runId) const;
    // For a query over every run (tracking/runquery.h), one read each: the value of one parameter
    // of each run that has it, and the last value of one metric of each run that has one (NaN:
    // the last point's value was NaN).
    QHash<QString, QString> paramOfRuns(const QString &name) const; // run id -> value
    // Every run's parameters in one read (run id -> its parameters in the order they were set):
    // the runs table's columns and names.
    QHash<QString, QList<Hyperparameter>> paramsOfRuns() const;
    QHash<QString, double> lastValueOfRuns(const QString &name) const; // run id -> last value
    bool integrityCheck() const;                                       // PRAGMA integrity_check says "ok"

Q_SIGNALS:
    void writeFailed(const ferry::Error &error); // what could not be stored, and why

private:
    RunStore(const QString &path, std::unique_ptr<RunStoreWriter> writer);
    QString readConnection() const; // this thread's connection name; empty when closed

    QString m_path;
    quint64 m_serial = 0;
    std::unique_ptr<RunStoreWriter> m_writer;
    std::atomic<bool> m_open{true};
};

} // namespace ferry::run
