#include "run/workfolder.h"

#include <QDir>
#include <QFile>

using namespace Qt::StringLiterals;

namespace ferry::run {

MetricFileKind metricFileKind(QStringView name)
{
    if (name.startsWith(u"events.out.tfevents."))
        return MetricFileKind::Events;
    if (name == u"metrics.csv")
        return MetricFileKind::LightningCsv;
    if (name == u"trainer_state.json")
        return MetricFileKind::TrainerState;
    if (name == u"histograms.jsonl")
        return MetricFileKind::HistogramLines;
    return MetricFileKind::None;
}

Expected<void> prepareWorkFolder(const QString &workDir, const QString &sourceDir,
                                 const std::function<QString(const QString &name)> &linkTarget)
{
    if (!QDir().mkdir(workDir))
        return Error{u"cannot create the run's working folder"_s, workDir, 0, 0,
                     u"check that the run folder is writable and holds no code/ yet"_s};
    const QDir source(sourceDir);
    const QStringList entries =
        source.entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &name : entries) {
        if (name == u".ferry"_s || kRunLogFolders.contains(name))
            continue;
        if (!QFile::link(linkTarget(name), workDir + u'/' + name))
            return Error{u"cannot link '%1' of the source folder into the run's working folder"_s.arg(name), workDir, 0,
                         0, u"check that the run folder's file system takes symbolic links"_s};
    }
    for (const QString &name : kRunLogFolders) {
        if (!QDir().mkdir(workDir + u'/' + name))
            return Error{u"cannot create '%1' in the run's working folder"_s.arg(name), workDir, 0, 0, {}};
    }
    return {};
}

} // namespace ferry::run
