#include "ui/workspace/workspaceoverview.h"

#include "env/formats.h"
#include "env/spechash.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kMaxDepth = 3;      // folders below the root that are looked into
constexpr int kMaxEntries = 2000; // a huge folder is not walked to the end
const QStringList kSkipped{u".ferry"_s,       u".git"_s,  u".devcontainer"_s, u"__pycache__"_s,
                           u"node_modules"_s, u".venv"_s, u"venv"_s,          u".ipynb_checkpoints"_s};

bool isImage(const QString &name)
{
    static const QStringList suffixes{u"png"_s, u"jpg"_s, u"jpeg"_s, u"bmp"_s, u"gif"_s, u"webp"_s};
    return suffixes.contains(QFileInfo(name).suffix().toLower());
}

// A folder of class folders with images in them (looks at the first few only).
bool isImageFolder(const QDir &dir)
{
    const QStringList classes = dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    if (classes.size() < 2)
        return false;
    int withImages = 0;
    for (const QString &cls : classes.mid(0, 4)) {
        const QStringList files = QDir(dir.filePath(cls)).entryList(QDir::Files, QDir::Name);
        if (std::any_of(files.begin(), files.begin() + std::min<qsizetype>(files.size(), 8), isImage))
            ++withImages;
    }
    return withImages >= 2;
}

bool isDataFile(const QString &name)
{
    const QString lower = name.toLower();
    return lower.endsWith(u".csv"_s) || lower.endsWith(u".tsv"_s) || lower.endsWith(u"-ubyte"_s) ||
           lower.endsWith(u"-ubyte.gz"_s);
}

// An environment as its group lists it: the group says environments/, the name and tag follow.
QString environmentTitle(const QString &relative)
{
    const QString folder = u"environments/"_s;
    return relative.startsWith(folder) ? relative.mid(folder.size()) : relative;
}

// A percent-format script (`# %%` cells) opens as a notebook too: a line of its first 64 KiB starts so.
bool isPercentNotebook(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(64 * 1024);
    return head.startsWith("# %%") || head.contains("\n# %%");
}

struct Scan {
    QStringList environments, scripts, datasets, notebooks;
    int seen = 0;
};

void walk(const QDir &root, const QDir &dir, int depth, Scan &scan)
{
    const QFileInfoList entries = dir.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo &entry : entries) {
        if (++scan.seen > kMaxEntries)
            return;
        const QString relative = root.relativeFilePath(entry.absoluteFilePath());
        if (entry.isDir()) {
            if (kSkipped.contains(entry.fileName()))
                continue;
            if (isImageFolder(QDir(entry.absoluteFilePath()))) {
                scan.datasets << relative + u'/';
                continue; // its class folders are data, not more to list
            }
            if (depth < kMaxDepth)
                walk(root, QDir(entry.absoluteFilePath()), depth + 1, scan);
            continue;
        }
        const QString name = entry.fileName();
        if (relative.startsWith(u"environments/"_s) && (name.endsWith(u".yml"_s) || name.endsWith(u".yaml"_s)))
            scan.environments << relative;
        else if (name.endsWith(u".ipynb"_s))
            scan.notebooks << relative;
        else if (name.endsWith(u".py"_s)) {
            scan.scripts << relative;
            if (isPercentNotebook(entry.absoluteFilePath()))
                scan.notebooks << relative;
        } else if (isDataFile(name))
            scan.datasets << relative;
    }
}

} // namespace

WorkspaceOverview::WorkspaceOverview(QWidget *parent)
    : QTreeWidget(parent), m_reader(env::readEnvironment), m_watcher(new QFileSystemWatcher(this)),
      m_rescan(new QTimer(this))
{
    setObjectName(u"workspaceOverview"_s);
    setHeaderHidden(true);
    setColumnCount(1);
    setRootIsDecorated(true);
    setTextElideMode(Qt::ElideMiddle); // a long path keeps its file name in view; the tooltip has it whole
    m_rescan->setSingleShot(true);
    m_rescan->setInterval(300); // a burst of changes, one rescan
    connect(m_rescan, &QTimer::timeout, this, &WorkspaceOverview::rescan);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, m_rescan, qOverload<>(&QTimer::start));
    connect(m_watcher, &QFileSystemWatcher::fileChanged, m_rescan, qOverload<>(&QTimer::start));
    connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        if (!item->parent())
            return;
        Q_EMIT entryActivated(static_cast<Kind>(item->parent()->data(0, Qt::UserRole).toInt()),
                              QDir(m_root).filePath(item->data(0, Qt::UserRole).toString()));
    });
    rescan(); // no workspace yet: says what will be listed
}

void WorkspaceOverview::setRoot(const QString &path)
{
    m_root = path;
    if (!m_watcher->directories().isEmpty())
        m_watcher->removePaths(m_watcher->directories());
    if (!m_watcher->files().isEmpty())
        m_watcher->removePaths(m_watcher->files());
    if (!path.isEmpty())
        m_watcher->addPath(path);
    rescan(); // watches environments/ too
}

