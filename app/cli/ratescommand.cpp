// `ferry rates list|set|unset|catalog`: what an hour of each target costs (docs/cost.md), kept in
// Ferry's settings, and the price catalog the rates may come from.
#include "cli/command.h"

#include "cost/catalog.h"
#include "cost/money.h"
#include "cost/rates.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

QJsonValue optionalNumber(const std::optional<double> &value)
{
    return value ? QJsonValue(*value) : QJsonValue();
}

class RatesCommand final : public Command {
public:
    QString name() const override { return u"rates"_s; }
    QString summary() const override { return u"what an hour of each target costs, and the price catalog"_s; }
    int maxPositionalArguments() const override { return 3; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"Rates price runs (docs/cost.md): an amount in USD, the price catalog's currency, an hour.\n\n"
            u"  ferry rates list [--json]            every rate set, and this machine's\n"
            u"  ferry rates set TARGET RATE          e.g. local 3.60/h, ssh:gpu1 2.50/h,\n"
            u"                                       slurm:hpc/gpu 1.20/gpu-h, ssh:box aws:g5.xlarge\n"
            u"  ferry rates unset TARGET             the rate becomes unknown (local: 0 again)\n"
            u"  ferry rates catalog [--cloud C] [--gpu NAME] [--json]\n"
            u"                                       the catalog's GPU instances, prices and dates\n\n"
            u"TARGET: local (this machine: local, container and embedded runs), ssh:HOST, slurm:HOST\n"
            u"(every partition), slurm:HOST/PARTITION, kernel:TARGET (kernels there).\n"
            u"RATE: AMOUNT/h (an hour of one machine; a node on Slurm), AMOUNT/gpu-h (an hour of one GPU:\n"
            u"Slurm only), or CLOUD:TYPE[@REGION][:spot] from the catalog (its price, region and date kept\n"
            u"as the rate's source). A target without a rate has an unknown cost, never 0."_s);
        parser.addPositionalArgument(u"action"_s, u"list, set, unset or catalog"_s, u"ACTION"_s);
        parser.addPositionalArgument(u"target"_s, u"set, unset: the rate target"_s, u"[TARGET]"_s);
        parser.addPositionalArgument(u"rate"_s, u"set: the rate"_s, u"[RATE]"_s);
        parser.addOption({u"json"_s, u"Print JSON (list, catalog)."_s});
        parser.addOption({u"cloud"_s, u"catalog: only this cloud (aws, azure, gcp, sagemaker)."_s, u"CLOUD"_s});
        parser.addOption({u"gpu"_s, u"catalog: only instances with this accelerator (e.g. A100)."_s, u"NAME"_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        const QStringList args = parser.positionalArguments();
        const QString action = args.value(0);
        const QHash<QString, int> arity{{u"list"_s, 1}, {u"set"_s, 3}, {u"unset"_s, 2}, {u"catalog"_s, 1}};
        if (!arity.contains(action))
            return usageError(name(),
                              action.isEmpty() ? u"say what to do: list, set, unset or catalog"_s
                                               : u"unknown action '%1' (list, set, unset, catalog)"_s.arg(action),
                              io);
        if (args.size() != arity.value(action))
            return usageError(name(),
                              action == u"set"_s ? u"'ferry rates set' takes a target and a rate: ferry rates set "
                                                   u"local 3.60/h"_s
                              : action == u"unset"_s ? u"'ferry rates unset' takes a target"_s
                                                     : u"'ferry rates %1' takes no argument"_s.arg(action),
                              io);
        QSettings settings;
        if (action == u"list"_s)
            return list(settings, parser.isSet(u"json"_s), io);
        if (action == u"set"_s)
            return set(settings, args[1], args[2], io);
        if (action == u"unset"_s)
            return unset(settings, args[1], io);
        return catalog(parser, io);
    }

private:
    static int list(const QSettings &settings, bool json, Io &io)
    {
        const cost::RatesRead read = cost::readRates(settings);
        for (const Error &e : read.problems)
            io.err << "ferry rates: " << e.toString() << Qt::endl;
        cost::Rates shown = read.rates;
        const bool localSet = shown.contains(u"local"_s);
        if (!localSet)
            shown.insert(u"local"_s, cost::Rate{0, cost::RateUnit::Hour, QString(cost::kLocalDefaultSource)});
        if (json) {
            QJsonArray rates;
            for (auto it = shown.cbegin(); it != shown.cend(); ++it)
                rates.append(QJsonObject{{u"target"_s, it.key()},
                                         {u"amount"_s, it->amount},
                                         {u"unit"_s, cost::unitName(it->unit)},
                                         {u"source"_s, it->source},
                                         {u"default"_s, it.key() == u"local"_s && !localSet}});
            io.out << QJsonDocument(QJsonObject{{u"currency"_s, QString(cost::kCurrency)}, {u"rates"_s, rates}})
                          .toJson(QJsonDocument::Compact)
                   << Qt::endl;
            return kExitOk;
        }
        io.out << u"%1  %2  %3"_s.arg(u"TARGET"_s, -28).arg(u"RATE"_s, -18).arg(u"SOURCE"_s) << '\n';
        for (auto it = shown.cbegin(); it != shown.cend(); ++it)
            io.out << u"%1  %2  %3"_s.arg(it.key(), -28).arg(cost::rateText(*it), -18).arg(it->source) << '\n';
        io.out << "A target not listed has an unknown rate: its runs' cost is unknown, never 0." << Qt::endl;
        return kExitOk;
    }

    static int set(QSettings &settings, const QString &target, const QString &text, Io &io)
    {
        const cost::PriceCatalog catalog = cost::loadPriceCatalog();
        const auto rate = cost::parseRate(text, catalog);
        if (!rate) {
            io.err << "ferry rates set: " << rate.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const auto checked = cost::checkRateTarget(target);
        if (!checked) {
            io.err << "ferry rates set: " << checked.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (const auto stored = cost::setRate(settings, *checked, *rate); !stored) {
            io.err << "ferry rates set: " << stored.error().toString() << Qt::endl;
            return kExitUserError;
        }
        settings.sync();
        if (settings.status() != QSettings::NoError) {
            io.err << "ferry rates set: cannot write " << settings.fileName() << Qt::endl;
            return kExitUserError;
        }
        io.out << *checked << "  " << cost::rateText(*rate) << "  " << rate->source << Qt::endl;
        return kExitOk;
    }

    static int unset(QSettings &settings, const QString &target, Io &io)
    {
        const auto checked = cost::checkRateTarget(target);
        if (!checked) {
            io.err << "ferry rates unset: " << checked.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (!cost::readRates(settings).rates.contains(*checked)) {
            io.err << "ferry rates unset: no rate is set for " << *checked << "; see 'ferry rates list'" << Qt::endl;
            return kExitUserError;
        }
        cost::removeRate(settings, *checked);
        settings.sync();
        io.err << "the rate of " << *checked << " is "
               << (*checked == u"local"_s ? u"0 again (this machine's default)"_s : u"unknown now"_s) << Qt::endl;
        return kExitOk;
    }

    static int catalog(const QCommandLineParser &parser, Io &io)
    {
        const QString cloud = parser.value(u"cloud"_s).toLower();
        if (!cloud.isEmpty() && !cost::catalogClouds().contains(cloud))
            return usageError(u"rates"_s, u"--cloud takes %1"_s.arg(cost::catalogClouds().join(u", "_s)), io);
        const QString gpu = parser.value(u"gpu"_s);
        const cost::PriceCatalog catalog = cost::loadPriceCatalog();
        for (const Diagnostic &d : catalog.diagnostics)
            io.err << d.toString() << Qt::endl;
        QList<const cost::CatalogEntry *> shown;
        for (const cost::CatalogEntry &e : catalog.entries) {
            if ((cloud.isEmpty() || e.cloud == cloud) &&
                (gpu.isEmpty() || e.acceleratorName.compare(gpu, Qt::CaseInsensitive) == 0 ||
                 e.acceleratorName.startsWith(gpu + u'-', Qt::CaseInsensitive)))
                shown << &e;
        }
        if (parser.isSet(u"json"_s))
            printCatalogJson(shown, io);
        else
            printCatalog(shown, io);
        return hasErrors(catalog.diagnostics) ? kExitUserError : kExitOk;
    }

    static void printCatalogJson(const QList<const cost::CatalogEntry *> &shown, Io &io)
    {
        QJsonArray rows;
        for (const cost::CatalogEntry *e : shown)
            rows.append(QJsonObject{{u"cloud"_s, e->cloud},
                                    {u"instanceType"_s, e->instanceType},
                                    {u"vCPUs"_s, e->vcpus},
                                    {u"memoryGiB"_s, e->memoryGiB},
                                    {u"acceleratorName"_s, e->acceleratorName},
                                    {u"acceleratorCount"_s, e->acceleratorCount},
                                    {u"region"_s, e->region},
                                    {u"price"_s, optionalNumber(e->price)},
                                    {u"spotPrice"_s, optionalNumber(e->spotPrice)},
                                    {u"date"_s, e->date.isValid() ? QJsonValue(e->dateText()) : QJsonValue()},
                                    {u"source"_s, e->source}});
        io.out << QJsonDocument(QJsonObject{{u"currency"_s, QString(cost::kCurrency)}, {u"instances"_s, rows}})
                      .toJson(QJsonDocument::Compact)
               << Qt::endl;
    }

    static void printCatalog(const QList<const cost::CatalogEntry *> &shown, Io &io)
    {
        const auto price = [](const std::optional<double> &p) { return p ? cost::priceText(*p) : u"-"_s; };
        io.out << u"%1 %2 %3 %4 %5 %6 %7 %8"_s.arg(u"CLOUD"_s, -9)
                      .arg(u"INSTANCE"_s, -26)
                      .arg(u"GPUS"_s, -16)
                      .arg(u"REGION"_s, -12)
                      .arg(u"PRICE/h"_s, -14)
                      .arg(u"SPOT/h"_s, -14)
                      .arg(u"DATE"_s, -11)
                      .arg(u"SOURCE"_s)
               << '\n';
        for (const cost::CatalogEntry *e : shown) {
            const QString gpus = e->acceleratorName.isEmpty()
                                     ? u"-"_s
                                     : u"%1 × %2"_s.arg(QString::number(e->acceleratorCount), e->acceleratorName);
            io.out << u"%1 %2 %3 %4 %5 %6 %7 %8"_s.arg(e->cloud, -9)
                          .arg(e->instanceType, -26)
                          .arg(gpus, -16)
                          .arg(e->region, -12)
                          .arg(price(e->price), -14)
                          .arg(price(e->spotPrice), -14)
                          .arg(e->dateText(), -11)
                          .arg(e->source)
                   << '\n';
        }
        io.out << "Prices as of each row's date, from the page named: check them before money depends on them.\n"
               << "A newer catalog in SkyPilot's columns goes in " << cost::userCatalogDir() << "/CLOUD.csv."
               << Qt::endl;
    }
};

} // namespace

std::unique_ptr<Command> makeRatesCommand()
{
    return std::make_unique<RatesCommand>();
}

} // namespace ferry::cli
