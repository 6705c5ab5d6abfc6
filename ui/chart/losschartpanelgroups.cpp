// The chart panel's groups of runs: the Group row's boxes, their choices from the runs' parameters,
// and the groups every panel draws (core's run::groupRuns).
#include "ui/chart/losschartpanel.h"

#include "analysis/rungroups.h"
#include "ui/chart/runcolors.h"

#include <QComboBox>
#include <QHash>
#include <QSet>
#include <QSignalBlocker>
#include <QToolButton>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

// Group [No groups | each differing parameter | Tags | Sweep | Experiment] [Mean | Median] [± std | min–max]
// [Ungroup].
void LossChartPanel::createGroupControls()
{
    m_groupBy = new QComboBox(this);
    m_groupBy->setObjectName(u"groupBy"_s);
    m_groupBy->setToolTip(tr("Draw the runs in groups, each one line (mean or median) with a band over its runs"));
    m_groupStatistic = new QComboBox(this);
    m_groupStatistic->setObjectName(u"groupStatistic"_s);
    m_groupStatistic->addItem(tr("Mean"), int(GroupStatistic::Mean));
    m_groupStatistic->addItem(tr("Median"), int(GroupStatistic::Median));
    m_groupStatistic->setToolTip(tr("Each group's line: the mean or the median of its runs at each x"));
    m_groupBand = new QComboBox(this);
    m_groupBand->setObjectName(u"groupBand"_s);
    m_groupBand->addItem(tr("± std"), int(run::Band::Std));
    m_groupBand->addItem(tr("min–max"), int(run::Band::MinMax));
    m_groupBand->setToolTip(tr("Each group's band: mean ± standard deviation, or min to max of its runs"));
    m_ungroup = new QToolButton(this);
    m_ungroup->setObjectName(u"ungroup"_s);
    m_ungroup->setText(tr("Ungroup"));
    m_ungroup->setToolTip(tr("Draw each run again"));
    m_groupBy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_groupBy->setMinimumContentsLength(8);
    updateGroupChoices();
    connect(m_groupBy, &QComboBox::currentIndexChanged, this, [this] {
        applyGroups();
        saveSettings();
    });
    connect(m_groupStatistic, &QComboBox::currentIndexChanged, this, [this] {
        const auto statistic = GroupStatistic(m_groupStatistic->currentData().toInt());
        forEachChart([statistic](LossChart *c) { c->setGroupStatistic(statistic); });
        saveSettings();
    });
    connect(m_groupBand, &QComboBox::currentIndexChanged, this, [this] {
        const auto band = run::Band(m_groupBand->currentData().toInt());
        forEachChart([band](LossChart *c) { c->setGroupBand(band); });
        saveSettings();
    });
    connect(m_ungroup, &QToolButton::clicked, this, [this] { setGroupBy({}); });
    applyGroups();
}

// "No groups", each parameter whose value differs among the runs (one missing it counts), the
// tags, the sweep and the experiment; the current choice is kept (and listed, if no run differs
// in it now).
void LossChartPanel::updateGroupChoices()
{
    const QString current = m_groupBy->currentData().toString();
    QStringList params;
    QHash<QString, QSet<QString>> values; // parameter -> its values ("\x1f" for none)
    for (const run::RunRecord &r : std::as_const(m_runFacts)) {
        const QHash<QString, QString> mine = m_runParams.value(r.id);
        for (auto it = mine.cbegin(); it != mine.cend(); ++it) {
            if (!values.contains(it.key()))
                params << it.key();
            values[it.key()];
        }
    }
    for (const QString &name : std::as_const(params)) {
        for (const run::RunRecord &r : std::as_const(m_runFacts))
            values[name].insert(m_runParams.value(r.id).value(name, u"\x1f"_s));
    }
    std::sort(params.begin(), params.end());
    QStringList choices{QString()};
    for (const QString &name : std::as_const(params)) {
        if (values.value(name).size() > 1)
            choices << u"hp."_s + name;
    }
    choices << u"tag"_s << u"sweep"_s << u"experiment"_s;
    if (!choices.contains(current))
        choices.insert(1, current);
    if (choices == groupChoices())
        return; // as listed: an open list is left alone
    const QSignalBlocker block(m_groupBy);
    m_groupBy->clear();
    for (const QString &choice : std::as_const(choices)) {
        QString text = choice.isEmpty()            ? tr("No groups")
                       : choice == "tag"_L1        ? tr("Tags")
                       : choice == "sweep"_L1      ? tr("Sweep")
                       : choice == "experiment"_L1 ? tr("Experiment")
                                                   : choice.mid(3);
        m_groupBy->addItem(text, choice);
    }
    m_groupBy->setCurrentIndex(std::max(0, m_groupBy->findData(current)));
}

QStringList LossChartPanel::groupChoices() const
{
    QStringList choices;
    for (int i = 0; i < m_groupBy->count(); ++i)
        choices << m_groupBy->itemData(i).toString();
    return choices;
}

void LossChartPanel::setRunFacts(const QList<run::RunRecord> &runs,
                                 const QHash<QString, QHash<QString, QString>> &params)
{
    if (runs == m_runFacts && params == m_runParams)
        return; // the window gives them again on each refresh of the table
    m_runFacts = runs;
    m_runParams = params;
    updateGroupChoices();
    applyGroups();
}

void LossChartPanel::setGroupBy(const QString &text)
{
    if (m_groupBy->findData(text) < 0) { // a parameter no run shown differs in (yet)
        const QSignalBlocker block(m_groupBy);
        m_groupBy->insertItem(1, text.startsWith("hp."_L1) ? text.mid(3) : text, text);
    }
    m_groupBy->setCurrentIndex(m_groupBy->findData(text));
}

QString LossChartPanel::groupBy() const
{
    return m_groupBy->currentData().toString();
}

void LossChartPanel::setGroupStatistic(GroupStatistic statistic)
{
    m_groupStatistic->setCurrentIndex(m_groupStatistic->findData(int(statistic)));
}

void LossChartPanel::setGroupBand(run::Band band)
{
    m_groupBand->setCurrentIndex(m_groupBand->findData(int(band)));
}

// The runs of the store in groups by core's rule (run::groupRuns, from the facts given), to
// every panel; runs without facts are grouped as runs without the key.
void LossChartPanel::applyGroups()
{
    const QString text = groupBy();
    const bool grouped = !text.isEmpty();
    m_groupStatistic->setVisible(grouped);
    m_groupBand->setVisible(grouped);
    m_ungroup->setVisible(grouped);
    QList<ChartGroup> groups;
    const auto by = run::GroupBy::parse(text);
    if (grouped && by) {
        QHash<QString, const run::RunRecord *> facts;
        for (const run::RunRecord &r : std::as_const(m_runFacts))
            facts.insert(r.id, &r);
        QList<run::RunRecord> records;
        QHash<QString, QString> values;
        for (const QString &id : storeRuns()) {
            const run::RunRecord *r = facts.value(id);
            run::RunRecord bare;
            bare.id = id;
            records << (r ? *r : bare);
            if (const auto it = m_runParams.constFind(id); it != m_runParams.cend() && it->contains(by->name))
                values.insert(id, it->value(by->name));
        }
        const QList<run::RunGroup> runGroups = run::groupRuns(records, *by, values);
        const QList<QColor> colors = groupColors(runGroups.size());
        for (qsizetype i = 0; i < runGroups.size(); ++i)
            groups << ChartGroup{runGroups[i].key, runGroups[i].label, runGroups[i].runIds, colors[i]};
    }
    forEachChart([&groups](LossChart *c) { c->setGroups(groups); });
}

} // namespace ferry::ui
