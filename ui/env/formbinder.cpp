#include "ui/env/formbinder.h"

#include "ui/env/environmentdocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRegularExpression>

#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::ui {

QStringList splitWords(const QString &text)
{
    static const QRegularExpression space(u"\\s+"_s);
    return text.split(space, Qt::SkipEmptyParts);
}

FormBinder::FormBinder(EnvironmentDocument *document, QObject *parent) : QObject(parent), m_document(document)
{
    connect(document, &EnvironmentDocument::changed, this, &FormBinder::refresh);
    connect(document, &EnvironmentDocument::problemsChanged, this, &FormBinder::markProblems);
}

void FormBinder::add(QWidget *widget, env::Field field, std::function<void()> refresh)
{
    m_bindings << Binding{widget, field, widget->toolTip(), std::move(refresh)};
    m_refreshing = true;
    m_bindings.last().refresh();
    m_refreshing = false;
    markProblems();
}

void FormBinder::refresh()
{
    m_refreshing = true;
    for (const Binding &b : std::as_const(m_bindings))
        b.refresh();
    m_refreshing = false;
}

void FormBinder::markProblems()
{
    for (const Binding &b : std::as_const(m_bindings)) {
        const env::Findings problems = m_document->problemsOf(b.field);
        if (problems.isEmpty()) {
            b.widget->setStyleSheet({});
            b.widget->setToolTip(b.tooltip);
            b.widget->setProperty("problem", QString());
            continue;
        }
        const bool error =
            std::any_of(problems.cbegin(), problems.cend(), [](const env::Finding &p) { return p.isError(); });
        const QString message = m_document->problemAt(b.field);
        b.widget->setProperty("problem", message);
        b.widget->setToolTip(message);
        b.widget->setStyleSheet(u"%1 { background: %2; }"_s.arg(
            QString::fromLatin1(b.widget->metaObject()->className()), error ? u"#ffd6d6"_s : u"#fff3cd"_s));
    }
}

void FormBinder::text(QLineEdit *edit, env::Field field, const QString &label, Getter<QString> get, Setter<QString> set)
{
    connect(edit, &QLineEdit::textEdited, this, [this, field, label, set = std::move(set)](const QString &value) {
        m_document->edit(tr("Edit %1").arg(label), EditKey{field}, [&](env::Environment &env) { set(env, value); });
    });
    add(edit, field, [this, edit, get = std::move(get)] {
        const QString value = get(m_document->environment());
        if (edit->text() != value)
            edit->setText(value);
    });
}

void FormBinder::words(QLineEdit *edit, env::Field field, const QString &label, Getter<QStringList> get,
                       Setter<QStringList> set)
{
    connect(edit, &QLineEdit::textEdited, this, [this, field, label, set = std::move(set)](const QString &value) {
        m_document->edit(tr("Edit %1").arg(label), EditKey{field},
                         [&](env::Environment &env) { set(env, splitWords(value)); });
    });
    add(edit, field, [this, edit, get = std::move(get)] {
        const QStringList value = get(m_document->environment());
        if (splitWords(edit->text()) != value) // keeps the space the user is typing
            edit->setText(value.join(u' '));
    });
}

void FormBinder::plainText(QPlainTextEdit *edit, env::Field field, const QString &label, Getter<QString> get,
                           Setter<QString> set)
{
    connect(edit, &QPlainTextEdit::textChanged, this, [this, edit, field, label, set = std::move(set)] {
        if (m_refreshing)
            return;
        const QString value = edit->toPlainText();
        m_document->edit(tr("Edit %1").arg(label), EditKey{field}, [&](env::Environment &env) { set(env, value); });
    });
    add(edit, field, [this, edit, get = std::move(get)] {
        const QString value = get(m_document->environment());
        if (edit->toPlainText() != value)
            edit->setPlainText(value);
    });
}

void FormBinder::check(QCheckBox *box, env::Field field, const QString &label, Getter<bool> get, Setter<bool> set)
{
    connect(box, &QCheckBox::toggled, this, [this, field, label, set = std::move(set)](bool value) {
        if (m_refreshing)
            return;
        m_document->edit(tr("Edit %1").arg(label), EditKey{field}, [&](env::Environment &env) { set(env, value); });
    });
    add(box, field, [this, box, get = std::move(get)] { box->setChecked(get(m_document->environment())); });
}

void FormBinder::choice(QComboBox *combo, env::Field field, const QString &label, Getter<QString> get,
                        Setter<QString> set)
{
    connect(combo, &QComboBox::currentIndexChanged, this, [this, combo, field, label, set = std::move(set)](int index) {
        if (m_refreshing || index < 0)
            return;
        const QString value = combo->itemData(index).toString();
        m_document->edit(tr("Edit %1").arg(label), EditKey{field}, [&](env::Environment &env) { set(env, value); });
    });
    add(combo, field, [this, combo, get = std::move(get)] {
        const QString value = get(m_document->environment());
        int index = combo->findData(value);
        if (index < 0) { // a value the list does not offer (a secret not in the keychain): shown as it is
            combo->addItem(tr("%1 (not in the keychain)").arg(value), value);
            index = combo->count() - 1;
        }
        combo->setCurrentIndex(index);
    });
}

QLineEdit *formLineEdit(QWidget *parent, const QString &name, const QString &placeholder)
{
    auto *edit = new QLineEdit(parent);
    edit->setObjectName(name);
    edit->setPlaceholderText(placeholder);
    edit->setClearButtonEnabled(true);
    return edit;
}

} // namespace ferry::ui
