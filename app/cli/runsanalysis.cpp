// `ferry runs aggregate` and `ferry runs importance` (core/analysis).
#include "cli/runsanalysis.h"

#include "cli/runsquery.h"

#include "analysis/importance.h"
#include "analysis/rungroups.h"
#include "store/metricexport.h"

#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QStringDecoder>

#include <algorithm>
#include <cmath>
#include <csignal>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

int analysisError(const QString &action, const QString &message, Io &io)
{
    io.err << "ferry runs " << action << ": " << message << Qt::endl;
    return kExitUserError;
}

// The runs named (ids or their starts, each once), narrowed to those --where selects; without ids,
// every run --where selects. Sorted by id.
std::optional<QList<run::RunRecord>> chosenRuns(const QString &action, const QCommandLineParser &parser,
                                                RunContext &context, Io &io)
{
    const QStringList ids = parser.positionalArguments().mid(1);
    const QString where = parser.value(u"where"_s);
    if (ids.isEmpty() && where.isEmpty()) {
        analysisError(action, u"name the runs (ID...), or choose them with --where QUERY"_s, io);
        return std::nullopt;
    }
    QList<run::RunRecord> runs;
    QSet<QString> named;
    for (const QString &id : ids) {
        const auto record = findRun(*context.store, id, io);
        if (!record)
            return std::nullopt;
        if (!named.contains(record->id))
            runs << *record;
        named.insert(record->id);
    }
    if (!where.isEmpty()) {
        const auto selected = runsWhere(*context.store, where, io, action);
        if (!selected)
            return std::nullopt;
        QSet<QString> matching;
        for (const run::RunRecord &r : *selected)
            matching.insert(r.id);
        if (ids.isEmpty())
            runs = *selected;
        else
            runs.removeIf([&](const run::RunRecord &r) { return !matching.contains(r.id); });
    }
    // In the order of their ids: the same runs, however chosen, give the same bytes (a mean adds
    // its values in this order).
    std::sort(runs.begin(), runs.end(), [](const run::RunRecord &a, const run::RunRecord &b) { return a.id < b.id; });
    return runs;
}

// Bytes to stdout as they come (a pipe closed by its reader ends the output quietly), or into a
// text stream (a test's).
class ByteOutput {
public:
    explicit ByteOutput(Io &io) : m_io(io), m_device(io.out.device())
    {
        m_io.out.flush();
        m_previous = std::signal(SIGPIPE, SIG_IGN);
    }
    ~ByteOutput()
    {
        flush();
        std::signal(SIGPIPE, m_previous);
    }
    ByteOutput(const ByteOutput &) = delete;
    ByteOutput &operator=(const ByteOutput &) = delete;

    QByteArray &buffer() { return m_buffer; }
    void flushIfFull()
    {
        if (m_buffer.size() >= (1 << 20))
            flush();
    }
    void flush()
    {
        if (m_buffer.isEmpty() || m_closed)
            return;
        if (m_device) {
            m_closed = m_device->write(m_buffer) != m_buffer.size();
        } else {
            m_io.out << m_decoder(m_buffer);
            m_io.out.flush();
        }
        m_buffer.clear();
    }

private:
    Io &m_io;
    QIODevice *m_device;
    QByteArray m_buffer;
    QStringDecoder m_decoder{QStringDecoder::Utf8};
    bool m_closed = false;
    void (*m_previous)(int) = nullptr;
};

void appendNumber(QByteArray &out, double value)
{
    char text[run::kNumberChars];
    out.append(text, run::writeNumber(text, value) - text);
}

QString shortNumber(double value)
{
    return std::isnan(value) ? u"-"_s : QString::number(value, 'g', 6);
}

QJsonValue jsonNumber(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue();
}

QString xColumn(const run::XAxis &axis)
{
    switch (axis.kind) {
    case run::XAxis::Kind::Step:
        return u"step"_s;
    case run::XAxis::Kind::WallTime:
        return u"wall_ms"_s;
    case run::XAxis::Kind::RelativeTime:
        return u"time_s"_s;
    case run::XAxis::Kind::Metric:
        break;
    }
    return axis.metric;
}

