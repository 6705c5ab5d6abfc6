// TrainerLoader: finds and loads the trainer plugin on first use, and never unloads it.
#pragma once

#include "common/error.h"
#include "training/trainerengine.h"

#include <QStringList>

#include <memory>

class QPluginLoader;

namespace ferry::run {

// Finds and loads the ferry_trainer plugin on first use. The plugin is never unloaded:
// libtorch does not survive being unloaded and reloaded in one process.
class TrainerLoader {
public:
    // Looks in each folder in order for the plugin file.
    explicit TrainerLoader(QStringList searchDirs);
    ~TrainerLoader();
    TrainerLoader(const TrainerLoader &) = delete;
    TrainerLoader &operator=(const TrainerLoader &) = delete;

    // Where a Ferry at `applicationDir` looks: $FERRY_TRAINER_PLUGIN_DIR if set, the
    // executable's own folder (build tree), then the install prefix relative to it and the
    // prefix Ferry was configured with.
    static QStringList defaultSearchDirs(const QString &applicationDir);
    static QString pluginFileName();

    QStringList searchDirs() const { return m_searchDirs; }
    // Loads the plugin if it is not loaded yet. The engine lives as long as the process.
    Expected<TrainerEngine *> load();
    bool isLoaded() const { return m_engine != nullptr; }
    QString loadedFrom() const { return m_loadedFrom; }

private:
    QStringList m_searchDirs;
    std::unique_ptr<QPluginLoader> m_loader;
    TrainerEngine *m_engine = nullptr;
    QString m_loadedFrom;
};

} // namespace ferry::run
