// A deterministic random forest regressor and its impurity-based feature importance.
#include "analysis/randomforest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace ferry::run {

namespace {

// SplitMix64: a small generator whose sequence is fixed by its seed on every platform (the
// standard library's distributions are not).
class SplitMix {
public:
    explicit SplitMix(quint64 seed) : m_state(seed) {}
    quint64 next()
    {
        quint64 z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }

private:
    quint64 m_state;
};

struct Split {
    int feature = -1;
    double threshold = 0;
    double gain = -1;
};

// Grows one tree on `rows` (indices into the samples, repeated by the bootstrap).
class TreeGrower {
public:
    TreeGrower(std::span<const double> x, qsizetype features, std::span<const double> y, const ForestOptions &options,
               SplitMix &random, std::vector<RandomForest::Node> &nodes, std::vector<double> &importance)
        : m_x(x), m_p(features), m_y(y), m_options(options), m_random(random), m_nodes(nodes), m_importance(importance)
    {
        m_tryFeatures =
            options.featuresPerSplit > 0 ? std::min<qsizetype>(options.featuresPerSplit, features) : features;
        m_order.resize(static_cast<std::size_t>(features));
    }

    int grow(std::vector<std::size_t> &rows, std::size_t lo, std::size_t hi, int depth)
    {
        const int index = static_cast<int>(m_nodes.size());
        m_nodes.emplace_back();
        const std::size_t n = hi - lo;
        double sum = 0;
        for (std::size_t i = lo; i < hi; ++i)
            sum += m_y[rows[i]];
        const double mean = sum / double(n);
        double sse = 0;
        for (std::size_t i = lo; i < hi; ++i)
            sse += (m_y[rows[i]] - mean) * (m_y[rows[i]] - mean);
        m_nodes[std::size_t(index)].value = mean;
        const auto minLeaf = static_cast<std::size_t>(std::max(1, m_options.minLeaf));
        if (n < 2 * minLeaf || depth >= m_options.maxDepth || !(sse > 0))
            return index;
        const Split split = bestSplit(rows, lo, hi, sse, minLeaf);
        if (split.feature < 0)
            return index;
        const auto middle = std::partition(rows.begin() + std::ptrdiff_t(lo), rows.begin() + std::ptrdiff_t(hi),
                                           [&](std::size_t r) { return value(r, split.feature) <= split.threshold; });
        const auto mid = static_cast<std::size_t>(middle - rows.begin());
        m_importance[std::size_t(split.feature)] += std::max(0.0, split.gain);
        const int left = grow(rows, lo, mid, depth + 1);
        const int right = grow(rows, mid, hi, depth + 1);
        RandomForest::Node &node = m_nodes[std::size_t(index)];
        node.feature = split.feature;
        node.threshold = split.threshold;
        node.left = left;
        node.right = right;
        return index;
    }

private:
    double value(std::size_t row, int feature) const { return m_x[row * std::size_t(m_p) + std::size_t(feature)]; }

    // The features in a random order: the first m_tryFeatures are tried, the rest only when none
    // of those can split the node.
    Split bestSplit(const std::vector<std::size_t> &rows, std::size_t lo, std::size_t hi, double sse,
                    std::size_t minLeaf)
    {
        std::iota(m_order.begin(), m_order.end(), 0);
        for (std::size_t i = m_order.size(); i > 1; --i)
            std::swap(m_order[i - 1], m_order[m_random.below(i)]);
        Split best;
        for (std::size_t k = 0; k < m_order.size(); ++k) {
            if (k >= std::size_t(m_tryFeatures) && best.feature >= 0)
                break;
            splitOn(m_order[k], rows, lo, hi, sse, minLeaf, best);
        }
        return best;
    }

