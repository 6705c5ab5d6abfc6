#include "ui/media/imagesview.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
constexpr int kImageCellMinimum = 220; // pixels, either side
constexpr int kImageColumns = 4;       // cells a row
} // namespace

// ---- ImageCell

ImageCell::ImageCell(QString runId, QWidget *parent) : QWidget(parent), m_runId(std::move(runId))
{
    setMinimumSize(kImageCellMinimum, kImageCellMinimum);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setCursor(Qt::PointingHandCursor);
}

void ImageCell::setLook(const RunLook &look)
{
    m_look = look;
    setToolTip(look.label);
    update();
}

void ImageCell::setShown(ShownImage shown, qint64 askedStep, bool hasAny)
{
    m_shown = std::move(shown);
    if (!hasAny)
        m_note = tr("This run logged no images at this tag");
    else if (!m_shown.item)
        m_note = tr("No image at or before step %1").arg(askedStep);
    else if (!m_shown.error.isEmpty())
        m_note = tr("Step %1 not shown: %2").arg(m_shown.item->step).arg(m_shown.error);
    else {
        // Its step (the one asked, or the latest before it), its size and when it was written.
        m_note = m_shown.item->step == askedStep
                     ? tr("Step %1").arg(m_shown.item->step)
                     : tr("Step %1 (the latest at or before %2)").arg(m_shown.item->step).arg(askedStep);
        m_note += u" · %1 × %2"_s.arg(m_shown.item->width).arg(m_shown.item->height);
        if (m_shown.item->wallMs > 0)
            m_note += u" · "_s + QDateTime::fromMSecsSinceEpoch(m_shown.item->wallMs).toString(u"HH:mm:ss"_s);
    }
    update();
}

QSize ImageCell::imageArea() const
{
    const int line = fontMetrics().height() + 6;
    // The name's line above, two lines of note below (a narrow cell wraps it).
    return QSize(std::max(16, width() - 8), std::max(16, height() - 3 * line - 8));
}

void ImageCell::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height() + 6;
    p.fillRect(rect(), palette().color(QPalette::Base));
    // The run's name in its colour, as the chart's legend.
    const QColor color = m_look.color.isValid() ? m_look.color : palette().color(QPalette::Text);
    p.fillRect(QRect(4, 4 + (line - 12) / 2, 12, 12), color);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(
        QRect(22, 4, width() - 26, line), Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetrics(bold).elidedText(m_look.label.isEmpty() ? m_runId : m_look.label, Qt::ElideMiddle, width() - 26));
    p.setFont(font());
    const QRect area(4, 4 + line, width() - 8, imageArea().height());
    int below = area.bottom();
    if (!m_shown.image.isNull()) {
        // Scaled to fit the cell: down when decoded (mediareads.h), up here with its pixels kept
        // sharp (a 28 x 28 digit stays legible), never past 8x.
        const QSize fit =
            m_shown.image.size().scaled(area.size(), Qt::KeepAspectRatio).boundedTo(m_shown.image.size() * 8);
        // At the top of the cell, its note right under it.
        const QRect target(QPoint(area.left() + (area.width() - fit.width()) / 2, area.top() + 2), fit);
        below = target.bottom();
        p.setRenderHint(QPainter::SmoothPixmapTransform, fit.width() < m_shown.image.width());
        p.drawImage(target, m_shown.image);
        p.setPen(QPen(color, 1));
        p.drawRect(target.adjusted(-1, -1, 0, 0));
    } else {
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(area.adjusted(0, 0, -1, -1));
    }
    const bool refused = !m_shown.error.isEmpty();
    p.setPen(refused ? QColor(0xc6, 0x28, 0x28) : palette().color(QPalette::PlaceholderText));
    const QRect noteRect =
        m_shown.image.isNull() ? area.adjusted(8, 8, -8, -8) : QRect(4, below + 4, width() - 8, 2 * line);
    const Qt::Alignment align =
        m_shown.image.isNull() ? Qt::Alignment(Qt::AlignCenter) : Qt::AlignHCenter | Qt::AlignTop;
    p.drawText(noteRect, int(align | Qt::TextWordWrap), m_note);
}

void ImageCell::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && m_shown.item && m_shown.error.isEmpty())
        Q_EMIT clicked(m_runId);
    QWidget::mouseReleaseEvent(event);
}

// ---- RunImagesView

