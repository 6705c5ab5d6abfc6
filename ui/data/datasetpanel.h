// DatasetPanel: detects, previews and binds dropped datasets as named data channels for runs.
#pragma once

#include "common/error.h"
#include "data/dataset.h"
#include "run/runspec.h"
#include "ui/data/datasetpreview.h"

#include <QWidget>

class QListWidget;

namespace ferry::ui {

// The datasets dropped on the window: each is detected off the GUI thread (format, shape,
// class counts, problems), previewed (a CSV's head with column types, image thumbnails with
// class counts, an idx file's shape) and bound as a named data channel for runs.
class DatasetPanel : public QWidget {
    Q_OBJECT
public:
    explicit DatasetPanel(QWidget *parent = nullptr);

    // Detects and binds `path`; the channel is named "training", then "validation", then after
    // the file. Returns at once; datasetAdded or problem follows.
    void addDataset(const QString &path);
    QList<run::DataChannel> channels() const;
    // The preview's info of the selected dataset (empty before the first detection ends).
    std::optional<data::DatasetInfo> selectedInfo() const;

Q_SIGNALS:
    void datasetAdded(const QString &channel, const QString &path);
    void selected(const QString &path);
    void problem(const ferry::Error &error); // "Dataset: " and why it cannot be read, at its file

private:
    void detected(const DetectedDataset &result);
    void showPreview(int row);
    QString channelNameFor(const QString &path) const;

    QListWidget *m_list;
    DatasetPreview *m_preview;
    QList<DetectedDataset> m_datasets; // parallel to m_list's rows
};

} // namespace ferry::ui
