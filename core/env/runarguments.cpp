#include "env/runarguments.h"

#include <QHash>

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

struct Flag {
    bool takesValue;
    QString reason;
};

// Long options, by name without the leading "--".
const QHash<QString, Flag> &longFlags()
{
    static const QHash<QString, Flag> flags{
        {u"privileged"_s, {false, u"gives the container every capability and device of the host"_s}},
        {u"volume"_s, {true, u"mounts a host path into the container"_s}},
        {u"mount"_s, {true, u"mounts a host path into the container"_s}},
        {u"volumes-from"_s, {true, u"mounts another container's volumes"_s}},
        {u"device"_s, {true, u"gives the container a host device"_s}},
        {u"device-cgroup-rule"_s, {true, u"gives the container host devices"_s}},
        {u"cap-add"_s, {true, u"adds a kernel capability"_s}},
        {u"security-opt"_s, {true, u"changes the container's confinement"_s}},
        {u"user"_s, {true, u"runs as another user than yours (root, where it is 0)"_s}},
        {u"group-add"_s, {true, u"adds a group to the container's user"_s}},
        {u"userns"_s, {true, u"changes the user namespace"_s}},
        {u"pid"_s, {true, u"shares a process namespace (the host's, where it is host)"_s}},
        {u"ipc"_s, {true, u"shares an IPC namespace"_s}},
        {u"uts"_s, {true, u"shares the host's UTS namespace"_s}},
        {u"cgroupns"_s, {true, u"shares the host's cgroup namespace"_s}},
        {u"env-file"_s, {true, u"reads a host file into the container's variables"_s}},
    };
    return flags;
}

// Short options that break the isolation, and whether they take a value.
const QHash<QChar, Flag> &shortFlags()
{
    static const QHash<QChar, Flag> flags{
        {u'v', {true, u"mounts a host path into the container"_s}},
        {u'u', {true, u"runs as another user than yours (root, where it is 0)"_s}},
    };
    return flags;
}

// Short options that take a value but are harmless: their value must be skipped in a cluster.
bool shortTakesValue(QChar c)
{
    static const QString withValue = u"ehlmpw"_s; // -e env, -h hostname, -l label, -m memory, -p publish, -w workdir
    return withValue.contains(c) || shortFlags().contains(c);
}

QString networkReason(const QString &value)
{
    return value == u"none"_s ? QString() : u"gives the container a network (%1)"_s.arg(value);
}

} // namespace

QList<IsolationBreak> isolationBreakingArguments(const QStringList &args)
{
    QList<IsolationBreak> breaks;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args.at(i);
        const auto valueAfter = [&]() { return i + 1 < args.size() ? args.at(i + 1) : QString(); };
        if (arg.startsWith(u"--"_s)) {
            const qsizetype eq = arg.indexOf(u'=');
            const QString name = arg.mid(2, eq < 0 ? -1 : eq - 2);
            const bool inlineValue = eq >= 0;
            if (name == u"network"_s || name == u"net"_s) {
                const QString value = inlineValue ? arg.mid(eq + 1) : valueAfter();
                if (const QString reason = networkReason(value); !reason.isEmpty())
                    breaks << IsolationBreak{inlineValue ? arg : arg + u' ' + value, reason};
                if (!inlineValue)
                    ++i;
                continue;
            }
            const auto flag = longFlags().constFind(name);
            if (flag == longFlags().constEnd())
                continue;
            if (flag->takesValue && !inlineValue) {
                breaks << IsolationBreak{arg + u' ' + valueAfter(), flag->reason};
                ++i;
            } else {
                breaks << IsolationBreak{arg, flag->reason};
            }
            continue;
        }
        if (arg.size() < 2 || !arg.startsWith(u'-'))
            continue;
        // A cluster of short options: "-it", "-itv /x:/y", "-v/x:/y", "-u0".
        for (qsizetype c = 1; c < arg.size(); ++c) {
            const QChar option = arg.at(c);
            if (!shortTakesValue(option))
                continue;
            const bool rest = c + 1 < arg.size(); // the value is glued to the option
            const QString value = rest ? arg.mid(c + 1) : valueAfter();
            if (const auto flag = shortFlags().constFind(option); flag != shortFlags().constEnd())
                breaks << IsolationBreak{rest ? arg : arg + u' ' + value, flag->reason};
            if (!rest)
                ++i;
            break; // the value ends the cluster
        }
    }
    return breaks;
}

QString describeIsolationBreaks(const QList<IsolationBreak> &breaks)
{
    QStringList parts;
    for (const IsolationBreak &b : breaks)
        parts << u"'%1' (%2)"_s.arg(b.argument, b.reason);
    return parts.join(u", "_s);
}

Expected<void> refuseIsolationBreaks(const QStringList &runArguments, bool allowed, const QString &environmentFile)
{
    const QList<IsolationBreak> breaks = isolationBreakingArguments(runArguments);
    if (breaks.isEmpty() || allowed)
        return {};
    return Error{u"docker.run_arguments %1 undo the container's isolation"_s.arg(describeIsolationBreaks(breaks)),
                 environmentFile, 0, 0,
                 u"remove them from the environment, or, if you trust it, allow them for this run "
                 u"(ferry run --allow-run-arguments, or 'Allow its run arguments' in the launch dialog)"_s};
}

} // namespace ferry::env
