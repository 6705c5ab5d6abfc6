// `ferry kernel start|list|show|exec|attach|interrupt|restart|stop|remove`: Jupyter kernels in the
// environment a run would get, kept like runs (docs/kernels.md).
#include "cli/command.h"
#include "cli/kerneloutput.h"
#include "cli/remoteoptions.h"
#include "cli/runsupport.h"

#include "common/durationtext.h"
#include "common/textfile.h"
#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernelhost.h"
#include "metrics/terminaltext.h"
#include "workspace/workspace.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <atomic>
#include <csignal>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

std::atomic<bool> g_interrupted{false};
void onInterrupt(int)
{
    g_interrupted = true;
}

QJsonObject endJson(const kernels::KernelEnd &end)
{
    return {{u"reason"_s, end.reason},
            {u"text"_s, kernels::endText(end)},
            {u"exitCode"_s, end.exitCode},
            {u"signal"_s, end.signal},
            {u"finishedMs"_s, end.finishedMs},
            {u"peakMemoryBytes"_s, end.peakMemoryBytes},
            {u"detail"_s, end.detail},
            {u"lastLines"_s, QJsonArray::fromStringList(end.lastLines)},
            {u"logLines"_s, QJsonArray::fromStringList(end.logLines)},
            {u"streamLines"_s, QJsonArray::fromStringList(end.streamLines)}};
}

QJsonObject kernelJson(const kernels::KernelSummary &k)
{
    return {{u"id"_s, k.id},
            {u"state"_s, k.state},
            {u"target"_s, k.target.toString()},
            {u"environment"_s, k.environmentFile},
            {u"interpreter"_s, k.interpreter},
            {u"workingFolder"_s, k.workingFolder},
            {u"folder"_s, k.folder},
            {u"startedMs"_s, k.startedMs},
            {u"lastActivityMs"_s, k.lastActivityMs},
            {u"memoryBytes"_s, k.memoryBytes},
            {u"peakMemoryBytes"_s, k.peakMemoryBytes},
            {u"restarts"_s, k.restarts},
            {u"gpu"_s, k.gpu ? QJsonValue(QJsonObject{{u"gpus"_s, k.gpu->gpus},
                                                      {u"memoryUsedMiB"_s, k.gpu->memoryUsedMiB},
                                                      {u"utilizationPercent"_s, k.gpu->utilizationPercent},
                                                      {u"idleMs"_s, k.gpu->idleMs}})
                             : QJsonValue()},
            {u"end"_s, k.end ? QJsonValue(endJson(*k.end)) : QJsonValue()}};
}

// ", idle 16m" when every GPU has been at 0 % (the idle-GPU rule's count); empty when not.
QString idleText(const kernels::GpuUse &gpu)
{
    return gpu.idleMs > 0 ? u", idle "_s + ferry::durationText(gpu.idleMs) : QString();
}

QString megabytes(qint64 bytes)
{
    return bytes > 0 ? QString::number(double(bytes) / (1 << 20), 'f', 0) + u" MB"_s : u"-"_s;
}

