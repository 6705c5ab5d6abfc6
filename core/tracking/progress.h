// How far a running run is and when it will end, from what its script reports (a progress bar's
// total, Hugging Face's max_steps or epochs, Keras' "Epoch k/N", an epochs parameter).
#pragma once

// One rule, for the window's runs table, run page and sweep view and `ferry runs list --json`
// (docs/cost.md, *While it runs*). The follower hands every metric record of the log to a
// ProgressTracker (with the points the parser found in it and when it was written); progress()
// takes, in this order:
//   1. steps of a known total: Hugging Face's "Total optimization steps = N" (or a steps work
//      parameter, run/workparameter.h) and a progress bar of that total: n/N;
//   2. epochs of a known count: Keras' "Epoch k/N" (k-1 done, plus its bar's n/total within the
//      epoch); else an epoch value (a Hugging Face dict's 'epoch', an epoch metric or column) over
//      Hugging Face's "Num Epochs = N" or an epochs work parameter;
//   3. the latest progress bar with a total (tqdm's n/total): the script's own loop.
// Nothing of these (a bar without a total, "45it [00:01, 30.1it/s]"): no progress, and no ETA.
#include "metrics/metricparser.h"
#include "run/runspec.h"

#include <QByteArrayView>
#include <QString>
#include <QStringView>

#include <deque>
#include <optional>

namespace ferry::run {

enum class ProgressSource { Steps, Epochs, Bar };
QString progressSourceName(ProgressSource source); // "steps", "epochs", "bar" (JSON)

struct Progress {
    double fraction = 0; // 0 to 1
    double done = 0;     // of `total` steps, epochs or the bar's units
    double total = 0;
    ProgressSource source = ProgressSource::Bar;
    // Seconds until the end at the recent rate (see ProgressTracker::progress); nullopt: no rate yet.
    std::optional<double> etaSeconds;

    // "45 % (450/1000 steps)".
    QString text() const;
};

// The readings of the last this many ms make the rate an ETA is taken from.
inline constexpr qint64 kProgressWindowMs = 5 * 60 * 1000;

class ProgressTracker {
public:
    // `spec`: its work parameter (steps or epochs) is the total when the script prints none.
    explicit ProgressTracker(const RunSpec &spec = {});

    // One metric record of the log (metrics/terminaltext.h's metricRecords), written at `wallMs`
    // (0: unknown, as for lines read again after a restart: they count, but not towards the
    // rate), and the points the parser found in it.
    void feed(QStringView record, qint64 wallMs, const MetricPoint *points = nullptr, qsizetype count = 0);
    // The last progress bar a raw log line redrew with '\r' (tqdm's redraws, which the metric
    // records leave out when a record follows them on the line: tqdm.write's dicts), if any.
    void feedRedraws(QByteArrayView line, qint64 wallMs);

    // The progress now, nullopt while nothing gives a total. The ETA: the remaining fraction at
    // the rate of the readings of the last kProgressWindowMs (the oldest to the newest of them,
    // less the time since the newest); with fewer than two readings of known time, or none moving,
    // at the run's average since `startedMs` (elapsed × (1 − f) / f); nullopt at 0.
    std::optional<Progress> progress(qint64 startedMs, qint64 nowMs) const;

private:
    std::optional<Progress> current() const;
    void remember(qint64 wallMs);

    struct Bar {
        double n = 0, total = 0;
    };
    std::optional<double> m_paramSteps, m_paramEpochs; // from the work parameter
    std::optional<double> m_totalSteps, m_numEpochs;   // Hugging Face's header
    std::optional<Bar> m_bar;                          // the latest tqdm bar with a total
    std::optional<Bar> m_stepsBar;                     // the latest bar of the total steps
    std::optional<Bar> m_kerasEpoch;                   // "Epoch k/N"
    std::optional<Bar> m_kerasBar;                     // Keras' bar within that epoch
    std::optional<double> m_epoch;                     // the latest epoch value
    struct Reading {
        qint64 wallMs = 0;
        double fraction = 0;
    };
    std::deque<Reading> m_readings; // of one source, within kProgressWindowMs of the newest
    std::optional<ProgressSource> m_readingSource;
};

} // namespace ferry::run
