// How to open a command in the user's terminal emulator (the setting, $TERMINAL, the desktop's).
#pragma once

#include "common/setting.h"

#include <QString>
#include <QStringList>

#include <functional>

namespace ferry::ui {

// The terminal emulator chosen in the settings (a program name or path); empty: automatic.
inline const Setting<QString> kTerminalSetting{"desktop/terminal"};

// How to open `command` in the user's terminal emulator: `preferred` (the setting) when
// given, else $TERMINAL when set, else the
// desktop's choice (x-terminal-emulator), else the first of the common ones installed. Each
// emulator gets the command after the option it takes (-e, --, -x, ...), as an argument list.
struct TerminalCommand {
    QString program; // empty: no terminal emulator found
    QStringList arguments;
};
using Lookup = std::function<QString(const QString &)>;
// `environment` reads a variable; `which` finds a program on PATH (empty: not there).
TerminalCommand terminalCommand(const QStringList &command, const Lookup &environment, const Lookup &which,
                                const QString &preferred = {});
// The same with the process environment and PATH.
TerminalCommand terminalCommand(const QStringList &command, const QString &preferred = {});

// The command that opens a login shell in a running container: `docker exec -it ...`.
QStringList containerShellCommand(const QString &engine, const QString &containerId, const QString &user,
                                  const QString &workdir);

} // namespace ferry::ui