void WorkspaceOverview::watchEnvironments()
{
    // Also when it was made after the workspace was opened (its first new environment): a version
    // saved there later changes the labels (UX review 2026-12-06, finding 9).
    const QString environments = m_root + u"/environments"_s;
    if (QFileInfo(environments).isDir() && !m_watcher->directories().contains(environments))
        m_watcher->addPath(environments);
}

void WorkspaceOverview::rescan()
{
    clear();
    const quint64 scanId = ++m_scan;
    if (m_root.isEmpty()) {
        // Not an empty box on first start: what will be here.
        auto *hint = new QTreeWidgetItem(this, {tr("Open a workspace to list its files")});
        hint->setToolTip(0, tr("Its environments, training scripts and datasets are listed here"));
        hint->setData(0, Qt::UserRole, -1); // no kind
        hint->setFlags(Qt::ItemIsEnabled);
        hint->setForeground(0, palette().placeholderText());
        return;
    }
    watchEnvironments();
    Scan scan;
    walk(QDir(m_root), QDir(m_root), 0, scan);
    const auto group = [this](Kind kind, const QString &title, const QStringList &paths, const QString &empty) {
        auto *top = new QTreeWidgetItem(this, {u"%1 (%2)"_s.arg(title).arg(paths.size())});
        top->setData(0, Qt::UserRole, static_cast<int>(kind));
        top->setFlags(Qt::ItemIsEnabled);
        for (const QString &path : paths) {
            auto *item = new QTreeWidgetItem(
                top, {kind == Kind::Environment ? environmentTitle(path) + tr("  (reading…)") : path});
            item->setData(0, Qt::UserRole, path);
            item->setToolTip(0, QDir(m_root).filePath(path));
        }
        if (paths.isEmpty()) {
            auto *hint = new QTreeWidgetItem(top, {empty});
            hint->setToolTip(0, empty);
            hint->setFlags(Qt::ItemIsEnabled);
            hint->setForeground(0, palette().placeholderText());
        }
        top->setExpanded(true);
    };
    group(Kind::Environment, tr("Environments"), scan.environments, tr("drop an environment.yml or requirements.txt"));
    group(Kind::Script, tr("Scripts"), scan.scripts, tr("no Python scripts yet"));
    group(Kind::Notebook, tr("Notebooks"), scan.notebooks, tr("drop a .ipynb, or write a .py with # %% cells"));
    group(Kind::Dataset, tr("Datasets"), scan.datasets, tr("drop a CSV, an image folder or MNIST files"));

    // The files are read on a worker; a newer scan makes this one's labels stale.
    const QString root = m_root;
    const QStringList paths = scan.environments;
    const EnvironmentReader reader = m_reader;
    const QString errorsText = tr("  (has errors)");
    auto *watcher = new QFutureWatcher<QList<Label>>(this);
    connect(watcher, &QFutureWatcher<QList<Label>>::finished, this, [this, watcher, scanId] {
        showLabels(scanId, watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([root, paths, reader, errorsText] {
        QList<Label> labels;
        for (const QString &path : paths) {
            const env::EnvironmentRead read = reader(QDir(root).filePath(path));
            Label label{path, environmentTitle(path), {}};
            for (const env::Diagnostic &d : read.diagnostics) {
                if (d.isError()) {
                    label.problem = d.where.toString();
                    break;
                }
            }
            label.text += label.problem.isEmpty() ? u"  "_s + env::imageTag(read.environment) : errorsText;
            labels << label;
        }
        return labels;
    }));
}

void WorkspaceOverview::showLabels(quint64 scan, const QList<Label> &labels)
{
    if (scan != m_scan)
        return; // the folder changed meanwhile: a newer scan labels it
    for (int i = 0; i < topLevelItemCount(); ++i) {
        QTreeWidgetItem *top = topLevelItem(i);
        if (top->data(0, Qt::UserRole).toInt() != static_cast<int>(Kind::Environment))
            continue;
        for (int c = 0; c < top->childCount() && c < labels.size(); ++c) {
            QTreeWidgetItem *item = top->child(c);
            const Label &label = labels[c];
            if (item->data(0, Qt::UserRole).toString() != label.path)
                continue;
            item->setText(0, label.text);
            if (!label.problem.isEmpty())
                item->setToolTip(0, label.problem);
        }
    }
    Q_EMIT environmentsRead();
}

QStringList WorkspaceOverview::entries(Kind kind) const
{
    QStringList list;
    for (int i = 0; i < topLevelItemCount(); ++i) {
        const QTreeWidgetItem *top = topLevelItem(i);
        if (top->data(0, Qt::UserRole).toInt() != static_cast<int>(kind))
            continue;
        for (int c = 0; c < top->childCount(); ++c) {
            const QString path = top->child(c)->data(0, Qt::UserRole).toString();
            if (!path.isEmpty())
                list << path;
        }
    }
    return list;
}

} // namespace ferry::ui
