#include "metrics/metricfiles.h"

#include "data/csvsyntax.h"
#include "metrics/metricsyntax.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// A history entry's or a row's step: its "step" (Hugging Face, Lightning), else "global_step".
constexpr std::array<QStringView, 2> kFileStepKeys{u"step", u"global_step"};

// Where a record is: its own step when it has one, else the metric's next index.
double stepOf(std::optional<double> step, QHash<QString, double> &counts, const QString &name)
{
    if (step)
        return *step;
    return counts[name]++;
}

} // namespace

Expected<QList<MetricPoint>> TrainerStateReader::read(const QByteArray &json, const QString &path, qint64 wallMs)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject() || !doc.object().value(u"log_history"_s).isArray())
        return Error{u"not a Hugging Face trainer_state.json: "_s +
                         (error.error != QJsonParseError::NoError ? error.errorString() : u"no log_history list"_s),
                     path, 0, 0, u"it is written by transformers' Trainer at each checkpoint"_s};
    const QJsonArray history = doc.object().value(u"log_history"_s).toArray();
    QList<MetricPoint> points;
    for (qsizetype i = m_entries; i < history.size(); ++i) {
        const QJsonObject entry = history.at(i).toObject();
        std::optional<double> step;
        for (const QStringView key : kFileStepKeys) {
            if (const QJsonValue v = entry.value(key); v.isDouble() && !step)
                step = v.toDouble();
        }
        const QJsonValue epochValue = entry.value(u"epoch"_s);
        const double epoch = epochValue.isDouble() ? epochValue.toDouble() : kNoEpoch;
        for (auto it = entry.begin(); it != entry.end(); ++it) {
            const QString &name = it.key();
            if (!it.value().isDouble() ||
                std::find(kFileStepKeys.begin(), kFileStepKeys.end(), name) != kFileStepKeys.end() ||
                name == u"epoch"_s || metricsyntax::neverMetric(name))
                continue;
            points.append(MetricPoint{name, stepOf(step, m_counts, name), it.value().toDouble(), wallMs, epoch});
        }
    }
    m_entries = std::max(m_entries, history.size());
    return points;
}

Expected<QList<MetricPoint>> LightningCsvReader::read(const QByteArray &csv, const QString &path, qint64 wallMs)
{
    using data::csv::Field;
    const char *p = csv.constData();
    // Only complete lines: the row being written waits for its newline.
    const qsizetype lastNewline = csv.lastIndexOf('\n');
    const char *const complete = lastNewline < 0 ? p : p + lastNewline + 1;
    const auto readRow = [&](QList<Field> &fields) -> bool {
        fields.clear();
        for (;;) {
            Field field;
            const char *q = data::csv::scanField(p, complete, ',', field);
            if (!q)
                return false; // a quoted field not closed yet
            fields.append(field);
            p = q;
            if (p < complete && *p == ',') {
                ++p;
                continue;
            }
            if (p < complete && *p == '\r')
                ++p;
            if (p < complete && *p == '\n')
                ++p;
            return true;
        }
    };
    QList<Field> header;
    if (complete == csv.constData() || !readRow(header))
        return QList<MetricPoint>{}; // no header yet
    QStringList names;
    qsizetype stepColumn = -1;
    qsizetype epochColumn = -1;
    for (const Field &f : std::as_const(header)) {
        names << data::csv::fieldText(f);
        if (names.last() == u"step"_s)
            stepColumn = names.size() - 1;
        else if (names.last() == u"epoch"_s)
            epochColumn = names.size() - 1;
    }
    if (names.isEmpty() || names.first().isEmpty())
        return Error{u"not a metrics.csv: its first line names no columns"_s, path, 1, 0,
                     u"Lightning's CSVLogger writes one, with epoch and step among its columns"_s};
    QList<MetricPoint> points;
    QList<Field> row;
    qsizetype rows = 0;
    while (p < complete) {
        if (!readRow(row))
            break;
        if (row.size() == 1 && row.first().view().isEmpty())
            continue; // a blank line
        ++rows;
        if (rows <= m_rows)
            continue; // given before (the file was rewritten with a new column, or grew)
        std::optional<double> step;
        double value = 0;
        if (stepColumn >= 0 && stepColumn < row.size() &&
            metricsyntax::plainNumber(QString::fromLatin1(row.at(stepColumn).view()), value))
            step = value;
        double epoch = kNoEpoch;
        if (epochColumn >= 0 && epochColumn < row.size() &&
            metricsyntax::plainNumber(QString::fromLatin1(row.at(epochColumn).view()), value))
            epoch = value;
        for (qsizetype c = 0; c < row.size() && c < names.size(); ++c) {
            const QString &name = names.at(c);
            if (c == stepColumn || c == epochColumn || row.at(c).view().isEmpty() || metricsyntax::neverMetric(name))
                continue;
            const QString text = QString::fromLatin1(row.at(c).view());
            if (metricsyntax::numberAt(text, 0, value) != text.size())
                continue; // not a number: no metric
            points.append(MetricPoint{name, stepOf(step, m_counts, name), value, wallMs, epoch});
        }
    }
    m_rows = std::max(m_rows, rows);
    return points;
}

} // namespace ferry::run
