#include "cli/rerunprovenance.h"

#include "targets/imagerecord.h"
#include "tracking/rerun.h"

using namespace Qt::StringLiterals;

namespace ferry::cli {

void comparePackages(const RunContext &context, const QString &originalId, const QString &rerunId, Io &io)
{
    const auto before = targets::readRunPackages(runDirOf(context, originalId));
    const auto after = targets::readRunPackages(runDirOf(context, rerunId));
    if (!before || !after)
        return;
    const QStringList changes = targets::packageChanges(*before, *after);
    if (changes.isEmpty())
        return;
    io.err << "warning: the image resolved other packages than run " << originalId << "'s (" << changes.size()
           << " lines differ):" << Qt::endl;
    for (const QString &line : changes.mid(0, 40))
        io.err << "  " << line << Qt::endl;
}

void compareData(const run::RunSpec &original, const run::RunSpec &rerun, Io &io)
{
    for (const QString &line : run::dataChanges(original, rerun))
        io.err << "warning: " << line << Qt::endl;
}

} // namespace ferry::cli
