#include "run/runspec.h"

#include "common/durationtext.h"
#include "metrics/metricparser.h"
#include "run/distribution.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

const char16_t *kindName(TargetKind kind)
{
    switch (kind) {
    case TargetKind::Container:
        return u"container";
    case TargetKind::Ssh:
        return u"ssh";
    case TargetKind::Slurm:
        return u"slurm";
    case TargetKind::Embedded:
        return u"embedded";
    case TargetKind::Local:
        break;
    }
    return u"local";
}

} // namespace

QString TargetSpec::toString() const
{
    const QString kindText = QString::fromUtf16(kindName(kind));
    return host.isEmpty() ? kindText : kindText + u':' + host;
}

Expected<TargetSpec> TargetSpec::parse(const QString &text)
{
    TargetSpec spec;
    const qsizetype colon = text.indexOf(u':');
    const QString kindText = colon < 0 ? text : text.left(colon);
    spec.host = colon < 0 ? QString() : text.mid(colon + 1);
    for (const TargetKind kind :
         {TargetKind::Local, TargetKind::Container, TargetKind::Ssh, TargetKind::Slurm, TargetKind::Embedded}) {
        if (kindText == QString::fromUtf16(kindName(kind)))
            spec.kind = kind;
    }
    if (spec.toString().section(u':', 0, 0) != kindText)
        return Error{u"unknown target '%1'"_s.arg(text), {}, 0, 0, u"use local, container, ssh:HOST or slurm:HOST"_s};
    const bool remote = spec.onHost();
    if (remote && spec.host.isEmpty())
        return Error{u"target '%1' needs a host"_s.arg(text), {}, 0, 0, u"write %1:HOST"_s.arg(kindText)};
    if (!remote && !spec.host.isEmpty())
        return Error{u"target '%1' takes no host"_s.arg(kindText), {}, 0, 0, u"write just %1"_s.arg(kindText)};
    if (remote) {
        if (const auto named = hostNameProblem(spec.host); !named) {
            Error problem = named.error();
            problem.message = u"target '%1': %2"_s.arg(text, problem.message);
            return problem;
        }
    }
    return spec;
}

Expected<void> hostNameProblem(const QString &host)
{
    // ssh gets the host after `--`, but rsync passes it without (review L2): a leading '-'
    // would be an option to ssh there, and blanks would split it into more words.
    const QString hint = u"write the host as ssh knows it, e.g. gpu1 or user@gpu1.example.org"_s;
    if (host.isEmpty())
        return Error{u"no host name"_s, {}, 0, 0, hint};
    if (host.startsWith(u'-'))
        return Error{u"the host name '%1' starts with '-'"_s.arg(host), {}, 0, 0, hint};
    for (const QChar c : host) {
        if (c.isSpace() || c.category() == QChar::Other_Control || c.category() == QChar::Other_Format) {
            QString shown = host;
            for (QChar &d : shown)
                d = d.isPrint() ? d : u'?';
            return Error{u"the host name '%1' holds a blank or a control character (U+%2)"_s.arg(shown).arg(
                             static_cast<uint>(c.unicode()), 4, 16, QChar(u'0')),
                         {},
                         0,
                         0,
                         hint};
        }
    }
    return {};
}

qint64 RunBudget::limitSeconds() const
{
    const qint64 time = maxSeconds > 0 ? maxSeconds : 0;
    const qint64 money = maxCost > 0 && costSeconds > 0 ? costSeconds : 0;
    if (time > 0 && money > 0)
        return std::min(time, money);
    return std::max(time, money);
}

qint64 RunBudget::warningMs() const
{
    return qRound64(static_cast<double>(limitSeconds() * 1000) * kBudgetWarningShare);
}

namespace {

// The amount as the budget's messages show it (the catalog's currency; cost/money.h is above run).
QString budgetAmountText(double amount)
{
    return u"%1 USD"_s.arg(amount, 0, 'f', amount > 0 && amount < 0.01 ? 4 : 2);
}

} // namespace

