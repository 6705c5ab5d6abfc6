// RunFollower: keeps a run's stored record in step with its folder, its log's metric points stored
// exactly once.
#pragma once

#include "metrics/metricparser.h"
#include "run/logtimes.h"
#include "secrets/redactor.h"
#include "secrets/streamredactor.h"
#include "store/runstore.h"
#include "targets/target.h"
#include "tracking/metricsources.h"
#include "tracking/progress.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <memory>
#include <optional>

namespace ferry::run {

// Keeps one run's record in the store in step with its run folder: new log lines become
// metric points, stored together with the log offset they end at (so a follower that
// starts again after a crash re-reads from there and neither loses nor doubles a point), and
// the target's probe becomes the run's status. Any number of followers, in any number of Ferry
// processes, may follow a run at once (the window and `ferry runs attach`, M5): the offset
// moves by compare-and-swap in the transaction of the points, so each line's points are stored
// once; a follower that finds the offset moved by another parses on from there (and still
// returns every line it reads, for showing). Its own offsets move only once the store has
// committed (L13). A run is over for the follower once its archives are packed too (L5), so
// its artifacts are listed however long packing takes.
class RunFollower {
public:
    RunFollower(RunStore &store, targets::Target &target, QString runDir, RunRecord record);
    ~RunFollower();

    struct Step {
        QList<QByteArray> lines; // whole log lines read in this step; Ferry's notes (a metric file given up)
        qsizetype points = 0;    // points stored in this step, from the log and the files beside it (MetricSources)
        QStringList replaced;    // metrics a file took over from the log: their stored points changed
        qsizetype media = 0;     // images, histograms and texts indexed in this step (RunStore::media)
        targets::RunProbe probe;
        bool finished = false; // the run is over and everything of it is stored
    };
    // Reads what is new. Blocks only on file reads and the probe.
    Expected<Step> poll();

    const RunRecord &record() const { return m_record; }
    // How far the run is, from what its log said (tracking/progress.h): a follower that starts
    // again reads the log's head and the part before its offset once, at its first poll; a
    // progress bar is seen as it redraws (the local log's unfinished line).
    std::optional<Progress> progress(qint64 nowMs) const { return m_progress.progress(m_record.startedMs, nowMs); }

    // Hides these secrets (the values the run was given) in the log lines a step returns and in
    // the error stored when the run ends, multi-line ones too (lines that may begin one are
    // returned once it is clear they do not). Metric parsing still sees the lines as written.
    void setRedactor(secrets::Redactor redactor);
    // Whether a step returns the log's lines (the default); a follower that only brings the store
    // up to date (refreshUnfinishedRuns) does without: a long log is then never held in memory.
    void setReturnLines(bool returnLines) { m_returnLines = returnLines; }

private:
    Expected<void> drainLog(Step &step, bool untilEnd);
    struct Parsed; // a chunk of the log with its points, on the way to the store
    Parsed parse(LogChunk chunk, qint64 storedFrom, qint64 now, Step &step);
    void show(Step &step, const QList<LogLine> &lines, bool last);
    void resetCounts();
    void readLogTimes();
    void awaitStamps(LogChunk &chunk, qint64 now);
    void recordEnd(const targets::RunProbe &probe);
    void addArtifacts();
    void primeProgress();
    void peekProgress(qint64 now);

    RunStore &m_store;
    targets::Target &m_target;
    QString m_runDir;
    RunRecord m_record;
    MetricParser m_parser;
    qint64 m_offset = 0;       // where the next read starts: lines before it were returned
    qint64 m_storedOffset = 0; // the store's offset as last seen: lines before it have their points stored
    std::unique_ptr<MetricSources> m_sources; // the files beside the log
    LogTimes m_times;                         // when the log's lines were written
    qint64 m_waitingAt = -1;                  // the first line waiting for its stamp, and since when
    qint64 m_waitingSinceMs = 0;
    qint64 m_timesReads = 0; // reads of log.times so far, and how many when the wait began
    qint64 m_waitingSinceRead = 0;
    // Whether lines wait for their stamps at all: every target's watcher stamps, not the
    // embedded trainer; and not a run whose log.times never came (an older Ferry's runner).
    bool m_awaitStamps = true;
    bool m_returnLines = true;
    ProgressTracker m_progress;
    bool m_primed = false;      // the log before the first offset was read for its progress
    QString m_recordText;       // the line being parsed, decoded (reused: no allocation per line)
    QList<MetricPoint> m_spare; // a list of points the store is done with, for the next chunk
    double m_pointsPerLine = 0; // in the last chunk: how much room the next one's points need
    secrets::Redactor m_redactor;
    std::optional<secrets::StreamRedactor> m_lines; // the redaction of returned lines
};

RunStatus storedStatus(targets::RunState state);

} // namespace ferry::run
