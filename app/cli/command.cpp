#include "cli/command.h"

namespace ferry::cli {

QString parserError(const QCommandLineParser &parser)
{
    QString text = parser.errorText();
    if (text.endsWith(u'.'))
        text.chop(1);
    return text;
}

CommandList allCommands()
{
    CommandList commands;
    commands.push_back(makeEnvCommand());
    commands.push_back(makeRunCommand());
    commands.push_back(makeRunsCommand());
    commands.push_back(makeTrainCommand());
    commands.push_back(makePredictCommand());
    commands.push_back(makeNotebookCommand());
    commands.push_back(makeSecretCommand());
    commands.push_back(makeDoctorCommand());
    commands.push_back(makeSuperviseCommand());
    return commands;
}

} // namespace ferry::cli
