// StoreFolders: the store tests' workspaces: a fresh one per call under one temporary folder, a
// store opened in one, a store as an older Ferry wrote it copied into one, and a run created in a
// fresh store with its run folder's usual folders (the followers' tests).
#pragma once

#include "store/runstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QTemporaryDir>
#include <QtGlobal>

#include <memory>

namespace ferry::test {

// The store at `path` opened; nullptr (with the error as a warning) when it does not open.
inline std::unique_ptr<run::RunStore> openStore(const QString &path)
{
    auto store = run::RunStore::open(path);
    if (!store) {
        qWarning("%s", qUtf8Printable(store.error().toString()));
        return nullptr;
    }
    return std::move(*store);
}

class StoreFolders {
public:
    // The store path of a workspace no other call got (the store is not created).
    QString freshPath()
    {
        return run::RunStore::pathInWorkspace(m_dir.filePath(QStringLiteral("ws%1").arg(++m_count)));
    }
    // A store of schema `version` (tests/data/stores/runs-vN.sqlite: that version's empty schema)
    // copied to a fresh workspace, writable; its path.
    QString oldStore(int version)
    {
        const QString path = freshPath();
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile::copy(QStringLiteral(FERRY_TEST_DATA "/stores/runs-v%1.sqlite").arg(version), path);
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        return path;
    }
    QString filePath(const QString &name) const { return m_dir.filePath(name); }
    bool isValid() const { return m_dir.isValid(); }

    // Run "r1" of train.py created in a fresh workspace's store; its folder with code/, model/,
    // output/tensorboard/ and checkpoints/.
    struct StoredRun {
        std::unique_ptr<run::RunStore> store;
        QString dir;
        QString id = QStringLiteral("r1");
    };
    StoredRun newRun()
    {
        StoredRun stored;
        const QString ws = m_dir.filePath(QStringLiteral("ws%1").arg(++m_count));
        auto store = run::RunStore::open(run::RunStore::pathInWorkspace(ws));
        if (!store)
            qFatal("%s", qPrintable(store.error().toString()));
        stored.store = std::move(*store);
        run::RunSpec spec;
        spec.id = stored.id;
        spec.script = QStringLiteral("train.py");
        stored.store->createRun(run::newRunRecord(spec));
        stored.dir = ws + QStringLiteral("/.ferry/runs/r1");
        for (const char *folder : {"code", "model", "output/tensorboard", "checkpoints"})
            QDir().mkpath(stored.dir + QLatin1Char('/') + QLatin1String(folder));
        return stored;
    }

private:
    QTemporaryDir m_dir;
    int m_count = 0;
};

} // namespace ferry::test
