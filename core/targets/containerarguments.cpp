#include "targets/containerarguments.h"

#include "env/runarguments.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::targets {

QString bindMount(const ContainerMount &mount)
{
    return u"type=bind,source=%1,target=%2%3"_s.arg(mount.source, mount.target,
                                                    mount.readOnly ? u",readonly"_s : QString());
}

ContainerVariables containerVariables(const env::Environment &environment,
                                      const QList<std::pair<QString, QString>> &launched,
                                      const QList<std::pair<QString, QString>> &contract)
{
    ContainerVariables result;
    for (const auto &variable : environment.variables)
        if (!environment.isSecretVariable(variable.first)) // a keychain secret's name is no value
            result.variables << variable;
    result.variables << launched << contract;
    static const QRegularExpression shellName(u"^[A-Za-z_][A-Za-z0-9_]*$"_s);
    for (const auto &[key, value] : contract)
        if (!shellName.match(key).hasMatch())
            result.unshellable << key + u'=' + value;
    return result;
}

QStringList containerRunArguments(const ContainerRun &run)
{
    QStringList args{u"run"_s};
    if (run.detached)
        args << u"-d"_s;
    if (run.removedAtEnd)
        args << u"--rm"_s;
    args << u"--name"_s << run.name;
    for (const QString &label : run.labels)
        args << u"--label"_s << label;
    args << u"--network"_s << u"none"_s << u"--init"_s << u"--workdir"_s << run.workdir;
    if (!run.shmSize.isEmpty())
        args << u"--shm-size"_s << run.shmSize;
    if (run.gpus)
        args << u"--gpus"_s << u"all"_s;
    if (!run.user.isEmpty())
        args << u"--user"_s << run.user;
    for (const ContainerMount &mount : run.mounts)
        args << u"--mount"_s << bindMount(mount);
    for (const QString &mount : run.rawMounts)
        args << u"--mount"_s << mount;
    for (const auto &[key, value] : run.variables)
        args << u"--env"_s << key + u'=' + value;
    args << run.runArguments << run.image << run.command;
    return args;
}

QStringList shellPrefix(const QString &redirect)
{
    return {u"sh"_s, u"-c"_s, redirect.isEmpty() ? u"exec \"$@\""_s : u"exec \"$@\" "_s + redirect, u"sh"_s};
}

bool runArgumentsAllowed(const run::RunSpec &spec)
{
    return spec.target.options.value(run::kAllowRunArgumentsOption).toBool();
}

Expected<void> checkRunArguments(const env::Environment &environment, const run::RunSpec &spec)
{
    return env::refuseIsolationBreaks(environment.docker.runArguments, runArgumentsAllowed(spec), spec.environmentFile);
}

} // namespace ferry::targets
