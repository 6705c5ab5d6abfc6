#include "ui/data/datasetpreview.h"

#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QImageReader>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kThumbnailsPerClass = 4;
constexpr int kThumbnailClasses = 8;
constexpr int kThumbnailSize = 64;

} // namespace

DetectedDataset detectDatasetWithThumbnails(const QString &path)
{
    DetectedDataset d{path, data::detectDataset(path), {}};
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

DatasetPreview::DatasetPreview(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_problems(new QLabel(this)), m_details(new QStackedWidget(this)),
      m_head(new QTableWidget(this)), m_thumbnails(new QListWidget(this))
{
    m_head->setObjectName(u"head"_s);
    m_thumbnails->setObjectName(u"thumbnails"_s);
    m_summary->setObjectName(u"summary"_s);
    m_problems->setObjectName(u"problems"_s);
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
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_problems);
    layout->addWidget(m_details, 1);
    m_problems->hide();
}

void DatasetPreview::showText(const QString &summary, const QString &problems)
{
    m_summary->setText(summary);
    m_problems->setText(problems);
    m_problems->setVisible(!problems.isEmpty());
    m_details->setCurrentIndex(0);
}

void DatasetPreview::show(const DetectedDataset &dataset)
{
    if (!dataset.info) {
        showText(QFileInfo(dataset.path).fileName().toHtmlEscaped(), dataset.info.error().toString());
        return;
    }
    const data::DatasetInfo &info = *dataset.info;
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
        for (const auto &[cls, image] : dataset.thumbnails) {
            auto *item = new QListWidgetItem(QIcon(QPixmap::fromImage(image)), cls, m_thumbnails);
            item->setToolTip(cls);
        }
        m_details->setCurrentWidget(m_thumbnails);
    } else {
        m_details->setCurrentIndex(0);
    }
}

} // namespace ferry::ui
