#include "store/runstorewriter.h"

#include "store/runstoreschema.h"
#include "store/serieswriter.h"

#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// Producers wait while this many points are queued: memory stays bounded when a run prints
// faster than the disk takes it.
constexpr qsizetype kMaxQueuedPoints = 1 << 18;
QVariant nonNull(const QString &text)
{
    return text.isNull() ? QVariant(QString(u""_s)) : QVariant(text);
}

// SQLite's words for a statement that failed.
Error sqlError(const QSqlQuery &query)
{
    return Error{runstoreschema::errorText(query.lastError()), {}, 0, 0, {}};
}

Error noSuchRun(const QString &doing)
{
    return Error{doing + u": no such run"_s, {}, 0, 0, {}};
}

} // namespace

struct RunStoreWriter::Statements {
    explicit Statements(const QSqlDatabase &database)
        : db(database), begin(db), commit(db), rollback(db), ensureExperiment(db), insertRun(db), setStatus(db),
          deleteParams(db), insertParam(db), insertArtifact(db), setOffset(db), swapOffset(db), readOffset(db),
          addSource(db), swapPosition(db), readPosition(db), addClaim(db), dataVersion(db), incrementalVacuum(db),
          freelistCount(db), insertTag(db), deleteTag(db), deleteTags(db), setNote(db), insertMedia(db),
          mediaCaughtUp(db), series(db)
    {
    }

    Expected<void> prepare()
    {
        const std::pair<QSqlQuery *, QString> all[]{
            {&begin, u"BEGIN IMMEDIATE"_s},
            {&commit, u"COMMIT"_s},
            {&rollback, u"ROLLBACK"_s},
            {&ensureExperiment, u"INSERT INTO experiments(name, created) VALUES (?, ?) ON CONFLICT(name) DO NOTHING"_s},
            {&insertRun,
             u"INSERT INTO runs(id, experiment, name, status, target, environment_tag, spec, "
             "created_ms, started_ms, finished_ms, exit_code, error, log_offset, note) "
             "VALUES (?, (SELECT id FROM experiments WHERE name = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"_s},
            {&setStatus, u"UPDATE runs SET status = ?, exit_code = ?, error = ?, "
                         "finished_ms = CASE WHEN ? > 0 THEN ? ELSE finished_ms END, "
                         "started_ms = CASE WHEN ? > 0 AND started_ms = 0 THEN ? ELSE started_ms END "
                         "WHERE id = ?"_s},
            {&deleteParams, u"DELETE FROM params WHERE run = ?"_s},
            {&insertParam, u"INSERT INTO params(run, name, value) VALUES (?, ?, ?) "
                           "ON CONFLICT(run, name) DO UPDATE SET value = excluded.value"_s},
            {&insertArtifact, u"INSERT INTO artifacts(run, path, kind, size) VALUES (?, ?, ?, ?) "
                              "ON CONFLICT(run, path) DO UPDATE SET kind = excluded.kind, size = excluded.size"_s},
            {&setOffset, u"UPDATE runs SET log_offset = ? WHERE id = ?"_s},
            // M5: two followers of one run (the window and `ferry runs attach`) never store a
            // line's points twice: the offset moves only from the one the follower read from.
            {&swapOffset, u"UPDATE runs SET log_offset = :new WHERE id = :id AND log_offset = :expected"_s},
            {&readOffset, u"SELECT log_offset FROM runs WHERE id = ?"_s},
            {&addSource, u"INSERT INTO metric_sources(run, source, position, media_position) VALUES (?, ?, 0, 0) "
                         "ON CONFLICT(run, source) DO NOTHING"_s},
            // The media of what is read now are indexed with its points: media_position follows,
            // unless an older Ferry's reading left it behind (NULL until caught up).
            {&swapPosition, u"UPDATE metric_sources SET position = :new, "
                            "media_position = CASE WHEN media_position IS NULL THEN NULL ELSE :new END "
                            "WHERE run = :id AND source = :source AND position = :expected"_s},
            {&mediaCaughtUp, u"UPDATE metric_sources SET media_position = position "
                             "WHERE run = ? AND source = ? AND media_position IS NULL"_s},
            {&readPosition, u"SELECT position FROM metric_sources WHERE run = ? AND source = ?"_s},
            {&addClaim, u"INSERT INTO metric_claims(run, name) VALUES (?, ?) ON CONFLICT(run, name) DO NOTHING"_s},
            {&dataVersion, u"PRAGMA data_version"_s},
            {&incrementalVacuum, u"PRAGMA incremental_vacuum(1)"_s},
            {&freelistCount, u"PRAGMA freelist_count"_s},
            {&insertTag, u"INSERT INTO tags(run, tag) VALUES (?, ?) ON CONFLICT(run, tag) DO NOTHING"_s},
            {&deleteTag, u"DELETE FROM tags WHERE run = ? AND tag = ?"_s},
            {&deleteTags, u"DELETE FROM tags WHERE run = ?"_s},
            {&setNote, u"UPDATE runs SET note = ? WHERE id = ?"_s},
            {&insertMedia, u"INSERT INTO media(run, kind, tag, step, sample, wall_ms, file, byte_offset, byte_length, "
                           "format, width, height, checksum) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                           "ON CONFLICT(run, kind, tag, step, sample) DO UPDATE SET wall_ms = excluded.wall_ms, "
                           "file = excluded.file, byte_offset = excluded.byte_offset, "
                           "byte_length = excluded.byte_length, format = excluded.format, width = excluded.width, "
                           "height = excluded.height, checksum = excluded.checksum"_s},
        };
        for (const auto &[query, sql] : all) {
            if (!query->prepare(sql))
                return withContext(u"cannot prepare '%1'"_s.arg(sql), sqlError(*query));
        }
        return series.prepare();
    }

