// A sweep spec written back as the sweep file (sweepfile.h: toSweepYaml), and the names of its
// enums.
#include "sweep/sweepfile.h"

#include "common/durationtext.h"
#include "sweep/sweepfilenames.h"

#include "env/yamlsupport.h"

#include <QJsonValue>
#include <QLocale>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace ferry::sweep {

namespace yaml = env::yaml;
using namespace names;

QString methodName(Method method)
{
    return nameOf(kMethods, int(method));
}

QString distributionName(Distribution distribution)
{
    return nameOf(kDistributions, int(distribution));
}

QString stoppingRuleName(StoppingRule rule)
{
    return nameOf(kRules, int(rule));
}

Expected<QJsonObject> targetOptionsFromText(const QString &text)
{
    QJsonObject options;
    for (const QString &pair : text.split(u' ', Qt::SkipEmptyParts)) {
        const qsizetype eq = pair.indexOf(u'=');
        const QString key = pair.left(eq), value = eq < 0 ? QString() : pair.mid(eq + 1);
        const TargetOption *option = findTargetOption(key);
        if (!option)
            return Error{u"'%1' is not a target option"_s.arg(key), {}, 0, 0, u"one of "_s + targetOptionKeys()};
        if (eq < 0 || value.isEmpty())
            return Error{u"target option '%1' has no value"_s.arg(key), {}, 0, 0, u"%1=VALUE"_s.arg(key)};
        const QString name = QString::fromLatin1(option->name);
        if (option->kind == OptionKind::Count) {
            bool ok = false;
            const int n = value.toInt(&ok);
            if (!ok)
                return Error{u"%1 is a whole number, not '%2'"_s.arg(key, value), {}, 0, 0, u"%1=2"_s.arg(key)};
            options.insert(name, n);
        } else if (option->kind == OptionKind::Flag) {
            if (value != u"true"_s && value != u"false"_s)
                return Error{u"%1 is true or false, not '%2'"_s.arg(key, value), {}, 0, 0, u"%1=true"_s.arg(key)};
            options.insert(name, value == u"true"_s);
        } else {
            options.insert(name, value);
        }
    }
    return options;
}

QString targetOptionsText(const QJsonObject &options)
{
    QStringList pairs;
    for (const TargetOption &o : kTargetOptions) {
        const QJsonValue v = options.value(QString::fromLatin1(o.name));
        if (v.isUndefined())
            continue;
        const QString value = o.kind == OptionKind::Count  ? QString::number(v.toInt())
                              : o.kind == OptionKind::Flag ? (v.toBool() ? u"true"_s : u"false"_s)
                                                           : v.toString();
        pairs << QString::fromLatin1(o.key) + u'=' + value;
    }
    return pairs.join(u' ');
}

QString toSweepYaml(const SweepSpec &spec)
{
    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "ferry-sweep" << YAML::Value << kSweepFormatVersion;
    const auto text = [&out](const char *key, const QString &value) {
        if (value.isEmpty())
            return;
        out << YAML::Key << key << YAML::Value;
        yaml::emitString(out, value);
    };
    text("script", spec.script);
    text("environment", spec.environment);
    text("target", spec.target);
    if (!spec.targetOptions.isEmpty()) {
        out << YAML::Key << "target_options" << YAML::Value << YAML::BeginMap;
        for (const TargetOption &o : kTargetOptions) {
            const QJsonValue v = spec.targetOptions.value(QString::fromLatin1(o.name));
            if (v.isUndefined())
                continue;
            out << YAML::Key << o.key << YAML::Value;
            if (o.kind == OptionKind::Count)
                out << v.toInt();
            else if (o.kind == OptionKind::Flag)
                out << (v.toBool() ? "true" : "false");
            else
                yaml::emitString(out, v.toString());
        }
        out << YAML::EndMap;
    }
    if (!spec.arguments.isEmpty()) {
        out << YAML::Key << "arguments" << YAML::Value;
        yaml::emitStrings(out, spec.arguments);
    }
    const auto pairs = [&out](const char *key, const auto &list) {
        if (list.isEmpty())
            return;
        out << YAML::Key << key << YAML::Value << YAML::BeginMap;
        for (const auto &item : list) {
            yaml::emitKey(out, item.name);
            out << YAML::Value;
            if constexpr (requires { item.path; })
                yaml::emitString(out, item.path);
            else
                yaml::emitString(out, item.value);
        }
        out << YAML::EndMap;
    };
    pairs("hyperparameters", spec.fixed);
    pairs("data", spec.data);
    text("method", methodName(spec.method));
    out << YAML::Key << "metric" << YAML::Value << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value;
    yaml::emitString(out, spec.metric);
    out << YAML::Key << "goal" << YAML::Value << nameOf(kGoals, int(spec.goal)).toStdString();
    if (spec.summary != Summary::Last)
        out << YAML::Key << "summary" << YAML::Value << nameOf(kSummaries, int(spec.summary)).toStdString();
    out << YAML::EndMap;
    out << YAML::Key << "parameters" << YAML::Value << YAML::BeginMap;
    for (const Parameter &p : spec.parameters) {
        yaml::emitKey(out, p.name);
        out << YAML::Value << YAML::Flow << YAML::BeginMap;
        if (p.distribution == Distribution::Values) {
            out << YAML::Key << "values" << YAML::Value;
            yaml::emitStrings(out, p.values);
        } else {
            out << YAML::Key << "distribution" << YAML::Value << distributionName(p.distribution).toStdString();
            out << YAML::Key << "min" << YAML::Value
                << QString::number(p.min, 'g', QLocale::FloatingPointShortest).toStdString();
            out << YAML::Key << "max" << YAML::Value
                << QString::number(p.max, 'g', QLocale::FloatingPointShortest).toStdString();
        }
        out << YAML::EndMap;
    }
    out << YAML::EndMap;
    if (spec.maxTrials > 0)
        out << YAML::Key << "max_trials" << YAML::Value << spec.maxTrials;
    out << YAML::Key << "max_parallel" << YAML::Value << spec.maxParallel;
    if (spec.earlyStopping.rule != StoppingRule::None) {
        const EarlyStopping &e = spec.earlyStopping;
        out << YAML::Key << "early_stopping" << YAML::Value << YAML::Flow << YAML::BeginMap;
        out << YAML::Key << "type" << YAML::Value << stoppingRuleName(e.rule).toStdString();
        out << YAML::Key << "min_steps" << YAML::Value << e.minSteps;
        if (e.rule == StoppingRule::Asha)
            out << YAML::Key << "reduction_factor" << YAML::Value
                << QString::number(e.reductionFactor, 'g', QLocale::FloatingPointShortest).toStdString();
        if (e.rule == StoppingRule::Bandit)
            out << YAML::Key << "slack" << YAML::Value
                << QString::number(e.slack, 'g', QLocale::FloatingPointShortest).toStdString();
        out << YAML::EndMap;
    }
    if (spec.budget.any()) {
        out << YAML::Key << "budget" << YAML::Value << YAML::Flow << YAML::BeginMap;
        if (spec.budget.maxCost > 0)
            out << YAML::Key << "max_cost" << YAML::Value
                << QString::number(spec.budget.maxCost, 'g', QLocale::FloatingPointShortest).toStdString();
        if (spec.budget.maxSeconds > 0)
            out << YAML::Key << "max_time" << YAML::Value << clockText(spec.budget.maxSeconds).toStdString();
        out << YAML::EndMap;
    }
    out << YAML::Key << "seed" << YAML::Value << spec.seed;
    out << YAML::EndMap;
    return yaml::toText(out);
}

} // namespace ferry::sweep
