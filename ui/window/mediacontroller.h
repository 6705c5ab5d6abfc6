// MediaController: the Media tab (images, distributions) kept in step with the runs table's selection.
#pragma once

// Opens the Media tab (ui/media/mediaview.h) in the document area, on its Images or Distributions
// page (Run ▸ Images, Run ▸ Distributions, the runs table's menu), and feeds it the runs selected in
// the runs table (the current run when none is), named as the table names them and coloured as
// the chart colours them.
#include "ui/media/mediaview.h" // whole: a QPointer to it

#include <QColor>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>

namespace ferry::ui {

class DocumentArea;
class RunsView;

class MediaController final : public QObject {
    Q_OBJECT
public:
    MediaController(RunsView *runs, DocumentArea *documents, QObject *parent = nullptr);
    ~MediaController() override;

    // The open workspace's store and runs folder; nullptr when it closes (the tab's reads end first).
    void setStore(const run::RunStore *store, const QString &runsDir);
    void setRunColor(const std::function<QColor(const QString &runId)> &colorOf) { m_colorOf = colorOf; }
    RunMediaView *view() const { return m_view; } // nullptr until opened, and once closed

public Q_SLOTS:
    void openImages();
    void openDistributions();

private:
    void open(RunMediaView::Page page);
    void follow();

    RunsView *m_runs;
    DocumentArea *m_documents;
    const run::RunStore *m_store = nullptr;
    QString m_runsDir;
    QPointer<RunMediaView> m_view;
    std::function<QColor(const QString &)> m_colorOf;
    QTimer m_follow;
};

} // namespace ferry::ui
