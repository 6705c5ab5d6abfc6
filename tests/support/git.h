// Runs git in a test's own repository as a fixed user.
#pragma once

// git in a test's own repository, as a fixed user; false (with git's stderr as a warning) when
// it fails. Shared by tst_snapshot and tst_runsdiff.
#include <QProcess>
#include <QString>
#include <QStringList>

namespace ferry::test {

inline bool git(const QString &dir, const QStringList &args)
{
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start(QStringLiteral("git"), QStringList{QStringLiteral("-c"), QStringLiteral("user.name=t"),
                                               QStringLiteral("-c"), QStringLiteral("user.email=t@t")} +
                                       args);
    p.waitForFinished();
    if (p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
        return true;
    qWarning("git %s: %s", qPrintable(args.join(QLatin1Char(' '))), p.readAllStandardError().constData());
    return false;
}

} // namespace ferry::test
