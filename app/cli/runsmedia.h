// `ferry runs images` and `ferry runs histograms`: a run's images and histograms written out or printed.
#pragma once

// `ferry runs images ID [--tag T] [--step N] [-o DIR] [--json]`: the run's images (TensorBoard's,
// and those of output/images), listed, or with -o written into DIR byte for byte as the run wrote
// them, one file per tag and step (DIR/<tag>/<step>.png). `ferry runs histograms ID [--tag T]
// [--step N] [--json]`: its histograms (TensorBoard's, and histograms.jsonl's), per step
// bucket_limit and bucket as TensorBoard's HistogramProto has them. And what `ferry runs show`
// says of a run's media: how many of each, and its text summaries (docs/metrics.md).
#include "cli/command.h"
#include "cli/runsupport.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <QTextStream>

namespace ferry::cli {

void addMediaOptions(QCommandLineParser &parser);
int printRunImages(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io);
int printRunHistograms(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io);

// `ferry runs show --json`: "media" (how many images, histograms and texts) and "text" (each text
// tag's summaries: step, wallMs, text).
void addMediaToJson(QJsonObject &run, RunContext &context, const run::RunRecord &record);
// `ferry runs show`: a line for the counts, one per text tag with its last text's first line.
void printMediaSummary(QTextStream &shown, RunContext &context, const run::RunRecord &record);

} // namespace ferry::cli
