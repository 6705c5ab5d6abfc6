#include "sweep/sweepfile.h"

#include "common/durationtext.h"
#include "sweep/sweepfilenames.h"

#include "common/closestname.h"
#include "common/textfile.h"
#include "env/yamlsupport.h"
#include "run/distribution.h"

#include <QFile>
#include <QLocale>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

using namespace Qt::StringLiterals;

namespace ferry::sweep {

namespace yaml = env::yaml;
using namespace names;

namespace {

// Far beyond any real search space, short of what a crafted file could make us hold.
constexpr int kMaxParameters = 64;
constexpr int kMaxValues = 10000;
constexpr int kMaxTrials = 100000;
constexpr qint64 kMaxGrid = 1000000;

const QStringList kTopKeys = {u"ferry-sweep"_s,
                              u"script"_s,
                              u"environment"_s,
                              u"env"_s,
                              u"target"_s,
                              u"arguments"_s,
                              u"hyperparameters"_s,
                              u"data"_s,
                              u"method"_s,
                              u"metric"_s,
                              u"parameters"_s,
                              u"max_trials"_s,
                              u"max_parallel"_s,
                              u"early_stopping"_s,
                              u"seed"_s,
                              u"target_options"_s,
                              u"budget"_s};

// Each key of `map` not in `known`, as its key node (where a message points).
QList<YAML::Node> unknown(const YAML::Node &map, const QStringList &known)
{
    QList<YAML::Node> keys;
    if (!map.IsMap())
        return keys;
    for (const auto &entry : map) {
        if (!known.contains(yaml::scalar(entry.first)))
            keys << entry.first;
    }
    return keys;
}

// "; did you mean 'max_trials'?" when an unknown key or name is a near miss of a known one.
QString nearMiss(const QString &word, const QStringList &known)
{
    const QString close = closestName(word, known);
    return close.isEmpty() ? QString() : u"; did you mean '%1'?"_s.arg(close);
}
QString nearMiss(const YAML::Node &key, const QStringList &known)
{
    return nearMiss(yaml::scalar(key), known);
}

// An option name the script can take as --name: letters, digits, '-', '_' and '.'.
bool isOptionName(const QString &name)
{
    static const QRegularExpression pattern(u"^[A-Za-z_][A-Za-z0-9_.-]*$"_s);
    return pattern.match(name).hasMatch();
}

class SweepReader {
public:
    SweepReader(yaml::Reader &r, SweepSpec &spec, const YAML::Node &root) : m_root(root), m_r(r), m_spec(spec) {}

    void read()
    {
        const YAML::Node &node = m_root;
        version(node);
        m_spec.script = m_r.string(node["script"], u"script"_s);
        if (m_spec.script.isEmpty())
            m_r.error(node["script"] ? node["script"] : node, u"a sweep needs the script its trials run"_s,
                      u"add 'script: train.py' (relative to the workspace)"_s);
        environment(node);
        if (node["target"]) {
            m_spec.target = m_r.string(node["target"], u"target"_s);
            if (const auto target = run::TargetSpec::parse(m_spec.target); !target)
                m_r.error(node["target"], target.error().message, u"local, container, ssh:HOST or slurm:HOST"_s);
        }
        targetOptions(node["target_options"]);
        distribution(node["target_options"]);
        m_spec.arguments = m_r.strings(node["arguments"], u"arguments"_s);
        fixed(node["hyperparameters"]);
        data(node["data"]);
        method(node["method"]);
        metric(node, node["metric"]);
        parameters(node["parameters"]);
        m_spec.maxTrials = whole(node["max_trials"], u"max_trials"_s, 1, kMaxTrials, 0);
        m_spec.maxParallel = whole(node["max_parallel"], u"max_parallel"_s, 1, 1024, 1);
        earlyStopping(node["early_stopping"]);
        budget(node["budget"]);
        if (node["seed"])
            m_spec.seed = quint64(whole(node["seed"], u"seed"_s, 0, std::numeric_limits<int>::max(), 0));
        plan(node);
        for (const YAML::Node &key : unknown(node, kTopKeys))
            m_r.warning(key, u"unknown key '%1' is ignored%2"_s.arg(yaml::scalar(key), nearMiss(key, kTopKeys)),
                        u"the keys are listed in docs/sweep-format.md"_s);
    }

private:
    // The value of one of a table's names at `node`; else an error there, with the name meant
    // when it is a near miss ("unknown method 'grdi'; did you mean 'grid'?").
    template <typename E, size_t N>
    std::optional<E> named(const YAML::Node &node, const QString &key, const QString &what, const Named (&table)[N],
                           const QString &hint = {})
    {
        const QString text = m_r.string(node, key);
        if (const auto value = byName<E>(table, text))
            return value;
        m_r.error(node, u"unknown %1 '%2'%3"_s.arg(what, yaml::scalar(node), nearMiss(text, namesOf(table))),
                  hint.isEmpty() ? choices(table) : hint);
        return std::nullopt;
    }

