#include "targets/embeddedtarget.h"

#include "run/supervisor.h"

#include <QFileInfo>
#include <QThread>

#include <csignal>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

using run::ExitRecord;
using run::RunDirectory;
using run::SupervisorRecord;

} // namespace

Expected<void> EmbeddedTarget::start(const QString &runDir, const run::RunSpec &)
{
    return Error{u"an embedded run is started by the Ferry process that trains it"_s, runDir, 0, 0,
                 u"use 'ferry train' or the Train panel"_s};
}

Expected<RunProbe> EmbeddedTarget::probe(const QString &runDir)
{
    return probeSupervisedRun(runDir, u"the Ferry process that trained it"_s);
}

Expected<RunProbe> EmbeddedTarget::cancel(const QString &runDir, int graceMs)
{
    const RunDirectory dir(runDir);
    const auto start = cancelStart<SupervisorRecord>(dir, [&] { return dir.readSupervisor(); });
    if (!start)
        return start.error();
    if (start->ended)
        return probe(runDir);
    const std::optional<SupervisorRecord> &trainer = start->record;
    if (trainer && run::supervisorAlive(*trainer)) {
        const auto pid = static_cast<pid_t>(trainer->supervisorPid);
        ::kill(pid, SIGTERM); // the trainer stops within one step and records the end itself
        for (int waited = 0; waited < graceMs; waited += 50) {
            if (QFileInfo::exists(dir.exitFile()) || !run::supervisorAlive(*trainer))
                break;
            QThread::msleep(50);
        }
        if (!QFileInfo::exists(dir.exitFile()) && run::supervisorAlive(*trainer)) {
            ::kill(pid, SIGKILL);
            for (int waited = 0; waited < 5000 && run::supervisorAlive(*trainer); waited += 50)
                QThread::msleep(50);
        }
    }
    if (!QFileInfo::exists(dir.exitFile())) // killed, or gone before: the cancel is the end
        (void)dir.writeExit(ExitRecord{-1, SIGTERM, run::nowMs(), true, {}});
    if (const auto packed = run::finalize(dir.path()); !packed)
        return packed.error();
    return probe(runDir);
}

} // namespace ferry::targets
