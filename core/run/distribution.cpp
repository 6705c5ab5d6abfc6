#include "run/distribution.h"

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// A count option: absent is `fallback`; a whole number 1..10000 (JSON number or string) else.
Expected<int> count(const QJsonObject &options, QLatin1StringView name, int fallback, const QString &flag)
{
    const QJsonValue v = options.value(name);
    if (v.isUndefined() || v.isNull())
        return fallback;
    bool ok = v.isDouble();
    int n = ok ? v.toInt(-1) : v.toString().toInt(&ok);
    if (v.isDouble() && double(n) != v.toDouble())
        ok = false;
    if (!ok || n < 1 || n > 10000)
        return Error{u"--%1 takes a count from 1 to 10000, not '%2'"_s.arg(
                         flag, v.isDouble() ? QString::number(v.toDouble()) : v.toString()),
                     {},
                     0,
                     0,
                     u"write e.g. --%1 2"_s.arg(flag)};
    return n;
}

} // namespace

Expected<Distribution> Distribution::of(const TargetSpec &target)
{
    Distribution d;
    const auto nodes = count(target.options, kNodesOption, 1, u"nodes"_s);
    if (!nodes)
        return nodes.error();
    const auto tasks = count(target.options, kTasksPerNodeOption, 1, u"tasks-per-node"_s);
    if (!tasks)
        return tasks.error();
    const bool gpusAsked = target.options.contains(kGpusPerNodeOption);
    if (gpusAsked) {
        const QJsonValue v = target.options.value(kGpusPerNodeOption);
        const int g = v.isDouble() ? v.toInt(-1) : v.toString().toInt();
        if (g < 0 || g > 64 || (v.isDouble() && double(g) != v.toDouble()))
            return Error{u"--gpus-per-node takes a count from 0 to 64"_s, {}, 0, 0, u"write e.g. --gpus-per-node 1"_s};
        d.gpusPerNode = g;
    }
    d.nodes = *nodes;
    d.tasksPerNode = *tasks;
    if ((d.isDistributed() || gpusAsked) && target.kind != TargetKind::Slurm)
        return Error{u"a run across nodes or tasks (--nodes, --tasks-per-node, --gpus-per-node) runs on a Slurm "
                     "target, not %1"_s.arg(target.toString()),
                     {},
                     0,
                     0,
                     u"start it with --target slurm:HOST, or leave those options out"_s};
    return d;
}

Distribution Distribution::orSingle(const TargetSpec &target)
{
    const auto d = of(target);
    return d ? *d : Distribution{};
}

void Distribution::writeTo(QJsonObject &options) const
{
    options.remove(kNodesOption);
    options.remove(kTasksPerNodeOption);
    options.remove(kGpusPerNodeOption);
    if (nodes != 1)
        options.insert(kNodesOption, nodes);
    if (tasksPerNode != 1)
        options.insert(kTasksPerNodeOption, tasksPerNode);
    if (gpusPerNode >= 0)
        options.insert(kGpusPerNodeOption, gpusPerNode);
}

QJsonObject Distribution::frameworkParams() const
{
    if (!isDistributed())
        return {};
    return QJsonObject{{u"sagemaker_torch_distributed_enabled"_s, true},
                       {u"sagemaker_instance_count"_s, nodes},
                       {u"sagemaker_processes_per_host"_s, tasksPerNode}};
}

} // namespace ferry::run
