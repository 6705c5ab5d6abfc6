#include "ui/data/datasetpanel.h"

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

namespace {

constexpr int kThumbnailsPerClass = 4;
constexpr int kThumbnailClasses = 8;
constexpr int kThumbnailSize = 64;

} // namespace

DatasetPanel::DatasetPanel(QWidget *parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_summary(new QLabel(this)), m_problems(new QLabel(this)),
      m_details(new QStackedWidget(this)), m_head(new QTableWidget(this)), m_thumbnails(new QListWidget(this))
{
    setObjectName(u"datasetPanel"_s);
    m_list->setObjectName(u"channels"_s);
    m_head->setObjectName(u"head"_s);
    m_thumbnails->setObjectName(u"thumbnails"_s);
    m_summary->setObjectName(u"summary"_s);
    m_problems->setObjectName(u"problems"_s);
    m_list->setToolTip(tr("Data channels: drop files or folders on the window to add one"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(u"color: #b3261e"_s);
    m_head->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_head->verticalHeader()->setVisible(false);
    m_thumbnails->setViewMode(QListView::IconMode);
    m_thumbnails->setIconSize(QSize(kThumbnailSize, kThumbnailSize));
    m_thumbnails->setResizeMode(QListView::Adjust);
    m_thumbnails->setMovement(QListView::Static);
    m_details->addWidget(new QWidget(this));
    m_details->addWidget(m_head);
    m_details->addWidget(m_thumbnails);

    auto *preview = new QWidget(this);
    auto *previewLayout = new QVBoxLayout(preview);
    previewLayout->setContentsMargins(0, 0, 0, 0);
    previewLayout->addWidget(m_summary);
    previewLayout->addWidget(m_problems);
    previewLayout->addWidget(m_details, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_list);
    split->addWidget(preview);
    split->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    m_summary->setText(tr("Drop a CSV or TSV file, an image folder (one subfolder per class) or MNIST idx files "
                          "anywhere on the window."));
    connect(m_list, &QListWidget::currentRowChanged, this, &DatasetPanel::showPreview);
}

DatasetPanel::Detected DatasetPanel::detect(const QString &path)
{
    Detected d{path, data::detectDataset(path), {}};
    if (d.info && d.info->kind == data::DatasetKind::ImageFolder) {
        const QDir root(path);
        const QStringList classes = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString &cls : classes.mid(0, kThumbnailClasses)) {
            const QDir folder(root.filePath(cls));
            const QStringList files = folder.entryList(QDir::Files, QDir::Name);
            int taken = 0;
            for (const QString &file : files) {
                if (taken == kThumbnailsPerClass)
                    break;
                QImageReader reader(folder.filePath(file));
                if (!reader.canRead())
                    continue;
                const QSize size = reader.size();
                if (size.isValid())
                    reader.setScaledSize(size.scaled(kThumbnailSize, kThumbnailSize, Qt::KeepAspectRatio));
                const QImage image = reader.read();
                if (image.isNull())
                    continue;
                d.thumbnails.append({cls, image});
                ++taken;
            }
        }
    }
    return d;
}

void DatasetPanel::addDataset(const QString &path)
{
    auto *watcher = new QFutureWatcher<Detected>(this);
    connect(watcher, &QFutureWatcher<Detected>::finished, this, [this, watcher] {
        detected(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(&DatasetPanel::detect, path));
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

void DatasetPanel::detected(const Detected &result)
{
    if (!result.info) {
        Q_EMIT problem(withContext(tr("Dataset"), result.info.error()));
        m_problems->setText(result.info.error().toString());
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
    const Detected &d = m_datasets[row];
    const data::DatasetInfo &info = *d.info;
    QString summary = u"<b>%1</b> · %2 · %3 samples · sample shape %4 · %5"_s.arg(
        QFileInfo(info.path).fileName().toHtmlEscaped(), info.format, QLocale().toString(info.samples),
        data::shapeText(info.shape, u" × "_s), QLocale().formattedDataSize(info.bytes));
    if (!info.classCounts.isEmpty()) {
        QStringList counts;
        for (const auto &[name, count] : info.classCounts)
            counts << u"%1 %2"_s.arg(name.toHtmlEscaped()).arg(count);
        summary += u"<br>%1 classes: %2"_s.arg(info.classCounts.size()).arg(counts.join(u", "_s));
    }
    m_summary->setText(summary);
    m_problems->setText(info.problems.join(u'\n'));
    m_problems->setVisible(!info.problems.isEmpty());

    if (info.kind == data::DatasetKind::Table) {
        m_head->clear();
        m_head->setColumnCount(static_cast<int>(info.columns.size()));
        m_head->setRowCount(static_cast<int>(info.head.size()));
        QStringList headers;
        for (qsizetype c = 0; c < info.columns.size(); ++c)
            headers << u"%1\n%2"_s.arg(info.columns[c], info.columnTypes.value(c));
        m_head->setHorizontalHeaderLabels(headers);
        for (qsizetype r = 0; r < info.head.size(); ++r) {
            for (qsizetype c = 0; c < info.head[r].size() && c < info.columns.size(); ++c)
                m_head->setItem(static_cast<int>(r), static_cast<int>(c), new QTableWidgetItem(info.head[r][c]));
        }
        m_details->setCurrentWidget(m_head);
    } else if (info.kind == data::DatasetKind::ImageFolder) {
        m_thumbnails->clear();
        for (const auto &[cls, image] : d.thumbnails) {
            auto *item = new QListWidgetItem(QIcon(QPixmap::fromImage(image)), cls, m_thumbnails);
            item->setToolTip(cls);
        }
        m_details->setCurrentWidget(m_thumbnails);
    } else {
        m_details->setCurrentIndex(0);
    }
    Q_EMIT selected(info.path);
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
