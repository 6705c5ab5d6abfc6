#include "cli/command.h"

namespace ferry::cli {

CommandList allCommands()
{
    CommandList commands;
    commands.push_back(makeDoctorCommand());
    return commands;
}

} // namespace ferry::cli