RunImagesView::RunImagesView(QWidget *parent) : QWidget(parent)
{
    m_pool.setMaxThreadCount(1); // one read at a time: a slider's drag reads the newest step, not each
    m_tag = new QComboBox;
    m_tag->setMinimumContentsLength(16);
    m_tag->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_slider = new QSlider(Qt::Horizontal);
    m_slider->setEnabled(false);
    m_step = new QSpinBox;
    m_step->setEnabled(false);
    m_step->setKeyboardTracking(false);
    m_step->setPrefix(tr("step "));
    m_stepNote = new QLabel;
    m_sample = new QSpinBox;
    m_sample->setPrefix(tr("image "));
    m_sample->setToolTip(tr("One of the images logged at each step (TensorFlow's max_outputs)"));
    m_sample->setVisible(false);
    m_leftOut = new QLabel;
    m_leftOut->setWordWrap(true);
    m_leftOut->hide();

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Tag:")));
    controls->addWidget(m_tag);
    controls->addSpacing(12);
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_step);
    controls->addWidget(m_stepNote);
    controls->addWidget(m_sample);

    m_grid = new QWidget;
    m_gridLayout = new QGridLayout(m_grid);
    m_gridLayout->setSpacing(8);
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_grid);
    scroll->setFrameShape(QFrame::NoFrame);

    m_empty = new QLabel;
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setTextFormat(Qt::PlainText);
    m_empty->setMargin(24);
    m_pages = new QStackedWidget;
    m_pages->addWidget(m_empty);
    m_pages->addWidget(scroll);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_leftOut);
    layout->addWidget(m_pages, 1);

    connect(&m_indexWatch, &QFutureWatcher<IndexRead>::finished, this, &RunImagesView::indexRead);
    connect(&m_imagesWatch, &QFutureWatcher<ImagesRead>::finished, this, &RunImagesView::imagesRead);
    connect(m_tag, &QComboBox::activated, this, [this] { readIndex(); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int i) {
        const QSignalBlocker block(m_step);
        m_step->setValue(int(m_index.steps.value(i)));
        m_stepNote->setText(tr("%1 of %2").arg(i + 1).arg(m_index.steps.size()));
        readImages();
    });
    connect(m_step, &QSpinBox::valueChanged, this, [this](int value) { setStep(value); });
    connect(m_sample, &QSpinBox::valueChanged, this, [this] { readImages(); });
    m_resized.setSingleShot(true);
    m_resized.setInterval(150);
    connect(&m_resized, &QTimer::timeout, this, [this] {
        // A cell whose image was decoded for another size: decoded again to fit.
        for (const ImageCell *cell : std::as_const(m_cells)) {
            const ShownImage &shown = cell->shown();
            if (shown.image.isNull() || !shown.item)
                continue;
            const QSize want = QSize(shown.item->width, shown.item->height)
                                   .scaled(cell->imageArea(), Qt::KeepAspectRatio)
                                   .boundedTo(QSize(shown.item->width, shown.item->height));
            if (std::abs(shown.image.width() - want.width()) > std::max(8, want.width() / 10)) {
                m_shownStep = std::numeric_limits<qint64>::min();
                readImages();
                return;
            }
        }
    });
    showEmptyState();
}

RunImagesView::~RunImagesView()
{
    m_pool.waitForDone();
}

void RunImagesView::setStore(const run::RunStore *store, const QString &runsDir)
{
    if (store == m_store && runsDir == m_runsDir)
        return;
    m_pool.waitForDone();
    m_store = store;
    m_runsDir = runsDir;
    ++m_generation;
    m_index = {};
    m_shownStep = std::numeric_limits<qint64>::min();
    rebuildCells();
    readIndex();
}

void RunImagesView::setRuns(const QStringList &runIds)
{
    if (runIds == m_ids)
        return;
    m_ids = runIds;
    ++m_generation;
    m_shownStep = std::numeric_limits<qint64>::min();
    rebuildCells();
    readIndex();
}

void RunImagesView::setRunLooks(const MediaRunLooks &looks)
{
    m_looks = looks;
    for (ImageCell *cell : std::as_const(m_cells))
        cell->setLook(m_looks ? m_looks(cell->runId()) : RunLook{cell->runId(), {}});
}

void RunImagesView::refresh()
{
    readIndex();
}

bool RunImagesView::showsEmptyState() const
{
    return m_pages->currentWidget() == m_empty;
}

ImageCell *RunImagesView::cellOf(const QString &runId) const
{
    for (ImageCell *cell : m_cells)
        if (cell->runId() == runId)
            return cell;
    return nullptr;
}

