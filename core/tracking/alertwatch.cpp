#include "tracking/alertwatch.h"

#include "run/budgetclock.h"

#include <QDateTime>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::run {

QString alertValueText(double value)
{
    if (std::isnan(value))
        return u"nan"_s;
    if (std::isinf(value))
        return value > 0 ? u"inf"_s : u"-inf"_s;
    return QString::number(value, 'g', 6);
}

namespace {

QString stepText(double step)
{
    return std::isnan(step) ? QString() : u" at step %1"_s.arg(QString::number(step, 'g', 12));
}

QString endText(const Alert &alert)
{
    switch (alert.status) {
    case RunStatus::Succeeded:
        return u"succeeded"_s;
    case RunStatus::Failed:
        return u"failed"_s;
    case RunStatus::Lost:
        return u"was lost"_s;
    case RunStatus::Cancelled:
        return alert.detail.startsWith(kStoppedEarly) ? u"stopped early"_s : u"was cancelled"_s;
    default:
        break;
    }
    return runStatusText(alert.status);
}

} // namespace

QString Alert::summary() const
{
    const QString run = u"run "_s + (runName.isEmpty() ? runId : u"%1 (%2)"_s.arg(runName, runId));
    switch (kind) {
    case Kind::Ended:
        return run + u' ' + endText(*this);
    case Kind::Crossed:
        return u"%1: %2 = %3%4"_s.arg(run, metric, alertValueText(value), stepText(step));
    case Kind::NotFinite:
        return u"%1: %2 is %3%4"_s.arg(run, metric, alertValueText(value), stepText(step));
    case Kind::Stalled:
        return u"%1: no new point for %2"_s.arg(run, rule.mid(rule.indexOf(u':') + 1));
    case Kind::GpuIdle:
        return u"%1: GPU %2 idle (0 %) for %3"_s.arg(run, QString::number(gpuOfUtilizationMetric(metric).value_or(0)),
                                                     rule.mid(rule.indexOf(u':') + 1));
    case Kind::BudgetUsed:
        // The words of whoever holds a cap on this machine (the local supervisor, a container's watcher).
        return BudgetClock(RunBudget{}, runId).title(BudgetClock::Step::Warn);
    }
    return run;
}

QString Alert::body() const
{
    if (kind == Kind::Ended || kind == Kind::BudgetUsed)
        return detail;
    if (kind == Kind::Stalled || kind == Kind::GpuIdle)
        return detail.isEmpty() ? u"rule "_s + rule : u"rule %1; %2"_s.arg(rule, detail);
    return u"rule "_s + rule;
}

bool Alert::isWarning() const
{
    return kind != Kind::Ended || status == RunStatus::Failed || status == RunStatus::Lost;
}

AlertWatch::AlertWatch(const RunStore &store, QString runId, QList<AlertRule> rules)
    : m_store(store), m_runId(std::move(runId))
{
    setRules(std::move(rules));
}

void AlertWatch::setRules(QList<AlertRule> given)
{
    QList<AlertRule> rules; // each once (the window's rules for every run and a run's own may share one)
    for (AlertRule &rule : given) {
        if (!rules.contains(rule))
            rules << std::move(rule);
    }
    QList<QHash<QString, bool>> met(rules.size());
    for (qsizetype i = 0; i < rules.size(); ++i) {
        if (const qsizetype before = m_rules.indexOf(rules[i]); before >= 0)
            met[i] = m_met[before];
    }
    m_rules = std::move(rules);
    m_met = std::move(met);
}

Alert AlertWatch::alertFor(Alert::Kind kind, qint64 nowMs) const
{
    Alert alert;
    alert.kind = kind;
    alert.runId = m_runId;
    alert.runName = m_runName;
    alert.sweepId = m_sweepId;
    alert.atMs = nowMs;
    return alert;
}

