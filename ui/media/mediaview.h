// RunMediaView: the Media tab: runs' images (side by side, by step) and histograms (distributions).
#pragma once

// A tab of the document area (ui/document/), as the Analysis tab, over the runs it is given (the
// runs selected in the runs table; ui/window/mediacontroller.h keeps it in step): an *Images* page
// (ui/media/imagesview.h) and a *Distributions* page (ui/media/distributionsview.h). While the tab
// is in view its index is read again every few seconds, so a run still writing shows its new steps.
#include "ui/document/document.h"
#include "ui/media/imagesview.h"

#include <QTimer>

class QLabel;
class QTabWidget;

namespace ferry::ui {

class RunDistributionsView;

class RunMediaView final : public Document {
    Q_OBJECT
public:
    explicit RunMediaView(QWidget *parent = nullptr);
    ~RunMediaView() override;

    enum class Page { Images, Distributions };
    void showPage(Page page);

    // The store and the workspace's runs folder; nullptr: none (waits for reads of the old one).
    void setStore(const run::RunStore *store, const QString &runsDir);
    // The runs shown, and what they are (the line above the pages).
    void setRuns(const QStringList &runIds, const QString &caption);
    QStringList runIds() const { return m_ids; }
    void setRunLooks(const MediaRunLooks &looks);
    void refresh(); // tags and steps read again

    // The Document: a view, not a file.
    QString path() const override { return {}; }
    QString title() const override { return tr("Media"); }
    bool isModified() const override { return false; }
    bool save() override { return true; }
    bool maybeClose() override { return true; }

    // For tests and screenshots.
    QTabWidget *pages() const { return m_pages; }
    RunImagesView *images() const { return m_images; }
    RunDistributionsView *distributions() const { return m_distributions; }
    QLabel *caption() const { return m_caption; }

    static constexpr int kRefreshMs = 2000;

private:
    QStringList m_ids;
    QLabel *m_caption;
    QTabWidget *m_pages;
    RunImagesView *m_images;
    RunDistributionsView *m_distributions;
    QTimer m_refresh;
};

} // namespace ferry::ui
