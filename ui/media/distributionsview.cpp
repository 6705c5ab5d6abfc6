#include "ui/media/distributionsview.h"

#include "ui/media/histogramplot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

RunDistributionsView::RunDistributionsView(QWidget *parent) : QWidget(parent)
{
    m_pool.setMaxThreadCount(1);
    m_run = new QComboBox;
    m_run->setMinimumContentsLength(20);
    m_run->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_tag = new QComboBox;
    m_tag->setMinimumContentsLength(16);
    m_tag->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_mode = new QComboBox;
    m_mode->addItem(tr("Offset"), int(HistogramPlot::Mode::Offset));
    m_mode->addItem(tr("Overlay"), int(HistogramPlot::Mode::Overlay));
    m_mode->setToolTip(tr("Offset: a curve per step, later steps nearer and lower; overlay: every step on one axis"));
    m_plot = new HistogramPlot;
    m_notes = new QLabel;
    m_notes->setWordWrap(true);
    m_notes->hide();

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Run:")));
    controls->addWidget(m_run);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Tag:")));
    controls->addWidget(m_tag);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Mode:")));
    controls->addWidget(m_mode);
    controls->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addWidget(m_notes);

    connect(&m_watch, &QFutureWatcher<Read>::finished, this, &RunDistributionsView::readFinished);
    connect(m_run, &QComboBox::activated, this, [this] {
        ++m_generation;
        read();
    });
    connect(m_tag, &QComboBox::activated, this, [this] {
        ++m_generation;
        read();
    });
    connect(m_mode, &QComboBox::currentIndexChanged, this,
            [this] { m_plot->setMode(HistogramPlot::Mode(m_mode->currentData().toInt())); });
    m_plot->setEmptyText(tr("Select a run in the runs table to see its distributions."));
}

RunDistributionsView::~RunDistributionsView()
{
    m_pool.waitForDone();
}

void RunDistributionsView::setStore(const run::RunStore *store, const QString &runsDir)
{
    if (store == m_store && runsDir == m_runsDir)
        return;
    m_pool.waitForDone();
    m_store = store;
    m_runsDir = runsDir;
    ++m_generation;
    read();
}

void RunDistributionsView::setRuns(const QStringList &runIds)
{
    if (runIds == m_ids)
        return;
    m_ids = runIds;
    const QString was = m_run->currentData().toString();
    {
        const QSignalBlocker block(m_run);
        m_run->clear();
        for (const QString &id : runIds) {
            const RunLook look = m_looks ? m_looks(id) : RunLook{id, {}};
            QPixmap swatch(12, 12);
            swatch.fill(look.color.isValid() ? look.color : QColor(Qt::gray));
            m_run->addItem(QIcon(swatch), look.label, id);
        }
        const int keep = m_run->findData(was);
        m_run->setCurrentIndex(keep >= 0 ? keep : 0);
    }
    ++m_generation;
    read();
}

void RunDistributionsView::setRunLooks(const MediaRunLooks &looks)
{
    m_looks = looks;
    const QStringList ids = m_ids;
    m_ids.clear();
    setRuns(ids);
}

void RunDistributionsView::refresh()
{
    read();
}

bool RunDistributionsView::isReading() const
{
    return m_busy || m_again;
}

void RunDistributionsView::read()
{
    const QString runId = m_run->currentData().toString();
    if (!m_store || runId.isEmpty()) {
        showRead(Read{m_generation, {}, {}});
        return;
    }
    if (m_busy) {
        m_again = true;
        return;
    }
    m_again = false;
    m_busy = true;
    m_watch.setFuture(QtConcurrent::run(
        &m_pool, [store = m_store, dir = m_runsDir, runId, tag = m_tag->currentText(), generation = m_generation] {
            Read r;
            r.generation = generation;
            r.tags = readHistogramTags(*store, {runId});
            const QString chosen = r.tags.contains(tag) ? tag : r.tags.value(0);
            r.series.runId = runId;
            if (!chosen.isEmpty())
                r.series = readHistogramSeries(*store, dir, runId, chosen);
            return r;
        }));
}

void RunDistributionsView::readFinished()
{
    m_busy = false;
    const Read r = m_watch.result();
    if (r.generation == m_generation)
        showRead(r);
    if (m_again)
        read();
    if (!isReading())
        Q_EMIT readDone();
}

void RunDistributionsView::showRead(const Read &r)
{
    if (r.tags != m_tags) {
        m_tags = r.tags;
        const QSignalBlocker block(m_tag);
        m_tag->clear();
        m_tag->addItems(r.tags);
    }
    {
        const QSignalBlocker block(m_tag);
        m_tag->setCurrentText(r.series.tag);
    }
    m_tag->setEnabled(!r.tags.isEmpty());
    const bool changed = r.series.runId != m_series.runId || r.series.tag != m_series.tag ||
                         r.series.steps.size() != m_series.steps.size() ||
                         (!r.series.steps.isEmpty() && r.series.steps.last().step != m_series.steps.last().step);
    m_series = r.series;
    if (m_ids.isEmpty())
        m_plot->setEmptyText(tr("Select a run in the runs table to see its distributions."));
    else
        m_plot->setEmptyText(tr("This run logged no histograms.\n\nHow to: TensorBoard's add_histogram, or a line a "
                                "step in output/histograms.jsonl; see docs/metrics.md, “Images, histograms and "
                                "text”."));
    if (changed)
        m_plot->setHistograms(m_series.steps);
    m_notes->setVisible(!m_series.problems.isEmpty());
    m_notes->setText(tr("%n histogram(s) could not be read: ", nullptr, int(m_series.problems.size())) +
                     m_series.problems.mid(0, 3).join(u"; "_s));
}

} // namespace ferry::ui