    void splitOn(int feature, const std::vector<std::size_t> &rows, std::size_t lo, std::size_t hi, double sse,
                 std::size_t minLeaf, Split &best)
    {
        m_sorted.clear();
        for (std::size_t i = lo; i < hi; ++i)
            m_sorted.emplace_back(value(rows[i], feature), m_y[rows[i]]);
        std::sort(m_sorted.begin(), m_sorted.end());
        const std::size_t n = m_sorted.size();
        double total = 0, totalSquares = 0;
        for (const auto &[v, target] : m_sorted) {
            total += target;
            totalSquares += target * target;
        }
        double left = 0, leftSquares = 0;
        for (std::size_t i = 1; i < n; ++i) {
            left += m_sorted[i - 1].second;
            leftSquares += m_sorted[i - 1].second * m_sorted[i - 1].second;
            if (i < minLeaf || n - i < minLeaf || !(m_sorted[i - 1].first < m_sorted[i].first))
                continue;
            const double right = total - left, rightSquares = totalSquares - leftSquares;
            const double children =
                (leftSquares - left * left / double(i)) + (rightSquares - right * right / double(n - i));
            const double gain = sse - children;
            if (gain > best.gain) {
                const double a = m_sorted[i - 1].first, b = m_sorted[i].first;
                double threshold = a + (b - a) / 2;
                if (!(threshold < b)) // a and b adjacent doubles
                    threshold = a;
                best = Split{feature, threshold, gain};
            }
        }
    }

    std::span<const double> m_x;
    qsizetype m_p;
    std::span<const double> m_y;
    const ForestOptions &m_options;
    SplitMix &m_random;
    std::vector<RandomForest::Node> &m_nodes;
    std::vector<double> &m_importance;
    qsizetype m_tryFeatures = 1;
    std::vector<int> m_order;
    std::vector<std::pair<double, double>> m_sorted;
};

} // namespace

RandomForest RandomForest::fit(std::span<const double> x, qsizetype features, std::span<const double> y,
                               const ForestOptions &options)
{
    RandomForest forest;
    forest.m_features = features;
    forest.m_importance.assign(static_cast<std::size_t>(std::max<qsizetype>(features, 0)), 0.0);
    const std::size_t samples = y.size();
    if (features <= 0 || samples == 0 || x.size() < samples * std::size_t(features))
        return forest;
    // Centred, so the sums of squares of a split keep their digits.
    const double mean = std::accumulate(y.begin(), y.end(), 0.0) / double(samples);
    std::vector<double> centred(y.begin(), y.end());
    for (double &v : centred)
        v -= mean;
    std::vector<double> treeImportance(forest.m_importance.size());
    std::vector<std::size_t> rows(samples);
    for (int t = 0; t < options.trees; ++t) {
        SplitMix random(options.seed ^ (0x9e3779b97f4a7c15ULL * quint64(t + 1)));
        for (std::size_t i = 0; i < samples; ++i)
            rows[i] = random.below(samples);
        std::fill(treeImportance.begin(), treeImportance.end(), 0.0);
        std::vector<Node> nodes;
        TreeGrower grower(x, features, centred, options, random, nodes, treeImportance);
        grower.grow(rows, 0, samples, 0);
        for (Node &node : nodes)
            node.value += mean;
        forest.m_trees.push_back(std::move(nodes));
        const double sum = std::accumulate(treeImportance.begin(), treeImportance.end(), 0.0);
        if (sum > 0) {
            for (std::size_t f = 0; f < treeImportance.size(); ++f)
                forest.m_importance[f] += treeImportance[f] / sum;
        }
    }
    const double sum = std::accumulate(forest.m_importance.begin(), forest.m_importance.end(), 0.0);
    if (sum > 0) {
        for (double &v : forest.m_importance)
            v /= sum;
    }
    return forest;
}

double RandomForest::predict(std::span<const double> row) const
{
    if (m_trees.empty())
        return std::numeric_limits<double>::quiet_NaN();
    double sum = 0;
    for (const std::vector<Node> &nodes : m_trees) {
        const Node *node = &nodes.front();
        while (node->feature >= 0)
            node = &nodes[std::size_t(row[std::size_t(node->feature)] <= node->threshold ? node->left : node->right)];
        sum += node->value;
    }
    return sum / double(m_trees.size());
}

double pearson(std::span<const double> a, std::span<const double> b)
{
    const std::size_t n = std::min(a.size(), b.size());
    if (n < 2)
        return std::numeric_limits<double>::quiet_NaN();
    double ma = 0, mb = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ma += a[i];
        mb += b[i];
    }
    ma /= double(n);
    mb /= double(n);
    double sab = 0, saa = 0, sbb = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    if (!(saa > 0) || !(sbb > 0))
        return std::numeric_limits<double>::quiet_NaN();
    return std::clamp(sab / std::sqrt(saa * sbb), -1.0, 1.0);
}

} // namespace ferry::run