    static Expected<void> exec(QSqlQuery &query)
    {
        if (query.exec())
            return {};
        const Error error = sqlError(query);
        query.finish();
        return error;
    }

    // Whether another connection (another process's writer) committed since this one last looked:
    // then the open blocks kept in memory may be stale.
    Expected<void> checkOthers()
    {
        if (auto done = exec(dataVersion); !done)
            return done;
        const qint64 version = dataVersion.next() ? dataVersion.value(0).toLongLong() : -1;
        dataVersion.finish();
        if (version != lastDataVersion)
            series.forget();
        lastDataVersion = version;
        return {};
    }

    // One UPDATE per run per transaction: the offset of the last batch it carries.
    Expected<void> applyOffsets()
    {
        for (auto it = offsets.cbegin(); it != offsets.cend(); ++it) {
            if (auto done = applyOffset(it.key(), it.value()); !done)
                return done;
        }
        offsets.clear();
        return {};
    }

    Expected<void> applyOffset(const QString &runId, qint64 offset)
    {
        setOffset.bindValue(0, offset);
        setOffset.bindValue(1, runId);
        if (auto done = exec(setOffset); !done)
            return withContext(u"run %1: cannot store the log offset"_s.arg(runId), done.error());
        if (setOffset.numRowsAffected() == 0)
            return noSuchRun(u"run %1: cannot store metrics"_s.arg(runId));
        return {};
    }

    // The compare-and-swap append: the offset first, the points only when it moved. Replies wait
    // for the commit (`replies`).
    Expected<void> swapAndAppend(const runstorecommand::AppendMetrics &c)
    {
        // A plain append of the same run earlier in this transaction is applied first.
        if (const auto pending = offsets.constFind(c.runId); pending != offsets.cend()) {
            if (auto done = applyOffset(c.runId, pending.value()); !done)
                return done;
            offsets.remove(c.runId);
        }
        swapOffset.bindValue(u":new"_s, c.logOffset);
        swapOffset.bindValue(u":id"_s, c.runId);
        swapOffset.bindValue(u":expected"_s, *c.expectedOffset);
        if (auto done = exec(swapOffset); !done)
            return withContext(u"run %1: cannot store the log offset"_s.arg(c.runId), done.error());
        runstorecommand::MetricsCommit outcome;
        if (swapOffset.numRowsAffected() == 1) {
            if (auto done = series.append(c.runId, c.points); !done)
                return withContext(u"run %1: cannot store metrics"_s.arg(c.runId), done.error());
            outcome = {true, c.logOffset};
        } else {
            // Another follower moved the offset: nothing of this command is written.
            readOffset.bindValue(0, c.runId);
            if (auto done = exec(readOffset); !done)
                return withContext(u"run %1: cannot read the log offset"_s.arg(c.runId), done.error());
            const bool found = readOffset.next();
            const qint64 stored = found ? readOffset.value(0).toLongLong() : 0;
            readOffset.finish();
            if (!found)
                return noSuchRun(u"run %1: cannot store metrics"_s.arg(c.runId));
            outcome = {false, stored};
        }
        if (c.reply)
            replies.emplace_back(c.reply, outcome);
        return {};
    }

