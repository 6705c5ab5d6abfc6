// Keeps the environment editor's form widgets and the document's fields in step, with undo.
#pragma once

#include "env/environment.h"
#include "env/environmentvalidator.h"

#include <QList>
#include <QObject>

class QLineEdit;
class QWidget;

#include <functional>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QWidget;

namespace ferry::ui {

class EnvironmentDocument;

// Keeps form widgets and fields of the environment in step: what the user types is an edit of
// the document (typing into one field merges into one undo step), and a change of the document
// (undo, reload) shows in the widget without moving the cursor needlessly. A field with a
// problem is marked and its message is the widget's tooltip.
class FormBinder : public QObject {
    Q_OBJECT
public:
    template <typename T> using Getter = std::function<T(const env::Environment &)>;
    template <typename T> using Setter = std::function<void(env::Environment &, const T &)>;

    explicit FormBinder(EnvironmentDocument *document, QObject *parent = nullptr);

    void text(QLineEdit *edit, env::Field field, const QString &label, Getter<QString> get, Setter<QString> set);
    // A list as words separated by spaces ("git curl libgl1").
    void words(QLineEdit *edit, env::Field field, const QString &label, Getter<QStringList> get,
               Setter<QStringList> set);
    void plainText(QPlainTextEdit *edit, env::Field field, const QString &label, Getter<QString> get,
                   Setter<QString> set);
    void check(QCheckBox *box, env::Field field, const QString &label, Getter<bool> get, Setter<bool> set);
    // The combo's item data (a string) is the value.
    void choice(QComboBox *combo, env::Field field, const QString &label, Getter<QString> get, Setter<QString> set);

    void refresh();

private:
    struct Binding {
        QWidget *widget;
        env::Field field;
        QString tooltip; // the widget's own
        std::function<void()> refresh;
    };
    void add(QWidget *widget, env::Field field, std::function<void()> refresh);
    void markProblems();

    EnvironmentDocument *m_document;
    QList<Binding> m_bindings;
    bool m_refreshing = false;
};

QStringList splitWords(const QString &text);

// A line edit of an environment form: named (tests and the binder find it), with its
// placeholder and a clear button.
QLineEdit *formLineEdit(QWidget *parent, const QString &name, const QString &placeholder);

} // namespace ferry::ui
