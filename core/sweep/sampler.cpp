#include "sweep/sampler.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <numeric>

using namespace Qt::StringLiterals;

namespace ferry::sweep {

std::uint64_t Random::next()
{
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double Random::uniform()
{
    return double(next() >> 11) * 0x1.0p-53;
}

double Random::uniform(double low, double high)
{
    return low + (high - low) * uniform();
}

double Random::normal()
{
    // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
    const double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * v);
}

std::size_t Random::below(std::size_t n)
{
    return n == 0 ? 0 : std::size_t(uniform() * double(n)) % n;
}

std::uint64_t trialSeed(std::uint64_t seed, int number)
{
    Random mix(seed ^ (0xd1b54a32d192ed03ULL * (std::uint64_t(number) + 1)));
    return mix.next();
}

namespace {

bool isInteger(Distribution d)
{
    return d == Distribution::IntUniform || d == Distribution::LogIntUniform;
}

bool isLog(Distribution d)
{
    return d == Distribution::LogUniform || d == Distribution::LogIntUniform;
}

QString shortest(double v)
{
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    return ec == std::errc() ? QString::fromLatin1(buffer, end - buffer) : QString::number(v, 'g', 17);
}

// A drawn value to 6 significant digits: what the script receives and the trial table shows
// (0.00756919, not 0.007569192138731375); finer than any search tells apart.
double significant(double v)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.6g", v);
    return std::strtod(buffer, nullptr);
}

double normalCdf(double z)
{
    return 0.5 * std::erfc(-z / std::numbers::sqrt2);
}

// Optuna's default weights: equal for the last 25 trials, a ramp from 1/n for the older ones.
std::vector<double> recencyWeights(std::size_t n)
{
    std::vector<double> w(n, 1.0);
    if (n <= 25)
        return w;
    const std::size_t ramp = n - 25;
    for (std::size_t i = 0; i < ramp; ++i)
        w[i] = ramp == 1 ? 1.0 / double(n) : 1.0 / double(n) + (1.0 - 1.0 / double(n)) * double(i) / double(ramp - 1);
    return w;
}

// A Parzen estimator of one numerical coordinate: a mixture of normals truncated to [low, high],
// one at each observation and a prior at the middle (hyperopt's and Optuna's rule for their
// widths: the larger distance to a neighbour, clipped to [range / min(100, 1 + n), range]).
class Parzen {
public:
    Parzen(const std::vector<double> &xs, const std::vector<double> &weights, double low, double high)
        : m_low(low), m_high(high)
    {
        const double range = high - low;
        std::vector<std::size_t> order(xs.size() + 1);
        std::iota(order.begin(), order.end(), 0);
        m_mus = xs;
        m_mus.push_back(0.5 * (low + high));
        m_weights = weights;
        m_weights.push_back(1.0); // the prior's
        std::sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) { return m_mus[a] < m_mus[b]; });
        m_sigmas.assign(m_mus.size(), range);
        const std::size_t n = order.size();
        for (std::size_t k = 0; k < n; ++k) {
            const double mu = m_mus[order[k]];
            const double left = k > 0 ? mu - m_mus[order[k - 1]] : 0;
            const double right = k + 1 < n ? m_mus[order[k + 1]] - mu : 0;
            m_sigmas[order[k]] = std::max(left, right);
        }
        m_sigmas.back() = range; // the prior is as wide as the range
        const double minSigma = range / std::min(100.0, 1.0 + double(n));
        for (double &s : m_sigmas)
            s = std::clamp(s, minSigma, range);
        const double total = std::accumulate(m_weights.begin(), m_weights.end(), 0.0);
        for (double &w : m_weights)
            w /= total;
        for (std::size_t k = 0; k < m_mus.size(); ++k) {
            const double mass = normalCdf((high - m_mus[k]) / m_sigmas[k]) - normalCdf((low - m_mus[k]) / m_sigmas[k]);
            m_logMass.push_back(std::log(std::max(mass, 1e-300)));
        }
    }

    double sample(Random &random) const
    {
        const double u = random.uniform();
        std::size_t k = 0;
        for (double acc = m_weights[0]; k + 1 < m_weights.size() && u >= acc; acc += m_weights[++k]) {
        }
        for (int attempt = 0; attempt < 100; ++attempt) {
            const double x = m_mus[k] + m_sigmas[k] * random.normal();
            if (x >= m_low && x <= m_high)
                return x;
        }
        return std::clamp(m_mus[k], m_low, m_high);
    }

    // The score's density: each kernel counted by its weight times its width (no 1/sigma), so a
    // narrow kernel's peak does not decide alone; the ratio l / g of these picked better trials
    // than the normalised densities on every benchmark objective (docs/sweep-format.md), and it is
    // what Optuna 3.1's own truncated normal computes.
    double logScore(double x) const
    {
        double best = -std::numeric_limits<double>::infinity();
        std::vector<double> &terms = m_terms;
        terms.resize(m_mus.size());
        for (std::size_t k = 0; k < m_mus.size(); ++k) {
            const double z = (x - m_mus[k]) / m_sigmas[k];
            terms[k] = std::log(m_weights[k]) - 0.5 * z * z - m_logMass[k];
            best = std::max(best, terms[k]);
        }
        double sum = 0;
        for (double t : terms)
            sum += std::exp(t - best);
        return best + std::log(sum);
    }