    // A file's points: its position moves by compare-and-swap, its new claims take their
    // metrics from the log (tracking/metricsources.h), then its points are appended.
    Expected<void> appendFromSource(const runstorecommand::AppendSourceMetrics &c)
    {
        if (const auto pending = offsets.constFind(c.runId); pending != offsets.cend()) {
            if (auto done = applyOffset(c.runId, pending.value()); !done)
                return done;
            offsets.remove(c.runId);
        }
        const auto failed = [&c](const QString &doing, const Error &error) {
            return withContext(u"run %1: cannot %2 of %3"_s.arg(c.runId, doing, c.source), error);
        };
        addSource.bindValue(0, c.runId);
        addSource.bindValue(1, c.source);
        if (auto done = exec(addSource); !done)
            return failed(u"store the position"_s, done.error());
        swapPosition.bindValue(u":new"_s, c.newPosition);
        swapPosition.bindValue(u":id"_s, c.runId);
        swapPosition.bindValue(u":source"_s, c.source);
        swapPosition.bindValue(u":expected"_s, c.expectedPosition);
        if (auto done = exec(swapPosition); !done)
            return failed(u"store the position"_s, done.error());
        runstorecommand::MetricsCommit outcome{true, c.newPosition};
        if (swapPosition.numRowsAffected() != 1) {
            readPosition.bindValue(0, c.runId);
            readPosition.bindValue(1, c.source);
            if (auto done = exec(readPosition); !done)
                return failed(u"read the position"_s, done.error());
            outcome = {false, readPosition.next() ? readPosition.value(0).toLongLong() : 0};
            readPosition.finish();
        } else {
            for (const QString &name : c.claims) {
                addClaim.bindValue(0, c.runId);
                addClaim.bindValue(1, name);
                auto done = exec(addClaim);
                if (done && addClaim.numRowsAffected() == 1) // new: what is stored of it came from the log
                    done = series.dropSeries(c.runId, name);
                if (!done)
                    return failed(u"take metric %1 from the log"_s.arg(name), done.error());
            }
            if (auto done = series.append(c.runId, c.points); !done)
                return failed(u"store the metrics"_s, done.error());
            if (auto done = addMedia(c.runId, c.media); !done)
                return failed(u"index the images and histograms"_s, done.error());
        }
        if (c.reply)
            replies.emplace_back(c.reply, outcome);
        return {};
    }

    // PRAGMA incremental_vacuum gives back one page each time Qt runs it (one step of its
    // statement): as many times as there are free pages, in one transaction.
    void giveBackFreePages()
    {
        if (!exec(begin))
            return;
        qint64 free = 0;
        if (exec(freelistCount) && freelistCount.next())
            free = freelistCount.value(0).toLongLong();
        freelistCount.finish();
        for (qint64 i = 0; i < free && exec(incrementalVacuum); ++i)
            incrementalVacuum.finish();
        if (!exec(commit))
            exec(rollback);
    }