struct AggregateRequest {
    QString metric;
    std::optional<run::GroupBy> by; // none: all runs one group
    std::optional<run::Band> band;  // none: no low and high columns
    run::XAxis axis;
};

void writeCsv(ByteOutput &out, const run::GroupAggregate &g, const AggregateRequest &request)
{
    const QByteArray group = run::csvField(g.group.key);
    for (const run::GroupStats &s : g.points) {
        QByteArray &b = out.buffer();
        appendNumber(b, s.x);
        b += ',' + group + ',' + QByteArray::number(s.n);
        const double fields[] = {s.mean, s.std, s.min, s.max};
        for (const double v : fields) {
            b += ',';
            if (s.n > 0)
                appendNumber(b, v);
        }
        if (request.band) {
            for (const double v : {run::bandLow(s, *request.band), run::bandHigh(s, *request.band)}) {
                b += ',';
                if (s.n > 0)
                    appendNumber(b, v);
            }
        }
        b += '\n';
        out.flushIfFull();
    }
}

void writeTable(ByteOutput &out, const run::GroupAggregate &g, const AggregateRequest &request, int labelWidth)
{
    for (const run::GroupStats &s : g.points) {
        QString line = u"%1  %2  %3"_s.arg(shortNumber(s.x), -12).arg(g.group.label, -labelWidth).arg(s.n, 3);
        QList<double> values{s.mean, s.median, s.std, s.min, s.max};
        if (request.band)
            values << run::bandLow(s, *request.band) << run::bandHigh(s, *request.band);
        for (const double v : std::as_const(values))
            line += u"  %1"_s.arg(s.n > 0 ? shortNumber(v) : u"-"_s, 12);
        out.buffer() += line.toUtf8() + '\n';
        out.flushIfFull();
    }
}

QJsonObject groupJson(const run::GroupAggregate &g, const AggregateRequest &request)
{
    QJsonArray x, n, mean, median, spread, min, max, low, high;
    for (const run::GroupStats &s : g.points) {
        x.append(s.x);
        n.append(s.n);
        mean.append(jsonNumber(s.mean));
        median.append(jsonNumber(s.median));
        spread.append(jsonNumber(s.std));
        min.append(jsonNumber(s.min));
        max.append(jsonNumber(s.max));
        if (request.band) {
            low.append(jsonNumber(run::bandLow(s, *request.band)));
            high.append(jsonNumber(run::bandHigh(s, *request.band)));
        }
    }
    QJsonObject points{{xColumn(request.axis), x}, {u"n"_s, n},     {u"mean"_s, mean}, {u"median"_s, median},
                       {u"std"_s, spread},         {u"min"_s, min}, {u"max"_s, max}};
    if (request.band) {
        points[u"low"_s] = low;
        points[u"high"_s] = high;
    }
    return QJsonObject{{u"key"_s, g.group.key},
                       {u"label"_s, g.group.label},
                       {u"runs"_s, QJsonArray::fromStringList(g.group.runIds)},
                       {u"runsWithoutMetric"_s, QJsonArray::fromStringList(g.runsWithoutMetric)},
                       {u"points"_s, points}};
}

std::optional<AggregateRequest> aggregateRequest(const QCommandLineParser &parser, Io &io)
{
    AggregateRequest request;
    request.metric = parser.value(u"metric"_s).trimmed();
    if (request.metric.startsWith("metrics."_L1))
        request.metric = request.metric.mid(8);
    if (request.metric.isEmpty()) {
        analysisError(u"aggregate"_s, u"name the metric, --metric NAME"_s, io);
        return std::nullopt;
    }
    if (parser.isSet(u"group-by"_s)) {
        const auto by = run::GroupBy::parse(parser.value(u"group-by"_s));
        if (!by) {
            analysisError(u"aggregate"_s, u"--group-by: "_s + by.error().toString(), io);
            return std::nullopt;
        }
        request.by = *by;
    }
    if (parser.isSet(u"band"_s)) {
        const QString band = parser.value(u"band"_s);
        if (band != "std"_L1 && band != "minmax"_L1) {
            analysisError(u"aggregate"_s, u"--band is std (mean ± standard deviation) or minmax, not '%1'"_s.arg(band),
                          io);
            return std::nullopt;
        }
        request.band = band == "std"_L1 ? run::Band::Std : run::Band::MinMax;
    }
    const auto axis = run::XAxis::parse(parser.value(u"x"_s));
    if (!axis) {
        analysisError(u"aggregate"_s, u"--x: "_s + axis.error().toString(), io);
        return std::nullopt;
    }
    request.axis = *axis;
    return request;
}