qint64 RunImagesView::step() const
{
    return m_index.steps.value(m_slider->value());
}

void RunImagesView::setStep(qint64 step)
{
    // The last step at or before it (the first when it is before all).
    const auto it = std::upper_bound(m_index.steps.cbegin(), m_index.steps.cend(), step);
    const int i = int(std::max<qsizetype>(0, (it - m_index.steps.cbegin()) - 1));
    if (i != m_slider->value())
        m_slider->setValue(i);
    else if (m_step->value() != int(m_index.steps.value(i))) {
        const QSignalBlocker block(m_step);
        m_step->setValue(int(m_index.steps.value(i)));
    }
}

bool RunImagesView::isReading() const
{
    return m_indexBusy || m_imagesBusy || m_indexAgain || m_imagesAgain;
}

void RunImagesView::rebuildCells()
{
    qDeleteAll(m_cells);
    m_cells.clear();
    const QStringList shown = m_ids.mid(0, kMostRuns);
    for (int i = 0; i < int(shown.size()); ++i) {
        auto *cell = new ImageCell(shown.at(i), m_grid);
        cell->setLook(m_looks ? m_looks(cell->runId()) : RunLook{cell->runId(), {}});
        connect(cell, &ImageCell::clicked, this, &RunImagesView::openFullImage);
        const int columns = std::min<int>(kImageColumns, int(shown.size()));
        m_gridLayout->addWidget(cell, i / columns, i % columns);
        m_cells << cell;
    }
    m_leftOut->setVisible(m_ids.size() > kMostRuns);
    m_leftOut->setText(tr("Showing the first %1 of the %2 runs selected.").arg(kMostRuns).arg(m_ids.size()));
}

void RunImagesView::readIndex()
{
    if (m_indexBusy) {
        m_indexAgain = true;
        return;
    }
    m_indexAgain = false;
    if (!m_store || m_ids.isEmpty()) {
        m_index = {};
        stepsChanged();
        return;
    }
    m_indexBusy = true;
    m_indexWatch.setFuture(QtConcurrent::run(
        &m_pool, [store = m_store, ids = m_ids, tag = m_tag->currentText(), generation = m_generation] {
            return IndexRead{generation, readImageIndex(*store, ids, tag)};
        }));
}

void RunImagesView::indexRead()
{
    m_indexBusy = false;
    IndexRead read = m_indexWatch.result();
    if (read.generation == m_generation && !(read.index == m_index)) {
        const bool atLast = m_index.steps.isEmpty() || m_slider->value() == m_slider->maximum();
        const qint64 was = step();
        const bool sameTag = read.index.tag == m_index.tag;
        m_index = std::move(read.index);
        {
            const QSignalBlocker block(m_tag);
            m_tag->clear();
            m_tag->addItems(m_index.tags);
            m_tag->setCurrentText(m_index.tag);
        }
        stepsChanged();
        // A slider at the last step follows the newest (a run still writing); else it stays at its step.
        if (sameTag && !atLast)
            setStep(was);
        else
            m_slider->setValue(m_slider->maximum());
        m_shownStep = std::numeric_limits<qint64>::min(); // new items may be at or before the step shown
    }
    if (read.generation == m_generation) {
        if (m_index.tags.isEmpty())
            showEmptyState(); // says which runs: they may be others with the same (empty) index
        readImages();         // cells made anew for other runs are filled even when the index is the same
    }
    if (m_indexAgain)
        readIndex();
    maybeDone();
}

void RunImagesView::stepsChanged()
{
    const QSignalBlocker blockSlider(m_slider);
    const QSignalBlocker blockStep(m_step);
    const bool any = !m_index.steps.isEmpty();
    m_slider->setEnabled(m_index.steps.size() > 1);
    m_step->setEnabled(any);
    m_slider->setRange(0, int(std::max<qsizetype>(0, m_index.steps.size() - 1)));
    m_step->setRange(any ? int(m_index.steps.first()) : 0, any ? int(m_index.steps.last()) : 0);
    m_stepNote->setText(any ? tr("%1 of %2").arg(m_slider->value() + 1).arg(m_index.steps.size()) : QString());
    m_sample->setRange(1, m_index.samples);
    m_sample->setSuffix(tr(" of %1").arg(m_index.samples));
    m_sample->setVisible(m_index.samples > 1);
    if (m_index.tags.isEmpty())
        showEmptyState();
    else
        m_pages->setCurrentIndex(1);
}

