// Runs' metrics as curves over x, and their mean, median, spread and count at each x: what a group
// of runs draws and `ferry runs aggregate` prints.
#pragma once

// The one rule for a run's value between its points (linear, never beyond its first or last x, a
// non-finite point a hole) and the statistics of a group of runs at each x (docs/metrics.md,
// *Groups*). Pure functions on arrays: the chart's in-memory columns (CurveView, no copy) or a
// series read from the store (Curve). Every function here may run on any thread.
#include "common/largememory.h"
#include "metrics/metricparser.h"

#include <QtGlobal>

#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace ferry::run {

// A run's metric over x: `x` ascending (equal x allowed: the last of them is the run's value
// there), `y` the value, NaN or an infinity where the run had no number. Leading NaN x (points
// without a step: the store puts them first) are skipped; a NaN x anywhere else is not allowed.
struct CurveView {
    const double *x = nullptr;
    const double *y = nullptr;
    qsizetype size = 0;
};

// A curve that owns its points: x strictly ascending, the form `stepCurve` makes.
struct Curve {
    LargeVector<double> x, y;
    CurveView view() const { return {x.data(), y.data(), static_cast<qsizetype>(x.size())}; }
    qsizetype size() const { return static_cast<qsizetype>(x.size()); }
};

// A series' points (any order, as RunStore::series gives them) as a curve over its steps: points
// without a step dropped, ordered by step, of equal steps the last written kept. Values are kept as
// they are (a NaN stays, as a hole).
Curve stepCurve(const std::vector<SeriesPoint> &points);
// (x, y) pairs (any order) as a curve: ordered by x (stable), of equal x the last kept; pairs with a
// NaN x dropped.
Curve curveOf(std::span<const double> x, std::span<const double> y);

// The run's value at x, by the rule: outside [first x, last x]: none; at a point's x: its value;
// between two points: the straight line between them, y0 + (y1 - y0) * (x - x0) / (x1 - x0). A
// point whose value is not finite (NaN, an infinity) is a hole: no value there nor on the segments
// to its neighbours. O(log n).
std::optional<double> valueAt(CurveView curve, double x);

// What the runs of a group hold at one x: how many have a value there (n) and their mean, median,
// standard deviation (the population's, numpy.std's default ddof=0: 0 for one run), least and
// greatest. With n = 0 every statistic is NaN.
struct GroupStats {
    double x = 0;
    int n = 0;
    double mean = 0, median = 0, std = 0, min = 0, max = 0;
};

// What a group draws around its line: mean ± std, or min to max.
enum class Band { Std, MinMax };
double bandLow(const GroupStats &s, Band band);
double bandHigh(const GroupStats &s, Band band);

// The statistics of `values` (n of them, each finite) at x; reorders `values` (the median).
GroupStats statsOf(double x, std::span<double> values);

// Exact: the group's statistics at every x of the union of its curves' x (each x once, ascending),
// each curve's value taken by valueAt's rule, handed to `sink` in order. An x where every curve
// has a hole comes with n = 0. O(union × curves) time, O(curves) memory.
void aggregate(std::span<const CurveView> curves, const std::function<void(const GroupStats &)> &sink);
std::vector<GroupStats> aggregate(std::span<const CurveView> curves);

// A picture: the same statistics at the given x only (ascending), e.g. one per pixel column of a
// chart. Each is the exact rule evaluated there, so where an x is a step of the union it equals
// aggregate()'s point, and the mean lies on the straight line aggregate()'s points draw (a mean
// of straight lines is one). O(curves × xs) probes, a run on a regular grid found in one or two
// per x, whatever its length: 32 runs of a million points in 4 groups at 2,000 columns take 3 ms
// of CPU (tests/bench/groups.sh), against 2.5 s for every step of the union.
std::vector<GroupStats> aggregateAt(std::span<const CurveView> curves, std::span<const double> xs);
// The same with each curve's x counted from its own origin: curve k is read at xs[i] + origins[k]
// (a chart's time since each run's start, its points on the wall clock); the statistics' x is
// xs[i]. `origins` has one entry per curve.
std::vector<GroupStats> aggregateAt(std::span<const CurveView> curves, std::span<const double> xs,
                                    std::span<const double> origins);

// `columns` x values cutting [x0, x1] evenly, both ends included (columns >= 2; fewer gives x0
// alone): the grid a picture evaluates.
std::vector<double> evenGrid(double x0, double x1, int columns);

} // namespace ferry::run
