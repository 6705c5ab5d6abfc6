#include "ui/alerts/alertspage.h"

#include "ui/alerts/alertrulesedit.h"
#include "ui/alerts/runalerts.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

using namespace Qt::StringLiterals;

namespace ferry::ui {

AlertsPage::AlertsPage(QSettings &settings, QWidget *parent)
    : QWidget(parent), m_settings(settings), m_rules(new AlertRulesEdit(this)),
      m_runEnds(new QCheckBox(tr("When a run succeeds, fails or is lost"), this)),
      m_sweepEnds(new QCheckBox(tr("When a sweep finishes or fails"), this)), m_idleMinutes(new QSpinBox(this)),
      m_stopIdle(new QCheckBox(tr("Stop the run or kernel too (as Cancel stops it)"), this))
{
    setObjectName(u"alertsPage"_s);
    m_rules->setText(kAlertRulesSetting.get(settings));
    m_runEnds->setObjectName(u"notifyRunEnds"_s);
    m_runEnds->setChecked(kNotifyRunEndsSetting.get(settings));
    m_sweepEnds->setObjectName(u"notifySweepEnds"_s);
    m_sweepEnds->setChecked(kNotifySweepEndsSetting.get(settings));
    m_idleMinutes->setObjectName(u"idleGpuMinutes"_s);
    m_idleMinutes->setRange(0, 24 * 60);
    m_idleMinutes->setSuffix(tr(" min"));
    m_idleMinutes->setSpecialValueText(tr("Never"));
    m_idleMinutes->setValue(kIdleGpuMinutesSetting.get(settings));
    m_idleMinutes->setToolTip(
        tr("A GPU a run or a kernel holds at 0 % utilisation for this long, from the system metrics "
           "Ferry samples every 5 s (gpu_idle:15m as a rule)"));
    m_stopIdle->setObjectName(u"stopIdleRuns"_s);
    m_stopIdle->setChecked(kStopIdleRunsSetting.get(settings));
    auto *about = new QLabel(tr("Ferry says these on the desktop while the window is open; a click opens the run. "
                                "A run's own rules: Alerts… in its menu in the runs table. On the command line: "
                                "ferry runs watch ID --until-done --alert RULE."),
                             this);
    about->setWordWrap(true);
    auto *form = new QFormLayout(this);
    form->addRow(about);
    form->addRow(tr("Notify"), m_runEnds);
    form->addRow(QString(), m_sweepEnds);
    form->addRow(tr("Rules for every run"), m_rules);
    form->addRow(tr("Idle GPU after"), m_idleMinutes);
    form->addRow(QString(), m_stopIdle);
}

bool AlertsPage::apply()
{
    kNotifyRunEndsSetting.set(m_settings, m_runEnds->isChecked());
    kNotifySweepEndsSetting.set(m_settings, m_sweepEnds->isChecked());
    kIdleGpuMinutesSetting.set(m_settings, m_idleMinutes->value());
    kStopIdleRunsSetting.set(m_settings, m_stopIdle->isChecked());
    const auto rules = m_rules->rules();
    if (!rules)
        return false;
    kAlertRulesSetting.set(m_settings, run::alertRulesText(*rules));
    return true;
}

} // namespace ferry::ui