private:
    double m_low, m_high;
    std::vector<double> m_mus, m_sigmas, m_weights, m_logMass;
    mutable std::vector<double> m_terms;
};

// The same for a list of values: each value's weight, the prior spread evenly over them.
std::vector<double> categoryProbabilities(const std::vector<double> &indexes, const std::vector<double> &weights,
                                          std::size_t count)
{
    std::vector<double> p(count, 1.0 / double(count)); // the prior: weight 1 in all
    for (std::size_t i = 0; i < indexes.size(); ++i)
        p[std::size_t(indexes[i])] += weights[i];
    const double total = std::accumulate(p.begin(), p.end(), 0.0);
    for (double &v : p)
        v /= total;
    return p;
}

} // namespace

Sampler::Sampler(SweepSpec spec) : m_spec(std::move(spec)) {}

double Sampler::low(int parameter) const
{
    const Parameter &p = m_spec.parameters[parameter];
    if (p.distribution == Distribution::Values)
        return 0;
    const double min = isInteger(p.distribution) ? p.min - 0.5 : p.min;
    return isLog(p.distribution) ? std::log(min) : min;
}

double Sampler::high(int parameter) const
{
    const Parameter &p = m_spec.parameters[parameter];
    if (p.distribution == Distribution::Values)
        return double(p.values.size() - 1);
    const double max = isInteger(p.distribution) ? p.max + 0.5 : p.max;
    return isLog(p.distribution) ? std::log(max) : max;
}

double Sampler::snapped(int parameter, double c) const
{
    const Parameter &p = m_spec.parameters[parameter];
    switch (p.distribution) {
    case Distribution::Values:
        return std::clamp(std::round(c), 0.0, double(p.values.size() - 1));
    case Distribution::IntUniform:
        return std::clamp(std::round(c), p.min, p.max);
    case Distribution::LogIntUniform:
        return std::log(std::clamp(std::round(std::exp(c)), p.min, p.max));
    case Distribution::Uniform:
        return std::clamp(significant(c), p.min, p.max);
    case Distribution::LogUniform:
        return std::log(std::clamp(significant(std::exp(c)), p.min, p.max));
    }
    return c;
}

double Sampler::uniformCoordinate(int parameter, Random &random) const
{
    const Parameter &p = m_spec.parameters[parameter];
    if (p.distribution == Distribution::Values)
        return double(random.below(std::size_t(p.values.size())));
    return snapped(parameter, random.uniform(low(parameter), high(parameter)));
}

Point Sampler::randomPoint(Random &random) const
{
    Point point;
    for (int i = 0; i < m_spec.parameters.size(); ++i)
        point.push_back(uniformCoordinate(i, random));
    return point;
}

std::optional<Point> Sampler::gridPoint(int number) const
{
    if (number < 0 || number >= m_spec.gridSize())
        return std::nullopt;
    // The last parameter changes fastest, as nested loops in the file's order would.
    Point point(std::size_t(m_spec.parameters.size()));
    qint64 rest = number;
    for (qsizetype i = m_spec.parameters.size() - 1; i >= 0; --i) {
        const qint64 n = m_spec.parameters[i].values.size();
        point[std::size_t(i)] = double(rest % n);
        rest /= n;
    }
    return point;
}

