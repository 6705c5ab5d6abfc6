#include "tracking/runfollower.h"

#include "common/untrustedtree.h"
#include "metrics/terminaltext.h"

#include <QDateTime>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

QList<MetricDefinition> definitionsOf(const RunRecord &record)
{
    const auto spec = RunSpec::fromJson(record.spec);
    return spec ? spec->metricDefinitions : QList<MetricDefinition>{};
}

} // namespace

RunStatus storedStatus(targets::RunState state)
{
    switch (state) {
    case targets::RunState::Running:
        return RunStatus::Running;
    case targets::RunState::Succeeded:
        return RunStatus::Succeeded;
    case targets::RunState::Failed:
        return RunStatus::Failed;
    case targets::RunState::Cancelled:
        return RunStatus::Cancelled;
    case targets::RunState::Lost:
        break;
    }
    return RunStatus::Lost;
}

RunFollower::RunFollower(RunStore &store, targets::Target &target, QString runDir, RunRecord record)
    : m_store(store), m_target(target), m_runDir(std::move(runDir)), m_record(std::move(record)),
      m_offset(m_record.logOffset), m_storedOffset(m_record.logOffset),
      m_sources(std::make_unique<MetricSources>(m_store, m_runDir, m_record.id))
{
    if (const auto spec = RunSpec::fromJson(m_record.spec))
        m_progress = ProgressTracker(*spec);
    resetCounts();
    const auto kind = TargetSpec::parse(m_record.target);
    m_awaitStamps = !kind || kind->kind != TargetKind::Embedded;
}

RunFollower::~RunFollower() = default;

void RunFollower::setRedactor(secrets::Redactor redactor)
{
    m_redactor = std::move(redactor);
    // Lines are at most LogTail's maxLineBytes: they always go out whole.
    m_lines.emplace(m_redactor, 4 * LogTail::Limits{}.maxLineBytes);
}

// Lines without a step number are counted per metric; carry on counting where the stored points
// end, so a re-attached run continues its x axis instead of starting again.
void RunFollower::resetCounts()
{
    m_parser = MetricParser(definitionsOf(m_record));
    for (const QString &name : m_store.metricNames(m_record.id))
        m_parser.setCount(name, m_store.metricCount(m_record.id, name));
}

void RunFollower::show(Step &step, const QList<LogLine> &lines, bool last)
{
    if (!m_returnLines)
        return;
    if (!m_lines) {
        for (const LogLine &line : lines) {
            if (line.isWhole()) // a piece of a huge line is not shown
                step.lines << m_redactor.redact(line.text);
        }
        return;
    }
    QByteArray text;
    for (const LogLine &line : lines) {
        if (line.isWhole())
            text += line.text + '\n';
    }
    text = m_lines->feed(text);
    if (last)
        text += m_lines->finish();
    if (text.isEmpty())
        return;
    if (text.endsWith('\n'))
        text.chop(1);
    step.lines << text.split('\n');
}

// A chunk of the log read and parsed: its points queued for the store (`swap`) while the next
// chunk is read and parsed, its lines shown once they are stored.
struct RunFollower::Parsed {
    LogChunk chunk;
    QList<MetricPoint> points;
    qsizetype count = 0;        // the points queued
    RunStore::PendingSwap swap; // not valid: nothing to store (another follower stored these lines)
};