// A point of a metric against one rule: the rule fires when the point meets it and the one
// before did not (once per rule and metric in one batch: `fired` already holds that alert).
void AlertWatch::checkPoint(const AlertRule &rule, qsizetype index, const QString &name, double step, double value,
                            qint64 nowMs, QList<Alert> &fired)
{
    const bool met = rule.holds(value);
    bool &before = m_met[index][name];
    if (met && !before) {
        const QString text = rule.text();
        const bool said = std::any_of(fired.cbegin(), fired.cend(),
                                      [&](const Alert &a) { return a.rule == text && a.metric == name; });
        if (!said) {
            Alert alert = alertFor(
                rule.kind == AlertRule::Kind::NotFinite ? Alert::Kind::NotFinite : Alert::Kind::Crossed, nowMs);
            alert.rule = text;
            alert.metric = name;
            alert.value = value;
            alert.step = step;
            fired << alert;
        }
    }
    before = met;
}

// A GPU's utilisation samples against a gpu_idle rule (tracking/idlegpu.h).
void AlertWatch::checkIdleGpu(const AlertRule &rule, const QString &name, const SeriesColumns &points, qint64 nowMs,
                              QList<Alert> &fired)
{
    const auto gpu = gpuOfUtilizationMetric(name);
    if (!gpu)
        return;
    auto watch = m_idleGpus.find(rule.stallMs);
    if (watch == m_idleGpus.end())
        watch = m_idleGpus.insert(rule.stallMs, IdleGpuWatch(rule.stallMs));
    for (qsizetype i = 0; i < points.size(); ++i) {
        const auto idle = watch->sample(*gpu, points.values[std::size_t(i)], qint64(points.wallMs[std::size_t(i)]));
        if (!idle)
            continue;
        Alert alert = alertFor(Alert::Kind::GpuIdle, nowMs);
        alert.rule = rule.text();
        alert.metric = name;
        alert.value = 0;
        alert.step = points.steps[std::size_t(i)];
        alert.detail = u"at 0 % since %1"_s.arg(QDateTime::fromMSecsSinceEpoch(idle->sinceMs).toString(u"HH:mm:ss"_s));
        fired << alert;
    }
}

// A remote run's budget at kBudgetWarningShare: said once, while the run goes and before its cap
// (past it, its runner stops it and its end says why). Its clock runs from the record's start, or
// from the last time it was seen waiting in a queue.
void AlertWatch::checkBudget(const RunRecord &record, qint64 nowMs, bool queued, QList<Alert> &fired)
{
    const qint64 limitMs = m_budget.limitSeconds() * 1000;
    if (m_budgetWarned || limitMs <= 0 || record.status != RunStatus::Running)
        return;
    if (queued) {
        m_budgetSinceMs = nowMs;
        return;
    }
    if (m_budgetSinceMs == 0)
        m_budgetSinceMs = record.startedMs > 0 ? record.startedMs : nowMs;
    const qint64 elapsed = nowMs - m_budgetSinceMs;
    if (elapsed < m_budget.warningMs())
        return;
    m_budgetWarned = true;
    if (elapsed >= limitMs || (!m_runDir.isEmpty() && !BudgetClock::claimWarning(m_runDir)))
        return; // past the cap its end says why; or another Ferry said it already
    Alert alert = alertFor(Alert::Kind::BudgetUsed, nowMs);
    alert.detail = BudgetClock(m_budget, m_runId).body(BudgetClock::Step::Warn);
    fired << alert;
}