    // `environment: FILE`, or `env: FILE` as a run names it (`ferry run --env`); not both.
    void environment(const YAML::Node &node)
    {
        if (node["env"] && node["environment"])
            m_r.error(node["env"], u"both 'env' and 'environment' name the trials' environment"_s,
                      u"keep one of them"_s);
        const bool shortName = node["env"] && !node["environment"];
        m_spec.environment =
            m_r.string(shortName ? node["env"] : node["environment"], shortName ? u"env"_s : u"environment"_s);
    }

    void version(const YAML::Node &node)
    {
        const YAML::Node v = node["ferry-sweep"];
        if (!v) {
            m_r.error(node, u"not a sweep file: no 'ferry-sweep' version"_s, u"start it with 'ferry-sweep: 1'"_s);
            return;
        }
        m_r.formatVersion(v, u"ferry-sweep"_s, kSweepFormatVersion);
    }

    void targetOptions(const YAML::Node &node)
    {
        if (!node || !m_r.isMap(node, u"target_options"_s))
            return;
        for (const auto &entry : node) {
            const QString key = yaml::scalar(entry.first);
            // Named as the flag; the run's own option name (tasksPerNode) is taken too.
            const TargetOption *option = findTargetOption(key);
            if (!option) {
                m_r.error(entry.first, u"'%1' is not a target option"_s.arg(key), targetOptionKeys());
                continue;
            }
            const QString name = QString::fromLatin1(option->name);
            const QString value = m_r.string(entry.second, key);
            if (option->kind == OptionKind::Count) {
                m_spec.targetOptions.insert(name, whole(entry.second, key, 0, 100000, 0));
            } else if (option->kind == OptionKind::Flag) {
                if (value != u"true"_s && value != u"false"_s)
                    m_r.error(entry.second, u"%1 is true or false, not '%2'"_s.arg(key, value), u"requeue: true"_s);
                m_spec.targetOptions.insert(name, value == u"true"_s);
            } else {
                m_spec.targetOptions.insert(name, value);
            }
        }
    }

    // A trial across nodes: counts in range (each at its line) and a Slurm target, as a run's
    // (run::Distribution::of, which the trials' start checks again).
    void distribution(const YAML::Node &node)
    {
        if (!node || !node.IsMap())
            return;
        std::optional<YAML::Node> first; // the first distribution option, where a wrong target is pointed out
        for (const auto &entry : node) {
            const QString key = yaml::scalar(entry.first);
            const TargetOption *option = findTargetOption(key);
            const QLatin1StringView name(option ? option->name : "");
            if (name != run::kNodesOption && name != run::kTasksPerNodeOption && name != run::kGpusPerNodeOption)
                continue;
            if (!first)
                first.emplace(entry.first);
            bool ok = false;
            const qint64 written = yaml::scalar(entry.second).toLongLong(&ok);
            if (!ok || written != m_spec.targetOptions.value(name).toInteger())
                continue; // not a whole number from 0 to 100000: said already
            run::TargetSpec alone{run::TargetKind::Slurm, {}, {{name, m_spec.targetOptions.value(name)}}};
            if (const auto one = run::Distribution::of(alone); !one)
                m_r.error(entry.second, one.error().message, u"%1: 2"_s.arg(key));
        }
        const auto target = run::TargetSpec::parse(m_spec.target);
        if (!first || !target)
            return;
        run::TargetSpec spec = *target;
        spec.options = m_spec.targetOptions;
        const auto whole = run::Distribution::of(spec);
        if (!whole && target->kind != run::TargetKind::Slurm)
            m_r.error(*first, whole.error().message,
                      u"target: slurm:HOST, or leave nodes, tasks-per-node and "
                      u"gpus-per-node out"_s);
    }

