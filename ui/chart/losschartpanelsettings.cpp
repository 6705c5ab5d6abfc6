// The chart panel's settings of the workspace (.ferry/chart.json): read from its controls, applied
// to them, written on each change.
#include "ui/chart/losschartpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHash>
#include <QScopedValueRollback>
#include <QSet>
#include <QSlider>

using namespace Qt::StringLiterals;

namespace ferry::ui {

ChartSettings LossChartPanel::settings() const
{
    ChartSettings s;
    s.groupBy = groupBy();
    s.median = GroupStatistic(m_groupStatistic->currentData().toInt()) == GroupStatistic::Median;
    s.minMaxBand = run::Band(m_groupBand->currentData().toInt()) == run::Band::MinMax;
    if (!m_pendingXMetric.isEmpty()) {
        s.xAxis = u"metrics."_s + m_pendingXMetric;
    } else if (const QVariant metric = m_xAxis->currentData(kXMetricRole); metric.isValid()) {
        s.xAxis = u"metrics."_s + metric.toString();
    } else {
        static const QHash<int, QString> names{{int(XAxisMode::Step), u"step"_s},
                                               {int(XAxisMode::Epoch), u"epoch"_s},
                                               {int(XAxisMode::WallTime), u"time"_s},
                                               {int(XAxisMode::Clock), u"wall"_s}};
        s.xAxis = names.value(m_xAxis->currentData().toInt(), u"step"_s);
    }
    s.logX = m_logX->isChecked();
    s.logY = m_logY->isChecked();
    s.smoothing = m_smoothing->value();
    s.hiddenPanels = QStringList(m_hiddenPanels.cbegin(), m_hiddenPanels.cend());
    s.hiddenPanels.sort();
    return s;
}

void LossChartPanel::applySettings(const ChartSettings &s)
{
    const QScopedValueRollback applying(m_applyingSettings, true);
    setGroupBy(s.groupBy);
    setGroupStatistic(s.median ? GroupStatistic::Median : GroupStatistic::Mean);
    setGroupBand(s.minMaxBand ? run::Band::MinMax : run::Band::Std);
    m_logX->setChecked(s.logX);
    m_logY->setChecked(s.logY);
    m_smoothing->setValue(s.smoothing);
    m_pendingXMetric.clear();
    if (s.xAxis.startsWith("metrics."_L1)) {
        const QString metric = s.xAxis.mid(8);
        setXAxis(XAxisMode::Metric, metric);
        if (m_xAxis->currentData(kXMetricRole).toString() != metric)
            m_pendingXMetric = metric; // chosen once a run shows it (updateMetrics)
    } else {
        static const QHash<QString, XAxisMode> modes{
            {u"epoch"_s, XAxisMode::Epoch}, {u"time"_s, XAxisMode::WallTime}, {u"wall"_s, XAxisMode::Clock}};
        setXAxis(modes.value(s.xAxis, XAxisMode::Step));
    }
    const QSet<QString> hidden(s.hiddenPanels.cbegin(), s.hiddenPanels.cend());
    if (hidden != m_hiddenPanels) {
        m_hiddenPanels = hidden;
        updateHiddenButton();
        m_groups.clear();
        applyMetricChoice();
    }
}

Expected<void> LossChartPanel::setSettingsFile(const QString &path)
{
    m_settingsFile.clear(); // nothing written while the file's settings are applied
    const auto read = readChartSettings(path);
    applySettings(read ? *read : ChartSettings{});
    m_settingsFile = path;
    if (!read)
        return read.error();
    return {};
}

// Best effort, as the runs' colours: a choice not kept is made again.
void LossChartPanel::saveSettings()
{
    if (m_settingsFile.isEmpty() || m_applyingSettings)
        return;
    (void)writeChartSettings(m_settingsFile, settings());
}

} // namespace ferry::ui
