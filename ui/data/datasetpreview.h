// DatasetPreview: what a dataset holds, as the window shows it before it is used (the data
// panel's preview, the notebook's drop on a cell): a summary line (format, samples, shape, size,
// classes), its problems, and a CSV's head with column types or an image folder's thumbnails.
#pragma once

#include "common/error.h"
#include "data/dataset.h"

#include <QImage>
#include <QList>
#include <QPair>
#include <QWidget>

class QLabel;
class QListWidget;
class QStackedWidget;
class QTableWidget;

namespace ferry::ui {

// A dataset detected off the GUI thread (data::detectDataset) with a few thumbnails per class.
struct DetectedDataset {
    QString path;
    Expected<data::DatasetInfo> info = Error{};
    QList<QPair<QString, QImage>> thumbnails; // image folders: a few per class
};
DetectedDataset detectDatasetWithThumbnails(const QString &path);

class DatasetPreview : public QWidget {
    Q_OBJECT
public:
    explicit DatasetPreview(QWidget *parent = nullptr);

    void show(const DetectedDataset &dataset);
    // The summary line alone (no dataset yet, or why it cannot be read).
    void showText(const QString &summary, const QString &problems = {});

private:
    QLabel *m_summary;
    QLabel *m_problems;
    QStackedWidget *m_details;
    QTableWidget *m_head;
    QListWidget *m_thumbnails;
};

} // namespace ferry::ui
