// One value per run: a parameter or a metric's last, best, min, max or value at a step.
#include "analysis/runvalues.h"

#include "analysis/curves.h"
#include "store/metricexport.h"
#include "tracking/rundiff.h"
#include "tracking/runquery.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr std::pair<QLatin1StringView, RunValueSpec::Kind> kValueAggregates[]{
    {"last"_L1, RunValueSpec::Kind::Last},
    {"best"_L1, RunValueSpec::Kind::Best},
    {"min"_L1, RunValueSpec::Kind::Min},
    {"max"_L1, RunValueSpec::Kind::Max},
};

Error valueSpecError(const QString &text, const QString &what)
{
    return Error{u"'%1': %2"_s.arg(text, what),
                 {},
                 0,
                 0,
                 u"hp.NAME, metrics.NAME.last, metrics.NAME.best, .min, .max, or metrics.NAME@STEP "
                 "(e.g. metrics.val_loss@1000)"_s};
}

QString numberText(double value)
{
    char text[kNumberChars];
    return QString::fromLatin1(text, writeNumber(text, value) - text);
}

RunValue metricValue(double value)
{
    return RunValue{numberText(value), value};
}

} // namespace

Expected<RunValueSpec> RunValueSpec::parse(const QString &text)
{
    const QString t = text.trimmed();
    if (t.startsWith("hp."_L1)) {
        if (t.size() == 3)
            return valueSpecError(text, u"name the parameter"_s);
        return RunValueSpec{Kind::Param, t.mid(3), 0, {}};
    }
    if (!t.startsWith("metrics."_L1)) {
        if (t.isEmpty())
            return valueSpecError(text, u"name a parameter or a metric"_s);
        return RunValueSpec{Kind::Last, t, 0, {}};
    }
    const QString rest = t.mid(8);
    if (const qsizetype at = rest.lastIndexOf(u'@'); at > 0) {
        bool ok = false;
        const double step = rest.mid(at + 1).toDouble(&ok);
        if (!ok || !std::isfinite(step))
            return valueSpecError(text, u"'%1' is not a step"_s.arg(rest.mid(at + 1)));
        return RunValueSpec{Kind::AtStep, rest.left(at), step, {}};
    }
    const qsizetype dot = rest.lastIndexOf(u'.');
    for (const auto &[word, kind] : kValueAggregates) {
        if (dot > 0 && QStringView(rest).mid(dot + 1) == word)
            return RunValueSpec{kind, rest.left(dot), 0, {}};
    }
    return valueSpecError(text, u"say which value of the metric: .last, .best, .min, .max or @STEP"_s);
}

QString RunValueSpec::text() const
{
    if (kind == Kind::Param)
        return u"hp."_s + name;
    if (kind == Kind::AtStep)
        return u"metrics.%1@%2"_s.arg(name, numberText(step));
    for (const auto &[word, k] : kValueAggregates) {
        if (k == kind)
            return u"metrics.%1.%2"_s.arg(name, word);
    }
    return {};
}

bool RunValueSpec::higher() const
{
    if (kind == Kind::Max)
        return true;
    if (kind == Kind::Best)
        return higherIsBetter.value_or(run::higherIsBetter(name));
    return false;
}

QHash<QString, RunValue> runValues(const RunStore &store, const QList<RunRecord> &runs, const RunValueSpec &spec)
{
    QHash<QString, RunValue> values;
    using Kind = RunValueSpec::Kind;
    if (spec.kind == Kind::Param) {
        const QHash<QString, QString> params = store.paramOfRuns(spec.name);
        for (const RunRecord &r : runs) {
            const auto it = params.constFind(r.id);
            if (it == params.cend())
                continue;
            std::optional<double> number = query::numberOf(*it);
            if (number && !std::isfinite(*number))
                number.reset();
            values.insert(r.id, RunValue{*it, number});
        }
        return values;
    }
    if (spec.kind == Kind::Last) {
        const QHash<QString, double> last = store.lastValueOfRuns(spec.name);
        for (const RunRecord &r : runs) {
            if (const double v = last.value(r.id, std::nan("")); std::isfinite(v))
                values.insert(r.id, metricValue(v));
        }
        return values;
    }
    for (const RunRecord &r : runs) {
        const std::vector<SeriesPoint> points = store.series(r.id, spec.name);
        const std::optional<double> v =
            spec.kind == Kind::AtStep ? valueAt(stepCurve(points).view(), spec.step) : bestOf(points, spec.higher());
        if (v)
            values.insert(r.id, metricValue(*v));
    }
    return values;
}

} // namespace ferry::run
