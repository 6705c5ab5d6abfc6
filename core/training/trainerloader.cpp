#include "training/trainerloader.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QPluginLoader>

using namespace Qt::StringLiterals;

namespace ferry::run {

TrainerLoader::TrainerLoader(QStringList searchDirs) : m_searchDirs(std::move(searchDirs)) {}

TrainerLoader::~TrainerLoader() = default;

QString TrainerLoader::pluginFileName()
{
    return u"ferry_trainer.so"_s;
}

QStringList TrainerLoader::defaultSearchDirs(const QString &applicationDir)
{
    QStringList dirs;
    const QString fromEnv = qEnvironmentVariable("FERRY_TRAINER_PLUGIN_DIR");
    if (!fromEnv.isEmpty())
        dirs << fromEnv;
    const QDir app(applicationDir);
    dirs << app.absolutePath();
    dirs << QDir::cleanPath(app.absoluteFilePath(QStringLiteral(FERRY_PLUGIN_RELATIVE_DIR)));
    dirs << QStringLiteral(FERRY_PLUGIN_ABSOLUTE_DIR);
    dirs.removeDuplicates();
    return dirs;
}

Expected<TrainerEngine *> TrainerLoader::load()
{
    if (m_engine)
        return m_engine;

    QString path;
    for (const QString &dir : std::as_const(m_searchDirs)) {
        const QString candidate = QDir(dir).absoluteFilePath(pluginFileName());
        if (QFileInfo(candidate).isFile()) {
            path = candidate;
            break;
        }
    }
    if (path.isEmpty())
        return Error{u"the embedded trainer is not installed: no "_s + pluginFileName() + u" in "_s +
                         m_searchDirs.join(u", "_s),
                     {},
                     0,
                     0,
                     u"install the full Ferry package (it ships the trainer with libtorch), or build with "
                     u"-DFERRY_TRAINER=ON; FERRY_TRAINER_PLUGIN_DIR names another folder to look in"_s};

    auto loader = std::make_unique<QPluginLoader>(path);
    const QString iid = loader->metaData().value(u"IID"_s).toString();
    if (iid.isEmpty())
        return Error{u"not a Ferry trainer plugin: "_s + loader->errorString(), path, 0, 0,
                     u"reinstall Ferry; the file is damaged or was built for another Qt"_s};
    if (iid != QLatin1StringView(FERRY_TRAINER_ENGINE_IID))
        return Error{u"trainer plugin speaks interface %1, this Ferry needs %2"_s.arg(
                         iid, QLatin1StringView(FERRY_TRAINER_ENGINE_IID)),
                     path, 0, 0, u"the plugin belongs to another Ferry version: reinstall Ferry"_s};

    QObject *instance = loader->instance();
    if (!instance)
        return Error{u"cannot load the trainer plugin: "_s + loader->errorString(), path, 0, 0,
                     u"check that libtorch is installed (packaging/install-deps.sh runtime)"_s};
    auto *engine = qobject_cast<TrainerEngine *>(instance);
    if (!engine)
        return Error{u"the trainer plugin does not implement "_s + QLatin1StringView(FERRY_TRAINER_ENGINE_IID), path, 0,
                     0, u"reinstall Ferry"_s};

    m_loader = std::move(loader);
    m_engine = engine;
    m_loadedFrom = path;
    return m_engine;
}

} // namespace ferry::run
