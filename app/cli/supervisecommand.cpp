// `ferry __supervise RUN_DIR`: the detached process that owns one local run (started by the
// local target, never by hand, so hidden from `ferry --help`).
#include "cli/command.h"

#include "notify/desktopnotifier.h"
#include "run/supervisor.h"

#include <QFileInfo>

#include <memory>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// How long the supervisor waits for the notification service's answer (it blocks the run's clock).
constexpr int kNotifyWaitMs = 1000;

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
        // A budget's word (80 %, stopped) reaches the desktop of whoever started the run, while the
        // window may be closed; the bus is reached only when there is something to say.
        std::unique_ptr<notify::DesktopNotifier> notifier;
        run::SupervisorHooks hooks;
        hooks.notify = [&notifier](const QString &title, const QString &body) {
            if (!notifier)
                notifier = std::make_unique<notify::DesktopNotifier>();
            notifier->send(notify::Notification{title, body, notify::Notification::Urgency::Normal, {}, {}});
            notifier->waitForAnswers(kNotifyWaitMs);
        };
        return run::superviseRun(args.first(), hooks);
    }
};

} // namespace

std::unique_ptr<Command> makeSuperviseCommand()
{
    return std::make_unique<SuperviseCommand>();
}

} // namespace ferry::cli