    void fixed(const YAML::Node &node)
    {
        if (!node || !m_r.isMap(node, u"hyperparameters"_s))
            return;
        for (const auto &entry : node) {
            const QString name = yaml::scalar(entry.first);
            if (!isOptionName(name))
                m_r.error(entry.first, u"'%1' cannot be an option name"_s.arg(name),
                          u"letters, digits, '-', '_' and '.'"_s);
            m_spec.fixed.append({name, m_r.string(entry.second, name)});
        }
    }

    void data(const YAML::Node &node)
    {
        if (!node || !m_r.isMap(node, u"data"_s))
            return;
        static const QRegularExpression channel(u"^[a-z0-9_-]+$"_s);
        for (const auto &entry : node) {
            const QString name = yaml::scalar(entry.first);
            if (!channel.match(name).hasMatch())
                m_r.error(entry.first, u"'%1' cannot be a data channel's name"_s.arg(name),
                          u"lower-case letters, digits, '-' and '_': training, validation"_s);
            m_spec.data.append({name, m_r.string(entry.second, name)});
        }
    }

    void method(const YAML::Node &node)
    {
        if (!node) {
            m_r.error(m_root, u"a sweep needs a method"_s, u"method: grid, random or bayes"_s);
            return;
        }
        if (const auto m = named<Method>(node, u"method"_s, u"method"_s, kMethods)) {
            m_spec.method = *m;
            m_methodKnown = true;
        }
    }

    void metric(const YAML::Node &root, const YAML::Node &node)
    {
        const QString hint = u"metric: {name: val_loss, goal: minimize}"_s;
        if (!node) {
            m_r.error(root, u"a sweep needs the metric that scores its trials"_s, hint);
            return;
        }
        if (node.IsScalar()) {
            m_spec.metric = yaml::scalar(node);
            return;
        }
        if (!m_r.isMap(node, u"metric"_s))
            return;
        m_spec.metric = m_r.string(node["name"], u"name"_s);
        if (m_spec.metric.isEmpty())
            m_r.error(node, u"the metric has no name"_s, hint);
        if (node["goal"]) {
            if (const auto goal = named<Goal>(node["goal"], u"goal"_s, u"goal"_s, kGoals))
                m_spec.goal = *goal;
        }
        if (node["summary"]) {
            if (const auto summary = named<Summary>(node["summary"], u"summary"_s, u"summary"_s, kSummaries,
                                                    u"last (the trial's last value) or best (its best)"_s))
                m_spec.summary = *summary;
        }
        const QStringList known = {u"name"_s, u"goal"_s, u"summary"_s};
        for (const YAML::Node &key : unknown(node, known))
            m_r.warning(key,
                        u"unknown key '%1' of the metric is ignored%2"_s.arg(yaml::scalar(key), nearMiss(key, known)));
    }