void RunImagesView::showEmptyState()
{
    const QString how =
        tr("How to: a script writes output/images/<tag>/<step>.png into its run folder, or TensorBoard's "
           "add_image; see docs/metrics.md, “Images, histograms and text”.");
    if (m_ids.isEmpty())
        m_empty->setText(tr("Select one or more runs in the runs table to see their images side by side."));
    else if (m_ids.size() == 1)
        m_empty->setText(tr("This run logged no images.") + u"\n\n"_s + how);
    else
        m_empty->setText(tr("None of the %1 runs selected logged images.").arg(m_ids.size()) + u"\n\n"_s + how);
    m_pages->setCurrentWidget(m_empty);
}

void RunImagesView::readImages()
{
    if (m_imagesBusy) {
        m_imagesAgain = true;
        return;
    }
    m_imagesAgain = false;
    const int sample = m_sample->value() - 1;
    if (!m_store || m_index.tag.isEmpty() || m_cells.isEmpty() || (step() == m_shownStep && sample == m_shownSample))
        return;
    QList<QPair<QString, QSize>> wanted;
    for (const ImageCell *cell : std::as_const(m_cells))
        if (m_index.runSteps.contains(cell->runId()))
            wanted.append({cell->runId(), cell->imageArea()});
    m_imagesBusy = true;
    m_imagesWatch.setFuture(QtConcurrent::run(&m_pool, [store = m_store, dir = m_runsDir, tag = m_index.tag,
                                                        at = step(), sample, wanted, generation = m_generation] {
        ImagesRead read;
        read.generation = generation;
        read.step = at;
        read.sample = sample;
        for (const auto &[id, fit] : wanted)
            read.images << readShownImage(*store, dir, id, tag, at, fit, sample);
        return read;
    }));
}

void RunImagesView::imagesRead()
{
    m_imagesBusy = false;
    ImagesRead read = m_imagesWatch.result();
    if (read.generation == m_generation) {
        m_shownStep = read.step;
        m_shownSample = read.sample;
        for (ImageCell *cell : std::as_const(m_cells)) {
            const bool hasAny = m_index.runSteps.contains(cell->runId());
            ShownImage shown;
            shown.runId = cell->runId();
            for (ShownImage &s : read.images)
                if (s.runId == cell->runId())
                    shown = std::move(s);
            cell->setShown(std::move(shown), read.step, hasAny);
        }
    }
    if (m_imagesAgain ||
        (read.generation == m_generation && (read.step != step() || read.sample != m_sample->value() - 1)))
        readImages();
    maybeDone();
}

void RunImagesView::maybeDone()
{
    if (!isReading())
        Q_EMIT readDone();
}

void RunImagesView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    m_resized.start();
}

void RunImagesView::openFullImage(const QString &runId)
{
    const ImageCell *cell = cellOf(runId);
    if (!cell || !cell->shown().item || !m_store)
        return;
    delete m_full;
    auto *dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const run::MediaItem item = *cell->shown().item;
    const RunLook look = m_looks ? m_looks(runId) : RunLook{runId, {}};
    dialog->setWindowTitle(tr("%1 — %2 at step %3").arg(look.label, item.tag).arg(item.step));
    auto *label = new QLabel(tr("Reading %1 × %2 pixels…").arg(item.width).arg(item.height));
    label->setAlignment(Qt::AlignCenter);
    label->setObjectName(u"fullImage"_s);
    auto *scroll = new QScrollArea;
    scroll->setWidget(label);
    scroll->setWidgetResizable(true);
    scroll->setAlignment(Qt::AlignCenter);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    auto *layout = new QVBoxLayout(dialog);
    layout->addWidget(scroll, 1);
    layout->addWidget(buttons);
    dialog->resize(std::clamp(item.width + 40, 320, 1400), std::clamp(item.height + 80, 240, 1000));
    m_full = dialog;
    // Read and decoded off the GUI thread; a dialog closed meanwhile drops it.
    auto *watch = new QFutureWatcher<ShownImage>(dialog);
    connect(watch, &QFutureWatcher<ShownImage>::finished, dialog, [watch, label] {
        const ShownImage full = watch->result();
        if (full.image.isNull()) {
            label->setText(full.error);
            return;
        }
        label->setPixmap(QPixmap::fromImage(full.image));
        label->setProperty("imageSize", full.image.size());
    });
    watch->setFuture(QtConcurrent::run(
        &m_pool, [store = m_store, dir = m_runsDir, runId, item] { return readFullImage(*store, dir, runId, item); }));
    dialog->show();
}

} // namespace ferry::ui
