#include "cli/runsdiff.h"

#include "cli/runsprovenance.h"
#include "metrics/terminaltext.h"
#include "snapshot/snapshot.h"
#include "tracking/rundiff.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

QString valueText(const std::optional<QString> &v)
{
    return v ? *v : u"(none)"_s;
}

QString numberText(const std::optional<double> &v)
{
    return v ? QString::number(*v, 'g', 6) : u"-"_s;
}

QJsonValue jsonOf(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue();
}

QString gitText(const std::optional<snapshot::GitState> &git)
{
    if (!git)
        return u"(not in git)"_s;
    return git->commit.left(12) + (git->branch.isEmpty() ? QString() : u" on "_s + git->branch) +
           (git->dirty ? u", with uncommitted changes"_s : QString());
}

const char *changeName(run::RunDiff::File::Change change)
{
    switch (change) {
    case run::RunDiff::File::Change::Added:
        return "added";
    case run::RunDiff::File::Change::Removed:
        return "removed";
    case run::RunDiff::File::Change::Changed:
        break;
    }
    return "changed";
}

QJsonObject toJson(const run::RunDiff &d, bool all)
{
    QJsonArray parameters;
    for (const auto &p : d.parameters) {
        if (!all && !p.differs())
            continue;
        parameters.append(QJsonObject{{u"name"_s, p.name},
                                      {u"a"_s, p.a ? QJsonValue(*p.a) : QJsonValue()},
                                      {u"b"_s, p.b ? QJsonValue(*p.b) : QJsonValue()},
                                      {u"differs"_s, p.differs()}});
    }
    QJsonArray files;
    for (const auto &f : d.files) {
        QJsonObject file{{u"path"_s, f.path},   {u"change"_s, QString::fromLatin1(changeName(f.change))},
                         {u"text"_s, f.text},   {u"sizeA"_s, f.sizeA},
                         {u"sizeB"_s, f.sizeB}, {u"diff"_s, f.unified}};
        if (f.tooLarge) {
            file[u"tooLarge"_s] = true;
            file[u"linesA"_s] = f.linesA;
            file[u"linesB"_s] = f.linesB;
        }
        files.append(file);
    }
    QJsonArray other;
    for (const auto &[field, change] : d.other)
        other.append(QJsonObject{{u"field"_s, field}, {u"change"_s, change}});
    QJsonArray metrics;
    for (const QString &line : d.environment)
        other.append(QJsonObject{{u"field"_s, u"environment"_s}, {u"change"_s, line}});
    for (const auto &m : d.metrics)
        metrics.append(QJsonObject{{u"name"_s, m.name},
                                   {u"lastA"_s, jsonOf(m.lastA)},
                                   {u"lastB"_s, jsonOf(m.lastB)},
                                   {u"bestA"_s, jsonOf(m.bestA)},
                                   {u"bestB"_s, jsonOf(m.bestB)}});
    QJsonObject json{
        {u"a"_s, d.a},       {u"b"_s, d.b},       {u"parameters"_s, parameters}, {u"codeKnown"_s, d.codeKnown},
        {u"files"_s, files}, {u"other"_s, other}, {u"metrics"_s, metrics}};
    if (!d.codeNote.isEmpty())
        json[u"codeNote"_s] = d.codeNote;
    addProvenanceJson(d, json);
    return json;
}

} // namespace

int diffRuns(RunContext &context, const run::RunRecord &a, const run::RunRecord &b, bool all, bool json, Io &io)
{
    const auto diff = run::diffRuns(*context.store, snapshot::objectsDirFor(context.workspace.runsDir()), a, b);
    if (!diff) {
        io.err << "ferry runs diff: " << diff.error().toString() << Qt::endl;
        return kExitUserError;
    }
    if (json) {
        io.out << QJsonDocument(toJson(*diff, all)).toJson(QJsonDocument::Compact) << Qt::endl;
        return kExitOk;
    }
    // The code's lines, parameters, metric names and the rest come from the runs (one may be
    // imported): printed as a terminal is to show them, no control sequence reaching it (L3).
    QString text;
    QTextStream shown(&text);
    shown << "A: " << a.id << '\n' << "B: " << b.id << '\n';
    QStringList parameterLines;
    for (const auto &p : diff->parameters) {
        if (all || p.differs())
            parameterLines << u"  %1: %2%3"_s.arg(p.name, valueText(p.a),
                                                  p.differs() ? u" → "_s + valueText(p.b) : QString());
    }
    shown << (all ? "parameters:" : "parameters that differ:")
          << (parameterLines.isEmpty() ? u" none"_s : u'\n' + parameterLines.join(u'\n')) << '\n';
    for (const auto &[field, change] : diff->other)
        shown << field << ": " << change << '\n';
    for (const QString &line : diff->environment)
        shown << "  " << line << '\n';
    printProvenanceDiff(*diff, all, shown);
    if (diff->gitA || diff->gitB)
        shown << "git:  A " << gitText(diff->gitA) << "\n      B " << gitText(diff->gitB) << '\n';
    if (!diff->codeKnown)
        shown << "code: " << diff->codeNote << '\n';
    else if (diff->files.isEmpty())
        shown << "code: the same files\n";
    else {
        shown << "code: " << diff->files.size() << (diff->files.size() == 1 ? " file differs" : " files differ")
              << '\n';
        for (const auto &f : diff->files) {
            if (f.tooLarge)
                shown << "  " << f.path << ": " << f.tooLargeNote() << '\n';
            else if (!f.text || f.unified.isEmpty())
                shown << "  " << f.path << ": " << changeName(f.change) << " (" << f.sizeA << " → " << f.sizeB
                      << " bytes" << (f.text ? "" : ", not text") << ")\n";
            else
                shown << f.unified;
        }
    }
    if (!diff->metrics.isEmpty()) {
        shown << "metrics (last; best):\n";
        for (const auto &m : diff->metrics)
            shown << u"  %1: A %2; %3   B %4; %5"_s.arg(m.name, numberText(m.lastA), numberText(m.bestA),
                                                        numberText(m.lastB), numberText(m.bestB))
                  << '\n';
    }
    shown.flush();
    io.out << run::terminalLines(text);
    io.out.flush();
    return kExitOk;
}

} // namespace ferry::cli
