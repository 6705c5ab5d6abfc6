#include "ui/analysis/runvaluechooser.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>

#include <climits>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

using Kind = run::RunValueSpec::Kind;
// An entry's data: "hp.NAME" for a parameter, "metrics.NAME" for a metric, "" for none.
constexpr QLatin1StringView kParam{"hp."}, kMetric{"metrics."};

void addHeading(QComboBox *box, const QString &text)
{
    box->addItem(text);
    auto *model = qobject_cast<QStandardItemModel *>(box->model());
    if (QStandardItem *item = model ? model->item(box->count() - 1) : nullptr) {
        item->setFlags(Qt::NoItemFlags); // not choosable
        QFont font = item->font();
        font.setBold(true);
        item->setFont(font);
    }
}

} // namespace

RunValueChooser::RunValueChooser(QWidget *parent)
    : QWidget(parent), m_name(new QComboBox(this)), m_summary(new QComboBox(this)), m_step(new QSpinBox(this))
{
    m_name->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_name->setMinimumContentsLength(12);
    m_name->setMaxVisibleItems(24);
    m_summary->addItem(tr("last"), int(Kind::Last));
    m_summary->addItem(tr("best"), int(Kind::Best));
    m_summary->addItem(tr("min"), int(Kind::Min));
    m_summary->addItem(tr("max"), int(Kind::Max));
    m_summary->addItem(tr("at step"), int(Kind::AtStep));
    m_summary->setToolTip(tr("Which value of the metric: its last, its best (the least, or the greatest for "
                             "accuracy-like names), its least, its greatest, or its value at a step"));
    m_step->setRange(0, INT_MAX);
    m_step->setAccelerated(true);
    m_step->setToolTip(tr("The step: a run's value there, on the straight line between its points around it"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_name);
    layout->addWidget(m_summary);
    layout->addWidget(m_step);
    showParts();
    const auto user = [this] {
        showParts();
        Q_EMIT changed();
    };
    connect(m_name, &QComboBox::activated, this, user);
    connect(m_summary, &QComboBox::activated, this, user);
    connect(m_step, &QSpinBox::editingFinished, this, user);
}

void RunValueChooser::setNoneText(const QString &text)
{
    m_noneText = text;
}

int RunValueChooser::indexOf(const QString &entry) const
{
    for (int i = 0; i < m_name->count(); ++i) {
        // Headings have no data and cannot be chosen.
        if (m_name->itemData(i).toString() == entry &&
            (m_name->model()->flags(m_name->model()->index(i, 0)) & Qt::ItemIsEnabled))
            return i;
    }
    return -1;
}

void RunValueChooser::setNames(const QStringList &params, const QStringList &metrics)
{
    const QSignalBlocker blocker(m_name);
    const QString was = m_name->currentData().toString();
    m_name->clear();
    if (!m_noneText.isEmpty())
        m_name->addItem(m_noneText, QString());
    if (!params.isEmpty()) {
        addHeading(m_name, tr("Parameters"));
        for (const QString &p : params)
            m_name->addItem(p, QString(kParam + p));
    }
    if (!metrics.isEmpty()) {
        addHeading(m_name, tr("Metrics"));
        for (const QString &m : metrics)
            m_name->addItem(m, QString(kMetric + m));
    }
    int index = indexOf(was);
    if (index < 0) // the first choosable entry
        for (index = 0;
             index < m_name->count() && !(m_name->model()->flags(m_name->model()->index(index, 0)) & Qt::ItemIsEnabled);
             ++index) {
        }
    m_name->setCurrentIndex(index < m_name->count() ? index : -1);
    showParts();
}

std::optional<run::RunValueSpec> RunValueChooser::spec() const
{
    const QString entry = m_name->currentData().toString();
    run::RunValueSpec spec;
    if (entry.startsWith(kParam)) {
        spec.kind = Kind::Param;
        spec.name = entry.mid(kParam.size());
        return spec;
    }
    if (!entry.startsWith(kMetric))
        return std::nullopt;
    spec.name = entry.mid(kMetric.size());
    spec.kind = Kind(m_summary->currentData().toInt());
    if (spec.kind == Kind::AtStep)
        spec.step = m_step->value();
    return spec;
}

void RunValueChooser::setSpec(const std::optional<run::RunValueSpec> &spec)
{
    const QSignalBlocker names(m_name), summary(m_summary), step(m_step);
    if (!spec) {
        m_name->setCurrentIndex(indexOf(QString()));
        showParts();
        return;
    }
    const bool param = spec->kind == Kind::Param;
    const QString entry = (param ? QString(kParam) : QString(kMetric)) + spec->name;
    int index = indexOf(entry);
    if (index < 0) {
        m_name->addItem(spec->name, entry);
        index = m_name->count() - 1;
    }
    m_name->setCurrentIndex(index);
    if (!param) {
        m_summary->setCurrentIndex(m_summary->findData(int(spec->kind)));
        if (spec->kind == Kind::AtStep)
            m_step->setValue(int(std::llround(spec->step)));
    }
    showParts();
}

void RunValueChooser::showParts()
{
    const bool metric = m_name->currentData().toString().startsWith(kMetric);
    m_summary->setVisible(metric);
    m_step->setVisible(metric && Kind(m_summary->currentData().toInt()) == Kind::AtStep);
}

} // namespace ferry::ui
