#include "cost/rates.h"

#include "cost/money.h"
#include "run/distribution.h"

#include <QRegularExpression>
#include <QUrl>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::cost {

namespace {

constexpr double kRateMaxAmount = 1e6;
const QString kRatesGroup = u"rates/"_s;

QString rateSettingsGroup(const QString &target)
{
    // Settings keys cannot hold '/' or '\\': the target is percent-encoded, as the SSH keys' hosts are.
    return kRatesGroup + QString::fromLatin1(QUrl::toPercentEncoding(target));
}

Error targetError(const QString &text, const QString &why)
{
    return Error{u"rate target '%1': %2"_s.arg(text, why),
                 {},
                 0,
                 0,
                 u"write local, ssh:HOST, slurm:HOST, slurm:HOST/PARTITION or kernel:TARGET"_s};
}

Expected<RateUnit> unitOf(const QString &word)
{
    const QString w = word.toLower();
    if (w.isEmpty() || w == u"h"_s || w == u"hour"_s || w == u"node-h"_s || w == u"node-hour"_s)
        return RateUnit::Hour;
    if (w == u"gpu-h"_s || w == u"gpu-hour"_s)
        return RateUnit::GpuHour;
    return Error{u"'/%1' is not a unit Ferry knows"_s.arg(word),
                 {},
                 0,
                 0,
                 u"write AMOUNT/h (an hour of a machine) or AMOUNT/gpu-h (an hour of one GPU)"_s};
}

// "aws:g5.xlarge[@region][:spot]": the catalog's row as a rate.
Expected<Rate> catalogRateOf(const QString &text, const PriceCatalog &catalog)
{
    const QString cloud = text.section(u':', 0, 0).toLower();
    QString rest = text.section(u':', 1);
    const bool spot = rest.endsWith(u":spot"_s, Qt::CaseInsensitive);
    if (spot)
        rest.chop(5);
    const QString type = rest.section(u'@', 0, 0);
    const QString region = rest.contains(u'@') ? rest.section(u'@', 1) : QString();
    const CatalogEntry *entry = catalog.find(cloud, type, region);
    if (!entry)
        return Error{u"the price catalog has no %1 instance '%2'%3"_s.arg(
                         cloud, type, region.isEmpty() ? QString() : u" in %1"_s.arg(region)),
                     {},
                     0,
                     0,
                     u"see 'ferry rates catalog --cloud %1' for what it lists"_s.arg(cloud)};
    return catalogRate(*entry, spot);
}

} // namespace

QString unitName(RateUnit unit)
{
    return unit == RateUnit::GpuHour ? u"gpu-hour"_s : u"hour"_s;
}

QString rateText(const Rate &rate)
{
    return u"%1/%2"_s.arg(priceText(rate.amount), rate.unit == RateUnit::GpuHour ? u"GPU-h"_s : u"h"_s);
}

Expected<Rate> catalogRate(const CatalogEntry &entry, bool spot)
{
    const std::optional<double> amount = spot ? entry.spotPrice : entry.price;
    if (!amount)
        return Error{u"the price catalog has no %1 price for %2 %3 in %4"_s.arg(
                         spot ? u"spot"_s : u"on-demand"_s, entry.cloud, entry.instanceType, entry.region),
                     entry.file, entry.line, 0, u"set the amount yourself: AMOUNT/h"_s};
    return Rate{*amount, RateUnit::Hour,
                u"%1 %2 in %3, %4, catalog of %5"_s.arg(entry.cloud, entry.instanceType, entry.region,
                                                        spot ? u"spot"_s : u"on demand"_s, entry.dateText())};
}

