// The names a sweep file uses for its enums and target options, shared by its reader and writer;
// internal to core/sweep.
#pragma once

// The names a sweep file uses for its enums and its target options, shared by its reader
// (sweepfile.cpp) and its writer (sweepfilewriter.cpp). Internal to core/sweep.
#include "sweep/sweepfile.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::sweep::names {

using namespace Qt::StringLiterals;

struct Named {
    const char16_t *name;
    int value;
};

template <typename E, size_t N> std::optional<E> byName(const Named (&table)[N], const QString &text)
{
    for (const Named &n : table) {
        if (text == QStringView(n.name))
            return static_cast<E>(n.value);
    }
    return std::nullopt;
}

template <size_t N> QString nameOf(const Named (&table)[N], int value)
{
    for (const Named &n : table) {
        if (n.value == value)
            return QString::fromUtf16(n.name);
    }
    return {};
}

template <size_t N> QStringList namesOf(const Named (&table)[N])
{
    QStringList names;
    for (const Named &n : table)
        names << QString::fromUtf16(n.name);
    return names;
}

template <size_t N> QString choices(const Named (&table)[N])
{
    return namesOf(table).join(u", "_s);
}

inline constexpr Named kMethods[] = {
    {u"grid", int(Method::Grid)}, {u"random", int(Method::Random)}, {u"bayes", int(Method::Bayes)}};
inline constexpr Named kGoals[] = {{u"minimize", int(Goal::Minimize)}, {u"maximize", int(Goal::Maximize)}};
inline constexpr Named kSummaries[] = {{u"last", int(Summary::Last)}, {u"best", int(Summary::Best)}};
inline constexpr Named kDistributions[] = {{u"values", int(Distribution::Values)},
                                           {u"uniform", int(Distribution::Uniform)},
                                           {u"log_uniform", int(Distribution::LogUniform)},
                                           {u"int_uniform", int(Distribution::IntUniform)},
                                           {u"log_int_uniform", int(Distribution::LogIntUniform)}};
inline constexpr Named kRules[] = {{u"none", int(StoppingRule::None)},
                                   {u"median", int(StoppingRule::Median)},
                                   {u"asha", int(StoppingRule::Asha)},
                                   {u"bandit", int(StoppingRule::Bandit)}};

// target_options: the run's target options, named as `ferry run`'s flags (docs/sweep-format.md).
enum class OptionKind { Count, Text, Flag };
struct TargetOption {
    const char *key;  // in the file
    const char *name; // in the run's target options
    OptionKind kind;
};
inline constexpr TargetOption kTargetOptions[] = {{"gpus", "gpus", OptionKind::Count},
                                                  {"cpus", "cpus", OptionKind::Count},
                                                  {"partition", "partition", OptionKind::Text},
                                                  {"time", "time", OptionKind::Text},
                                                  {"mem", "mem", OptionKind::Text},
                                                  {"requeue", "requeue", OptionKind::Flag},
                                                  {"remote-dir", "remoteDir", OptionKind::Text},
                                                  {"accept-host-key", "acceptHostKey", OptionKind::Text},
                                                  // a trial across nodes (Slurm only, run/distribution.h)
                                                  {"nodes", "nodes", OptionKind::Count},
                                                  {"tasks-per-node", "tasksPerNode", OptionKind::Count},
                                                  {"gpus-per-node", "gpusPerNode", OptionKind::Count}};

// The option a key names: its key in the file or its name in the run's options (tasksPerNode).
inline const TargetOption *findTargetOption(const QString &key)
{
    for (const TargetOption &o : kTargetOptions) {
        if (key == QLatin1String(o.key) || key == QLatin1String(o.name))
            return &o;
    }
    return nullptr;
}

// The keys, for an error's hint.
inline QString targetOptionKeys()
{
    QStringList keys;
    for (const TargetOption &o : kTargetOptions)
        keys << QString::fromLatin1(o.key);
    return keys.join(u", "_s);
}

} // namespace ferry::sweep::names
