// Ferry's samplers on the objectives of sweepobjectives.h (tests/bench/sweepsampler.sh):
//   ferry_sweepsamplerbench TRIALS SEEDS
//   ferry_sweepsamplerbench propose SAMPLES [DIMENSIONS]   (see propose())
// prints "FUNCTION METHOD SEED BEST" lines, one sweep of TRIALS trials per line, and the time the
// sampler took per trial at the sweep's end (TPE's cost grows with the trials behind it).
#include "sweep/sampler.h"
#include "sweepobjectives.h"

#include <QElapsedTimer>

#include <cstdio>
#include <functional>
#include <string_view>

using namespace Qt::StringLiterals;
using namespace ferry::sweep;

namespace {

struct Objective {
    const char *name;
    QList<Parameter> space;
    std::function<double(const std::vector<double> &)> f; // of the values, not the coordinates
};

} // namespace

// propose SAMPLES [DIMENSIONS]: TPE's next point in [0, 1]^DIMENSIONS after the history on stdin
// (a line per trial: its coordinates, then its objective), SAMPLES times with different seeds,
// to compare its proposals with Optuna's for the same history.
int propose(int samples, int dimensions)
{
    std::vector<Observation> history;
    for (;;) {
        Point x(std::size_t(dimensions), 0.0);
        double y = 0;
        for (double &c : x) {
            if (std::scanf("%lf", &c) != 1)
                goto read;
        }
        if (std::scanf("%lf", &y) != 1)
            break;
        history.push_back({x, y});
    }
read:
    for (int s = 0; s < samples; ++s) {
        SweepSpec spec;
        spec.method = Method::Bayes;
        for (int d = 0; d < dimensions; ++d)
            spec.parameters << Parameter::range(u"x%1"_s.arg(d), Distribution::Uniform, 0, 1);
        spec.seed = quint64(s);
        const Point p = *Sampler(spec).sample(int(history.size()), history);
        for (double c : p)
            std::printf("%.6f ", c);
        std::printf("\n");
    }
    return 0;
}

int main(int argc, char *argv[])
{
    if (argc > 2 && std::string_view(argv[1]) == "propose")
        return propose(std::atoi(argv[2]), argc > 3 ? std::atoi(argv[3]) : 1);
    const int trials = argc > 1 ? std::atoi(argv[1]) : 50, seeds = argc > 2 ? std::atoi(argv[2]) : 20;
    QList<Parameter> unit;
    for (int i = 0; i < 6; ++i)
        unit << Parameter::range(u"x%1"_s.arg(i), Distribution::Uniform, 0, 1);
    const std::vector<Objective> objectives = {
        {"branin",
         {Parameter::range(u"x1"_s, Distribution::Uniform, -5, 10),
          Parameter::range(u"x2"_s, Distribution::Uniform, 0, 15)},
         [](const std::vector<double> &x) { return ferry::bench::branin(x[0], x[1]); }},
        {"log-lr",
         {Parameter::range(u"lr"_s, Distribution::LogUniform, 1e-6, 1)},
         [](const std::vector<double> &x) { return ferry::bench::ruggedLogQuadratic(x[0]); }},
        {"hartmann6", unit, [](const std::vector<double> &x) { return ferry::bench::hartmann6(x); }},
    };
    double lastTrialMs = 0;
    for (const Objective &o : objectives) {
        for (const Method method : {Method::Bayes, Method::Random}) {
            for (int seed = 0; seed < seeds; ++seed) {
                SweepSpec spec;
                spec.method = method;
                spec.parameters = o.space;
                spec.seed = quint64(seed);
                spec.maxTrials = trials;
                const Sampler sampler(spec);
                std::vector<Observation> done;
                double best = INFINITY;
                for (int n = 0; n < trials; ++n) {
                    QElapsedTimer t;
                    t.start();
                    const Point p = *sampler.sample(n, done);
                    if (n == trials - 1)
                        lastTrialMs = std::max(lastTrialMs, double(t.nsecsElapsed()) / 1e6);
                    std::vector<double> x;
                    for (const auto &h : sampler.hyperparameters(p))
                        x.push_back(h.value.toDouble()); // what the script would receive
                    const double y = o.f(x);
                    best = std::min(best, y);
                    done.push_back({p, y});
                }
                std::printf("%s %s %d %.6f\n", o.name, method == Method::Bayes ? "ferry-tpe" : "random", seed, best);
            }
        }
    }
    std::printf("sampling the last trial: at most %.2f ms\n", lastTrialMs);
    return 0;
}
