// When each part of a run's log was written (log.times), written and read.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <optional>
#include <utility>
#include <vector>

namespace ferry::run {

// When the script wrote each part of its log: `log.times` beside the log, a line
// "SIZE MS\n" whenever the log had grown to SIZE bytes by MS (ms since the Unix epoch). The
// local supervisor writes one every 200 ms while the log grows; the SSH and Slurm runners'
// shells once a second (docs/metrics.md). A line of the log that ends by byte E was written at
// the time of the first sample with SIZE >= E: so a run collected after Ferry was closed shows
// its real durations. A log without times (an older run, an embedded one) is read at the time
// Ferry reads it.
class LogTimes {
public:
    // Appends the samples in `bytes`: the file's content from bytesRead() on. A last line
    // without its newline waits for the next call; a malformed line is skipped.
    void feed(QByteArrayView bytes);
    qint64 bytesRead() const { return m_read; }

    // The time of the log's bytes up to `end` (exclusive), if a sample covers it yet.
    std::optional<qint64> timeOf(qint64 end) const;
    // Forgets the samples before `offset`: no line ending before it is asked for again.
    void dropBefore(qint64 offset);

    // The line for a sample, as writers append it.
    static QByteArray line(qint64 logSize, qint64 ms);

private:
    std::vector<std::pair<qint64, qint64>> m_samples; // (size, ms), sizes non-decreasing
    qint64 m_read = 0;
};

} // namespace ferry::run
