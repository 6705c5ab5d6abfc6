#include "cli/command.h"

namespace ferry::cli {

QString parserError(const QCommandLineParser &parser)
{
    QString text = parser.errorText();
    if (text.endsWith(u'.'))
        text.chop(1);
    return text;
}

int usageError(const QString &command, const QString &message, Io &io)
{
    io.err << "ferry " << command << ": " << message << "; see 'ferry help " << command << "'" << Qt::endl;
    return kExitUserError;
}

bool reportDiagnostics(const Diagnostics &diagnostics, Io &io)
{
    for (const Diagnostic &d : diagnostics)
        io.err << d.toString() << Qt::endl;
    return hasErrors(diagnostics);
}

void printColumnError(const QString &prefix, const QString &text, const Error &error, Io &io)
{
    io.err << prefix;
    if (error.column > 0)
        io.err << "column " << error.column << ": ";
    io.err << error.message << Qt::endl
           << "  " << text << Qt::endl
           << "  " << QString(qMax(0, error.column - 1), u' ') << '^' << Qt::endl;
    if (!error.hint.isEmpty())
        io.err << "  " << error.hint << Qt::endl;
}

CommandList allCommands()
{
    CommandList commands;
    commands.push_back(makeEnvCommand());
    commands.push_back(makeRunCommand());
    commands.push_back(makeRunsCommand());
    commands.push_back(makeSweepCommand());
    commands.push_back(makeRatesCommand());
    commands.push_back(makeBudgetCommand());
    commands.push_back(makeCostCommand());
    commands.push_back(makeTrainCommand());
    commands.push_back(makePredictCommand());
    commands.push_back(makeNotebookCommand());
    commands.push_back(makeKernelCommand());
    commands.push_back(makeSecretCommand());
    commands.push_back(makeDoctorCommand());
    commands.push_back(makeSuperviseCommand());
    commands.push_back(makeContainerBudgetCommand());
    commands.push_back(makeSweepControllerCommand());
    return commands;
}

} // namespace ferry::cli