Point Sampler::tpePoint(Random &random, const std::vector<Observation> &finished) const
{
    std::vector<const Observation *> scored;
    for (const Observation &o : finished) {
        if (!std::isnan(o.objective) && o.point.size() == std::size_t(m_spec.parameters.size()))
            scored.push_back(&o);
    }
    if (scored.size() < std::size_t(kStartupTrials))
        return randomPoint(random);
    // The best gamma(n) = min(ceil(n / 10), 25) trials against the others, each in trial order.
    const std::size_t n = scored.size();
    const std::size_t good = std::min<std::size_t>((n + 9) / 10, 25);
    std::vector<std::size_t> byObjective(n);
    std::iota(byObjective.begin(), byObjective.end(), 0);
    std::stable_sort(byObjective.begin(), byObjective.end(),
                     [&](std::size_t a, std::size_t b) { return scored[a]->objective < scored[b]->objective; });
    std::vector<bool> isGood(n, false);
    for (std::size_t k = 0; k < good; ++k)
        isGood[byObjective[k]] = true;
    std::vector<std::size_t> below, above;
    for (std::size_t i = 0; i < n; ++i)
        (isGood[i] ? below : above).push_back(i);
    const std::vector<double> belowWeights = recencyWeights(below.size()), aboveWeights = recencyWeights(above.size());

    Point point;
    for (int p = 0; p < m_spec.parameters.size(); ++p) {
        std::vector<double> bx, ax;
        for (std::size_t i : below)
            bx.push_back(scored[i]->point[std::size_t(p)]);
        for (std::size_t i : above)
            ax.push_back(scored[i]->point[std::size_t(p)]);
        const Parameter &param = m_spec.parameters[p];
        double best = 0, bestScore = -std::numeric_limits<double>::infinity();
        if (param.distribution == Distribution::Values) {
            const std::size_t count = std::size_t(param.values.size());
            const std::vector<double> l = categoryProbabilities(bx, belowWeights, count);
            const std::vector<double> g = categoryProbabilities(ax, aboveWeights, count);
            for (int c = 0; c < kCandidates; ++c) {
                const double u = random.uniform();
                std::size_t k = 0;
                for (double acc = l[0]; k + 1 < count && u >= acc; acc += l[++k]) {
                }
                const double score = std::log(l[k]) - std::log(g[k]);
                if (score > bestScore) {
                    bestScore = score;
                    best = double(k);
                }
            }
        } else {
            const Parzen l(bx, belowWeights, low(p), high(p)), g(ax, aboveWeights, low(p), high(p));
            for (int c = 0; c < kCandidates; ++c) {
                const double x = snapped(p, l.sample(random));
                const double score = l.logScore(x) - g.logScore(x);
                if (score > bestScore) {
                    bestScore = score;
                    best = x;
                }
            }
        }
        point.push_back(best);
    }
    return point;
}

std::optional<Point> Sampler::sample(int number, const std::vector<Observation> &finished) const
{
    if (m_spec.parameters.isEmpty())
        return std::nullopt;
    if (m_spec.method == Method::Grid)
        return gridPoint(number);
    Random random(trialSeed(m_spec.seed, number));
    if (m_spec.method == Method::Bayes)
        return tpePoint(random, finished);
    return randomPoint(random);
}

QList<run::Hyperparameter> Sampler::hyperparameters(const Point &point) const
{
    QList<run::Hyperparameter> result;
    for (int i = 0; i < m_spec.parameters.size() && std::size_t(i) < point.size(); ++i) {
        const Parameter &p = m_spec.parameters[i];
        const double c = point[std::size_t(i)];
        QString text;
        switch (p.distribution) {
        case Distribution::Values:
            text = p.values.value(qsizetype(c));
            break;
        case Distribution::IntUniform:
            text = QString::number(qint64(c));
            break;
        case Distribution::LogIntUniform:
            text = QString::number(qint64(std::llround(std::exp(c))));
            break;
        case Distribution::Uniform:
            text = shortest(c);
            break;
        case Distribution::LogUniform:
            text = shortest(significant(std::exp(c)));
            break;
        }
        result.append({p.name, text});
    }
    return result;
}

std::optional<double> Sampler::coordinate(int parameter, const QString &text) const
{
    if (parameter < 0 || parameter >= m_spec.parameters.size())
        return std::nullopt;
    const Parameter &p = m_spec.parameters[parameter];
    if (p.distribution == Distribution::Values) {
        const qsizetype index = p.values.indexOf(text);
        return index < 0 ? std::nullopt : std::optional<double>(double(index));
    }
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok || !(v >= p.min && v <= p.max))
        return std::nullopt;
    return isLog(p.distribution) ? std::log(v) : v;
}

double Sampler::minimized(double objective) const
{
    return m_spec.goal == Goal::Maximize ? -objective : objective;
}

} // namespace ferry::sweep
