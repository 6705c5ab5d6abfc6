// `ferry __supervise RUN_DIR`: the detached process that owns one local run (started by the
// local target, never by hand, so hidden from `ferry --help`).
#include "cli/command.h"

#include "run/supervisor.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

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
        return run::superviseRun(args.first());
    }
};

} // namespace

std::unique_ptr<Command> makeSuperviseCommand()
{
    return std::make_unique<SuperviseCommand>();
}

} // namespace ferry::cli
