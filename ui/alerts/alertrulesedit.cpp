#include "ui/alerts/alertrulesedit.h"

#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

AlertRulesEdit::AlertRulesEdit(QWidget *parent)
    : QWidget(parent), m_edit(new QLineEdit(this)), m_error(new QLabel(this))
{
    m_edit->setObjectName(u"alertRules"_s);
    m_edit->setPlaceholderText(tr("e.g. val_loss > 2.5, loss:nan, stalled:10m"));
    m_edit->setClearButtonEnabled(true);
    m_error->setObjectName(u"alertRulesError"_s);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(u"color: #c62828;"_s);
    m_error->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit);
    layout->addWidget(m_error);
    connect(m_edit, &QLineEdit::textChanged, this, &AlertRulesEdit::check);
}

void AlertRulesEdit::setText(const QString &text)
{
    m_edit->setText(text);
    check();
}

QString AlertRulesEdit::text() const
{
    return m_edit->text();
}

std::optional<QList<run::AlertRule>> AlertRulesEdit::rules() const
{
    const auto rules = run::parseAlertRules(m_edit->text());
    return rules ? std::optional(*rules) : std::nullopt;
}

void AlertRulesEdit::check()
{
    const auto rules = run::parseAlertRules(m_edit->text());
    m_error->setText(rules ? QString() : tr("column %1: %2").arg(rules.error().column).arg(rules.error().message));
    m_error->setVisible(!rules);
    if (rules.hasValue() != m_valid) {
        m_valid = rules.hasValue();
        Q_EMIT validityChanged(m_valid);
    }
}

} // namespace ferry::ui
