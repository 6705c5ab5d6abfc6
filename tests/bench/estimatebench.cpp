// The duration estimate (cost/estimate.h) on a real workspace's history (estimate.sh): each run
// estimated as of its own start from the others (leave-one-out: the runs nearest to it in time
// weigh most, as the most recent do at a launch), against the last run's duration, and each run
// from those before it alone (what the estimate said at its launch).
#include "cost/estimate.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QTextStream>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace Qt::StringLiterals;

namespace {

struct Errors {
    std::vector<double> ferry, last, proportionalLast;
    int covered = 0; // actual durations inside the estimate's [low, high]
    int estimated = 0;
};

double quantile(std::vector<double> values, double q)
{
    if (values.empty())
        return std::nan("");
    std::sort(values.begin(), values.end());
    const double at = q * double(values.size() - 1);
    const size_t below = size_t(std::floor(at));
    const size_t above = std::min(values.size() - 1, below + 1);
    return values[below] + (values[above] - values[below]) * (at - double(below));
}

double seconds(const ferry::run::RunRecord &r)
{
    return double(r.finishedMs - r.startedMs) / 1000.0;
}

double epochsOf(const ferry::run::RunRecord &r)
{
    const auto spec = ferry::run::RunSpec::fromJson(r.spec);
    for (const ferry::run::Hyperparameter &h : spec->hyperparameters) {
        if (h.name == u"epochs"_s)
            return h.value.toDouble();
    }
    return 1;
}

// `runs` oldest first. Leave-one-out (`prefix` false): each from all the others; else from those
// that started before it.
Errors evaluate(const QList<ferry::run::RunRecord> &runs, bool prefix)
{
    Errors errors;
    for (qsizetype j = 1; j < runs.size(); ++j) {
        const ferry::run::RunRecord &run = runs[j];
        QList<ferry::run::RunRecord> history = prefix ? runs.mid(0, j) : runs;
        if (!prefix)
            history.removeAt(j);
        const auto planned = ferry::run::RunSpec::fromJson(run.spec);
        const ferry::cost::DurationEstimate e = ferry::cost::estimateDuration(*planned, history, run.startedMs);
        if (!e.hasHistory())
            continue;
        const double actual = seconds(run);
        const ferry::run::RunRecord &previous = runs[j - 1]; // the last run before it
        ++errors.estimated;
        errors.covered += actual >= e.lowSeconds && actual <= e.highSeconds;
        errors.ferry.push_back(std::fabs(e.typicalSeconds - actual) / actual);
        errors.last.push_back(std::fabs(seconds(previous) - actual) / actual);
        const double scaled = seconds(previous) * epochsOf(run) / epochsOf(previous);
        errors.proportionalLast.push_back(std::fabs(scaled - actual) / actual);
    }
    return errors;
}

void report(QTextStream &out, const QString &what, const QList<ferry::run::RunRecord> &runs)
{
    out << "\n" << what << ": " << runs.size() << " runs";
    if (runs.size() < 3) {
        out << ": too few to measure\n";
        return;
    }
    std::vector<double> durations;
    for (const auto &r : runs)
        durations.push_back(seconds(r));
    out << " of " << quantile(durations, 0) << " to " << quantile(durations, 1) << " s\n";
    for (const bool prefix : {false, true}) {
        const Errors e = evaluate(runs, prefix);
        const double ferry = quantile(e.ferry, 0.5), last = quantile(e.last, 0.5);
        out << (prefix ? "  from the runs before each (at its launch)" : "  leave-one-out (each from all the others)")
            << ", " << e.estimated << " estimated:\n"
            << "    median relative error: Ferry " << QString::number(100 * ferry, 'f', 1) << " %, last run's duration "
            << QString::number(100 * last, 'f', 1) << " % (ratio " << QString::number(ferry / last, 'f', 2)
            << "), last run's scaled by epochs " << QString::number(100 * quantile(e.proportionalLast, 0.5), 'f', 1)
            << " %\n"
            << "    90th percentile: Ferry " << QString::number(100 * quantile(e.ferry, 0.9), 'f', 1)
            << " %, last run's " << QString::number(100 * quantile(e.last, 0.9), 'f', 1)
            << " %; actual inside [low, high]: " << e.covered << " of " << e.estimated << "\n";
    }
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    const bool dump = argc == 3 && QByteArrayView(argv[2]) == "--dump";
    if (argc != 2 && !dump) {
        QTextStream(stderr) << "usage: ferry_estimatebench WORKSPACE [--dump]\n";
        return 2;
    }
    auto store = ferry::run::RunStore::open(ferry::run::RunStore::pathInWorkspace(QString::fromLocal8Bit(argv[1])));
    if (!store) {
        QTextStream(stderr) << store.error().toString() << "\n";
        return 1;
    }
    QList<ferry::run::RunRecord> embedded, trials;
    for (const ferry::run::RunRecord &r : (*store)->runs()) {
        if (r.status != ferry::run::RunStatus::Succeeded)
            continue;
        if (r.target == u"embedded"_s)
            embedded << r;
        else if (const auto spec = ferry::run::RunSpec::fromJson(r.spec); spec && !spec->sweep.isEmpty())
            trials << r;
    }
    const auto byStart = [](const ferry::run::RunRecord &a, const ferry::run::RunRecord &b) {
        return a.startedMs < b.startedMs;
    };
    std::sort(embedded.begin(), embedded.end(), byStart);
    std::sort(trials.begin(), trials.end(), byStart);
    if (dump) { // the runs as measured: what, when it started (ms), its epochs, its seconds
        for (const auto *group : {&embedded, &trials}) {
            for (const ferry::run::RunRecord &r : *group)
                out << (group == &embedded ? "embedded" : "trial") << ',' << r.startedMs << ',' << epochsOf(r) << ','
                    << seconds(r) << '\n';
        }
        return 0;
    }
    report(out, u"the embedded trainer's runs (target embedded: the training alone)"_s, embedded);
    report(out, u"the sweep's trials (target local: a Python script starting `ferry train`)"_s, trials);
    return 0;
}
