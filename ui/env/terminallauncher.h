#pragma once

#include <QString>
#include <QStringList>

#include <functional>

namespace ferry::ui {

// How to open `command` in the user's terminal emulator: $TERMINAL when set, else the
// desktop's choice (x-terminal-emulator), else the first of the common ones installed. Each
// emulator gets the command after the option it takes (-e, --, -x, ...), as an argument list.
struct TerminalCommand {
    QString program; // empty: no terminal emulator found
    QStringList arguments;
};
using Lookup = std::function<QString(const QString &)>;
// `environment` reads a variable; `which` finds a program on PATH (empty: not there).
TerminalCommand terminalCommand(const QStringList &command, const Lookup &environment, const Lookup &which);
// The same with the process environment and PATH.
TerminalCommand terminalCommand(const QStringList &command);

// The command that opens a login shell in a running container: `docker exec -it ...`.
QStringList containerShellCommand(const QString &engine, const QString &containerId, const QString &user,
                                  const QString &workdir);

} // namespace ferry::ui
