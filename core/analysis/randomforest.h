// A small deterministic random forest regressor: bootstrap samples, a random subset of features
// tried at each split, splits that reduce the variance most, and each feature's importance.
#pragma once

// What parameter importance (analysis/importance.h) fits: trees grown as Breiman's random forest
// grows them for regression (scikit-learn's RandomForestRegressor), from a seed, so the same
// samples give the same forest and the same importances everywhere. Small data (runs, not rows of
// a dataset): every split position is tried.
#include <QtGlobal>

#include <span>
#include <vector>

namespace ferry::run {

struct ForestOptions {
    int trees = 100;
    // Features drawn at random and tried at each split; 0: every feature (scikit-learn's default
    // for regression, max_features=1.0). A subset (⌈√features⌉ is the usual one for
    // classification) decorrelates the trees but forces splits on whichever features were drawn:
    // a parameter of pure noise then takes the variance such a split happens to remove, 0.15 of
    // the importance where every feature gives 0.01 (60 runs whose metric depends on lr alone,
    // tests/analysis/tst_importance.cpp), so importance tries every feature.
    int featuresPerSplit = 0;
    int minLeaf = 1; // the fewest samples a leaf holds
    int maxDepth = 64;
    quint64 seed = 0x5eed;
};

class RandomForest {
public:
    // `x`: `samples` rows of `features` values each (row-major; finite); `y`: one target per row
    // (finite). Each tree: a bootstrap sample of the rows (as many, drawn with replacement), then
    // nodes split until a node is pure, smaller than 2 × minLeaf, or maxDepth deep. A node tries
    // the features in a random order (the first `featuresPerSplit` of them; more only when none
    // of those can split it) and takes the split, between two distinct values of one feature,
    // that most reduces the sum of squared deviations from the node's mean (of equal ones, the
    // first tried).
    static RandomForest fit(std::span<const double> x, qsizetype features, std::span<const double> y,
                            const ForestOptions &options = {});

    // The mean of the trees' leaves a row falls in (a value <= a split's threshold goes left).
    double predict(std::span<const double> row) const;

    // Each feature's importance: the reduction of squared deviations its splits bring (impurity,
    // "mean decrease in impurity"), normalised to 1 in each tree, averaged over the trees and
    // normalised to 1 again, as scikit-learn's feature_importances_. All 0 when y is constant.
    const std::vector<double> &importance() const { return m_importance; }
    qsizetype features() const { return m_features; }

    struct Node {
        int feature = -1; // -1: a leaf
        double threshold = 0;
        int left = -1, right = -1;
        double value = 0; // a leaf's mean
    };

private:
    qsizetype m_features = 0;
    std::vector<std::vector<Node>> m_trees;
    std::vector<double> m_importance;
};

// Pearson's correlation of two equally long samples; NaN when fewer than two, or when either does
// not vary.
double pearson(std::span<const double> a, std::span<const double> b);

} // namespace ferry::run
