#include "ui/env/terminallauncher.h"

#include <QFileInfo>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// The option after which each emulator takes the command to run.
QStringList commandOption(const QString &program)
{
    const QString name = QFileInfo(program).fileName();
    if (name == "gnome-terminal"_L1 || name == "kgx"_L1 || name == "ptyxis"_L1)
        return {u"--"_s};
    if (name == "xfce4-terminal"_L1 || name == "mate-terminal"_L1 || name == "terminator"_L1)
        return {u"-x"_s};
    if (name == "kitty"_L1 || name == "foot"_L1)
        return {};
    if (name == "wezterm"_L1)
        return {u"start"_s, u"--"_s};
    return {u"-e"_s}; // xterm, konsole, alacritty, urxvt, x-terminal-emulator, and most others
}

} // namespace

TerminalCommand terminalCommand(const QStringList &command, const Lookup &environment, const Lookup &which,
                                const QString &preferred)
{
    QStringList candidates;
    if (!preferred.trimmed().isEmpty())
        candidates << preferred.trimmed();
    const QString chosen = environment(u"TERMINAL"_s).trimmed();
    if (!chosen.isEmpty())
        candidates << chosen;
    candidates << u"x-terminal-emulator"_s << u"gnome-terminal"_s << u"konsole"_s << u"xfce4-terminal"_s
               << u"alacritty"_s << u"kitty"_s << u"foot"_s << u"wezterm"_s << u"xterm"_s;
    for (const QString &candidate : std::as_const(candidates)) {
        const QString program = which(candidate);
        if (program.isEmpty())
            continue;
        return TerminalCommand{program, commandOption(candidate) + command};
    }
    return {};
}

TerminalCommand terminalCommand(const QStringList &command, const QString &preferred)
{
    return terminalCommand(
        command, [](const QString &name) { return qEnvironmentVariable(name.toUtf8().constData()); },
        [](const QString &name) {
            return QFileInfo(name).isAbsolute() && QFileInfo(name).isExecutable()
                       ? name
                       : QStandardPaths::findExecutable(name);
        },
        preferred);
}

QStringList containerShellCommand(const QString &engine, const QString &containerId, const QString &user,
                                  const QString &workdir)
{
    QStringList args{engine, u"exec"_s, u"-it"_s};
    if (!user.isEmpty())
        args << u"-u"_s << user;
    if (!workdir.isEmpty())
        args << u"-w"_s << workdir;
    // A fixed line for the container's shell: bash where the image has it, sh otherwise.
    args << containerId << u"sh"_s << u"-c"_s << u"command -v bash >/dev/null && exec bash -l || exec sh -l"_s;
    return args;
}

} // namespace ferry::ui
