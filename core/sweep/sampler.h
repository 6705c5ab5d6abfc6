// Draws the trials' hyperparameters by grid, seeded random search or TPE, reproducibly on every
// platform.
#pragma once

// The trials' parameters: grid, seeded random search and TPE (docs/sweep-format.md).
#include "sweep/sweepfile.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ferry::sweep {

// A point of the search space: one coordinate per parameter, in the spec's order. A list of
// values: the value's index; log_uniform and log_int_uniform: the natural log of the value;
// uniform and int_uniform: the value. Integers are whole in their own scale.
using Point = std::vector<double>;

// A finished trial, its objective made one to minimise (Sampler::minimized); NaN when it gave
// none (failed, or never wrote the metric): it only counts as tried.
struct Observation {
    Point point;
    double objective = 0;
};

// A small, fast, seedable generator (SplitMix64) whose draws are the same on every platform and
// compiler, unlike the standard distributions: the same file and seed give the same trials.
class Random {
public:
    explicit Random(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next();
    double uniform();                        // [0, 1)
    double uniform(double low, double high); // [low, high)
    double normal();                         // mean 0, deviation 1
    std::size_t below(std::size_t n);        // [0, n)

private:
    std::uint64_t m_state;
};

class Sampler {
public:
    explicit Sampler(SweepSpec spec);

    // The parameters of trial `number` (0-based). Grid and random depend on the number alone
    // (so a resumed sweep plans what it planned before); TPE also on the finished trials, in
    // trial order. nullopt past the grid's end.
    std::optional<Point> sample(int number, const std::vector<Observation> &finished) const;

    // As the script receives them: --name value, in the spec's order.
    QList<run::Hyperparameter> hyperparameters(const Point &point) const;
    // The point's coordinate for one parameter's value as the script received it (a trial read
    // back from its run); nullopt when the text is no value of it.
    std::optional<double> coordinate(int parameter, const QString &text) const;
    // The objective as the sampler minimises it: the goal's sign applied.
    double minimized(double objective) const;

    // Each parameter's coordinate range: [low, high] (for values: [0, count - 1]).
    double low(int parameter) const;
    double high(int parameter) const;
    // A coordinate drawn uniformly: what random search and TPE's first trials use.
    double uniformCoordinate(int parameter, Random &random) const;

    const SweepSpec &spec() const { return m_spec; }

    // TPE's settings (Optuna's defaults): the first trials are random, then each parameter is
    // drawn from the Parzen estimator of the best gamma(n) trials, the candidate with the best
    // ratio l(x) / g(x) against the others' estimator taken.
    static constexpr int kStartupTrials = 10;
    static constexpr int kCandidates = 24;

private:
    Point randomPoint(Random &random) const;
    std::optional<Point> gridPoint(int number) const;
    Point tpePoint(Random &random, const std::vector<Observation> &finished) const;
    double snapped(int parameter, double coordinate) const; // whole where the parameter is

    SweepSpec m_spec;
};

// The seed of trial `number`'s generator in a sweep seeded with `seed`.
std::uint64_t trialSeed(std::uint64_t seed, int number);

} // namespace ferry::sweep