namespace {

// The cap reached first and, for a money cap, the time it buys: {"max-time 0:00:05", ""}, {"max-cost
// 0.50 USD", "0:10:00 at 3.00 USD/h"}.
std::pair<QString, QString> firstCap(const RunBudget &b)
{
    const bool moneyFirst = b.maxCost > 0 && b.costSeconds > 0 && (b.maxSeconds <= 0 || b.costSeconds < b.maxSeconds);
    if (!moneyFirst)
        return {u"max-time "_s + clockText(b.maxSeconds), QString()};
    return {u"max-cost "_s + budgetAmountText(b.maxCost),
            u"%1 at %2/h"_s.arg(clockText(b.costSeconds), budgetAmountText(b.perHour))};
}

} // namespace

QString RunBudget::capText() const
{
    const auto [cap, buys] = firstCap(*this);
    return buys.isEmpty() ? cap : u"%1 (%2)"_s.arg(cap, buys);
}

QString RunBudget::reachedText() const
{
    const auto [cap, buys] = firstCap(*this);
    return buys.isEmpty() ? u"budget: %1 reached"_s.arg(cap) : u"budget: %1 reached (%2)"_s.arg(cap, buys);
}

QString RunBudget::warningText() const
{
    return u"%1 % of the budget used: %2"_s.arg(qRound(kBudgetWarningShare * 100)).arg(capText());
}

QJsonObject RunBudget::toJson() const
{
    QJsonObject json{{u"graceSeconds"_s, graceSeconds}};
    if (maxSeconds > 0)
        json[u"maxSeconds"_s] = maxSeconds;
    if (maxCost > 0) {
        json[u"maxCost"_s] = maxCost;
        json[u"costSeconds"_s] = costSeconds;
        json[u"perHour"_s] = perHour;
    }
    return json;
}

RunBudget RunBudget::fromJson(const QJsonObject &json)
{
    // A spec.json is written by Ferry, but read by the supervisor: values out of range are no cap.
    const auto seconds = [&json](const QString &key) {
        const double v = json.value(key).toDouble();
        return std::isfinite(v) && v > 0 && v < 1e12 ? static_cast<qint64>(v) : qint64(0);
    };
    const auto amount = [&json](const QString &key) {
        const double v = json.value(key).toDouble();
        return std::isfinite(v) && v > 0 ? v : 0.0;
    };
    RunBudget budget;
    budget.maxSeconds = seconds(u"maxSeconds"_s);
    budget.maxCost = amount(u"maxCost"_s);
    budget.costSeconds = seconds(u"costSeconds"_s);
    budget.perHour = amount(u"perHour"_s);
    const int grace = json.value(u"graceSeconds"_s).toInt(kDefaultGraceSeconds);
    budget.graceSeconds = std::clamp(grace, 0, 24 * 3600);
    return budget;
}