// The points of the chunk's lines from `storedFrom` on: the lines before it were stored by
// another follower, and are only shown. A line is as old as its first byte.
RunFollower::Parsed RunFollower::parse(LogChunk chunk, qint64 storedFrom, qint64 now, Step &step)
{
    Parsed parsed;
    // The memory of a chunk's points stored before (the writer gave it back): no fresh pages.
    parsed.points = std::exchange(m_spare, {});
    parsed.points.clear();
    if (chunk.nextOffset > storedFrom) {
        const auto lines = static_cast<double>(chunk.lines.size());
        // Room for them at once, with some to spare: the next chunk's likely fit too.
        const auto room = static_cast<qsizetype>(lines * std::max(2.0, 1.25 * m_pointsPerLine)) + 16;
        if (parsed.points.capacity() < room)
            parsed.points.reserve(room + room / 2);
        QStringView record;
        // Each record's points go to the progress too (an epoch), with the record.
        const auto parseRecord = [&](QStringView text, qint64 written) {
            const qsizetype from = parsed.points.size();
            m_parser.parseLine(text, written, parsed.points);
            m_progress.feed(text, written, parsed.points.constData() + from, parsed.points.size() - from);
        };
        for (const LogLine &line : std::as_const(chunk.lines)) {
            // A piece of a huge line carries no metrics worth reading.
            if (!line.isWhole())
                continue;
            const qint64 written = m_times.timeOf(line.offset + 1).value_or(now);
            m_progress.feedRedraws(line.text, written);
            if (line.offset < storedFrom) { // stored by another follower: its progress only
                for (const QString &text : run::metricRecords(line.text))
                    m_progress.feed(text, written);
                continue;
            }
            if (run::plainMetricRecord(line.text, m_recordText, record)) { // most lines
                if (!record.isEmpty())
                    parseRecord(record, written);
                continue;
            }
            for (const QString &text : run::metricRecords(line.text))
                parseRecord(text, written);
        }
        if (lines > 0)
            m_pointsPerLine = static_cast<double>(parsed.points.size()) / lines;
        // One source per metric: what a file beside the log gives is not taken from the log.
        if (const QSet<QString> &claimed = m_sources->claimed(); !claimed.isEmpty())
            parsed.points.removeIf([&claimed](const MetricPoint &p) { return claimed.contains(p.name); });
        // Names the parser or the run's cap refused (metrics/metricnames.h): said beside the log's lines.
        for (const QString &note : m_parser.takeWarnings() + m_sources->names().filter(parsed.points))
            step.lines << (u"ferry: "_s + note).toUtf8();
    }
    parsed.chunk = std::move(chunk);
    return parsed;
}

// Reads, parses and stores the log chunk by chunk, the store committing one chunk's points while
// the next is read and parsed (the follower's thread and the writer's at once). Each chunk's
// points go in by compare-and-swap on the offset the chunk before it ends at (M5): when that one
// was not stored (another follower was faster) or failed, the chunk parsed meanwhile is dropped
// and the log read again from where the store says. Lines are shown, and the offsets move, only
// once their points are committed (L13).
Expected<void> RunFollower::drainLog(Step &step, bool untilEnd)
{
    const run::LogTail::Limits limits;
    std::optional<Parsed> queued;
    qint64 expected = m_storedOffset; // the stored offset once the queued chunk is committed
    // What became of the queued chunk: true when stored (or nothing to store), false when another
    // follower stored its lines first.
    const auto settle = [&]() -> Expected<bool> {
        Parsed done = std::move(*queued);
        queued.reset();
        if (done.swap.valid()) {
            const auto swapped = done.swap.wait();
            m_spare = std::exchange(done.points, {});
            if (!swapped) { // nothing moved (L13): the next poll reads these lines again
                resetCounts();
                return swapped.error();
            }
            if (!swapped->applied) {
                // Another follower stored these lines (or more) meanwhile: read them again, storing
                // only what comes after its offset, counted on from its points.
                m_storedOffset = swapped->storedOffset;
                resetCounts();
                return false;
            }
            m_storedOffset = done.chunk.nextOffset;
            m_times.dropBefore(m_storedOffset);
            step.points += done.count;
        }
        m_offset = done.chunk.nextOffset;
        show(step, done.chunk.lines, untilEnd && done.chunk.atEnd);
        return true;
    };
    bool reading = true;
    while (reading || queued) {
        std::optional<Parsed> next;
        if (reading) {
            auto chunk = m_target.readLog(m_runDir, queued ? queued->chunk.nextOffset : m_offset, limits);
            if (!chunk) {
                if (queued) {
                    if (const auto settled = settle(); !settled)
                        return settled.error();
                }
                m_record.logOffset = m_storedOffset;
                return chunk.error();
            }
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            readLogTimes();
            if (!untilEnd)
                awaitStamps(*chunk, now);
            next = parse(std::move(*chunk), expected, now, step);
        }
        if (queued) {
            const auto settled = settle();
            if (!settled)
                return settled.error();
            if (!*settled) { // the chunk parsed meanwhile counted on from the wrong points
                expected = m_storedOffset;
                reading = true;
                continue;
            }
        }
        if (!next)
            break;
        if (next->chunk.nextOffset > expected) {
            next->count = next->points.size();
            // The list is shared with the writer, which lets go of it before it answers: then the
            // follower has it alone again, its points are freed on this thread and its memory reused.
            next->swap = m_store.postMetricsAt(m_record.id, next->points, expected, next->chunk.nextOffset);
            expected = next->chunk.nextOffset;
        }
        reading = !next->chunk.atEnd && (untilEnd || step.lines.size() + next->chunk.lines.size() < 100000);
        queued = std::move(next);
    }
    m_record.logOffset = m_storedOffset;
    return {};
}

