#include "common/leftovers.h"

#include "common/processclock.h"
#include "common/untrustedtree.h"

#include <QDateTime>
#include <QFile>
#include <QRegularExpression>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

std::optional<struct stat> linkStat(const QString &path)
{
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return std::nullopt;
    return st;
}

bool makerAlive(qint64 pid, quint64 startTicks)
{
    const auto state = processState(pid);
    return state && !state->zombie && state->startTicks == startTicks;
}

} // namespace

QString ownedTempTemplate(QLatin1StringView prefix)
{
    const qint64 pid = ::getpid();
    const quint64 ticks = processState(pid).value_or(ProcessState{}).startTicks;
    return QDir::tempPath() + u'/' + prefix + u"-%1-%2-XXXXXX"_s.arg(pid).arg(ticks);
}

QStringList sweepTempLeftovers(const QString &tempDir)
{
    static const QRegularExpression owned(
        u"^(%1|%2)-(\\d+)-(\\d+)-[^/]{6}$"_s.arg(QRegularExpression::escape(QString(kSecretsTempPrefix)),
                                                 QRegularExpression::escape(QString(kEngineTempPrefix))));
    QStringList removed;
    const QStringList names = QDir(tempDir).entryList({kSecretsTempPrefix + u"-*"_s, kEngineTempPrefix + u"-*"_s},
                                                      QDir::Dirs | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    for (const QString &name : names) {
        const QRegularExpressionMatch m = owned.match(name);
        if (!m.hasMatch())
            continue;
        const QString path = QDir(tempDir).filePath(name);
        const auto st = linkStat(path);
        // Only a real folder of ours: a link or another user's folder is left alone.
        if (!st || !S_ISDIR(st->st_mode) || st->st_uid != ::getuid())
            continue;
        if (makerAlive(m.captured(2).toLongLong(), m.captured(3).toULongLong()))
            continue;
        // removeRecursively removes links inside as links, never what they point at.
        if (QDir(path).removeRecursively())
            removed << path;
    }
    return removed;
}

QStringList sweepRunFolderLeftovers(const QString &runsDir, qint64 minAgeMs)
{
    QStringList removed;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QDir runs(runsDir);
    for (const QString &run : runs.entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks)) {
        const QDir folder(runs.filePath(run));
        for (const QString &name : folder.entryList({u"*.tmp-*"_s}, QDir::Files | QDir::System | QDir::Hidden)) {
            const QString path = folder.filePath(name);
            const auto st = linkStat(path);
            if (!st || S_ISDIR(st->st_mode) || now - modifiedMs(*st) < minAgeMs)
                continue;
            if (::unlink(QFile::encodeName(path).constData()) == 0) // a link itself, never its target
                removed << path;
        }
    }
    return removed;
}

} // namespace ferry