QJsonObject RunSpec::toJson() const
{
    QJsonArray hps;
    for (const Hyperparameter &hp : hyperparameters)
        hps.append(QJsonObject{{u"name"_s, hp.name}, {u"value"_s, hp.value}});
    QJsonArray channelList;
    for (const DataChannel &c : channels)
        channelList.append(QJsonObject{{u"name"_s, c.name}, {u"path"_s, c.path}});
    QJsonArray metrics;
    for (const MetricDefinition &m : metricDefinitions)
        metrics.append(QJsonObject{{u"Name"_s, m.name}, {u"Regex"_s, m.regex}});
    QJsonObject json{
        {u"format"_s, 1},
        {u"id"_s, id},
        {u"script"_s, script},
        {u"sourceDir"_s, sourceDir},
        {u"arguments"_s, QJsonArray::fromStringList(arguments)},
        {u"hyperparameters"_s, hps},
        {u"channels"_s, channelList},
        {u"environmentFile"_s, environmentFile},
        {u"environmentTag"_s, environmentTag},
        {u"interpreter"_s, interpreter},
        {u"variables"_s,
         [this] {
             QJsonArray list; // an array: order is kept
             for (const auto &[name, value] : variables)
                 list.append(QJsonObject{{u"name"_s, name}, {u"value"_s, value}});
             return list;
         }()},
        {u"secretVariables"_s,
         [this] {
             QJsonArray list; // names only: never a value
             for (const auto &[name, secret] : secretVariables)
                 list.append(QJsonObject{{u"name"_s, name}, {u"secret"_s, secret}});
             return list;
         }()},
        {u"target"_s, QJsonObject{{u"kind"_s, QString::fromUtf16(kindName(target.kind))},
                                  {u"host"_s, target.host},
                                  {u"options"_s, target.options}}},
        {u"metricDefinitions"_s, metrics},
    };
    if (!sweep.isEmpty())
        json[u"sweep"_s] = QJsonObject{{u"id"_s, sweep}, {u"trial"_s, trial}};
    if (snapshot)
        json[u"snapshot"_s] = snapshot->toJson();
    if (!rerunOf.isEmpty())
        json[u"rerunOf"_s] = rerunOf;
    if (!notebook.isEmpty())
        json[u"notebook"_s] =
            QJsonObject{{u"path"_s, notebook}, {u"cells"_s, QJsonArray::fromStringList(notebookCells)}};
    if (isKernel())
        json[u"keeperArguments"_s] = QJsonArray::fromStringList(keeperArguments);
    if (!imported.isEmpty())
        json[u"imported"_s] = imported;
    if (budget.any())
        json[u"budget"_s] = budget.toJson();
    if (!rate.isEmpty())
        json[u"rate"_s] = rate;
    if (!environmentSpec.isEmpty())
        json[u"environmentSpec"_s] = environmentSpec;
    if (!ferryVersion.isEmpty())
        json[u"ferryVersion"_s] = ferryVersion;
    if (!data.isEmpty()) {
        QJsonArray list;
        for (const snapshot::DataFingerprint &d : data)
            list.append(d.toJson());
        json[u"data"_s] = list;
    }
    return json;
}

snapshot::SourceExcludes sourceExcludes(const RunSpec &spec)
{
    QStringList patterns;
    for (const QJsonValue &v : spec.target.options.value(u"exclude"_s).toArray())
        patterns << v.toString();
    // Runs on this machine's Slurm kept inside the source folder (slurm:local --remote-dir ./runs):
    // those runs are not the code (the upload would copy that folder into itself, the snapshot
    // every run before it).
    const QString root = QDir::cleanPath(spec.target.options.value(u"remoteDir"_s).toString());
    if (spec.target.kind == TargetKind::Slurm && spec.target.host == u"local"_s && QDir::isAbsolutePath(root) &&
        !spec.sourceDir.isEmpty()) {
        const QString inside = QDir(QDir::cleanPath(spec.sourceDir)).relativeFilePath(root);
        if (inside != u"."_s && !inside.startsWith(u"../"_s) && inside != u".."_s && !QDir::isAbsolutePath(inside))
            patterns << u'/' + inside;
    }
    return snapshot::SourceExcludes(patterns);
}