class KernelCommand final : public Command {
public:
    QString name() const override { return u"kernel"_s; }
    QString summary() const override { return u"start, use and stop Jupyter kernels in a run's environment"_s; }
    int maxPositionalArguments() const override { return 3; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"  ferry kernel start [--env ENV.yml] [--target local|container|ssh:HOST|slurm:HOST]\n"
            u"                     [--data NAME=PATH]... [--idle-stop MIN] [--gpus N] [--time H:MM:SS]\n"
            u"                     [--partition P] [--mem M]\n"
            u"  ferry kernel list [--json]            ferry kernel show ID [--json]\n"
            u"  ferry kernel exec ID (CODE | -f FILE) [--timeout S]\n"
            u"  ferry kernel attach ID                ferry kernel interrupt|restart|stop|remove ID\n\n"
            u"A kernel runs in the environment a run would get, started the way a run starts, and outlives\n"
            u"Ferry: its keeper journals every output, so `attach` shows what ran while nobody watched.\n"
            u"`exec` prints the cell's outputs as they come (images as the name of the saved file) and exits\n"
            u"1 when the cell raised. ID may be the id's start or its last characters."_s);
        parser.addPositionalArgument(
            u"action"_s, u"start, list, show, exec, attach, interrupt, restart, stop, remove"_s, u"ACTION"_s);
        parser.addPositionalArgument(u"id"_s, u"The kernel."_s, u"[ID]"_s);
        parser.addPositionalArgument(u"code"_s, u"exec: the code of the cell."_s, u"[CODE]"_s);
        parser.addOption({u"workspace"_s, u"The workspace folder (default: the current folder)."_s, u"DIR"_s});
        parser.addOption({u"env"_s, u"start: the environment file (default: this machine's python3)."_s, u"ENV.yml"_s});
        parser.addOption({u"target"_s,
                          u"start: where the kernel runs: local, container, ssh:HOST (with --env, add --host-python), "
                          u"slurm:HOST (an allocation of the cluster whose login host is HOST)."_s,
                          u"TARGET"_s, u"local"_s});
        parser.addOption({u"cwd"_s, u"start: the folder the kernel works in (default: the workspace)."_s, u"DIR"_s});
        parser.addOption({u"idle-stop"_s,
                          u"start: stop the kernel after MIN idle minutes (0: never; default: off on this "
                          u"machine, 60 on SSH hosts and Slurm)."_s,
                          u"MIN"_s});
        parser.addOption({{u"f"_s, u"file"_s}, u"exec: run the code in FILE."_s, u"FILE"_s});
        parser.addOption({u"timeout"_s, u"exec: interrupt the cell after S seconds."_s, u"S"_s});
        parser.addOption({u"json"_s, u"list, show: print JSON (docs/kernels.md)."_s});
        addRemoteOptions(parser);
        addGrantOptions(parser);
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        const QString action = args.value(0);
        auto ws =
            workspace::Workspace::open(parser.value(u"workspace"_s).isEmpty() ? u"."_s : parser.value(u"workspace"_s));
        if (!ws) {
            io.err << "ferry kernel: " << ws.error().toString() << Qt::endl;
            return kExitUserError;
        }
        m_kernelsDir = ws->kernelsDir();
        m_ferry = QCoreApplication::applicationFilePath();
        if (action == "start"_L1)
            return start(parser, *ws, io);
        if (action == "list"_L1)
            return list(parser, io);
        static const QStringList withId{u"show"_s,    u"exec"_s, u"attach"_s, u"interrupt"_s,
                                        u"restart"_s, u"stop"_s, u"remove"_s};
        if (!withId.contains(action))
            return usageError(name(),
                              action.isEmpty() ? u"say what to do: start, list, show, exec, attach, interrupt, "
                                                 u"restart, stop or remove"_s
                                               : u"unknown action '%1'"_s.arg(action),
                              io);
        if (args.size() < 2)
            return usageError(name(), u"name the kernel (`ferry kernel list` shows them)"_s, io);
        const auto folder = kernels::findKernel(m_kernelsDir, args[1]);
        if (!folder)
            return fail(folder.error(), io);
        if (action == "show"_L1)
            return show(*folder, parser.isSet(u"json"_s), io);
        if (action == "exec"_L1)
            return exec(*folder, parser, io);
        if (action == "attach"_L1)
            return attach(*folder, io);
        if (action == "interrupt"_L1)
            return interrupt(*folder, io);
        if (action == "restart"_L1) {
            if (auto restarted = kernels::restartKernel(*folder, m_ferry); !restarted)
                return fail(restarted.error(), io);
            io.err << "restarted " << QFileInfo(*folder).fileName() << Qt::endl;
            return kExitOk;
        }
        if (action == "stop"_L1) {
            const auto stopped = kernels::stopKernel(*folder, m_ferry);
            if (!stopped)
                return fail(stopped.error(), io);
            io.err << "stopped " << stopped->id << " ("
                   << (stopped->end ? kernels::endText(*stopped->end) : stopped->state) << ')' << Qt::endl;
            return kExitOk;
        }
        if (auto removed = kernels::removeKernel(*folder, m_ferry); !removed)
            return fail(removed.error(), io);
        io.err << "removed " << QFileInfo(*folder).fileName() << Qt::endl;
        return kExitOk;
    }

