// Where each rank's log of a run across nodes is in its run folder.
#pragma once

// The logs of a run across nodes (run/distribution.h), one per rank.
#include <QList>
#include <QString>

namespace ferry::run {

// Where rank `rank`'s log of a run across nodes is in its run folder: rank 0's is the run's log
// (its metrics come from it), rank K's ranks/K.log (collected when the run ends).
QString rankLogFile(const QString &runDir, int rank);
// The ranks whose logs the run folder holds, 0 first; {0} for a run of one process.
QList<int> rankLogs(const QString &runDir);

} // namespace ferry::run