Expected<RunSpec> RunSpec::fromJson(const QJsonObject &json)
{
    if (json[u"format"_s].toInt() != 1)
        return Error{u"unknown run spec format"_s, {}, 0, 0, u"this run was made by another Ferry version"_s};
    RunSpec spec;
    spec.id = json[u"id"_s].toString();
    spec.script = json[u"script"_s].toString();
    spec.sourceDir = json[u"sourceDir"_s].toString();
    for (const QJsonValue &v : json[u"arguments"_s].toArray()) // absent in runs of earlier Ferry versions
        spec.arguments << v.toString();
    for (const QJsonValue &v : json[u"hyperparameters"_s].toArray())
        spec.hyperparameters << Hyperparameter{v[u"name"_s].toString(), v[u"value"_s].toString()};
    for (const QJsonValue &v : json[u"channels"_s].toArray())
        spec.channels << DataChannel{v[u"name"_s].toString(), v[u"path"_s].toString()};
    spec.environmentFile = json[u"environmentFile"_s].toString();
    spec.environmentTag = json[u"environmentTag"_s].toString();
    spec.interpreter = json[u"interpreter"_s].toString(u"python3"_s);
    for (const QJsonValue &v : json[u"variables"_s].toArray())
        spec.variables.append({v[u"name"_s].toString(), v[u"value"_s].toString()});
    for (const QJsonValue &v : json[u"secretVariables"_s].toArray())
        spec.secretVariables.append({v[u"name"_s].toString(), v[u"secret"_s].toString()});
    const QJsonObject target = json[u"target"_s].toObject();
    const QString targetText =
        target[u"kind"_s].toString() +
        (target[u"host"_s].toString().isEmpty() ? QString() : u':' + target[u"host"_s].toString());
    const auto parsed = TargetSpec::parse(targetText);
    if (!parsed)
        return parsed.error();
    spec.target = *parsed;
    spec.target.options = target[u"options"_s].toObject();
    for (const QJsonValue &v : json[u"metricDefinitions"_s].toArray())
        spec.metricDefinitions << MetricDefinition{v[u"Name"_s].toString(), v[u"Regex"_s].toString()};
    if (const QJsonObject taken = json[u"snapshot"_s].toObject(); !taken.isEmpty())
        spec.snapshot = snapshot::Snapshot::fromJson(taken);
    spec.rerunOf = json[u"rerunOf"_s].toString();
    spec.notebook = json[u"notebook"_s][u"path"_s].toString();
    for (const QJsonValue &cell : json[u"notebook"_s][u"cells"_s].toArray())
        spec.notebookCells << cell.toString();
    for (const QJsonValue &v : json[u"keeperArguments"_s].toArray())
        spec.keeperArguments << v.toString();
    spec.imported = json[u"imported"_s].toObject();
    spec.budget = RunBudget::fromJson(json[u"budget"_s].toObject());
    spec.rate = json[u"rate"_s].toObject();
    spec.environmentSpec = json[u"environmentSpec"_s].toString();
    spec.ferryVersion = json[u"ferryVersion"_s].toString();
    for (const QJsonValue &v : json[u"data"_s].toArray()) // absent in runs of earlier Ferry versions
        spec.data << snapshot::DataFingerprint::fromJson(v.toObject());
    if (const QJsonObject sweep = json[u"sweep"_s].toObject(); !sweep.isEmpty()) {
        spec.sweep = sweep[u"id"_s].toString();
        spec.trial = sweep[u"trial"_s].toInt(-1);
    }
    if (spec.id.isEmpty() || (spec.script.isEmpty() && spec.target.kind != TargetKind::Embedded && !spec.isKernel()))
        return Error{u"run spec without id or script"_s, {}, 0, 0, {}};
    return spec;
}

QList<snapshot::DataFingerprint> fingerprintChannels(const QList<DataChannel> &channels)
{
    QList<snapshot::DataFingerprint> data;
    for (const DataChannel &c : channels)
        data << snapshot::fingerprintData(c.name, c.path);
    return data;
}

QString newRunId(const QString &script)
{
    QString stem = QFileInfo(script).completeBaseName().toLower();
    static const QRegularExpression invalid(u"[^a-z0-9]+"_s);
    stem.replace(invalid, u"-"_s);
    stem = stem.left(24);
    if (stem.isEmpty())
        stem = u"run"_s;
    const QString suffix = QString::number(QRandomGenerator::global()->bounded(0x10000), 16).rightJustified(4, u'0');
    return QDateTime::currentDateTimeUtc().toString(u"yyyyMMdd-HHmmss"_s) + u'-' + stem + u'-' + suffix;
}

