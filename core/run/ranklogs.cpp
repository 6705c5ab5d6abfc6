#include "run/ranklogs.h"

#include "run/rundirectory.h"

#include <QDir>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

QString rankLogFile(const QString &runDir, int rank)
{
    return rank == 0 ? RunDirectory(runDir).logFile() : u"%1/ranks/%2.log"_s.arg(runDir).arg(rank);
}

QList<int> rankLogs(const QString &runDir)
{
    QList<int> ranks{0};
    const QStringList names = QDir(runDir + u"/ranks"_s).entryList({u"*.log"_s}, QDir::Files);
    for (const QString &name : names) {
        bool ok = false;
        const int rank = name.chopped(4).toInt(&ok);
        if (ok && rank > 0)
            ranks << rank;
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

} // namespace ferry::run
