// The command-line subcommand interface: the Command base class, its Io streams, the exit codes
// every command shares and SIGPIPE held off while a command writes to what may close.
#pragma once

#include "common/diagnostic.h"

#include <QCommandLineParser>
#include <QString>
#include <QTextStream>

#include <csignal>
#include <memory>
#include <vector>

namespace ferry::cli {

// Exit codes shared by every command.
enum ExitCode : int {
    kExitOk = 0,
    kExitUserError = 1,     // the message names the file, line and what to do
    kExitInternalError = 2, // a bug or a broken installation
};

struct Io {
    QTextStream &out;
    QTextStream &err;
};

// While it lives, a write to a closed pipe or socket (`ferry ... | head`) fails with EPIPE, for
// the writer to report, instead of raising SIGPIPE, whose default ends the process.
class SigpipeIgnored {
public:
    SigpipeIgnored() : m_previous(std::signal(SIGPIPE, SIG_IGN)) {}
    ~SigpipeIgnored() { std::signal(SIGPIPE, m_previous); }
    SigpipeIgnored(const SigpipeIgnored &) = delete;
    SigpipeIgnored &operator=(const SigpipeIgnored &) = delete;

private:
    void (*m_previous)(int);
};

// One subcommand (`ferry NAME ...`). Each lives in its own file and is listed once in
// allCommands(); the dispatcher parses options, handles --help and reports bad usage.
class Command {
public:
    virtual ~Command() = default;

    virtual QString name() const = 0;
    virtual QString summary() const = 0; // one line, shown by `ferry --help`
    // Declares positional arguments and options (the dispatcher adds --help).
    virtual void configure(QCommandLineParser &parser) const = 0;
    virtual int run(const QCommandLineParser &parser, Io &io) = 0;
    // How many positional arguments the command takes; -1 for any number.
    virtual int maxPositionalArguments() const { return 0; }
    // The words after the command's name as the parser is to see them (`ferry runs tag ID -old`
    // puts -old after `--`, where it is an argument, not an option).
    virtual QStringList argumentsToParse(const QStringList &words) const { return words; }
    // Internal commands (started by Ferry itself) are left out of `ferry --help`.
    virtual bool hidden() const { return false; }
};

using CommandList = std::vector<std::unique_ptr<Command>>;

// QCommandLineParser's error text without its closing full stop, to be followed by a hint.
QString parserError(const QCommandLineParser &parser);
// "ferry COMMAND: MESSAGE; see 'ferry help COMMAND'" on stderr; returns kExitUserError.
int usageError(const QString &command, const QString &message, Io &io);
// Prints every diagnostic (file:line:column, then the hint) on stderr; true when one is an error.
bool reportDiagnostics(const Diagnostics &diagnostics, Io &io);
// An error in a one-line text an option gave (a query, an alert rule), on stderr:
// "PREFIXcolumn 18: MESSAGE", the text, a caret under the column, then the hint if any.
void printColumnError(const QString &prefix, const QString &text, const Error &error, Io &io);

// Every subcommand, in the order `ferry --help` lists them.
CommandList allCommands();

// One factory per command file.
std::unique_ptr<Command> makeDoctorCommand();
std::unique_ptr<Command> makeEnvCommand();
std::unique_ptr<Command> makeRunCommand();
std::unique_ptr<Command> makeRunsCommand();
std::unique_ptr<Command> makeTrainCommand();
std::unique_ptr<Command> makePredictCommand();
std::unique_ptr<Command> makeSuperviseCommand();
std::unique_ptr<Command> makeContainerBudgetCommand();
std::unique_ptr<Command> makeSecretCommand();
std::unique_ptr<Command> makeNotebookCommand();
std::unique_ptr<Command> makeKernelCommand();
std::unique_ptr<Command> makeSweepCommand();
std::unique_ptr<Command> makeRatesCommand();
std::unique_ptr<Command> makeBudgetCommand();
std::unique_ptr<Command> makeCostCommand();
std::unique_ptr<Command> makeSweepControllerCommand();

} // namespace ferry::cli
