// AlertRulesEdit: a line of alert rules (`val_loss>2.5, loss:nan, stalled:10m`) checked as it is
// typed, what is wrong said beneath it with the column.
#pragma once

#include "tracking/alertrule.h"

#include <QWidget>

#include <optional>

class QLabel;
class QLineEdit;

namespace ferry::ui {

// The rules' one syntax (tracking/alertrule.h, docs/metrics.md *Alerts*), as the Settings'
// Alerts page and a run's Alerts… dialog take it: a rule that does not parse is said below the
// line, as the runs filter says a bad query.
class AlertRulesEdit : public QWidget {
    Q_OBJECT
public:
    explicit AlertRulesEdit(QWidget *parent = nullptr);

    void setText(const QString &text);
    QString text() const;
    // The rules; nullopt while the text does not parse.
    std::optional<QList<run::AlertRule>> rules() const;
    bool isValid() const { return rules().has_value(); }

    QLineEdit *lineEdit() const { return m_edit; }
    QLabel *errorLabel() const { return m_error; }

Q_SIGNALS:
    void validityChanged(bool valid);

private:
    void check();

    QLineEdit *m_edit;
    QLabel *m_error;
    bool m_valid = true;
};

} // namespace ferry::ui
