// `ferry __sweep SWEEP_DIR --workspace ROOT`: the detached controller of one sweep (started by
// `ferry sweep start|resume` and the window, never by hand, so hidden from `ferry --help`). It
// leaves the terminal's session, so closing the terminal or Ferry never stops a sweep; TERM
// ends it with its trials left running, for a later `ferry sweep resume`.
#include "cli/command.h"
#include "cli/runsupport.h"

#include "sweep/sweepcontroller.h"
#include "targets/targetfactory.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QThread>

#include <atomic>
#include <csignal>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void onStop(int)
{
    g_stop = true;
}

class SweepControllerCommand final : public Command {
public:
    QString name() const override { return u"__sweep"_s; }
    QString summary() const override { return u"drive one sweep (started by Ferry itself)"_s; }
    bool hidden() const override { return true; }
    void configure(QCommandLineParser &parser) const override
    {
        parser.addPositionalArgument(u"SWEEP_DIR"_s, u"The sweep's folder, holding state.json."_s);
        parser.addOption({u"workspace"_s, u"The workspace folder."_s, u"DIR"_s});
    }
    int maxPositionalArguments() const override { return 1; }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        if (args.isEmpty() || !QFileInfo(args.first()).isDir() || !parser.isSet(u"workspace"_s))
            return usageError(name(), u"name the sweep's folder and --workspace"_s, io);
        (void)::setsid(); // its own session: a closed terminal's hang-up never reaches it
        std::signal(SIGHUP, SIG_IGN);
        std::signal(SIGTERM, onStop);
        std::signal(SIGINT, onStop);
        auto context = openRunContext(parser.value(u"workspace"_s), io);
        if (!context)
            return kExitUserError;
        const QString ferry = QCoreApplication::applicationFilePath();
        sweep::ControllerOptions options;
        options.ferryProgram = ferry;
        options.gpus = sweep::machineGpus();
        options.cores = QThread::idealThreadCount();
        options.stop = [] { return g_stop.load(); };
        sweep::SweepController controller(
            *context->store, context->workspace, sweep::SweepDirectory(QFileInfo(args.first()).absoluteFilePath()),
            [ferry](const run::TargetSpec &spec) { return targets::makeTarget(spec, ferry); }, options);
        const auto state = controller.run();
        context->store->flush();
        if (!state) {
            io.err << "ferry __sweep: " << state.error().toString() << Qt::endl;
            return kExitUserError;
        }
        return state->status == sweep::SweepStatus::Failed ? kExitUserError : kExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeSweepControllerCommand()
{
    return std::make_unique<SweepControllerCommand>();
}

} // namespace ferry::cli
