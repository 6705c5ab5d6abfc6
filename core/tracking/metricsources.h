// Finds and incrementally reads the metric files a run writes beside its log: TensorBoard events,
// Lightning and Hugging Face files.
#pragma once

#include "common/error.h"
#include "metrics/metricnames.h"
#include "metrics/metricparser.h"
#include "store/runstore.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <memory>
#include <optional>
#include <utility>

namespace ferry::run {

// The files a run writes metrics to beside its log, found in its run folder and read as they
// grow (docs/metrics.md):
//   - TensorBoard event files (events.out.tfevents.*), appended: read from where the last read
//     ended, a partial record waiting for the rest; a file in a train/, validation/, val/,
//     eval/ or test/ folder gives its tags that prefix (Keras writes logs/train and
//     logs/validation with the same tags);
//   - Lightning's metrics.csv, rewritten whenever a column appears: the rows not read before;
//   - Hugging Face's trainer_state.json, one per checkpoint folder, each the whole history so
//     far: the newest one's entries not read before.
//   - histograms.jsonl (metrics/media.h), appended: its lines' histograms indexed;
//   - the images in output/images/<tag>/<step>.png (.jpg, .jpeg, .gif), each indexed once whole
//     and again when it changes.
// Images, histograms and texts (event files hold them too) are indexed in the store, never
// copied (RunStore::addMedia); one refused (metrics/media.h's limits) is said once and skipped.
// An event file's hparams session start becomes the run's parameters when it has none. An event
// file an older Ferry read has its media indexed at the first poll, from its start up to where it
// was read (its points are not read again).
// They are looked for in what the run itself made: its working folder code/ (what the script
// created there: runs/, lightning_logs/, logs/, ...; the links into the source folder are
// never followed), model/, output/ (SM_OUTPUT_DIR/tensorboard among them) and checkpoints/.
// A container's script writes these folders: every file is opened without following links
// (common/untrustedtree.h) and read within caps.
//
// How far each file is read is stored with its points (RunStore::appendSourceMetrics), so a
// follower that starts again neither loses nor doubles a point. A metric a file gives is taken
// from that file only: the log's points of it are dropped (claimed()). The run's metric names,
// those stored and those that come, files and log together, are held to metrics/metricnames.h's
// rule (names()): a point of a name past it is not stored, and said once.
class MetricSources {
public:
    MetricSources(RunStore &store, QString runDir, QString runId);
    ~MetricSources();
    MetricSources(const MetricSources &) = delete;
    MetricSources &operator=(const MetricSources &) = delete;

    struct Read {
        QList<MetricPoint> points; // stored
        QStringList newClaims;     // names the files took over from the log in this read
        QList<Error> problems;     // files given up (a damaged record, a refused link): said once each
        QStringList notes;         // points not stored (a name refused, past the cap): said once each
        QList<Error> refused;      // images, histograms, texts not indexed (a decompression bomb, ...)
        qsizetype media = 0;       // images, histograms and texts indexed
    };
    // Looks for new files (`scan`: now; else at most every few seconds) and stores what is new
    // in each. `last`: the run is over, an image file that does not end as its format ends is
    // taken as it is (else it waits, being written). An Error only when the store refused to write.
    Expected<Read> poll(bool scan, bool last = false);

    // The names the log must not give (a file gives them).
    const QSet<QString> &claimed() const { return m_claimed; }
    // The run's metric names so far, which the log's points pass too.
    MetricNames &names() { return m_names; }

private:
    struct Source;
    void discover();
    Expected<void> readSource(Source &source, Read &read);
    void reload();
    void indexImageFolder(bool final, Read &read);
    void catchUpMedia(Read &read);
    void takeHParams(const QList<HParam> &hparams);

    RunStore &m_store;
    const QString m_runDir;
    const QString m_runId;
    std::vector<std::unique_ptr<Source>> m_sources;
    QSet<QString> m_claimed;
    MetricNames m_names;
    qint64 m_lastScanMs = 0;
    // The images of output/images indexed (size and modification time), read from the store at
    // the first scan: a file is read again only when it changed.
    std::optional<QHash<QString, std::pair<qint64, qint64>>> m_folderImages;
    QSet<QString> m_partImages; // not whole when last read (being written)
    bool m_saidImageName = false, m_saidImageCount = false;
    bool m_paramsTaken = false; // an hparams session start was seen: later ones change nothing
    // Event files an older Ferry read (their points stored, their media not): how far.
    QHash<QString, qint64> m_mediaBehind;
};

} // namespace ferry::run