QList<Error> validateRunSpec(const RunSpec &spec, SpecChecks checks)
{
    const bool paths = checks == SpecChecks::NamesAndPaths;
    QList<Error> errors;
    static const QRegularExpression channelName(u"^[a-z0-9][a-z0-9_-]{0,63}$"_s);
    static const QRegularExpression hpName(u"^[A-Za-z_][A-Za-z0-9_-]{0,127}$"_s);
    const QFileInfo script(QDir(spec.sourceDir).filePath(spec.script));
    if (paths && spec.target.kind != TargetKind::Embedded && !spec.isKernel() && !script.isFile())
        errors << Error{u"no such script"_s, script.filePath(), 0, 0,
                        u"check the path; it is relative to the source folder"_s};
    // Wherever the spec came from (the launch dialog, a copied spec.json), its host is checked.
    if (spec.target.onHost()) {
        if (const auto named = hostNameProblem(spec.target.host); !named)
            errors << named.error();
    }
    // A run across nodes only where it can run (a Slurm cluster), with counts that make sense.
    if (const auto distribution = Distribution::of(spec.target); !distribution)
        errors << distribution.error();
    QStringList seen;
    for (const DataChannel &c : spec.channels) {
        if (!channelName.match(c.name).hasMatch())
            errors << Error{u"channel name '%1' is not allowed"_s.arg(c.name),
                            {},
                            0,
                            0,
                            u"use lower-case letters, digits, '-' and '_', e.g. training"_s};
        if (seen.contains(c.name))
            errors << Error{u"channel '%1' is given twice"_s.arg(c.name), {}, 0, 0, u"give each channel once"_s};
        seen << c.name;
        if (paths && !QFileInfo::exists(c.path))
            errors << Error{u"data for channel '%1' does not exist"_s.arg(c.name), c.path, 0, 0, u"check the path"_s};
    }
    // Data already on the host (target option remoteChannels): named like channels, and a path
    // that reaches docker's --mount as one value (a ',' would add mount options, review L10).
    const QJsonObject remoteChannels = spec.target.options.value(u"remoteChannels"_s).toObject();
    for (auto it = remoteChannels.begin(); it != remoteChannels.end(); ++it) {
        const QString path = it.value().toString();
        if (!channelName.match(it.key()).hasMatch())
            errors << Error{u"channel name '%1' (data on the host) is not allowed"_s.arg(it.key()),
                            {},
                            0,
                            0,
                            u"use lower-case letters, digits, '-' and '_', e.g. training"_s};
        else if (seen.contains(it.key()))
            errors << Error{u"channel '%1' is given twice"_s.arg(it.key()), {}, 0, 0, u"give each channel once"_s};
        seen << it.key();
        static const QRegularExpression unsafePath(u"[,\\x00-\\x1f\\x7f]"_s);
        if (!path.startsWith(u'/') || unsafePath.match(path).hasMatch())
            errors << Error{u"the data of channel '%1' on the host, '%2', is not an absolute path without ',' or "
                            "control characters"_s.arg(it.key(), path),
                            {},
                            0,
                            0,
                            u"write NAME=/absolute/path/on/the/host"_s};
    }
    static const QRegularExpression variableName(u"^[A-Za-z_][A-Za-z0-9_]{0,127}$"_s);
    for (const auto &[variable, secret] : spec.secretVariables) {
        if (!variableName.match(variable).hasMatch())
            errors << Error{u"'%1' cannot name an environment variable"_s.arg(variable),
                            {},
                            0,
                            0,
                            u"use letters, digits and '_', not starting with a digit"_s};
        if (spec.target.kind == TargetKind::Embedded)
            errors << Error{u"secret variable %1: the embedded trainer runs no script to give it to"_s.arg(variable),
                            {},
                            0,
                            0,
                            u"run a script on the local, container, ssh or slurm target"_s};
        if (secret.isEmpty())
            errors << Error{u"secret variable %1 names no keychain secret"_s.arg(variable),
                            {},
                            0,
                            0,
                            u"give the name of a keychain secret (ferry secret set NAME)"_s};
    }
    // Metric definitions as the log parser takes them: at most 64, names and regexes of bounded
    // length, regexes that compile with a capture group (metrics/metricparser.h).
    errors << MetricParser(spec.metricDefinitions).definitionErrors();
    QStringList hpSeen;
    for (const Hyperparameter &hp : spec.hyperparameters) {
        if (!hpName.match(hp.name).hasMatch())
            errors << Error{u"hyperparameter name '%1' is not allowed"_s.arg(hp.name),
                            {},
                            0,
                            0,
                            u"use letters, digits, '-' and '_', not starting with a digit"_s};
        if (hpSeen.contains(hp.name))
            errors << Error{u"hyperparameter '%1' is given twice"_s.arg(hp.name), {}, 0, 0, u"give it once"_s};
        hpSeen << hp.name;
    }
    return errors;
}

} // namespace ferry::run