int aggregate(const QCommandLineParser &parser, RunContext &context, const QList<run::RunRecord> &runs, Io &io)
{
    const auto request = aggregateRequest(parser, io);
    if (!request)
        return kExitUserError;
    QList<run::RunGroup> groups;
    if (request->by) {
        groups = run::groupRuns(*context.store, runs, *request->by);
    } else {
        run::RunGroup all{u"all"_s, u"all runs"_s, {}};
        for (const run::RunRecord &r : runs)
            all.runIds << r.id;
        groups << all;
    }
    const bool csv = parser.isSet(u"csv"_s), json = parser.isSet(u"json"_s);
    int labelWidth = 5;
    for (const run::RunGroup &g : std::as_const(groups))
        labelWidth = std::max(labelWidth, int(g.label.size()));
    ByteOutput out(io);
    QJsonArray jsonGroups;
    QStringList without;
    if (csv) {
        out.buffer() +=
            (xColumn(request->axis) + u",group,n,mean,std,min,max"_s).toUtf8() + (request->band ? ",low,high\n" : "\n");
    } else if (!json) {
        QString head = u"%1 by %2, %3 runs in %4 groups:\n"_s
                           .arg(request->metric, request->by ? request->by->text() : u"nothing"_s)
                           .arg(runs.size())
                           .arg(groups.size());
        for (const run::RunGroup &g : std::as_const(groups))
            head += u"  %1: %2\n"_s.arg(g.label, g.runIds.join(u' '));
        head +=
            u"\n%1  %2  %3"_s.arg(xColumn(request->axis).toUpper(), -12).arg(u"GROUP"_s, -labelWidth).arg(u"N"_s, 3);
        QStringList columns{u"MEAN"_s, u"MEDIAN"_s, u"STD"_s, u"MIN"_s, u"MAX"_s};
        if (request->band)
            columns << u"LOW"_s << u"HIGH"_s;
        for (const QString &c : std::as_const(columns))
            head += u"  %1"_s.arg(c, 12);
        out.buffer() += head.toUtf8() + '\n';
    }
    run::aggregateGroups(*context.store, runs, groups, request->metric, request->axis, [&](run::GroupAggregate &&g) {
        without << g.runsWithoutMetric;
        if (json)
            jsonGroups.append(groupJson(g, *request));
        else if (csv)
            writeCsv(out, g, *request);
        else
            writeTable(out, g, *request, labelWidth);
    });
    if (json) {
        QJsonObject o{{u"metric"_s, request->metric},
                      {u"groupBy"_s, request->by ? request->by->text() : QString()},
                      {u"x"_s, request->axis.text()},
                      {u"groups"_s, jsonGroups}};
        out.buffer() += QJsonDocument(o).toJson();
    }
    out.flush();
    if (!without.isEmpty())
        io.err << "ferry runs aggregate: no point of " << request->metric << " in " << without.join(u", "_s)
               << ": left out" << Qt::endl;
    return kExitOk;
}