    void parameters(const YAML::Node &node)
    {
        if (!node || !node.IsMap() || node.size() == 0) {
            m_r.error(node ? node : m_root, u"a sweep needs parameters to search"_s,
                      u"parameters: {lr: {distribution: log_uniform, min: 1.0e-5, max: 0.1}}"_s);
            return;
        }
        if (node.size() > size_t(kMaxParameters)) {
            m_r.error(node, u"%1 parameters: at most %2"_s.arg(node.size()).arg(kMaxParameters));
            return;
        }
        for (const auto &entry : node) {
            Parameter p;
            p.name = yaml::scalar(entry.first);
            p.line = yaml::line(entry.first);
            if (!isOptionName(p.name))
                m_r.error(entry.first, u"'%1' cannot be an option name"_s.arg(p.name),
                          u"letters, digits, '-', '_' and '.'"_s);
            for (const Parameter &other : std::as_const(m_spec.parameters)) {
                if (other.name == p.name)
                    m_r.error(entry.first, u"parameter '%1' is defined twice (line %2)"_s.arg(p.name).arg(other.line));
            }
            for (const run::Hyperparameter &h : std::as_const(m_spec.fixed)) {
                if (h.name == p.name)
                    m_r.error(entry.first, u"'%1' is both a fixed hyperparameter and searched"_s.arg(p.name),
                              u"remove it from hyperparameters or from parameters"_s);
            }
            parameter(entry.second, p);
            m_spec.parameters.append(p);
        }
    }

    void parameter(const YAML::Node &node, Parameter &p)
    {
        if (node.IsSequence()) { // lr: [0.1, 0.01]: shorthand for values
            values(node, p);
            return;
        }
        if (!node.IsMap()) {
            m_r.error(node, u"parameter '%1' must be a mapping or a list of values"_s.arg(p.name),
                      u"{values: [64, 128]} or {distribution: uniform, min: 0, max: 1}"_s);
            return;
        }
        const QStringList known = {u"values"_s, u"distribution"_s, u"min"_s, u"max"_s};
        for (const YAML::Node &key : unknown(node, known))
            m_r.error(key,
                      u"unknown key '%1' of parameter '%2'%3"_s.arg(yaml::scalar(key), p.name, nearMiss(key, known)),
                      u"values, or distribution with min and max"_s);
        if (node["values"]) {
            if (node["distribution"] && m_r.string(node["distribution"], u"distribution"_s) != u"values"_s)
                m_r.error(node["distribution"], u"parameter '%1' has values and a distribution"_s.arg(p.name),
                          u"keep one of them"_s);
            values(node["values"], p);
            return;
        }
        const YAML::Node d = node["distribution"];
        if (!d) {
            m_r.error(node, u"parameter '%1' has neither values nor a distribution"_s.arg(p.name),
                      choices(kDistributions));
            return;
        }
        const auto distribution = named<Distribution>(d, u"distribution"_s, u"distribution"_s, kDistributions);
        if (!distribution)
            return;
        if (*distribution == Distribution::Values) {
            m_r.error(d, u"distribution values needs the values"_s, u"values: [64, 128]"_s);
            return;
        }
        p.distribution = *distribution;
        const bool integer =
            p.distribution == Distribution::IntUniform || p.distribution == Distribution::LogIntUniform;
        const bool log = p.distribution == Distribution::LogUniform || p.distribution == Distribution::LogIntUniform;
        const auto bound = [&](const char *key, double &out) {
            const YAML::Node b = node[key];
            if (!b) {
                m_r.error(node, u"parameter '%1' needs '%2'"_s.arg(p.name, QLatin1String(key)));
                return false;
            }
            bool ok = false;
            out = m_r.string(b, QLatin1String(key)).toDouble(&ok);
            if (!ok || !std::isfinite(out)) {
                m_r.error(b, u"'%1' of parameter '%2' must be a number"_s.arg(QLatin1String(key), p.name));
                return false;
            }
            if (integer && (out != std::floor(out) || std::abs(out) > 1e15)) {
                m_r.error(b,
                          u"'%1' of integer parameter '%2' must be a whole number"_s.arg(QLatin1String(key), p.name));
                return false;
            }
            return true;
        };
        if (!bound("min", p.min) || !bound("max", p.max))
            return;
        if (!(p.min < p.max))
            m_r.error(node["max"],
                      u"parameter '%1': max (%2) must be above min (%3)"_s.arg(p.name).arg(p.max).arg(p.min));
        else if (log && p.min <= 0)
            m_r.error(node["min"], u"parameter '%1' is drawn in the logarithm: min must be above 0"_s.arg(p.name),
                      u"use uniform for a range that includes 0"_s);
    }