private:
    int fail(const Error &error, Io &io) const
    {
        io.err << "ferry kernel: " << run::terminalLines(error.toString()) << Qt::endl;
        return kExitUserError;
    }

    int start(const QCommandLineParser &parser, const workspace::Workspace &ws, Io &io)
    {
        kernels::KernelRequest request;
        auto target = run::TargetSpec::parse(parser.value(u"target"_s));
        if (!target)
            return fail(target.error(), io);
        request.target = *target;
        if (!applyRemoteOptions(parser, request.target, io))
            return kExitUserError;
        const auto grants = grantOptions(parser, request.target, u"kernel start"_s, io);
        if (!grants)
            return kExitUserError;
        request.channels = grants->channels;
        request.secretVariables = grants->secretVariables;
        if (parser.isSet(u"env"_s))
            request.environmentFile = QFileInfo(parser.value(u"env"_s)).absoluteFilePath();
        request.workingFolder =
            parser.isSet(u"cwd"_s) ? QFileInfo(parser.value(u"cwd"_s)).absoluteFilePath() : ws.root();
        if (parser.isSet(u"idle-stop"_s)) {
            bool ok = false;
            request.idleStopMinutes = parser.value(u"idle-stop"_s).toDouble(&ok);
            if (!ok || request.idleStopMinutes < 0)
                return usageError(name(), u"--idle-stop takes minutes (0: never)"_s, io);
        }
        io.err << "starting a kernel on " << request.target.toString() << "..." << Qt::endl;
        request.progress = [&io](const QString &text) { io.err << text << Qt::endl; };
        const auto folder = kernels::startKernel(m_kernelsDir, request, m_ferry);
        if (!folder)
            return fail(folder.error(), io);
        auto connection = kernels::KernelConnection::open(folder->path(), 0);
        if (!connection)
            return fail(connection.error(), io);
        const auto info = (*connection)->waitReady();
        if (!info) {
            (void)kernels::stopKernel(folder->path(), m_ferry, 2000);
            return fail(info.error(), io);
        }
        io.out << folder->id() << Qt::endl;
        io.err << "ready: " << info->value(u"implementation"_s).toString() << ' '
               << info->value(u"implementation_version"_s).toString() << ", "
               << info->value(u"language_info"_s).toObject().value(u"name"_s).toString() << ' '
               << info->value(u"language_info"_s).toObject().value(u"version"_s).toString() << Qt::endl;
        return kExitOk;
    }

    int list(const QCommandLineParser &parser, Io &io) const
    {
        QList<Error> problems;
        const auto kernelList = kernels::listKernels(m_kernelsDir, m_ferry, &problems);
        for (const Error &problem : problems)
            io.err << "ferry kernel: " << run::terminalLines(problem.toString()) << Qt::endl;
        if (parser.isSet(u"json"_s)) {
            QJsonArray array;
            for (const auto &k : kernelList)
                array << kernelJson(k);
            io.out << QJsonDocument(QJsonObject{{u"kernels"_s, array}}).toJson(QJsonDocument::Indented);
            return kExitOk;
        }
        if (kernelList.isEmpty()) {
            io.err << "no kernels in this workspace; `ferry kernel start` starts one" << Qt::endl;
            return kExitOk;
        }
        io.out << u"%1  %2  %3  %4  %5  %6  %7\n"_s.arg(u"ID"_s, -34)
                      .arg(u"STATE"_s, -8)
                      .arg(u"TARGET"_s, -12)
                      .arg(u"STARTED"_s, -19)
                      .arg(u"LAST ACTIVITY"_s, -19)
                      .arg(u"MEMORY"_s, -8)
                      .arg(u"GPU MEMORY"_s);
        for (const auto &k : kernelList) {
            io.out << u"%1  %2  %3  %4  %5  %6  %7\n"_s.arg(k.id, -34)
                          .arg(k.alive() ? k.state : u"dead"_s, -8)
                          .arg(k.target.toString(), -12)
                          .arg(timeText(k.startedMs), -19)
                          .arg(timeText(k.lastActivityMs), -19)
                          .arg(k.alive() ? megabytes(k.memoryBytes) : kernels::endText(*k.end), -8)
                          .arg(k.gpu ? u"%1 MiB"_s.arg(k.gpu->memoryUsedMiB, 0, 'f', 0) + idleText(*k.gpu) : u"-"_s);
        }
        return kExitOk;
    }

    int show(const QString &folder, bool json, Io &io) const
    {
        const auto k = kernels::describeKernel(folder, m_ferry);
        if (!k)
            return fail(k.error(), io);
        if (json) {
            io.out << QJsonDocument(kernelJson(*k)).toJson(QJsonDocument::Indented);
            return kExitOk;
        }
        io.out << "kernel       " << k->id << '\n'
               << "state        " << (k->end ? u"dead: "_s + kernels::endText(*k->end) : k->state) << '\n'
               << "target       " << k->target.toString() << '\n'
               << "environment  "
               << (k->environmentFile.isEmpty() ? u"(this machine's "_s + k->interpreter + u')' : k->environmentFile)
               << '\n'
               << "works in     " << k->workingFolder << '\n'
               << "started      " << timeText(k->startedMs) << '\n'
               << "last active  " << timeText(k->lastActivityMs) << '\n'
               << "memory       " << megabytes(k->memoryBytes) << " (peak " << megabytes(k->peakMemoryBytes) << ")\n"
               << "gpu          "
               << (k->gpu ? u"%1 GPU(s), %2 MiB used, %3 % busy"_s.arg(k->gpu->gpus)
                                    .arg(k->gpu->memoryUsedMiB, 0, 'f', 0)
                                    .arg(k->gpu->utilizationPercent, 0, 'f', 0) +
                                idleText(*k->gpu)
                          : u"-"_s)
               << '\n'
               << "restarts     " << k->restarts << '\n'
               << "folder       " << k->folder << '\n';
        if (k->end) {
            if (!k->end->detail.isEmpty())
                io.out << "why          " << run::terminalLines(k->end->detail) << '\n';
            if (!k->end->streamLines.isEmpty())
                io.out << "last output:\n" << run::terminalLines(k->end->streamLines.join(u'\n')) << '\n';
            if (!k->end->logLines.isEmpty())
                io.out << "kernel log:\n" << run::terminalLines(k->end->logLines.join(u'\n')) << '\n';
        }
        return kExitOk;
    }

    int exec(const QString &folder, const QCommandLineParser &parser, Io &io) const
    {
        QString code = parser.positionalArguments().value(2);
        if (parser.isSet(u"file"_s)) {
            const auto text = readTextFile(parser.value(u"file"_s));
            if (!text)
                return fail(text.error(), io);
            code = *text;
        } else if (parser.positionalArguments().size() < 3) {
            return usageError(name(), u"give the code, or -f FILE"_s, io);
        }
        int timeoutMs = -1;
        if (parser.isSet(u"timeout"_s))
            timeoutMs = int(parser.value(u"timeout"_s).toDouble() * 1000);
        const SigpipeIgnored sigpipe; // a closed output or socket is an error here, not the end
        auto connection = kernels::KernelConnection::open(folder, -1);
        if (!connection)
            return fail(connection.error(), io);
        if (const auto end = (*connection)->explainedEnd())
            return fail(Error{kernels::endSentence(*end), folder, 0, 0, u"`ferry kernel start` starts a new one"_s},
                        io);
        KernelOutputPrinter printer(io, folder + u"/outputs"_s);
        g_interrupted = false;
        const auto previous = std::signal(SIGINT, onInterrupt);
        // Ctrl-C interrupts the cell (as in Jupyter), never the kernel.
        QTimer interruptWatch;
        QObject::connect(&interruptWatch, &QTimer::timeout, [&] {
            if (g_interrupted.exchange(false))
                (*connection)->client().interrupt();
        });
        interruptWatch.start(100);
        const auto cell = (*connection)
                              ->execute(
                                  code,
                                  [&](const kernels::JupyterMessage &m) {
                                      printer.print(m);
                                      if (printer.outputClosed()) // nobody reads: the cell goes on
                                          (*connection)->stopWaiting();
                                  },
                                  timeoutMs, true, false);
        std::signal(SIGINT, previous);
        if (!cell && printer.outputClosed())
            return fail(Error{u"the output was closed: the cell goes on in the kernel"_s, folder, 0, 0,
                              u"`ferry kernel attach %1` shows what it prints"_s.arg(QFileInfo(folder).fileName())},
                        io);
        if (!cell)
            return fail(cell.error(), io);
        return cell->status() == u"ok" ? kExitOk : kExitUserError;
    }

    int attach(const QString &folder, Io &io) const
    {
        const SigpipeIgnored sigpipe;
        auto connection = kernels::KernelConnection::open(folder, 0);
        if (!connection)
            return fail(connection.error(), io);
        KernelOutputPrinter printer(io, folder + u"/outputs"_s);
        g_interrupted = false;
        const auto previous = std::signal(SIGINT, onInterrupt);
        (*connection)
            ->follow(
                [&](const kernels::JupyterMessage &m) { printer.print(m, true); },
                [&] { return g_interrupted.load() || printer.outputClosed() || (*connection)->ended().has_value(); });
        std::signal(SIGINT, previous);
        if (printer.outputClosed())
            return kExitUserError;
        if (const auto failed = (*connection)->failure())
            return fail(*failed, io);
        if (const auto end = (*connection)->explainedEnd())
            io.err << "the kernel has ended: " << kernels::endText(*end) << Qt::endl;
        return kExitOk;
    }

    int interrupt(const QString &folder, Io &io) const
    {
        auto connection = kernels::KernelConnection::open(folder, -1);
        if (!connection)
            return fail(connection.error(), io);
        const QString request = (*connection)->client().interrupt();
        bool answered = false;
        QObject::connect(&(*connection)->client(), &kernels::KernelClient::messageReceived,
                         [&](kernels::Channel, const kernels::JupyterMessage &m) {
                             answered = answered || m.parentId() == request;
                         });
        QElapsedTimer clock;
        clock.start();
        while (!answered && clock.elapsed() < 5000)
            QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 100);
        if (!answered) {
            // A kernel that does not take interrupt_request gets SIGINT from its keeper.
            if (auto signalled = kernels::interruptKernelBySignal(folder, m_ferry); !signalled)
                return fail(signalled.error(), io);
        }
        io.err << "interrupted" << Qt::endl;
        return kExitOk;
    }

    QString m_kernelsDir;
    QString m_ferry;
};

} // namespace

std::unique_ptr<Command> makeKernelCommand()
{
    return std::make_unique<KernelCommand>();
}

} // namespace ferry::cli
