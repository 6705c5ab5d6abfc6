// Entry point: the command line or the window, decided from the first argument.
#include "cli/dispatcher.h"
#include "cli/safeterminaloutput.h"
#include "common/leftovers.h"

#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>
#include <unistd.h>

#ifdef FERRY_WITH_GUI
int runGui(int argc, char **argv, const QString &commands);
#endif

int main(int argc, char **argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);

    // SSH_ASKPASS / GIT_ASKPASS helper mode: ssh runs the program with its prompt ("Enter
    // passphrase for key ...: ") as the only argument. Ferry sets FERRY_ASKPASS_SECRET for the ssh
    // it starts; no command name contains a space.
    const bool askpass = qEnvironmentVariableIsSet("FERRY_ASKPASS_SECRET") && argc <= 2 &&
                         (argc == 1 || arguments[1].contains(QLatin1Char(' ')));
    if (askpass) {
        arguments = QStringList{arguments.value(0), QStringLiteral("secret"), QStringLiteral("askpass"),
                                arguments.value(1)}; // the prompt: only a passphrase question is answered
        if (arguments.last().isEmpty())
            arguments.removeLast();
    }

    // What a killed Ferry left in the temp folder (secret values, registry logins) goes first.
    (void)ferry::sweepTempLeftovers();

    ferry::cli::Dispatcher dispatcher(ferry::cli::allCommands());
    if (dispatcher.wantsCommandLine(arguments)) {
        QCoreApplication app(argc, argv);
        QCoreApplication::setOrganizationName(QStringLiteral("Ferry"));
        QCoreApplication::setApplicationName(QStringLiteral("ferry"));
        QTextStream out(stdout);
        // Messages may echo what came from elsewhere: shown without its control sequences (L3).
        ferry::cli::SafeTerminalOutput errors(STDERR_FILENO);
        QTextStream err(&errors);
        ferry::cli::showQtMessagesSafely();
        ferry::cli::Io io{out, err};
        return dispatcher.run(askpass ? arguments : app.arguments(), io);
    }
#ifdef FERRY_WITH_GUI
    return runGui(argc, argv, dispatcher.commandList());
#else
    std::fputs("ferry: this build has no window (configured with FERRY_GUI=OFF); "
               "use the command line, see 'ferry --help'\n",
               stderr);
    return ferry::cli::kExitUserError;
#endif
}