Expected<Rate> parseRate(const QString &text, const PriceCatalog &catalog)
{
    const QString t = text.trimmed();
    if (catalogClouds().contains(t.section(u':', 0, 0).toLower()) && t.contains(u':'))
        return catalogRateOf(t, catalog);
    static const QRegularExpression form(
        u"^\\$?\\s*([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)\\s*(?:USD)?\\s*(?:/\\s*([A-Za-z-]+))?$"_s,
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = form.match(t);
    if (!match.hasMatch())
        return Error{u"'%1' is not a rate"_s.arg(text),
                     {},
                     0,
                     0,
                     u"write an amount in %1 an hour, e.g. 3.60/h or 1.20/gpu-h, or a catalog instance such as "
                     u"aws:g5.xlarge"_s.arg(kCurrency)};
    const double amount = match.captured(1).toDouble();
    if (!std::isfinite(amount) || amount > kRateMaxAmount)
        return Error{u"%1 is more than %2 an hour"_s.arg(match.captured(1), moneyText(kRateMaxAmount)),
                     {},
                     0,
                     0,
                     u"write the amount an hour costs"_s};
    if (match.captured(2).isEmpty() && amount != 0)
        return Error{
            u"'%1': say per what, /h or /gpu-h"_s.arg(text),
            {},
            0,
            0,
            u"write e.g. %1/h (an hour of a machine) or %1/gpu-h (an hour of one GPU)"_s.arg(match.captured(1))};
    const auto unit = unitOf(match.captured(2));
    if (!unit)
        return unit.error();
    return Rate{amount, *unit, QString(kSetByYou)};
}

Expected<QString> checkRateTarget(const QString &text)
{
    const QString t = text.trimmed();
    if (t == u"local"_s)
        return t;
    if (t == u"container"_s || t == u"embedded"_s)
        return targetError(t, u"%1 runs are on this machine: their rate is local's"_s.arg(t));
    if (t.startsWith(u"kernel:"_s)) {
        const QString of = t.mid(7);
        if (of.startsWith(u"kernel:"_s))
            return targetError(t, u"one 'kernel:' is enough"_s);
        const auto inner = checkRateTarget(of);
        if (!inner)
            return targetError(t, inner.error().message);
        return QString(u"kernel:"_s + *inner);
    }
    const QString kind = t.section(u':', 0, 0);
    if (kind != u"ssh"_s && kind != u"slurm"_s)
        return targetError(t, u"not a place Ferry runs"_s);
    QString host = t.section(u':', 1);
    QString partition;
    if (kind == u"slurm"_s && host.contains(u'/')) {
        partition = host.section(u'/', 1);
        host = host.section(u'/', 0, 0);
        static const QRegularExpression name(u"^[A-Za-z0-9_.-]{1,128}$"_s);
        if (!name.match(partition).hasMatch())
            return targetError(t, u"'%1' is not a partition's name"_s.arg(partition));
    }
    if (host.isEmpty())
        return targetError(t, u"name the host"_s);
    if (host.contains(u'/'))
        return targetError(t, u"a host's name has no '/'"_s);
    if (const auto named = run::hostNameProblem(host); !named)
        return targetError(t, named.error().message);
    return QString(kind + u':' + host + (partition.isEmpty() ? QString() : u'/' + partition));
}

QStringList rateTargetsFor(const run::RunSpec &spec)
{
    const run::TargetSpec &target = spec.target;
    QStringList own;
    if (target.kind == run::TargetKind::Ssh) {
        own << u"ssh:"_s + target.host;
    } else if (target.kind == run::TargetKind::Slurm) {
        const QString partition = target.options.value(u"partition"_s).toString();
        if (!partition.isEmpty() && !partition.contains(u','))
            own << u"slurm:%1/%2"_s.arg(target.host, partition);
        own << u"slurm:"_s + target.host;
    } else {
        own << u"local"_s;
    }
    if (!spec.isKernel())
        return own;
    QStringList kernel;
    for (const QString &t : std::as_const(own))
        kernel << u"kernel:"_s + t;
    return kernel + own;
}

RatesRead readRates(const QSettings &settings)
{
    RatesRead read;
    for (const QString &key : settings.allKeys()) {
        if (!key.startsWith(kRatesGroup) || !key.endsWith(u"/amount"_s))
            continue;
        const QString group = key.chopped(7);
        const QString target = QUrl::fromPercentEncoding(group.mid(kRatesGroup.size()).toLatin1());
        bool ok = false;
        const double amount = settings.value(key).toString().toDouble(&ok);
        const QString unit = settings.value(group + u"/unit"_s).toString();
        const auto checked = checkRateTarget(target);
        const bool knownUnit = unit == unitName(RateUnit::Hour) || unit == unitName(RateUnit::GpuHour);
        if (!ok || !std::isfinite(amount) || amount < 0 || amount > kRateMaxAmount || !checked || !knownUnit) {
            read.problems << Error{u"the rate for '%1' in the settings cannot be read: left out"_s.arg(target),
                                   settings.fileName(), 0, 0,
                                   u"set it again: ferry rates set %1 AMOUNT/h"_s.arg(checked ? *checked : target)};
            continue;
        }
        read.rates.insert(*checked,
                          Rate{amount, unit == unitName(RateUnit::GpuHour) ? RateUnit::GpuHour : RateUnit::Hour,
                               quotedName(settings.value(group + u"/source"_s).toString())});
    }
    return read;
}

Expected<QString> checkRate(const QString &target, const Rate &rate)
{
    const auto checked = checkRateTarget(target);
    if (!checked)
        return checked.error();
    if (!std::isfinite(rate.amount) || rate.amount < 0 || rate.amount > kRateMaxAmount)
        return Error{u"%1: a rate is an amount from 0 to %2 an hour"_s.arg(*checked, moneyText(kRateMaxAmount)),
                     {},
                     0,
                     0,
                     u"write a number of %1, e.g. 2.50"_s.arg(kCurrency)};
    const QString bare = checked->startsWith(u"kernel:"_s) ? checked->mid(7) : *checked;
    if (rate.unit == RateUnit::GpuHour && !bare.startsWith(u"slurm:"_s))
        return Error{u"a rate per GPU-hour is for a Slurm cluster or partition, not '%1'"_s.arg(*checked),
                     {},
                     0,
                     0,
                     u"give %1 a rate per hour: AMOUNT/h"_s.arg(*checked)};
    return checked;
}

Expected<void> setRate(QSettings &settings, const QString &target, const Rate &rate)
{
    const auto checked = checkRate(target, rate);
    if (!checked)
        return checked.error();
    const QString group = rateSettingsGroup(*checked);
    settings.remove(group);
    settings.setValue(group + u"/amount"_s, plainAmount(rate.amount));
    settings.setValue(group + u"/unit"_s, unitName(rate.unit));
    settings.setValue(group + u"/source"_s, rate.source);
    return {};
}

void removeRate(QSettings &settings, const QString &target)
{
    const auto checked = checkRateTarget(target);
    settings.remove(rateSettingsGroup(checked ? *checked : target.trimmed()));
}

int nodesOf(const run::TargetSpec &target)
{
    return run::Distribution::orSingle(target).nodes;
}

int gpusOf(const run::TargetSpec &target)
{
    const run::Distribution d = run::Distribution::orSingle(target);
    if (d.gpusPerNode >= 0)
        return d.nodes * d.gpusPerNode;
    const QJsonValue gpus = target.options.value(u"gpus"_s);
    const int count = gpus.isDouble() ? gpus.toInt() : gpus.toString().toInt();
    return std::max(0, count);
}

std::optional<AppliedRate> rateFor(const run::RunSpec &spec, const Rates &rates)
{
    const QStringList targets = rateTargetsFor(spec);
    for (const QString &t : targets) {
        const auto found = rates.constFind(t);
        if (found == rates.constEnd())
            continue;
        const double units = found->unit == RateUnit::GpuHour ? gpusOf(spec.target) : nodesOf(spec.target);
        return AppliedRate{t, *found, false, units};
    }
    if (targets.constLast() == u"local"_s)
        return AppliedRate{u"local"_s, Rate{0, RateUnit::Hour, QString(kLocalDefaultSource)}, true, 1};
    return std::nullopt;
}

} // namespace ferry::cost