// Lines the run's watcher has not dated yet wait for their stamp, which follows the log by at
// most 200 ms (the local supervisor) or a second (an SSH or Slurm runner): the chunk ends
// before them, for kStampWaitMs and at least kStampWaitReads fresh reads of log.times (a
// watcher that stopped stamping holds nothing up for long; a follower whose every read over
// a slow connection takes seconds does not give up before it has looked again). A run's first
// lines can come before its log.times does (the watcher's first stamp follows them): they wait
// the same; a run whose log.times never comes, the embedded trainer's, and the end of a run
// take every line as it is.
void RunFollower::awaitStamps(LogChunk &chunk, qint64 now)
{
    constexpr qint64 kStampWaitMs = 3000;
    constexpr qint64 kStampWaitReads = 3;
    if (!m_awaitStamps)
        return;
    qsizetype keep = chunk.lines.size();
    while (keep > 0 && chunk.lines.at(keep - 1).isWhole() && !m_times.timeOf(chunk.lines.at(keep - 1).offset + 1))
        --keep;
    if (keep == chunk.lines.size())
        return;
    const qint64 cut = chunk.lines.at(keep).offset;
    if (m_waitingAt != cut) {
        m_waitingAt = cut;
        m_waitingSinceMs = now;
        m_waitingSinceRead = m_timesReads;
    }
    if (now - m_waitingSinceMs >= kStampWaitMs && m_timesReads - m_waitingSinceRead >= kStampWaitReads) {
        m_awaitStamps = m_times.bytesRead() > 0; // none came at all: this run has none
        return;
    }
    chunk.lines.resize(keep);
    chunk.nextOffset = cut;
    chunk.atEnd = true;
}

// What is new in log.times (run/logtimes.h): when the lines about to be parsed were written.
void RunFollower::readLogTimes()
{
    ++m_timesReads;
    for (int round = 0; round < 16; ++round) {
        const auto bytes =
            readTreeFile(m_runDir, QString::fromUtf16(RunDirectory::kLogTimesName), m_times.bytesRead(), 1 << 20);
        if (!bytes || !*bytes || (*bytes)->isEmpty())
            return; // none (an older run, an embedded one): lines are dated when read
        const qint64 before = m_times.bytesRead();
        m_times.feed(**bytes);
        if ((*bytes)->size() < (1 << 20) || m_times.bytesRead() == before)
            return;
    }
}

void RunFollower::recordEnd(const targets::RunProbe &probe)
{
    RunStatus status = storedStatus(probe.state);
    std::optional<int> exitCode;
    QString error = probe.detail;
    qint64 finished = QDateTime::currentMSecsSinceEpoch();
    if (probe.exit) {
        if (probe.exit->exitCode >= 0)
            exitCode = probe.exit->exitCode;
        if (!probe.exit->error.isEmpty())
            error = probe.exit->error;
        else if (probe.exit->signal != 0 && !probe.exit->cancelled)
            error = u"ended by signal %1"_s.arg(probe.exit->signal);
        finished = probe.exit->finishedMs;
    }
    if (status == RunStatus::Cancelled) {
        if (const QString reason = RunDirectory(m_runDir).stopReason(); !reason.isEmpty())
            error = u"%1: %2"_s.arg(kStoppedEarly, reason);
    }
    // Slurm ended a run with a budget at its --time (targets/slurmtarget.h, budgetTimeLimit): the
    // budget stopped it, as the supervisor's would have.
    if (probe.exit && probe.exit->cause == u"time-limit"_s) {
        if (const auto spec = RunSpec::fromJson(m_record.spec); spec && spec->budget.limitSeconds() > 0) {
            status = RunStatus::Cancelled;
            error = spec->budget.reachedText() + u" (Slurm's --time)"_s;
        }
    }
    error = m_redactor.redact(error);
    addArtifacts(); // before the status: whoever sees the run ended sees its artifacts
    m_store.setStatus(m_record.id, status, exitCode, error, finished);
    m_record.status = status;
    m_record.exitCode = exitCode;
    m_record.error = error;
    m_record.finishedMs = finished;
}

