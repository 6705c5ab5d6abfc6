// The metric charts with their controls: a grid of panels, one per metric group, or one chart of a
// chosen metric.
#pragma once

#include "store/runstore.h"
#include "ui/chart/chartsettings.h"
#include "ui/chart/losschart.h"
#include "ui/chart/metricgroups.h"

#include <QHash>
#include <QSet>

#include <functional>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QHBoxLayout;
class QLabel;
class QMenu;
class QScrollArea;
class QSlider;
class QToolButton;

namespace ferry::ui {

class RunColors;

// The metric charts with their controls. By default a grid of panels, one per metric group
// (ui/chart/metricgroups.h: losses first, then accuracies, learning rates, the rest; the first 48
// groups, the box lists every metric), each titled by its metric and with its own y range, in a
// scroll area that the mouse wheel scrolls (Ctrl+wheel zooms a panel); the system's metrics
// follow under a heading of their own, on a time axis of their own (time since the run's start,
// or the wall clock when that is the x axis chosen). chart() is the first panel's, which the
// others follow (store, run labels, hidden runs). A panel's context menu hides it; the "Hidden
// panels" button brings them back. A metric chosen in the box, or all of them, is one chart
// instead. x axis (step, epoch, time since start, wall time or any metric of the run), log x,
// log y, smoothing and reset apply to every panel.
//
// "Group" draws the runs shown in groups (by a parameter whose value differs among them, their
// tags, their sweep or their experiment: core's run::groupRuns), each as one line with a band in every panel
// (LossChart::setGroups); its colour comes from the run palette (groupColors); a click on its legend
// entry hides or shows it in every panel, as a run's does (neither is saved). "Ungroup", or the
// box back at "No groups", draws each run again. These choices and the panels hidden are the
// workspace's (setSettingsFile: .ferry/chart.json).
class LossChartPanel : public QWidget {
    Q_OBJECT
public:
    explicit LossChartPanel(QWidget *parent = nullptr);

    LossChart *chart() const { return m_chart; }
    // Every panel shown, chart() first (for tests and screenshots).
    QList<LossChart *> panels() const;
    void setStore(std::shared_ptr<SeriesStore> store);
    // A run highlighted in every panel (LossChart::setPinnedRun).
    void setPinnedRun(const QString &runId);
    // A line above the chart saying what it shows (empty: none).
    void setCaption(const QString &text);
    QString caption() const;
    // Where the runs' colours come from (the window's, shared by every view); nullptr: the
    // panel's own. The runs of the store are given different colours in it as they arrive.
    void setRunColors(RunColors *colors);
    RunColors *runColors() const { return m_colors; }

    // The x axis of every panel: a mode, and in XAxisMode::Metric the metric (for tests, and
    // what the x box sets).
    void setXAxis(XAxisMode mode, const QString &metric = {});
    // Panels: hidden by the key of their group (MetricPanel::key), shown again.
    void setPanelHidden(const QString &key, bool hidden);
    QSet<QString> hiddenPanels() const { return m_hiddenPanels; }
    // The group key of a panel shown (empty: not a panel of the grid).
    QString panelKey(const LossChart *chart) const;
    // The menu a panel's right click opens (for tests: its actions, triggered).
    QMenu *panelMenu(LossChart *chart);

    // The runs the chart may show, with their parameters (run id -> name -> value): what groups
    // are made of. The window gives the runs it charts (RunsController).
    void setRunFacts(const QList<run::RunRecord> &runs, const QHash<QString, QHash<QString, QString>> &params);
    // How runs are grouped (run::GroupBy::text(): "hp.lr", "tag", "sweep"; empty: not grouped),
    // the groups' line and band (what the boxes set).
    void setGroupBy(const QString &text);
    QString groupBy() const;
    void setGroupStatistic(GroupStatistic statistic);
    void setGroupBand(run::Band band);
    // The group-by box's choices: "" (none), "hp.NAME" for each parameter that differs among the
    // runs, "tag", "sweep", "experiment" (tests).
    QStringList groupChoices() const;

    // Where the workspace keeps these settings (.ferry/chart.json): read now and applied (a
    // missing file: the defaults), written on each change. Empty: nowhere, and the defaults. A
    // damaged file is an Error, and the defaults are used.
    Expected<void> setSettingsFile(const QString &path);
    ChartSettings settings() const;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Group {
        MetricPanel panel;
        QStringList metrics;
        friend bool operator==(const Group &a, const Group &b)
        {
            return a.panel.key == b.panel.key && a.metrics == b.metrics;
        }
    };
    // The x box's entries: XAxisMode's modes, a separator, then one entry per metric (its name as
    // data in this role).
    static constexpr int kXMetricRole = Qt::UserRole + 1;

    QHBoxLayout *createControls();
    void updateMetrics();
    void applyMetricChoice(); // the metric box's choice, to the charts
    void applyXAxis();        // the x box and log x, to the charts (the system's: time)
    void layOutPanels(const QList<Group> &groups);
    LossChart *addPanel();
    void forEachChart(const std::function<void(LossChart *)> &apply);
    void showRunEverywhere(const QString &runId, bool visible);
    void showGroupEverywhere(const QString &key, bool visible);
    void exportTo(bool png);
    void updateHiddenButton();
    void assignColors();
    QStringList storeRuns() const; // the runs of the store, in their order
    void createGroupControls();
    void updateGroupChoices();
    void applyGroups();
    void applySettings(const ChartSettings &settings);
    void saveSettings();

    LossChart *m_chart;
    QComboBox *m_metric;
    QComboBox *m_xAxis;
    QCheckBox *m_logX;
    QCheckBox *m_logY;
    QSlider *m_smoothing;
    QLabel *m_smoothingValue;
    QToolButton *m_hidden;          // "Hidden panels (N)": a menu that shows them again
    QComboBox *m_groupBy = nullptr; // data: run::GroupBy::text(), "" for none
    QComboBox *m_groupStatistic = nullptr;
    QComboBox *m_groupBand = nullptr;
    QToolButton *m_ungroup = nullptr;
    QLabel *m_caption;
    QScrollArea *m_scroll;
    QGridLayout *m_grid;
    QLabel *m_systemHeading;
    RunColors *m_colors;
    RunColors *m_ownColors;      // m_colors until setRunColors
    QList<LossChart *> m_others; // the panels after the first
    int m_shownOthers = 0;
    QSet<QString> m_knownMetrics;                // those in the metric box
    QList<Group> m_groups;                       // the panels as laid out (Panels only), chart() first
    QList<Group> m_allGroups;                    // every group, hidden ones too
    QSet<QString> m_hiddenPanels;                // group keys
    const SeriesStore *m_groupedStore = nullptr; // what m_groups was worked out from
    int m_groupedSeries = -1;
    QMenu *m_panelMenu = nullptr;
    QList<run::RunRecord> m_runFacts;
    QHash<QString, QHash<QString, QString>> m_runParams;
    QString m_settingsFile;
    bool m_applyingSettings = false; // settings being applied: nothing written meanwhile
    QString m_pendingXMetric;        // the x metric of the settings, until a run shows it
};

} // namespace ferry::ui