    Expected<void> createRun(const RunRecord &r)
    {
        if (!r.experiment.isEmpty()) {
            ensureExperiment.bindValue(0, r.experiment);
            ensureExperiment.bindValue(1, r.createdMs);
            if (auto done = exec(ensureExperiment); !done)
                return withContext(u"run %1: cannot store its experiment"_s.arg(r.id), done.error());
        }
        const QVariant values[]{r.id,
                                nonNull(r.experiment),
                                nonNull(r.name),
                                runStatusText(r.status),
                                nonNull(r.target),
                                nonNull(r.environmentTag),
                                QString::fromUtf8(QJsonDocument(r.spec).toJson(QJsonDocument::Compact)),
                                r.createdMs,
                                r.startedMs,
                                r.finishedMs,
                                r.exitCode ? QVariant(*r.exitCode) : QVariant(QMetaType::fromType<int>()),
                                nonNull(r.error),
                                r.logOffset,
                                nonNull(r.note)};
        for (int i = 0; i < static_cast<int>(std::size(values)); ++i)
            insertRun.bindValue(i, values[i]);
        if (auto done = exec(insertRun); !done)
            return withContext(u"cannot store run %1"_s.arg(r.id), done.error());
        return editTags(runstorecommand::EditTags{r.id, r.tags, {}, false});
    }

    Expected<void> editTags(const runstorecommand::EditTags &c)
    {
        const auto failed = [&c](const Error &error) {
            return withContext(u"run %1: cannot store its tags"_s.arg(c.runId), error);
        };
        if (c.replace) {
            deleteTags.bindValue(0, c.runId);
            if (auto done = exec(deleteTags); !done)
                return failed(done.error());
        }
        for (const auto &[query, tags] : {std::pair{&insertTag, &c.add}, {&deleteTag, &c.remove}}) {
            for (const QString &tag : *tags) {
                if (auto valid = RunStore::checkTag(tag); !valid)
                    return failed(valid.error());
                query->bindValue(0, c.runId);
                query->bindValue(1, tag);
                if (auto done = exec(*query); !done) // a run not in the store fails its foreign key
                    return failed(done.error());
            }
        }
        return {};
    }

    Expected<void> addMedia(const QString &runId, const QList<MediaItem> &items)
    {
        for (const MediaItem &m : items) {
            const QVariant values[]{runId,
                                    mediaKindText(m.kind),
                                    m.tag,
                                    m.step,
                                    m.sample,
                                    m.wallMs,
                                    m.file,
                                    m.offset,
                                    m.length,
                                    m.format,
                                    m.width,
                                    m.height,
                                    qint64(m.checksum)};
            for (int i = 0; i < static_cast<int>(std::size(values)); ++i)
                insertMedia.bindValue(i, values[i]);
            if (auto done = exec(insertMedia); !done) // a run not in the store fails its foreign key
                return done;
        }
        return {};
    }

    Expected<void> storeNote(const runstorecommand::SetNote &c)
    {
        setNote.bindValue(0, nonNull(c.note));
        setNote.bindValue(1, c.runId);
        if (auto done = exec(setNote); !done)
            return withContext(u"run %1: cannot store its note"_s.arg(c.runId), done.error());
        if (setNote.numRowsAffected() == 0)
            return noSuchRun(u"run %1: cannot store its note"_s.arg(c.runId));
        return {};
    }

    // After a commit: the compare-and-swap appends learn what became of them.
    void deliverReplies()
    {
        for (auto &[reply, outcome] : replies)
            reply->set_value(outcome);
        replies.clear();
    }

    QSqlDatabase db;
    QSqlQuery begin, commit, rollback;
    QSqlQuery ensureExperiment, insertRun, setStatus, deleteParams, insertParam, insertArtifact;
    QSqlQuery setOffset, swapOffset, readOffset;
    QSqlQuery addSource, swapPosition, readPosition, addClaim, dataVersion;
    QSqlQuery incrementalVacuum, freelistCount;
    QSqlQuery insertTag, deleteTag, deleteTags, setNote, insertMedia, mediaCaughtUp;
    SeriesWriter series;
    qint64 lastDataVersion = -1;
    bool freedPages = false;        // a run was deleted in the transaction being built
    QHash<QString, qint64> offsets; // run → log offset, for the transaction being built
    std::vector<std::pair<std::shared_ptr<std::promise<Expected<runstorecommand::MetricsCommit>>>,
                          runstorecommand::MetricsCommit>>
        replies; // for the transaction being built
};

RunStoreWriter::RunStoreWriter(QString path, QString connection)
    : m_path(std::move(path)), m_connection(std::move(connection))
{
}

