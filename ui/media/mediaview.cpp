#include "ui/media/mediaview.h"

#include "ui/media/distributionsview.h"

#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

namespace ferry::ui {

RunMediaView::RunMediaView(QWidget *parent) : Document(parent)
{
    m_caption = new QLabel;
    m_caption->setWordWrap(true);
    m_images = new RunImagesView;
    m_distributions = new RunDistributionsView;
    m_pages = new QTabWidget;
    m_pages->setDocumentMode(true);
    m_pages->addTab(m_images, tr("Images"));
    m_pages->addTab(m_distributions, tr("Distributions"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_caption);
    layout->addWidget(m_pages, 1);
    // New steps of runs still writing: read again while in view (the index is a cheap read).
    m_refresh.setInterval(kRefreshMs);
    connect(&m_refresh, &QTimer::timeout, this, [this] {
        if (isVisible())
            refresh();
    });
    m_refresh.start();
}

RunMediaView::~RunMediaView() = default;

void RunMediaView::showPage(Page page)
{
    m_pages->setCurrentWidget(page == Page::Images ? static_cast<QWidget *>(m_images) : m_distributions);
}

void RunMediaView::setStore(const run::RunStore *store, const QString &runsDir)
{
    m_images->setStore(store, runsDir);
    m_distributions->setStore(store, runsDir);
}

void RunMediaView::setRuns(const QStringList &runIds, const QString &caption)
{
    m_ids = runIds;
    m_caption->setText(caption);
    m_images->setRuns(runIds);
    m_distributions->setRuns(runIds);
}

void RunMediaView::setRunLooks(const MediaRunLooks &looks)
{
    m_images->setRunLooks(looks);
    m_distributions->setRunLooks(looks);
}

void RunMediaView::refresh()
{
    if (m_pages->currentWidget() == m_images)
        m_images->refresh();
    else
        m_distributions->refresh();
}

} // namespace ferry::ui
