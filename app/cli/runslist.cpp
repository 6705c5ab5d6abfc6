#include "cli/runslist.h"

#include "cli/runsupport.h"
#include "tracking/runlabels.h"

#include <QSet>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

QString listedValue(const QList<run::Hyperparameter> &params, const QString &name)
{
    for (const run::Hyperparameter &p : params) {
        if (p.name == name)
            return p.value;
    }
    return u"-"_s;
}

} // namespace

QStringList listedParameters(const QList<ListedRun> &runs)
{
    QList<run::NamedRun> named;
    for (const ListedRun &r : runs)
        named << run::NamedRun{r.record.id, r.record.name, r.params};
    QStringList names = run::differingParameters(named);
    if (names.isEmpty()) { // one run, or runs alike: what they were given
        QSet<QString> seen;
        for (const ListedRun &r : runs) {
            for (const run::Hyperparameter &p : r.params) {
                if (!seen.contains(p.name)) {
                    seen.insert(p.name);
                    names << p.name;
                }
            }
        }
    }
    return names.mid(0, kListedParameters);
}

QStringList listedMetrics(const QList<ListedRun> &runs)
{
    QSet<QString> all;
    for (const ListedRun &r : runs) {
        for (auto it = r.lastMetrics.cbegin(); it != r.lastMetrics.cend(); ++it)
            all.insert(it.key());
    }
    return run::keyMetricNames(QStringList(all.cbegin(), all.cend()), kListedMetrics);
}

QString runListTable(const QList<ListedRun> &runs)
{
    const QStringList params = listedParameters(runs), metrics = listedMetrics(runs);
    QList<QStringList> lines{
        QStringList{u"ID"_s, u"NAME"_s, u"STATUS"_s, u"TARGET"_s, u"STARTED"_s, u"TIME"_s, u"EXIT"_s} + params +
        metrics};
    for (const ListedRun &r : runs) {
        const run::RunRecord &record = r.record;
        QStringList line{record.id,
                         record.name.isEmpty() ? u"-"_s : record.name,
                         run::runStatusLabel(record),
                         record.target,
                         timeText(record.startedMs),
                         durationText(record.startedMs, record.finishedMs),
                         record.exitCode ? QString::number(*record.exitCode) : u"-"_s};
        for (const QString &name : params)
            line << listedValue(r.params, name);
        for (const QString &name : metrics) {
            const auto it = r.lastMetrics.constFind(name);
            line << (it == r.lastMetrics.cend() ? u"-"_s : QString::number(it.value(), 'g', 6));
        }
        lines << line;
    }
    const qsizetype columns = lines.first().size();
    QList<qsizetype> widths(columns, 0);
    for (const QStringList &line : std::as_const(lines)) {
        for (qsizetype c = 0; c < columns; ++c)
            widths[c] = std::max(widths[c], line.at(c).size());
    }
    QString table;
    for (const QStringList &line : std::as_const(lines)) {
        QString text;
        for (qsizetype c = 0; c < columns; ++c)
            text += c + 1 == columns ? line.at(c) : line.at(c).leftJustified(widths[c]) + u"  "_s;
        table += text + u'\n';
    }
    return table;
}

} // namespace ferry::cli
