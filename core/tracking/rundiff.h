// RunDiff: why two runs differ (parameters, code, git state, environments, targets and metrics) for
// `ferry runs diff` and the compare view.
#pragma once

// Why run B differs from run A (`ferry runs diff A B`, the compare view): their parameters,
// their code (the files of their snapshots, snapshot/snapshot.h, as unified diffs), where their
// code stood in git, their environments and targets, and their metrics side by side.
#include "store/runstore.h"

#include <QList>
#include <QString>

#include <optional>

namespace ferry::run {

struct RunDiff {
    struct Parameter {
        QString name;
        std::optional<QString> a, b; // nullopt: the run did not have it
        bool differs() const { return a != b; }
    };
    struct File {
        enum class Change { Added, Removed, Changed } change = Change::Changed;
        QString path;
        QString unified; // the unified diff of a text file; empty for a binary or large one
        qint64 sizeA = 0, sizeB = 0;
        bool text = true;
        // A text file whose lines differ in more places than a diff shows (common/linediff.h),
        // with the lines of each side.
        bool tooLarge = false;
        qsizetype linesA = 0, linesB = 0;
        QString tooLargeNote() const; // "differs, too large to show (N and M lines)"
    };
    struct Metric {
        QString name;
        std::optional<double> lastA, lastB, bestA, bestB; // best: the least (a loss) or the most (an accuracy)
    };
    // A data channel of either run: its size, file count and fingerprint in each
    // (snapshot/datafingerprint.h); -1 and empty where the run had no such channel or no record.
    struct Data {
        QString channel;
        QString pathA, pathB;
        qint64 bytesA = -1, bytesB = -1, filesA = -1, filesB = -1;
        QString fingerprintA, fingerprintB;
        bool same = false; // both fingerprinted and alike
    };
    // A fact of the host as each run saw it (run/hostfacts.h): gpu, cpu, memory, os, hostname,
    // and the container image's id; empty where the run did not record it.
    struct HostField {
        QString name;
        QString a, b;
        bool differs() const { return a != b; }
    };
    QString a, b;                // run ids
    QList<Parameter> parameters; // every one, in A's order then B's new ones
    QList<File> files;           // only the files that differ
    bool codeKnown = false;      // both runs have a snapshot
    QString codeNote;            // why the code cannot be compared, when it cannot
    std::optional<snapshot::GitState> gitA, gitB;
    QList<std::pair<QString, QString>> other; // what else differs: field, "A → B"
    QStringList environment;                  // the environments' differences, "pip numpy: added 1.26"
    QList<Metric> metrics;
    QList<Data> data;      // every channel, in A's order then B's new ones
    QList<HostField> host; // every fact, the same ones too; empty when neither run recorded its host
};

// Which way a metric is better, from its name: more (accuracy, F1, AUC..., a throughput such as
// samples_per_s), less (a loss, an error, a time per step), or not known (lr, epoch). The one
// rule for "best" and for whether a change is an improvement: the diff's, the compare view's and
// the run query's (tracking/runquery.h).
enum class MetricDirection { Higher, Lower, Unknown };
MetricDirection metricDirection(const QString &name);
// Its best is its greatest value (MetricDirection::Higher), else its least: a metric of unknown
// direction is taken as a loss.
bool higherIsBetter(const QString &name);
// The best value of a series: its greatest finite value when `higher`, else its least; none when
// no value is finite. The diff's best, the run query's best, min and max, and a run's value in
// analysis/runvalues.h.
std::optional<double> bestOf(const std::vector<SeriesPoint> &points, bool higher);

// `objectsDir`: the workspace's object store (snapshot::objectsDirFor); the runs' folders (their
// host.txt, container.json) are beside it (snapshot::runsDirFor). A file whose lines differ in
// too many places is said to (File::tooLarge); memory running out is an Error
// (notEnoughMemoryToCompare), never an exception.
Expected<RunDiff> diffRuns(const RunStore &store, const QString &objectsDir, const RunRecord &a, const RunRecord &b);

// The Error for a std::bad_alloc caught while comparing these runs (runs from elsewhere can ask
// for more than there is): what diffRuns returns then, and the window's comparison.
Error notEnoughMemoryToCompare(const QStringList &runIds);

} // namespace ferry::run