void RunFollower::addArtifacts()
{
    for (const auto &[name, kind] : {std::pair{u"model.tar.gz"_s, u"model"_s},
                                     std::pair{u"output.tar.gz"_s, u"output"_s}, std::pair{u"log"_s, u"log"_s}}) {
        const QFileInfo file(m_runDir + u'/' + name);
        if (file.isFile())
            m_store.addArtifact(m_record.id, Artifact{name, kind, file.size()});
    }
}

// The log before the offset this follower starts at, for its progress alone: its head (Hugging
// Face's header names the total) and the last part before the offset. At unknown times: they
// count, but not towards the ETA's rate.
void RunFollower::primeProgress()
{
    m_primed = true;
    constexpr qint64 kHead = 64 * 1024, kTail = 256 * 1024;
    const auto feedUpTo = [this](qint64 from, qint64 to) {
        for (qint64 at = from; at < to;) {
            const auto chunk = m_target.readLog(m_runDir, at, LogTail::Limits{kTail, kTail});
            if (!chunk || chunk->lines.isEmpty())
                return;
            for (const LogLine &line : chunk->lines) {
                if (line.isWhole() && line.offset < to) {
                    m_progress.feedRedraws(line.text, 0);
                    for (const QString &text : run::metricRecords(line.text))
                        m_progress.feed(text, 0);
                }
            }
            at = chunk->nextOffset;
        }
    };
    if (m_offset <= 0)
        return;
    const qint64 headEnd = std::min(m_offset, kHead);
    feedUpTo(0, headEnd);
    feedUpTo(std::max(headEnd, m_offset - kTail), m_offset);
}

// The line being written: a progress bar redrawn until its loop ends (read where the log is local).
void RunFollower::peekProgress(qint64 now)
{
    const QByteArray line = unfinishedLogLine(RunDirectory(m_runDir).logFile(), m_offset);
    if (!line.isEmpty())
        m_progress.feedRedraws(QByteArray(QByteArray("\r") + line), now);
}

Expected<RunFollower::Step> RunFollower::poll()
{
    Step step;
    if (!m_primed)
        primeProgress();
    // Probe first, then read: a run seen finished has written all its log, so one final read
    // to the end takes everything.
    const auto probe = m_target.probe(m_runDir);
    if (!probe)
        return probe.error();
    step.probe = *probe;
    // L5: the exit record comes before the archives (packing a big model takes a while); the run
    // is over once they are there too, or once the probe says they will not come.
    const bool packing = probe->finished() && probe->exit && !probe->archived && probe->detail.isEmpty();
    const bool over = probe->finished() && !packing;
    if (packing)
        step.probe.detail = u"the script has ended; packing model/ and output/"_s;
    const auto drained = drainLog(step, over);
    if (!drained)
        return drained.error();
    if (!over)
        peekProgress(QDateTime::currentMSecsSinceEpoch());
    const auto files = m_sources->poll(over, over); // the run's end: one last look for files
    if (!files)
        return files.error();
    step.points += files->points.size();
    step.replaced = files->newClaims;
    // A file given up (a damaged record, a link) is said once, beside the log's lines.
    for (const Error &problem : files->problems)
        step.lines << u"ferry: metrics from %1 are not read further: %2"_s.arg(problem.path, problem.message).toUtf8();
    for (const QString &note : files->notes)
        step.lines << (u"ferry: "_s + note).toUtf8();
    // An image, histogram or text refused (metrics/media.h): said with its file, never shown.
    for (const Error &refused : files->refused)
        step.lines << u"ferry: %1: %2"_s.arg(refused.path, refused.message).toUtf8();
    step.media = files->media;
    if (over) {
        if (m_record.status != storedStatus(probe->state) || !isFinished(m_record.status))
            recordEnd(*probe);
        step.finished = true;
    } else if (m_record.status != RunStatus::Running || m_record.error != probe->detail) {
        // A running run's detail is the probe's: "starting", "its supervisor is gone", or none.
        m_store.setStatus(m_record.id, RunStatus::Running, std::nullopt, probe->detail);
        m_record.status = RunStatus::Running;
        m_record.error = probe->detail;
    }
    return step;
}

} // namespace ferry::run
