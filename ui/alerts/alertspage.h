// AlertsPage: Edit > Settings > Alerts: the rules for every run and whether a run's or a sweep's
// end is said on the desktop, and an idle GPU.
#pragma once

#include <QWidget>

class QCheckBox;
class QSpinBox;
class QSettings;

namespace ferry::ui {

class AlertRulesEdit;

// The settings of ui/alerts/runalerts.h, edited: written by apply() (the dialog's OK), the rules
// only when they parse (what is wrong is said on the page as it is typed).
class AlertsPage : public QWidget {
    Q_OBJECT
public:
    explicit AlertsPage(QSettings &settings, QWidget *parent = nullptr);

    // Writes what the page shows; false (nothing of the rules written) when they do not parse.
    bool apply();

    AlertRulesEdit *rulesEdit() const { return m_rules; }
    QCheckBox *runEndsBox() const { return m_runEnds; }
    QCheckBox *sweepEndsBox() const { return m_sweepEnds; }
    QSpinBox *idleGpuMinutesBox() const { return m_idleMinutes; }
    QCheckBox *stopIdleRunsBox() const { return m_stopIdle; }

private:
    QSettings &m_settings;
    AlertRulesEdit *m_rules;
    QCheckBox *m_runEnds;
    QCheckBox *m_sweepEnds;
    QSpinBox *m_idleMinutes;
    QCheckBox *m_stopIdle;
};

} // namespace ferry::ui
