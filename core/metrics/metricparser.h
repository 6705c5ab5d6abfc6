// A metric point and series, and the parser that finds metric points in log lines.
#pragma once

#include "common/error.h"
#include "common/largememory.h"
#include "metrics/metricdefinition.h"
#include "metrics/metricregex.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <array>
#include <limits>
#include <utility>

namespace ferry::run {

struct StepChoice; // metricparser.cpp: a record's coordinates

// A point's epoch when its record gave none.
inline constexpr double kNoEpoch = std::numeric_limits<double>::quiet_NaN();

struct MetricPoint {
    QString name;
    double step = 0; // x: the record's step / global_step / iteration / iter / batch, else the metric's own count
    double value = 0;
    qint64 wallMs = 0;       // when the script wrote it (ms since the epoch)
    double epoch = kNoEpoch; // the record's epoch; NaN: it gave none
};

// Whether `name` is the very string `known` (one text at one address): the few names a log's
// points share are told apart so, without comparing or hashing them. Only for a `known` that is a
// copy kept by the caller: its text then lives, unchanged, as long as that copy.
inline bool sameNameString(const QString &known, const QString &name)
{
    return known.constData() == name.constData() && known.size() == name.size() && !known.isNull();
}

// A point of one series (one metric of one run), whose name is the series' own: what the metric
// store keeps (store/seriesblock.h) and the chart draws.
struct SeriesPoint {
    double step = 0;
    qint64 wallMs = 0;
    double value = 0;
    double epoch = kNoEpoch; // NaN: the point has none
};

// The points of a series as columns, the form a chart keeps (wall times as doubles): read from
// the store's blocks straight into them, handed to the chart without a copy.
// `epochs` is empty while no point carries one (most series: a NaN a point would be a quarter of
// their memory), else as long as the others.
struct SeriesColumns {
    LargeVector<double> steps, wallMs, values, epochs;
    qsizetype size() const { return static_cast<qsizetype>(steps.size()); }
    double epoch(std::size_t i) const { return epochs.empty() ? kNoEpoch : epochs[i]; }
    // Gives the points so far their NaN epochs: the next point carries one.
    void keepEpochs()
    {
        if (epochs.empty())
            epochs.assign(steps.size(), kNoEpoch);
    }
    // Appends from's points from index `skip` on.
    void append(const SeriesColumns &from, std::size_t skip = 0)
    {
        const auto tail = [skip](LargeVector<double> &to, const LargeVector<double> &of) {
            to.insert(to.end(), of.begin() + static_cast<std::ptrdiff_t>(skip), of.end());
        };
        if (!from.epochs.empty()) {
            keepEpochs();
            tail(epochs, from.epochs);
        } else if (!epochs.empty()) {
            epochs.resize(epochs.size() + (from.steps.size() - skip), kNoEpoch);
        }
        tail(steps, from.steps);
        tail(wallMs, from.wallMs);
        tail(values, from.values);
    }
};

// Turns output lines into metric points. Without definitions it reads
//   - JSON object lines: {"loss": 0.31, "step": 120} → one point per numeric field;
//   - Python dict reprs, alone or after a progress bar (Hugging Face's Trainer):
//     {'loss': 0.31, 'learning_rate': 5e-05, 'epoch': 0.25}, numbers bare or quoted, nan, inf;
//   - a tqdm bar's postfix (Lightning): "45/100 [00:01<00:01, 30.1it/s, v_num=0, loss=0.31]";
//   - key=value and key: value tokens: "epoch 3 loss=0.25 acc: 0.91", Keras' "- loss: 0.51";
//     a fraction with its percentage, "Accuracy: 9801/10000 (98%)", as 0.9801;
// never progress counters ("12/500"), rates, ETAs or Lightning's v_num. One line is one record:
// feed it metricRecords() of the log's lines (metrics/terminaltext.h), which splits progress bars'
// redraws.
// with definitions (SageMaker MetricDefinitions: a name and a regex with one capture group)
// only those, in place of the defaults, each with a bounded cost per line (metrics/metricregex.h).
// Nothing is sampled away. A name that is no metric's (metrics/metricnames.h) gives no point, said
// once (takeWarnings); past kMostSeriesPerRun names, new ones give none (the follower's
// MetricNames, which counts every series of the run, says so).
class MetricParser {
public:
    explicit MetricParser(const QList<MetricDefinition> &definitions = {});

    // Problems with the definitions (bad regex, no capture group, a regex or a name too long,
    // more than kMostMetricDefinitions), one per entry; those definitions are not used.
    const QList<Error> &definitionErrors() const { return m_definitionErrors; }
    // What the lines parsed so far gave no point for: a name refused, a definition past its cost
    // on a line (each said once). Empty after the call.
    QStringList takeWarnings() { return std::exchange(m_warnings, {}); }

    // Points of `name` without a step get x = n, n+1, ...: how a follower that re-attaches
    // carries on after the points already stored.
    void setCount(const QString &name, qsizetype n) { m_counts[name] = static_cast<double>(n); }

    // Appends the points found in one line (without its newline).
    void parseLine(QStringView line, qint64 wallMs, QList<MetricPoint> &out);

private:
    void parseJson(QStringView line, qint64 wallMs, QList<MetricPoint> &out);
    bool parsePythonDict(QStringView dict, qint64 wallMs, QList<MetricPoint> &out);
    void parseTokens(QStringView line, qint64 wallMs, QList<MetricPoint> &out);
    double nextCount(const QString &name);
    bool takes(const QString &name);
    void emitPoints(QList<std::pair<QString, double>> &values, const StepChoice &where, qint64 wallMs,
                    QList<MetricPoint> &out);

    struct Definition {
        QString name;
        MetricRegex regex;
        bool saidCostly = false;
    };
    QList<Definition> m_definitions;
    QList<Error> m_definitionErrors;
    QHash<QString, double> m_counts; // per metric, for lines that carry no step
    std::array<QString, 8> m_taken;  // names takes() said yes to lately
    size_t m_nextTaken = 0;
    QStringList m_warnings;
    bool m_saidName = false;
};

} // namespace ferry::run
