// The metric files training libraries write beside a log (trainer_state.json, metrics.csv).
#pragma once

#include "common/error.h"
#include "metrics/metricparser.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

// Metrics from the files training libraries write beside the log, read as they grow: each
// reader is handed the file's whole current content every time it changed (the libraries
// rewrite these files, they do not append to them) and gives only the points it has not given
// before, so a rewritten file loses and doubles nothing. Steps come from the file's own step
// column or field; a record without one counts on per metric, as the log parser does.

namespace ferry::run {

// Hugging Face's trainer_state.json: `log_history`, one object per logging step ({"loss":
// 0.69, "learning_rate": 1.9e-4, "epoch": 0.16, "step": 20}), rewritten at every checkpoint,
// only ever longer.
class TrainerStateReader {
public:
    // The points of the history entries not read before; an Error when the text is no
    // trainer_state.json (the points read before stay read).
    Expected<QList<MetricPoint>> read(const QByteArray &json, const QString &path, qint64 wallMs);

    qsizetype entriesRead() const { return m_entries; }
    void resumeAt(qsizetype entries) { m_entries = entries; } // a follower that starts again

private:
    qsizetype m_entries = 0;
    QHash<QString, double> m_counts; // the next index of a metric in entries without a step
};

// Lightning's CSVLogger metrics.csv: a header of names (epoch and step among them), a row per
// log call with empty cells for what it did not log; rewritten from its start, with every row,
// when a name first appears.
class LightningCsvReader {
public:
    // The points of the complete rows not read before (a last row without its newline waits).
    Expected<QList<MetricPoint>> read(const QByteArray &csv, const QString &path, qint64 wallMs);

    qsizetype rowsRead() const { return m_rows; }
    void resumeAt(qsizetype rows) { m_rows = rows; } // a follower that starts again

private:
    qsizetype m_rows = 0;
    QHash<QString, double> m_counts; // the next index of a metric in rows without a step
};

} // namespace ferry::run