    void values(const YAML::Node &list, Parameter &p)
    {
        p.distribution = Distribution::Values;
        if (!list.IsSequence() || list.size() == 0) {
            m_r.error(list, u"the values of parameter '%1' must be a non-empty list"_s.arg(p.name));
            return;
        }
        if (list.size() > size_t(kMaxValues)) {
            m_r.error(list, u"parameter '%1' has %2 values: at most %3"_s.arg(p.name).arg(list.size()).arg(kMaxValues));
            return;
        }
        for (const YAML::Node &v : list) {
            if (!v.IsScalar()) {
                m_r.error(v, u"a value of parameter '%1' must be a number or text"_s.arg(p.name),
                          u"quote a list to pass it as one value: \"64,32\""_s);
                return;
            }
            const QString text = yaml::scalar(v);
            if (p.values.contains(text))
                m_r.warning(v, u"value '%1' of parameter '%2' is listed twice"_s.arg(text, p.name));
            p.values << text;
        }
    }

    void earlyStopping(const YAML::Node &node)
    {
        if (!node)
            return;
        const YAML::Node type = node.IsScalar() ? node : node["type"];
        if (!type) {
            m_r.error(node, u"early_stopping needs a type"_s, choices(kRules));
            return;
        }
        const auto rule = named<StoppingRule>(type, u"type"_s, u"early stopping"_s, kRules);
        if (!rule)
            return;
        EarlyStopping &e = m_spec.earlyStopping;
        e.rule = *rule;
        if (!node.IsMap())
            return;
        e.minSteps = whole(node["min_steps"], u"min_steps"_s, 0, std::numeric_limits<int>::max(), 0);
        if (node["reduction_factor"]) {
            e.reductionFactor = number(node["reduction_factor"], u"reduction_factor"_s, 3);
            if (!(e.reductionFactor >= 2))
                m_r.error(node["reduction_factor"], u"reduction_factor must be 2 or more"_s);
        }
        if (node["slack"]) {
            e.slack = number(node["slack"], u"slack"_s, 0.1);
            if (!(e.slack >= 0))
                m_r.error(node["slack"], u"slack must be 0 or more"_s);
        }
        const QStringList known = {u"type"_s, u"min_steps"_s, u"reduction_factor"_s, u"slack"_s};
        for (const YAML::Node &key : unknown(node, known))
            m_r.warning(
                key, u"unknown key '%1' of early_stopping is ignored%2"_s.arg(yaml::scalar(key), nearMiss(key, known)));
    }

    // `budget: {max_cost: 20, max_time: "2:00:00"}`: either or both, each above 0.
    void budget(const YAML::Node &node)
    {
        if (!node)
            return;
        if (!node.IsMap()) {
            m_r.error(node, u"budget is a map of max_cost and max_time"_s,
                      u"budget: {max_cost: 20, max_time: 2:00:00}"_s);
            return;
        }
        SweepBudget &b = m_spec.budget;
        if (node["max_cost"]) {
            b.maxCost = number(node["max_cost"], u"max_cost"_s, 0);
            if (!(b.maxCost > 0))
                m_r.error(node["max_cost"], u"max_cost must be an amount above 0 (USD)"_s);
        }
        if (node["max_time"]) {
            const auto seconds = parseClockText(m_r.string(node["max_time"], u"max_time"_s));
            if (!seconds || *seconds <= 0)
                m_r.error(node["max_time"], u"max_time must be a time above 0"_s, u"write H:MM:SS, e.g. 2:00:00"_s);
            else
                b.maxSeconds = *seconds;
        }
        if (!node["max_cost"] && !node["max_time"])
            m_r.error(node, u"budget needs max_cost or max_time"_s);
        const QStringList known = {u"max_cost"_s, u"max_time"_s};
        for (const YAML::Node &key : unknown(node, known))
            m_r.warning(key, u"unknown key '%1' of budget is ignored%2"_s.arg(yaml::scalar(key), nearMiss(key, known)));
    }