Expected<std::unique_ptr<RunStoreWriter>> RunStoreWriter::start(const QString &path, const QString &connection,
                                                                const runstoreschema::MigrationProgress &progress)
{
    std::unique_ptr<RunStoreWriter> writer(new RunStoreWriter(path, connection));
    writer->m_progress = progress;
    std::promise<Expected<void>> opened;
    std::future<Expected<void>> result = opened.get_future();
    writer->m_running = true;
    writer->m_thread = std::thread(&RunStoreWriter::run, writer.get(), std::move(opened));
    if (const Expected<void> started = result.get(); !started) {
        writer->m_thread.join();
        return started.error();
    }
    return Expected<std::unique_ptr<RunStoreWriter>>(std::move(writer));
}

RunStoreWriter::~RunStoreWriter()
{
    stop();
}

void RunStoreWriter::setFailureHandler(std::function<void(const Error &)> handler)
{
    std::lock_guard lock(m_mutex);
    m_onFailure = std::move(handler);
}

bool RunStoreWriter::post(RunStoreCommand command)
{
    const auto *append = std::get_if<runstorecommand::AppendMetrics>(&command);
    const auto *fromSource = std::get_if<runstorecommand::AppendSourceMetrics>(&command);
    const auto *media = std::get_if<runstorecommand::AddMedia>(&command);
    // A media item's index counts as a point: the queue stays bounded either way.
    const qsizetype points = append       ? append->points.size()
                             : fromSource ? fromSource->points.size() + fromSource->media.size()
                             : media      ? media->items.size()
                                          : 0;
    {
        std::unique_lock lock(m_mutex);
        m_space.wait(lock, [&] { return m_queuedPoints < kMaxQueuedPoints || m_stopping || !m_running; });
        if (m_stopping || !m_running)
            return false;
        m_queue.push_back(std::move(command));
        m_queuedPoints += points;
        ++m_posted;
    }
    m_wake.notify_one();
    return true;
}

void RunStoreWriter::flush()
{
    std::unique_lock lock(m_mutex);
    const quint64 target = m_posted;
    m_drained.wait(lock, [&] { return m_done >= target || !m_running; });
}

void RunStoreWriter::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_one();
    m_space.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void RunStoreWriter::fail(const Error &error)
{
    std::function<void(const Error &)> handler;
    {
        std::lock_guard lock(m_mutex);
        handler = m_onFailure;
    }
    if (handler)
        handler(error);
}

void RunStoreWriter::run(std::promise<Expected<void>> opened)
{
    Expected<void> ready = runstoreschema::openConnection(m_connection, m_path);
    if (ready) {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        ready = runstoreschema::migrate(db, m_path, m_progress);
        m_progress = nullptr;
        // A bigger cache keeps the hot pages of the metrics index in memory; checkpoints
        // every 32 MiB of WAL instead of 4 MiB copy those pages back to the file less often.
        if (ready) {
            runstoreschema::exec(db, u"PRAGMA cache_size = -32768"_s);
            runstoreschema::exec(db, u"PRAGMA wal_autocheckpoint = 8192"_s);
        }
        if (ready) {
            m_statements = std::make_unique<Statements>(db);
            if (const auto prepared = m_statements->prepare(); !prepared)
                ready = Error{u"cannot use the run database: %1"_s.arg(prepared.error().message), m_path, 0, 0, {}};
        }
    }
    const bool ok = bool(ready);
    if (!ok) {
        m_statements.reset();
        runstoreschema::closeConnection(m_connection);
        {
            std::lock_guard lock(m_mutex);
            m_running = false;
        }
        opened.set_value(ready);
        return;
    }
    opened.set_value(Expected<void>{});

    std::vector<RunStoreCommand> batch;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return !m_queue.empty() || m_stopping; });
            if (m_queue.empty())
                break;
            batch.assign(std::make_move_iterator(m_queue.begin()), std::make_move_iterator(m_queue.end()));
            m_queue.clear();
            m_queuedPoints = 0;
        }
        m_space.notify_all();
        // Commands go in one transaction each run of them; a compaction comes between two.
        auto first = batch.begin();
        for (auto it = first; it != batch.end(); ++it) {
            if (const auto *c = std::get_if<runstorecommand::Compact>(&*it)) {
                commit(first, it);
                compact(*c);
                first = it + 1;
            }
        }
        commit(first, batch.end());
        const auto done = static_cast<quint64>(batch.size());
        batch.clear();
        {
            std::lock_guard lock(m_mutex);
            m_done += done;
        }
        m_drained.notify_all();
    }

    m_statements.reset();
    runstoreschema::closeConnection(m_connection);
    {
        std::lock_guard lock(m_mutex);
        m_running = false;
    }
    m_drained.notify_all();
    m_space.notify_all();
}

