// PlotAxis: one axis of a plot over runs or trials, and where a value lies on it.
#pragma once

// An axis of the plots that draw one value per run or per trial (the analysis tab's scatter and
// parallel coordinates, the sweep view's plots): numeric, linear or log10, from lo to hi, or a
// list of categories, each in a band of its own. A position is in [0, 1], from the bottom (or the
// left) of the axis.
#include "analysis/runvalues.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace ferry::ui {

struct PlotAxis {
    QString name;
    bool log = false;
    double lo = 0, hi = 1;   // the numeric range (log10 of it on a log axis)
    QStringList categories;  // a categorical axis: its values, in order; empty: numeric
    bool emphasised = false; // drawn bold: the objective, the metric the lines are coloured by
    // A numeric axis of a few whole numbers (a batch size: 32, 64, 128): its ticks are those
    // values, not 1-2-5 steps between them. Empty: 1-2-5 steps.
    std::vector<double> marks;

    // A value's place on the axis, in [0, 1]; nullopt when it has none (not a number, not listed,
    // not above 0 on a log axis; a number on a categorical axis). Every value of a numeric axis
    // with lo == hi lies in the middle.
    std::optional<double> position(const QString &value) const;
    std::optional<double> position(double value) const;
    std::optional<double> position(const run::RunValue &value) const;
    // The value at a place (numeric axes), for labels.
    double valueAt(double t) const;
    // The name, with "(log)" on a log axis.
    QString title() const;

    struct Tick {
        double at = 0; // a position
        QString label;
    };
    // Ticks a plot draws along the axis: about `most` 1-2-5 steps (decades on a log axis), or
    // each category; with `ends` only, the two ends (a small plot's).
    std::vector<Tick> ticks(int most, bool ends = false) const;

    // The axis that spans these values: numeric from the least to the greatest when every value
    // is a number (log when asked and every one is above 0, else linear; marked at its values when
    // they are at most kMostMarks whole numbers), else the values' texts as categories in text
    // order (numbers among them by value first).
    static PlotAxis fit(const QString &name, const QList<run::RunValue> &values, bool log = false);
    // Whether fit() may draw them on a log axis: numbers, every one above 0.
    static bool canBeLog(const QList<run::RunValue> &values);
    static constexpr int kMostMarks = 8;
};

} // namespace ferry::ui