    // What the method can do with the space, and how many trials it makes.
    void plan(const YAML::Node &root)
    {
        if (!m_methodKnown)
            return; // said already: what the method needs follows from which it is
        if (m_spec.method == Method::Grid) {
            for (const Parameter &p : std::as_const(m_spec.parameters)) {
                if (p.distribution != Distribution::Values)
                    m_r.error(root["parameters"][p.name.toStdString()],
                              u"method grid needs values for every parameter; '%1' has a distribution"_s.arg(p.name),
                              u"list its values, or use method random or bayes"_s);
            }
            if (m_spec.gridSize() > kMaxGrid)
                m_r.error(root["parameters"], u"the grid has more than %1 combinations"_s.arg(kMaxGrid),
                          u"fewer values, or method random with max_trials"_s);
        } else if (m_spec.maxTrials == 0 && !root["max_trials"]) {
            m_r.error(root, u"method %1 needs max_trials"_s.arg(methodName(m_spec.method)), u"max_trials: 40"_s);
        }
    }

    int whole(const YAML::Node &node, const QString &key, int min, int max, int fallback)
    {
        if (!node)
            return fallback;
        bool ok = false;
        const qint64 v = m_r.string(node, key).toLongLong(&ok);
        if (!ok || v < min || v > max) {
            m_r.error(node, u"'%1' must be a whole number from %2 to %3"_s.arg(key).arg(min).arg(max));
            return fallback;
        }
        return int(v);
    }

    double number(const YAML::Node &node, const QString &key, double fallback)
    {
        bool ok = false;
        const double v = m_r.string(node, key).toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            m_r.error(node, u"'%1' must be a number"_s.arg(key));
            return fallback;
        }
        return v;
    }

    YAML::Node m_root;
    yaml::Reader &m_r;
    SweepSpec &m_spec;
    bool m_methodKnown = false; // plan() checks what the method needs only when it is known
};

} // namespace

qint64 SweepSpec::gridSize() const
{
    qint64 size = parameters.isEmpty() ? 0 : 1;
    for (const Parameter &p : parameters) {
        if (p.distribution != Distribution::Values || p.values.isEmpty())
            return 0;
        size *= p.values.size();
        if (size > std::numeric_limits<int>::max())
            return std::numeric_limits<int>::max(); // saturated: over any limit
    }
    return size;
}

int SweepSpec::plannedTrials() const
{
    if (method == Method::Grid) {
        const qint64 grid = gridSize();
        return int(maxTrials > 0 ? std::min<qint64>(maxTrials, grid) : grid);
    }
    return maxTrials;
}

SweepRead parseSweepYaml(const QString &text, const QString &path)
{
    SweepRead result;
    yaml::Reader r(path);
    const auto root = yaml::loadMapping(text, r, u"start with 'ferry-sweep: 1' and 'script:'"_s,
                                        u"a sweep file is a mapping (key: value lines)"_s);
    if (!root) {
        result.diagnostics = r.takeDiagnostics();
        return result;
    }
    SweepReader(r, result.spec, *root).read();
    result.diagnostics = r.takeDiagnostics();
    return result;
}

SweepRead readSweepFile(const QString &path)
{
    const auto text = readTextFile(path);
    if (!text) {
        SweepRead result;
        result.diagnostics << Diagnostic{Diagnostic::Severity::Error, text.error()};
        return result;
    }
    return parseSweepYaml(*text, path);
}

} // namespace ferry::sweep
