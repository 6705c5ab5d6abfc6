#include "ui/data/datasetpanel.h"

#include "ui/data/datasetpreview.h"

#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QImageReader>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

DatasetPanel::DatasetPanel(QWidget *parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_preview(new DatasetPreview(this))
{
    setObjectName(u"datasetPanel"_s);
    m_list->setObjectName(u"channels"_s);
    m_list->setToolTip(tr("Data channels: drop files or folders on the window to add one"));
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_list);
    split->addWidget(m_preview);
    split->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    m_preview->showText(tr("Drop a CSV or TSV file, an image folder (one subfolder per class) or MNIST idx files "
                           "anywhere on the window."));
    connect(m_list, &QListWidget::currentRowChanged, this, &DatasetPanel::showPreview);
}

void DatasetPanel::addDataset(const QString &path)
{
    auto *watcher = new QFutureWatcher<DetectedDataset>(this);
    connect(watcher, &QFutureWatcher<DetectedDataset>::finished, this, [this, watcher] {
        detected(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(&detectDatasetWithThumbnails, path));
}

QString DatasetPanel::channelNameFor(const QString &path) const
{
    QStringList taken;
    for (int row = 0; row < m_list->count(); ++row)
        taken << m_list->item(row)->data(Qt::UserRole).toString();
    for (const QString &name : {u"training"_s, u"validation"_s, u"test"_s}) {
        if (!taken.contains(name))
            return name;
    }
    QString name = QFileInfo(path).completeBaseName().toLower();
    static const QRegularExpression invalid(u"[^a-z0-9_-]+"_s);
    name.replace(invalid, u"-"_s);
    QString unique = name.isEmpty() ? u"data"_s : name;
    for (int n = 2; taken.contains(unique); ++n)
        unique = name + u'-' + QString::number(n);
    return unique;
}

void DatasetPanel::detected(const DetectedDataset &result)
{
    if (!result.info) {
        Q_EMIT problem(withContext(tr("Dataset"), result.info.error()));
        m_preview->show(result);
        return;
    }
    for (int row = 0; row < m_datasets.size(); ++row) { // dropped again: refresh its preview
        if (m_datasets[row].path == result.path) {
            m_datasets[row] = result;
            m_list->setCurrentRow(row);
            showPreview(row);
            return;
        }
    }
    const QString channel = channelNameFor(result.path);
    auto *item = new QListWidgetItem(u"%1  ←  %2"_s.arg(channel, QFileInfo(result.path).fileName()), m_list);
    item->setData(Qt::UserRole, channel);
    item->setToolTip(result.path);
    m_datasets.append(result);
    m_list->setCurrentRow(m_list->count() - 1);
    Q_EMIT datasetAdded(channel, result.path);
}

void DatasetPanel::showPreview(int row)
{
    if (row < 0 || row >= m_datasets.size())
        return;
    m_preview->show(m_datasets[row]);
    Q_EMIT selected(m_datasets[row].info->path);
}

QList<run::DataChannel> DatasetPanel::channels() const
{
    QList<run::DataChannel> list;
    for (int row = 0; row < m_list->count(); ++row)
        list << run::DataChannel{m_list->item(row)->data(Qt::UserRole).toString(), m_datasets.value(row).path};
    return list;
}

std::optional<data::DatasetInfo> DatasetPanel::selectedInfo() const
{
    const int row = m_list->currentRow();
    if (row < 0 || row >= m_datasets.size() || !m_datasets[row].info)
        return std::nullopt;
    return *m_datasets[row].info;
}

} // namespace ferry::ui
