// RunImagesView: the Images page of the Media tab: runs' images of one tag side by side, at one step.
#pragma once

// For the runs it is given: a tag (every run's image tags), a slider and a spin box over the steps
// any of them logged at that tag, and one cell per run showing that run's image at the step, or at
// the latest step before it (TensorBoard's rule), named and coloured as the chart names and colours
// it. Images are read and decoded off the GUI thread (ui/media/mediareads.h), scaled to their cell:
// the view holds only what it shows. A click on an image opens it at full size. Read again by
// refresh() (the Media tab does so every few seconds while in view): new steps appear while a run
// writes, and a slider at the last step follows the newest.
#include "ui/analysis/runsanalysisdata.h"
#include "ui/media/mediareads.h"

#include <QDialog> // whole: a QPointer to one
#include <QFutureWatcher>
#include <QPointer>
#include <QThreadPool>
#include <QTimer>
#include <QWidget>

class QComboBox;

class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;
class QStackedWidget;

namespace ferry::ui {

// How the media views name and colour a run (its name in the runs table, its colour in the chart).
using MediaRunLooks = std::function<RunLook(const QString &runId)>;

// One run's image in the Images page: its name in its colour, the image scaled to fit, the step it
// is from, or what is wrong.
class ImageCell final : public QWidget {
    Q_OBJECT
public:
    explicit ImageCell(QString runId, QWidget *parent = nullptr);
    const QString &runId() const { return m_runId; }
    void setLook(const RunLook &look);
    void setShown(ShownImage shown, qint64 askedStep, bool hasAny);
    const ShownImage &shown() const { return m_shown; }
    QString note() const { return m_note; } // the line under the image
    QSize imageArea() const;                // the size an image is decoded to

Q_SIGNALS:
    void clicked(const QString &runId);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    QString m_runId;
    RunLook m_look;
    ShownImage m_shown;
    QString m_note;
};

class RunImagesView final : public QWidget {
    Q_OBJECT
public:
    explicit RunImagesView(QWidget *parent = nullptr);
    ~RunImagesView() override;

    void setStore(const run::RunStore *store, const QString &runsDir); // waits for reads of the old one
    void setRuns(const QStringList &runIds);
    void setRunLooks(const MediaRunLooks &looks);
    void refresh(); // the index read again: new tags and steps

    // For tests and screenshots.
    QComboBox *tagBox() const { return m_tag; }
    QSlider *slider() const { return m_slider; }
    QSpinBox *stepBox() const { return m_step; }
    QSpinBox *sampleBox() const { return m_sample; } // shown when a step has several images
    QLabel *emptyLabel() const { return m_empty; }
    bool showsEmptyState() const;
    const ImageIndex &index() const { return m_index; }
    QList<ImageCell *> cells() const { return m_cells; }
    ImageCell *cellOf(const QString &runId) const;
    qint64 step() const; // the step the slider is at
    void setStep(qint64 step);
    bool isReading() const;
    QDialog *fullImage() const { return m_full; } // the last image opened at full size, while open
    void openFullImage(const QString &runId);

    static constexpr int kMostRuns = 12; // runs shown side by side; the others named as left out

Q_SIGNALS:
    void readDone(); // the index and the images asked for are read and shown

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    struct IndexRead {
        quint64 generation = 0;
        ImageIndex index;
    };
    struct ImagesRead {
        quint64 generation = 0;
        qint64 step = 0;
        int sample = 0;
        QList<ShownImage> images;
    };
    void readIndex();
    void indexRead();
    void readImages();
    void imagesRead();
    void rebuildCells();
    void stepsChanged(); // the slider's range from the index
    void showEmptyState();
    void maybeDone();

    const run::RunStore *m_store = nullptr;
    QString m_runsDir;
    QStringList m_ids;
    MediaRunLooks m_looks;
    quint64 m_generation = 0;
    ImageIndex m_index;
    QThreadPool m_pool;
    QFutureWatcher<IndexRead> m_indexWatch;
    QFutureWatcher<ImagesRead> m_imagesWatch;
    bool m_indexBusy = false; // a read is under way (until its result is taken)
    bool m_imagesBusy = false;
    bool m_indexAgain = false;  // asked while a read was under way
    bool m_imagesAgain = false; // the same
    qint64 m_shownStep = std::numeric_limits<qint64>::min();
    int m_shownSample = 0;
    QTimer m_resized; // the cells' size settled: their images decoded to it

    QComboBox *m_tag;
    QSlider *m_slider;
    QSpinBox *m_step;
    QSpinBox *m_sample;
    QLabel *m_stepNote;
    QLabel *m_leftOut;
    QStackedWidget *m_pages;
    QLabel *m_empty;
    QWidget *m_grid;
    QGridLayout *m_gridLayout;
    QList<ImageCell *> m_cells;
    QPointer<QDialog> m_full;
};

} // namespace ferry::ui
