// RunValueChooser: picks one value per run: a parameter, or a metric's last, best, min, max or
// value at a step.
#pragma once

// Three controls in a row, as a tracker's axis pickers are: the parameter or metric (parameters
// first, then metrics, under headings), the metric's summary (last, best, min, max, at step) and
// the step (for "at step"). What it says is a RunValueSpec (analysis/runvalues.h); with a "none"
// entry (setNoneText) it may say nothing.
#include "analysis/runvalues.h"

#include <QStringList>
#include <QWidget>

#include <optional>

class QComboBox;
class QSpinBox;

namespace ferry::ui {

class RunValueChooser final : public QWidget {
    Q_OBJECT
public:
    explicit RunValueChooser(QWidget *parent = nullptr);

    // A first entry that chooses nothing ("run colour"); empty: none.
    void setNoneText(const QString &text);
    // The names to choose from; the choice stays where its name still is, else the first entry.
    void setNames(const QStringList &params, const QStringList &metrics);
    std::optional<run::RunValueSpec> spec() const;
    // Chooses this value (its name is added when it is not there yet); nullopt: none. No signal.
    void setSpec(const std::optional<run::RunValueSpec> &spec);

    QComboBox *nameBox() const { return m_name; } // for tests
    QComboBox *summaryBox() const { return m_summary; }
    QSpinBox *stepBox() const { return m_step; }

Q_SIGNALS:
    void changed(); // the user chose another value

private:
    void showParts(); // the summary for metrics, the step for "at step"
    int indexOf(const QString &data) const;

    QComboBox *m_name;
    QComboBox *m_summary;
    QSpinBox *m_step;
    QString m_noneText;
};

} // namespace ferry::ui
