#include "cli/dispatcher.h"

#include "common/closestname.h"
#include "ferry/version.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

bool isHelpFlag(const QString &arg)
{
    return arg == "--help"_L1 || arg == "-h"_L1 || arg == "-?"_L1;
}

bool isVersionFlag(const QString &arg)
{
    return arg == "--version"_L1 || arg == "-v"_L1;
}

} // namespace

Dispatcher::Dispatcher(CommandList commands) : m_commands(std::move(commands)) {}

bool Dispatcher::wantsCommandLine(const QStringList &arguments) const
{
    if (arguments.size() < 2)
        return false;
    const QString &first = arguments.at(1);
    if (isHelpFlag(first) || isVersionFlag(first) || first == "help"_L1 || find(first))
        return true;
    if (first.startsWith(u'-'))
        return false; // a GUI option such as --exit-after-first-frame or Qt's -platform
    // A folder to open as a workspace, or something that reads as a path.
    if (QFileInfo::exists(first) || first.contains(u'/') || first.startsWith(u'~'))
        return false;
    return true;
}

Command *Dispatcher::find(const QString &name) const
{
    for (const auto &command : m_commands) {
        if (command->name() == name)
            return command.get();
    }
    return nullptr;
}

int Dispatcher::run(const QStringList &arguments, Io &io)
{
    const QString first = arguments.value(1);
    if (first.isEmpty() || isHelpFlag(first) || (first == "help"_L1 && arguments.size() == 2)) {
        io.out << globalHelp();
        return kExitOk;
    }
    if (isVersionFlag(first)) {
        io.out << "ferry " << kVersion << Qt::endl;
        return kExitOk;
    }
    if (first == "help"_L1) {
        const QString &topic = arguments.at(2);
        if (Command *command = find(topic)) {
            io.out << commandHelp(*command);
            return kExitOk;
        }
        return unknownCommand(topic, io);
    }
    if (first.startsWith(u'-')) {
        io.err << "ferry: unknown option '" << first << "'; see 'ferry --help'" << Qt::endl;
        return kExitUserError;
    }

    Command *command = find(first);
    if (!command)
        return unknownCommand(first, io);

    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addHelpOption();
    command->configure(parser);
    // QCommandLineParser treats the first entry as the program name.
    QStringList rest = command->argumentsToParse(arguments.mid(2));
    rest.prepend(u"ferry "_s + command->name());
    if (!parser.parse(rest)) {
        io.err << "ferry " << command->name() << ": " << parserError(parser) << "; see 'ferry help " << command->name()
               << "'" << Qt::endl;
        return kExitUserError;
    }
    const int maxPositional = command->maxPositionalArguments();
    if (maxPositional >= 0 && parser.positionalArguments().size() > maxPositional) {
        io.err << "ferry " << command->name() << ": unexpected argument '"
               << parser.positionalArguments().at(maxPositional) << "'; see 'ferry help " << command->name() << "'"
               << Qt::endl;
        return kExitUserError;
    }
    if (parser.isSet(u"help"_s)) {
        io.out << commandHelp(*command);
        return kExitOk;
    }
    return command->run(parser, io);
}

int Dispatcher::unknownCommand(const QString &word, Io &io) const
{
    io.err << "ferry: '" << word << "' is not a ferry command";
    if (!QFileInfo::exists(word))
        io.err << " nor an existing folder";
    const QString close = closestCommand(word);
    if (close.isEmpty())
        io.err << '.';
    else
        io.err << "; did you mean '" << close << "'?";
    io.err << " See 'ferry --help'." << Qt::endl;
    return kExitUserError;
}

QString Dispatcher::closestCommand(const QString &word) const
{
    QStringList names;
    for (const auto &command : m_commands) {
        if (!command->hidden())
            names << command->name();
    }
    return closestName(word, names); // only near misses
}

QString Dispatcher::globalHelp() const
{
    QString text;
    QTextStream s(&text);
    s << "Ferry " << kVersion << ": a desktop ML workbench. Edit environments, run training on this\n"
      << "machine, in a container, over SSH or on Slurm, and watch the loss live.\n\n"
      << "Usage:\n"
      << "  ferry [WORKSPACE]            open the window, on a workspace folder if given (else the last one)\n"
      << "  ferry FILE...                open an environment in its editor, a notebook's conversion or a\n"
      << "                               dataset's preview, in the file's workspace\n"
      << "  ferry COMMAND [ARGS...]      run a command without the window\n\n"
      << "Commands:\n"
      << commandList() << '\n'
      << "Options:\n"
      << "  -h, --help                   show this help\n"
      << "  -v, --version                print the version\n"
      << "  --exit-after-first-frame     open the window, print the start-up time, exit\n\n"
      << "Run 'ferry help COMMAND' for the options of one command.\n"
      << "Exit codes: 0 ok, 1 user error (the message says what to do), 2 internal error.\n";
    return text;
}

QString Dispatcher::commandList() const
{
    QString text;
    QTextStream s(&text);
    for (const auto &command : m_commands) {
        if (!command->hidden())
            s << "  " << command->name().leftJustified(12) << " " << command->summary() << '\n';
    }
    s << "  " << u"help"_s.leftJustified(12) << " show a command's arguments and options\n";
    return text;
}

QString Dispatcher::commandHelp(Command &command) const
{
    QCommandLineParser parser;
    parser.setApplicationDescription(command.summary());
    parser.addHelpOption();
    command.configure(parser);
    QString text = parser.helpText();
    // Qt names the program by argv[0] (a full path, say); show the command instead.
    const qsizetype end = text.indexOf(u'\n');
    const QString usage = text.left(end);
    const QString program = QCoreApplication::arguments().value(0);
    QString tail = usage.mid(usage.indexOf(program) + program.size());
    if (!usage.contains(program))
        tail = usage.mid(usage.indexOf(u' ', 7));
    return u"Usage: ferry "_s + command.name() + tail + text.mid(end);
}

} // namespace ferry::cli
