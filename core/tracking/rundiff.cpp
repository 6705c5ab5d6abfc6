#include "tracking/rundiff.h"

#include "common/linediff.h"
#include "env/environmentdiff.h"
#include "env/environmentfile.h"
#include "run/hostfacts.h"
#include "targets/containertarget.h"

#include <QRegularExpression>
#include <QSet>

#include <cmath>
#include <new>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qint64 kMostDiffBytes = 1 << 20; // a file larger than this is said to differ, not shown

bool looksText(const QByteArray &bytes)
{
    return !bytes.left(8192).contains('\0');
}

QStringList linesOf(const QByteArray &bytes)
{
    QStringList lines = QString::fromUtf8(bytes).split(u'\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

Expected<void> diffCode(RunDiff &diff, const QString &objectsDir, const RunSpec &a, const RunSpec &b)
{
    // The embedded trainer's runs have no code of their own: their settings are their parameters.
    if (a.target.kind == TargetKind::Embedded || b.target.kind == TargetKind::Embedded) {
        const RunSpec &embedded = a.target.kind == TargetKind::Embedded ? a : b;
        diff.codeNote = u"run %1 is a training of Ferry's embedded trainer: it has no code of its own to compare "
                        u"(its settings are its parameters)"_s.arg(embedded.id);
        return {};
    }
    if (!a.snapshot || !b.snapshot || a.snapshot->tree.isEmpty() || b.snapshot->tree.isEmpty()) {
        diff.codeNote = (!a.snapshot || a.snapshot->tree.isEmpty() ? u"run %1"_s.arg(a.id) : u"run %1"_s.arg(b.id)) +
                        u" has no snapshot of its code (started before Ferry kept them, or it could not be taken)"_s;
        return {};
    }
    diff.codeKnown = true;
    if (a.snapshot->tree == b.snapshot->tree)
        return {};
    const snapshot::ObjectStore objects(objectsDir);
    const auto filesA = objects.files(a.snapshot->tree);
    const auto filesB = objects.files(b.snapshot->tree);
    if (!filesA)
        return filesA.error();
    if (!filesB)
        return filesB.error();
    QStringList paths = filesA->keys() + filesB->keys();
    paths.removeDuplicates();
    paths.sort();
    for (const QString &path : paths) {
        const auto ea = filesA->constFind(path), eb = filesB->constFind(path);
        const bool inA = ea != filesA->constEnd(), inB = eb != filesB->constEnd();
        if (inA && inB && ea->hash == eb->hash && ea->type == eb->type)
            continue;
        RunDiff::File file;
        file.path = path;
        file.change = !inA   ? RunDiff::File::Change::Added
                      : !inB ? RunDiff::File::Change::Removed
                             : RunDiff::File::Change::Changed;
        file.sizeA = inA ? ea->size : 0;
        file.sizeB = inB ? eb->size : 0;
        QByteArray bytesA, bytesB;
        const bool kept = (!inA || ea->type != 'b') && (!inB || eb->type != 'b');
        if (kept && std::max(file.sizeA, file.sizeB) <= kMostDiffBytes) {
            if (inA) {
                const auto got = objects.get(ea->hash);
                if (!got)
                    return got.error();
                bytesA = *got;
            }
            if (inB) {
                const auto got = objects.get(eb->hash);
                if (!got)
                    return got.error();
                bytesB = *got;
            }
            file.text = looksText(bytesA) && looksText(bytesB);
            if (file.text) {
                const QStringList linesA = linesOf(bytesA), linesB = linesOf(bytesB);
                const auto unified = unifiedDiff(linesA, linesB, inA ? u"a/"_s + path : u"/dev/null"_s,
                                                 inB ? u"b/"_s + path : u"/dev/null"_s);
                file.unified = unified.value_or(QString());
                file.tooLarge = !unified;
                file.linesA = linesA.size();
                file.linesB = linesB.size();
            }
        } else {
            file.text = false;
        }
        diff.files << file;
    }
    return {};
}

// Each channel of either run, matched by name (a rename is a removed and an added channel).
void diffData(RunDiff &diff, const RunSpec &specA, const RunSpec &specB)
{
    const auto find = [](const RunSpec &spec, const QString &channel) -> const snapshot::DataFingerprint * {
        for (const snapshot::DataFingerprint &d : spec.data) {
            if (d.channel == channel)
                return &d;
        }
        return nullptr;
    };
    QStringList channels;
    for (const RunSpec *spec : {&specA, &specB}) {
        for (const snapshot::DataFingerprint &d : spec->data) {
            if (!channels.contains(d.channel))
                channels << d.channel;
        }
    }
    for (const QString &channel : channels) {
        RunDiff::Data entry;
        entry.channel = channel;
        const snapshot::DataFingerprint *a = find(specA, channel), *b = find(specB, channel);
        if (a) {
            entry.pathA = a->path;
            entry.bytesA = a->bytes;
            entry.filesA = a->files;
            entry.fingerprintA = a->fingerprint;
        }
        if (b) {
            entry.pathB = b->path;
            entry.bytesB = b->bytes;
            entry.filesB = b->files;
            entry.fingerprintB = b->fingerprint;
        }
        entry.same = a && b && a->sameData(*b);
        diff.data << entry;
    }
}

// The host facts of each run's folder, and its container image's id.
void diffHost(RunDiff &diff, const QString &runsDir, const RunRecord &a, const RunRecord &b)
{
    const std::optional<HostFacts> hostA = readHostFacts(runsDir + u'/' + a.id);
    const std::optional<HostFacts> hostB = readHostFacts(runsDir + u'/' + b.id);
    if (hostA || hostB) {
        const auto fieldsA = hostA ? hostA->fields() : QList<std::pair<QString, QString>>{};
        const auto fieldsB = hostB ? hostB->fields() : QList<std::pair<QString, QString>>{};
        const auto fields = fieldsA.isEmpty() ? fieldsB : fieldsA;
        for (qsizetype i = 0; i < fields.size(); ++i)
            diff.host << RunDiff::HostField{fields.at(i).first, fieldsA.isEmpty() ? QString() : fieldsA.at(i).second,
                                            fieldsB.isEmpty() ? QString() : fieldsB.at(i).second};
    }
    const QString imageA = targets::ContainerTarget::readRecord(runsDir + u'/' + a.id).value(u"imageId"_s).toString();
    const QString imageB = targets::ContainerTarget::readRecord(runsDir + u'/' + b.id).value(u"imageId"_s).toString();
    if (!imageA.isEmpty() || !imageB.isEmpty())
        diff.host << RunDiff::HostField{u"image"_s, imageA, imageB};
}

} // namespace

QString RunDiff::File::tooLargeNote() const
{
    return u"differs, too large to show (%1 and %2 lines)"_s.arg(linesA).arg(linesB);
}

Error notEnoughMemoryToCompare(const QStringList &runIds)
{
    return Error{u"not enough memory to compare runs %1"_s.arg(runIds.join(u", "_s)),
                 {},
                 0,
                 0,
                 u"close other programs, or compare them on a machine with more free memory"_s};
}

MetricDirection metricDirection(const QString &name)
{
    static const QStringList higher{u"acc"_s, u"accuracy"_s, u"f1"_s,    u"auc"_s, u"precision"_s, u"recall"_s,
                                    u"map"_s, u"bleu"_s,     u"rouge"_s, u"iou"_s, u"dice"_s,      u"r2"_s};
    // A rate of work done (samples_per_s, tokens/sec, it/s, throughput, fps): more is better. Not
    // a time per piece of work (ms_per_step, time_per_sample): less is.
    static const QRegularExpression rate(u"(per_?s(ec(ond)?)?|/s(ec(ond)?)?)$|throughput|(^|[_/.])(fps|speed)"_s);
    static const QRegularExpression lower(
        u"loss|err|mse|mae|rmse|nll|perplexity|(^|[_/.])ppl|wer|cer|(^|[_/.])(time|latency|seconds?|ms)($|[_/.])|"
        u"_per_(step|sample|batch|epoch)"_s);
    const QString lowered = name.toLower();
    if (std::any_of(higher.cbegin(), higher.cend(), [&](const QString &h) { return lowered.contains(h); }) ||
        rate.match(lowered).hasMatch())
        return MetricDirection::Higher;
    return lower.match(lowered).hasMatch() ? MetricDirection::Lower : MetricDirection::Unknown;
}

bool higherIsBetter(const QString &name)
{
    return metricDirection(name) == MetricDirection::Higher;
}

std::optional<double> bestOf(const std::vector<SeriesPoint> &points, bool higher)
{
    std::optional<double> best;
    for (const SeriesPoint &p : points) {
        if (std::isfinite(p.value) && (!best || (higher ? p.value > *best : p.value < *best)))
            best = p.value;
    }
    return best;
}

static Expected<RunDiff> compareRuns(const RunStore &store, const QString &objectsDir, const RunRecord &a,
                                     const RunRecord &b)
{
    const auto specA = RunSpec::fromJson(a.spec);
    const auto specB = RunSpec::fromJson(b.spec);
    if (!specA)
        return withContext(u"run "_s + a.id, specA.error());
    if (!specB)
        return withContext(u"run "_s + b.id, specB.error());
    RunDiff diff;
    diff.a = a.id;
    diff.b = b.id;
    // Parameters: A's in its order, then those only B has.
    QSet<QString> seen;
    for (const Hyperparameter &h : specA->hyperparameters) {
        RunDiff::Parameter p{h.name, h.value, std::nullopt};
        for (const Hyperparameter &o : specB->hyperparameters) {
            if (o.name == h.name)
                p.b = o.value;
        }
        diff.parameters << p;
        seen.insert(h.name);
    }
    for (const Hyperparameter &h : specB->hyperparameters) {
        if (!seen.contains(h.name))
            diff.parameters << RunDiff::Parameter{h.name, std::nullopt, h.value};
    }
    if (const auto code = diffCode(diff, objectsDir, *specA, *specB); !code)
        return code.error();
    if (specA->snapshot && specA->snapshot->git.repository)
        diff.gitA = specA->snapshot->git;
    if (specB->snapshot && specB->snapshot->git.repository)
        diff.gitB = specB->snapshot->git;
    const auto other = [&](const QString &field, const QString &va, const QString &vb) {
        if (va != vb)
            diff.other.append(
                {field, u"%1 → %2"_s.arg(va.isEmpty() ? u"(none)"_s : va, vb.isEmpty() ? u"(none)"_s : vb)});
    };
    other(u"script"_s, specA->script, specB->script);
    other(u"arguments"_s, specA->arguments.join(u' '), specB->arguments.join(u' '));
    other(u"target"_s, specA->target.toString(), specB->target.toString());
    other(u"environment"_s, specA->environmentTag, specB->environmentTag);
    if (!specA->environmentSpec.isEmpty() && !specB->environmentSpec.isEmpty()) {
        const env::EnvironmentRead ea = env::parseEnvironmentYaml(specA->environmentSpec, u"run "_s + a.id);
        const env::EnvironmentRead eb = env::parseEnvironmentYaml(specB->environmentSpec, u"run "_s + b.id);
        for (const env::EnvironmentChange &c : env::diffEnvironments(ea.environment, eb.environment)) {
            QString what;
            if (c.kind == env::EnvironmentChange::Kind::Added)
                what = c.after;
            else if (c.kind == env::EnvironmentChange::Kind::Removed)
                what = c.before;
            else
                what = c.before + u" → "_s + c.after;
            diff.environment << u"%1 %2: %3 %4"_s.arg(c.section, c.key, env::changeKindName(c.kind), what);
        }
    }
    other(u"Ferry"_s, specA->ferryVersion, specB->ferryVersion);
    other(u"interpreter"_s, specA->interpreter, specB->interpreter);
    QStringList channelsA, channelsB;
    for (const DataChannel &c : specA->channels)
        channelsA << c.name + u'=' + c.path;
    for (const DataChannel &c : specB->channels)
        channelsB << c.name + u'=' + c.path;
    other(u"data"_s, channelsA.join(u", "_s), channelsB.join(u", "_s));
    diffData(diff, *specA, *specB);
    diffHost(diff, snapshot::runsDirFor(objectsDir), a, b);
    // Metrics: every name either run has, last and best of each.
    QStringList names = store.metricNames(a.id) + store.metricNames(b.id);
    names.removeDuplicates();
    names.sort();
    const QMap<QString, double> lastA = store.lastValues(a.id), lastB = store.lastValues(b.id);
    for (const QString &name : names) {
        if (name.startsWith(u"system/"_s))
            continue;
        RunDiff::Metric m{name, {}, {}, {}, {}};
        if (lastA.contains(name))
            m.lastA = lastA.value(name);
        if (lastB.contains(name))
            m.lastB = lastB.value(name);
        const bool higher = higherIsBetter(name);
        m.bestA = bestOf(store.series(a.id, name), higher);
        m.bestB = bestOf(store.series(b.id, name), higher);
        diff.metrics << m;
    }
    return diff;
}

Expected<RunDiff> diffRuns(const RunStore &store, const QString &objectsDir, const RunRecord &a, const RunRecord &b)
{
    try {
        return compareRuns(store, objectsDir, a, b);
    } catch (const std::bad_alloc &) {
        return notEnoughMemoryToCompare({a.id, b.id});
    }
}

} // namespace ferry::run