QList<Alert> AlertWatch::observe(const RunRecord &record, qint64 nowMs, bool newPoints, bool queued)
{
    QList<Alert> fired;
    if (m_ended)
        return fired;
    m_runName = record.name;
    if (!std::exchange(m_readSpec, true)) {
        if (const auto spec = RunSpec::fromJson(record.spec)) {
            m_sweepId = spec->sweep;
            if (spec->target.onHost())
                m_budget = spec->budget;
        }
    }
    const bool over = isFinished(record.status);
    const bool anyMetricRule =
        std::any_of(m_rules.cbegin(), m_rules.cend(), [](const AlertRule &r) { return !r.isStallRule(); });
    const bool anyStallRule = std::any_of(m_rules.cbegin(), m_rules.cend(),
                                          [](const AlertRule &r) { return r.kind == AlertRule::Kind::Stalled; });
    // The points stored since the last read (the first read: all of them), in arrival order.
    if ((anyMetricRule || anyStallRule) && (newPoints || over || !m_readOnce)) {
        const bool first = !m_readOnce;
        m_readOnce = true;
        qint64 newest = 0;
        for (const RunStore::SeriesUpdate &update : m_store.metricsSince(m_runId, m_cursor)) {
            const SeriesColumns &c = update.columns;
            if (c.size() == 0)
                continue;
            newest = std::max(newest, qint64(*std::max_element(c.wallMs.begin(), c.wallMs.end())));
            for (qsizetype r = 0; r < m_rules.size(); ++r) {
                const AlertRule &rule = m_rules[r];
                if (rule.kind == AlertRule::Kind::GpuIdle && record.status == RunStatus::Running)
                    checkIdleGpu(rule, update.name, c, nowMs, fired);
                if (!rule.isMetricRule() || !rule.matches(update.name))
                    continue;
                for (qsizetype i = 0; i < c.size(); ++i)
                    checkPoint(rule, r, update.name, c.steps[std::size_t(i)], c.values[std::size_t(i)], nowMs, fired);
            }
        }
        // Said in the order the script wrote them, whatever the rule.
        // (A point without a step, NaN, comes first, as RunStore::metrics orders them.)
        const auto stepKey = [](const Alert &a) { return std::isnan(a.step) ? -HUGE_VAL : a.step; };
        std::stable_sort(fired.begin(), fired.end(),
                         [&](const Alert &a, const Alert &b) { return stepKey(a) < stepKey(b); });
        if (newest > 0) {
            // Live, a point is as new as when it was seen (a remote clock may be off); the
            // history read first is as old as its newest point says.
            m_lastPointMs = first ? std::min(newest, nowMs) : nowMs;
            for (qsizetype r = 0; r < m_rules.size(); ++r) {
                if (m_rules[r].kind == AlertRule::Kind::Stalled)
                    m_met[r].clear();
            }
        }
    }
    // A follower's record may not carry the start it stored: the run started when first seen running.
    if (record.status == RunStatus::Running && m_runningSinceMs == 0)
        m_runningSinceMs = record.startedMs > 0 ? record.startedMs : nowMs;
    if (!over && record.status == RunStatus::Running) {
        const qint64 since = std::max(m_lastPointMs, m_runningSinceMs);
        for (qsizetype r = 0; r < m_rules.size(); ++r) {
            const AlertRule &rule = m_rules[r];
            if (rule.kind != AlertRule::Kind::Stalled || nowMs - since < rule.stallMs || m_met[r].value(QString()))
                continue;
            m_met[r][QString()] = true;
            Alert alert = alertFor(Alert::Kind::Stalled, nowMs);
            alert.rule = rule.text();
            alert.detail = m_lastPointMs > 0
                               ? u"the last point came at %1"_s.arg(
                                     QDateTime::fromMSecsSinceEpoch(m_lastPointMs).toString(u"HH:mm:ss"_s))
                               : u"no point since the run started"_s;
            fired << alert;
        }
    }
    checkBudget(record, nowMs, queued, fired);
    if (over) {
        m_ended = true;
        Alert alert = alertFor(Alert::Kind::Ended, nowMs);
        alert.status = record.status;
        alert.detail = record.error;
        if (record.status == RunStatus::Failed && record.exitCode && *record.exitCode != 0)
            alert.detail = alert.detail.isEmpty() ? u"exit code %1"_s.arg(*record.exitCode)
                                                  : u"exit code %1: %2"_s.arg(*record.exitCode).arg(record.error);
        fired << alert;
    }
    return fired;
}

} // namespace ferry::run
