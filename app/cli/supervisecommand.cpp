// `ferry __supervise RUN_DIR`: the detached process that owns one local run (started by the
// local target), and `ferry __container-budget RUN_DIR ENGINE`, the one that holds a container
// run's budget (started by the container target); never by hand, so hidden from `ferry --help`.
#include "cli/command.h"

#include "notify/desktopnotifier.h"
#include "run/supervisor.h"
#include "targets/containerbudget.h"

#include <QFileInfo>

#include <memory>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// How long the supervisor waits for the notification service's answer (it blocks the run's clock).
constexpr int kNotifyWaitMs = 1000;

// A budget's word (80 %, stopped) reaches the desktop of whoever started the run, while the window
// may be closed; the bus (`notifier`, made then) is reached only when there is something to say.
run::SupervisorHooks notifyingHooks(std::unique_ptr<notify::DesktopNotifier> &notifier)
{
    run::SupervisorHooks hooks;
    hooks.notify = [&notifier](const QString &title, const QString &body) {
        if (!notifier)
            notifier = std::make_unique<notify::DesktopNotifier>();
        notifier->send(notify::Notification{title, body, notify::Notification::Urgency::Normal, {}, {}});
        notifier->waitForAnswers(kNotifyWaitMs);
    };
    return hooks;
}

class SuperviseCommand final : public Command {
public:
    QString name() const override { return u"__supervise"_s; }
    QString summary() const override { return u"supervise one local run (started by Ferry itself)"_s; }
    bool hidden() const override { return true; }
    void configure(QCommandLineParser &parser) const override
    {
        parser.addPositionalArgument(u"RUN_DIR"_s, u"The run folder, holding spec.json."_s);
    }
    int maxPositionalArguments() const override { return 1; }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        if (args.isEmpty()) {
            io.err << "ferry __supervise: name the run folder" << Qt::endl;
            return kExitUserError;
        }
        if (!QFileInfo(args.first()).isDir()) {
            io.err << "ferry __supervise: no such run folder '" << args.first() << "'" << Qt::endl;
            return kExitUserError;
        }
        io.out.flush();
        io.err.flush();
        std::unique_ptr<notify::DesktopNotifier> notifier;
        return run::superviseRun(args.first(), notifyingHooks(notifier));
    }
};

class ContainerBudgetCommand final : public Command {
public:
    QString name() const override { return targets::kContainerBudgetCommand; }
    QString summary() const override { return u"hold a container run's budget (started by Ferry itself)"_s; }
    bool hidden() const override { return true; }
    void configure(QCommandLineParser &parser) const override
    {
        parser.addPositionalArgument(u"RUN_DIR"_s, u"The run folder, holding spec.json."_s);
        parser.addPositionalArgument(u"ENGINE"_s, u"The container engine the run started with."_s);
    }
    int maxPositionalArguments() const override { return 2; }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        if (args.size() != 2 || !QFileInfo(args.first()).isDir()) {
            io.err << "ferry " << name() << ": name the run folder and the engine" << Qt::endl;
            return kExitUserError;
        }
        io.out.flush();
        io.err.flush();
        std::unique_ptr<notify::DesktopNotifier> notifier;
        return targets::holdContainerBudget(args.at(0), args.at(1), notifyingHooks(notifier));
    }
};

} // namespace

std::unique_ptr<Command> makeSuperviseCommand()
{
    return std::make_unique<SuperviseCommand>();
}

std::unique_ptr<Command> makeContainerBudgetCommand()
{
    return std::make_unique<ContainerBudgetCommand>();
}

} // namespace ferry::cli