void RunStoreWriter::commit(Batch::iterator first, Batch::iterator last)
{
    if (first == last)
        return;
    Statements &s = *m_statements;
    const auto transaction = [&](auto from, auto to) -> Expected<void> {
        if (auto begun = Statements::exec(s.begin); !begun)
            return withContext(u"cannot start a transaction"_s, begun.error());
        Expected<void> done = s.checkOthers();
        for (auto it = from; it != to && done; ++it)
            done = execute(*it);
        if (done)
            done = s.applyOffsets();
        if (done)
            done = s.series.flush();
        if (done) {
            if (auto committed = Statements::exec(s.commit); !committed)
                done = withContext(u"cannot commit"_s, committed.error());
        }
        if (!done) {
            s.offsets.clear();
            s.replies.clear();
            s.series.forget();
            Statements::exec(s.rollback);
        } else {
            s.series.trim();
            // The points are stored: this thread lets go of them before their poster hears so, and
            // a follower that keeps its list frees them itself and reuses its memory.
            for (auto it = from; it != to; ++it) {
                if (auto *append = std::get_if<runstorecommand::AppendMetrics>(&*it))
                    append->points = {};
            }
            s.deliverReplies();
            if (s.freedPages) // a deleted run's pages go back to the file system
                s.giveBackFreePages();
        }
        s.freedPages = false;
        return done;
    };
    const auto done = transaction(first, last);
    if (done)
        return;
    if (last - first == 1) {
        replyFailed(*first, done.error());
        fail(done.error());
        return;
    }
    // Something in the batch failed: commit what can be, one command at a time, and report the rest.
    for (auto it = first; it != last; ++it) {
        if (const auto one = transaction(it, it + 1); !one) {
            replyFailed(*it, one.error());
            fail(one.error());
        }
    }
}

void RunStoreWriter::compact(const runstorecommand::Compact &command)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    const auto fileBytes = [this, &db] {
        runstoreschema::exec(db, u"PRAGMA wal_checkpoint(TRUNCATE)"_s); // the file as it is, WAL folded in
        return QFileInfo(m_path).size();
    };
    RunStore::Compaction outcome{fileBytes(), 0};
    m_statements->series.forget();
    const auto done = runstoreschema::exec(db, u"VACUUM"_s);
    outcome.bytesAfter = fileBytes();
    if (done)
        command.reply->set_value(outcome);
    else
        command.reply->set_value(withContext(u"cannot compact the run store"_s, done.error()));
}

void RunStoreWriter::replyFailed(const RunStoreCommand &command, const Error &error)
{
    if (const auto *append = std::get_if<runstorecommand::AppendMetrics>(&command); append && append->reply)
        append->reply->set_value(error);
    if (const auto *append = std::get_if<runstorecommand::AppendSourceMetrics>(&command); append && append->reply)
        append->reply->set_value(error);
}

