// A run's working folder (code/): links to the source folder's entries, its own log folders.
#pragma once

#include "common/error.h"

#include <QString>
#include <QStringList>

#include <functional>

namespace ferry::run {

// The script's working folder, one per run: `code/` in the run folder. It holds a symbolic
// link to every top-level entry of the source folder (so `open("data/x.csv")`, imports and
// `__file__`-relative paths work as they do in the source folder), and whatever the script
// creates in its working folder lands there, in this run's folder: two runs of one source
// folder at once (a sweep's trials) never write into each other's `runs/` or
// `lightning_logs/`, and a container's read-only source mount no longer stops a script that
// writes `runs/`. The usual log folders are real, empty folders of the run, even when the
// source folder has one of that name (its content is not visible to the script then). Ferry's
// own folder (.ferry) is not linked. Writes into a linked folder reach the source folder, as
// before. docs/metrics.md says the same for users.
inline const QStringList kRunLogFolders{QStringLiteral("runs"), QStringLiteral("lightning_logs"),
                                        QStringLiteral("logs"), QStringLiteral("tb_logs"),
                                        QStringLiteral("tensorboard")};

// The folders of a run folder the run itself writes (its working folder code/, model/, output/,
// checkpoints/): where its metric files are looked for, on every target.
inline const QStringList kMetricFileFolders{QStringLiteral("code"), QStringLiteral("model"), QStringLiteral("output"),
                                            QStringLiteral("checkpoints")};
// What a file name says a metric file is: a TensorBoard event file, Lightning's metrics.csv,
// Hugging Face's trainer_state.json, or the histograms a script writes without TensorBoard
// (histograms.jsonl, metrics/media.h).
enum class MetricFileKind { None, Events, LightningCsv, TrainerState, HistogramLines };
MetricFileKind metricFileKind(QStringView name);
inline bool isMetricFileName(QStringView name)
{
    return metricFileKind(name) != MetricFileKind::None;
}

// Creates `workDir` (it must not exist yet) with the links and log folders. `linkTarget` gives
// what the link for a source entry points at as the script sees it: the entry itself for a
// local process, its path in the container's source mount for a container.
Expected<void> prepareWorkFolder(const QString &workDir, const QString &sourceDir,
                                 const std::function<QString(const QString &name)> &linkTarget);

} // namespace ferry::run
