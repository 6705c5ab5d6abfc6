// WorkspaceOverview: the open workspace's environments, training scripts and datasets, rescanned as
// the folder changes.
#pragma once

#include "env/environmentfile.h"

#include <QTreeWidget>

#include <functional>

class QFileSystemWatcher;
class QTimer;

namespace ferry::ui {

// The open workspace by what its files are for: environments (with their image tags), training
// scripts and datasets. Rescanned when the folder changes. Double-click asks the window to use
// the item: a script opens the launch dialog, a dataset is previewed and bound, an environment
// is checked. Environment files are read off the GUI thread (a hostile file must not freeze the
// window, security review M6): they are listed at once and labelled when read.
class WorkspaceOverview : public QTreeWidget {
    Q_OBJECT
public:
    enum class Kind { Environment, Script, Dataset, Notebook };
    explicit WorkspaceOverview(QWidget *parent = nullptr);

    void setRoot(const QString &path); // empty: nothing shown
    // The paths listed under a kind, relative to the root, sorted.
    QStringList entries(Kind kind) const;

    // How an environment file is read, on a worker thread: env::readEnvironment unless replaced
    // (tests wrap it to see which thread reads).
    using EnvironmentReader = std::function<env::EnvironmentRead(const QString &path)>;
    void setEnvironmentReader(EnvironmentReader reader) { m_reader = std::move(reader); }

public Q_SLOTS:
    void rescan();

Q_SIGNALS:
    void entryActivated(ferry::ui::WorkspaceOverview::Kind kind, const QString &path);
    // The environments of the latest scan are labelled (image tag, or their first error).
    void environmentsRead();

private:
    struct Label {
        QString path; // relative to the root
        QString text;
        QString problem; // the first error, empty when none
    };
    void showLabels(quint64 scan, const QList<Label> &labels);
    void watchEnvironments();

    QString m_root;
    EnvironmentReader m_reader;
    quint64 m_scan = 0; // results of an older scan are dropped
    QFileSystemWatcher *m_watcher;
    QTimer *m_rescan;
};

} // namespace ferry::ui
