// Finds the corpus of real files from public repositories that some tests read.
#pragma once

// Real files from public repositories: ../shared/corpus beside the checkout (its README says
// where each came from); FERRY_CORPUS names that folder for a checkout kept elsewhere. Outside
// any namespace so that tests with a function named ferry() can include it.
#include <QString>
#include <QtGlobal>

inline QString corpusPath(const QString &relative)
{
    const QString dir = qEnvironmentVariable("FERRY_CORPUS", QStringLiteral(FERRY_SOURCE_DIR "/../shared/corpus"));
    return dir + u'/' + relative;
}