int importance(const QCommandLineParser &parser, RunContext &context, const QList<run::RunRecord> &runs, Io &io)
{
    const auto metric = run::RunValueSpec::parse(parser.value(u"metric"_s));
    if (!metric)
        return analysisError(u"importance"_s, u"--metric: "_s + metric.error().toString(), io);
    if (!metric->isMetric())
        return analysisError(u"importance"_s, u"--metric: name a metric, not the parameter '%1'"_s.arg(metric->name),
                             io);
    const auto report = run::parameterImportance(*context.store, runs, *metric);
    if (!report)
        return analysisError(u"importance"_s, report.error().toString(), io);
    if (parser.isSet(u"json"_s)) {
        QJsonArray features;
        for (const run::FeatureImportance &f : report->features)
            features.append(QJsonObject{{u"name"_s, f.name},
                                        {u"param"_s, f.param},
                                        {u"category"_s, f.category},
                                        {u"importance"_s, f.importance},
                                        {u"correlation"_s, jsonNumber(f.correlation)},
                                        {u"runs"_s, f.runs}});
        io.out << QJsonDocument(QJsonObject{{u"metric"_s, metric->text()},
                                            {u"runs"_s, report->runs},
                                            {u"features"_s, features},
                                            {u"notes"_s, QJsonArray::fromStringList(report->notes)}})
                      .toJson();
        return kExitOk;
    }
    io.out << "parameter importance for " << metric->text() << " over " << report->runs
           << " runs (a random forest's importance, summing to 1; Pearson's correlation):\n";
    int width = 9;
    for (const run::FeatureImportance &f : report->features)
        width = std::max(width, int(f.name.size()));
    io.out << u"%1  %2  %3"_s.arg(u"PARAMETER"_s, -width).arg(u"IMPORTANCE"_s, 10).arg(u"CORRELATION"_s, 11) << '\n';
    for (const run::FeatureImportance &f : report->features)
        io.out << u"%1  %2  %3"_s.arg(f.name, -width)
                      .arg(QString::number(f.importance, 'f', 3), 10)
                      .arg(std::isnan(f.correlation) ? u"-"_s : QString::number(f.correlation, 'f', 3), 11)
               << '\n';
    for (const QString &note : report->notes)
        io.out << "note: " << note << '\n';
    return kExitOk;
}

} // namespace

void addAnalysisOptions(QCommandLineParser &parser)
{
    parser.addOption({u"group-by"_s, u"aggregate: hp.NAME, tag, tag:PREFIX, sweep or experiment."_s, u"G"_s});
    parser.addOption({u"metric"_s,
                      u"aggregate: the metric; importance: the metric's value (NAME is metrics.NAME.last; also "
                      "metrics.NAME.best, .min, .max, metrics.NAME@STEP)."_s,
                      u"NAME"_s});
    parser.addOption(
        {u"band"_s, u"aggregate: std (mean ± standard deviation) or minmax: low and high columns."_s, u"B"_s});
    parser.addOption({u"x"_s,
                      u"aggregate: the x axis: step (default), time (seconds since start), wall, "
                      "metrics.NAME."_s,
                      u"X"_s});
}

QString analysisUsage()
{
    return u"  ferry runs aggregate ID... --metric M [--group-by hp.NAME|tag|sweep] [--band std|minmax]\n"
           u"                      [--csv | --json]\n"
           u"                                   each group's n, mean, median, std, min, max of M at each\n"
           u"                                   step over its runs (steps aligned, runs interpolated within\n"
           u"                                   their own steps: docs/metrics.md); --csv: step, group, n,\n"
           u"                                   mean, std, min, max (and low, high with --band)\n"
           u"  ferry runs importance ID... --metric M [--json]\n"
           u"                                   each parameter's importance for M (a random forest's) and\n"
           u"                                   its correlation with M over the runs\n"
           u"  (for both, instead of or besides the IDs: --where QUERY)\n"_s;
}

int analyseRuns(const QString &action, const QCommandLineParser &parser, RunContext &context, Io &io)
{
    const auto runs = chosenRuns(action, parser, context, io);
    if (!runs)
        return kExitUserError;
    if (runs->isEmpty())
        return analysisError(action, u"no run matches --where"_s, io);
    return action == "aggregate"_L1 ? aggregate(parser, context, *runs, io) : importance(parser, context, *runs, io);
}

} // namespace ferry::cli
