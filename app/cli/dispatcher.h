// Decides whether Ferry's arguments ask for the command line or the window, and dispatches
// subcommands with their help.
#pragma once

#include "cli/command.h"

#include <QStringList>

namespace ferry::cli {

// Decides between the GUI and the command line, and runs subcommands.
class Dispatcher {
public:
    explicit Dispatcher(CommandList commands);

    // True when the arguments ask for the command line rather than the window: a command
    // name, help or version, or a word that is neither an option nor a folder (an unknown
    // command, reported as such).
    bool wantsCommandLine(const QStringList &arguments) const;

    // arguments[0] is the program; returns the process exit code.
    int run(const QStringList &arguments, Io &io);

    // The commands, one line each ("  doctor       check this installation ..."), as the help lists them.
    QString commandList() const;

private:
    Command *find(const QString &name) const;
    QString globalHelp() const;
    QString commandHelp(Command &command) const;
    QString closestCommand(const QString &word) const;
    int unknownCommand(const QString &word, Io &io) const;

    CommandList m_commands;
};

} // namespace ferry::cli