Expected<void> RunStoreWriter::execute(const RunStoreCommand &command)
{
    Statements &s = *m_statements;
    using namespace runstorecommand;
    if (const auto *c = std::get_if<CreateRun>(&command))
        return s.createRun(c->record);
    if (const auto *c = std::get_if<EditTags>(&command))
        return s.editTags(*c);
    if (const auto *c = std::get_if<SetNote>(&command))
        return s.storeNote(*c);
    if (const auto *c = std::get_if<AddMedia>(&command)) {
        auto done = s.addMedia(c->runId, c->items);
        if (done && !c->caughtUpSource.isEmpty()) {
            s.mediaCaughtUp.bindValue(0, c->runId);
            s.mediaCaughtUp.bindValue(1, c->caughtUpSource);
            done = Statements::exec(s.mediaCaughtUp);
        }
        if (!done)
            return withContext(u"run %1: cannot index its images and histograms"_s.arg(c->runId), done.error());
        return {};
    }
    if (const auto *c = std::get_if<SetStatus>(&command)) {
        const QVariant values[]{runStatusText(c->status),
                                c->exitCode ? QVariant(*c->exitCode) : QVariant(QMetaType::fromType<int>()),
                                nonNull(c->error),
                                c->finishedMs,
                                c->finishedMs,
                                c->startedMs,
                                c->startedMs,
                                c->runId};
        for (int i = 0; i < static_cast<int>(std::size(values)); ++i)
            s.setStatus.bindValue(i, values[i]);
        if (auto done = Statements::exec(s.setStatus); !done)
            return withContext(u"run %1: cannot store its status"_s.arg(c->runId), done.error());
        if (s.setStatus.numRowsAffected() == 0)
            return noSuchRun(u"run %1: cannot store its status"_s.arg(c->runId));
        return {};
    }
    if (const auto *c = std::get_if<SetParams>(&command)) {
        s.deleteParams.bindValue(0, c->runId);
        auto done = Statements::exec(s.deleteParams);
        for (qsizetype i = 0; i < c->params.size() && done; ++i) {
            s.insertParam.bindValue(0, c->runId);
            s.insertParam.bindValue(1, c->params[i].name);
            s.insertParam.bindValue(2, nonNull(c->params[i].value));
            done = Statements::exec(s.insertParam);
        }
        if (!done)
            return withContext(u"run %1: cannot store its parameters"_s.arg(c->runId), done.error());
        return {};
    }
    if (const auto *c = std::get_if<AddArtifact>(&command)) {
        s.insertArtifact.bindValue(0, c->runId);
        s.insertArtifact.bindValue(1, c->artifact.path);
        s.insertArtifact.bindValue(2, nonNull(c->artifact.kind));
        s.insertArtifact.bindValue(3, c->artifact.size);
        if (auto done = Statements::exec(s.insertArtifact); !done)
            return withContext(u"run %1: cannot store artifact %2"_s.arg(c->runId, c->artifact.path), done.error());
        return {};
    }
    if (const auto *c = std::get_if<DeleteRun>(&command)) {
        // Every table by name, not through ON DELETE CASCADE alone: nothing of the run stays
        // behind even where foreign keys are off. Queued metrics of the run are dropped with it.
        s.offsets.remove(c->runId);
        s.freedPages = true;
        if (auto done = s.series.dropRun(c->runId); !done)
            return withContext(u"run %1: cannot delete its metrics"_s.arg(c->runId), done.error());
        for (const QString &table :
             {u"params"_s, u"artifacts"_s, u"metric_sources"_s, u"metric_claims"_s, u"tags"_s, u"media"_s}) {
            QSqlQuery query(s.db);
            query.prepare(u"DELETE FROM %1 WHERE run = ?"_s.arg(table));
            query.bindValue(0, c->runId);
            if (auto done = Statements::exec(query); !done)
                return withContext(u"run %1: cannot delete its %2"_s.arg(c->runId, table), done.error());
        }
        QSqlQuery query(s.db);
        query.prepare(u"DELETE FROM runs WHERE id = ?"_s);
        query.bindValue(0, c->runId);
        if (auto done = Statements::exec(query); !done)
            return withContext(u"run %1: cannot delete it"_s.arg(c->runId), done.error());
        return {};
    }
    if (const auto *c = std::get_if<AppendSourceMetrics>(&command))
        return s.appendFromSource(*c);
    const auto &c = std::get<AppendMetrics>(command);
    if (c.expectedOffset)
        return s.swapAndAppend(c);
    if (auto done = s.series.append(c.runId, c.points); !done)
        return withContext(u"run %1: cannot store metrics"_s.arg(c.runId), done.error());
    s.offsets.insert(c.runId, c.logOffset);
    return {};
}

} // namespace ferry::run
