// Fills the compare view's tables (parameters, where each run stood, metrics, differences) from a
// Comparison.
#pragma once

// The compare view's tables, filled from a Comparison: one column per run (the baseline first)
// for parameters, where each run stood (target, snapshot, git) and metrics; per pair (the
// baseline against each other run) the environments' changes and whatever else RunDiff found
// different (its `other` list, shown as it comes, so a new kind of difference needs no code here).
#include "ui/compare/comparison.h"

class QTableWidget;
class QTreeWidget;

namespace ferry::ui {

// Run `run`'s column title: its name (Comparison::names) over its id.
QString comparedRunLabel(const Comparison &comparison, int run);

// Rows of parameters: the differing ones, or every one (`all`); a value unlike the baseline's
// is marked.
void fillParameterTable(QTableWidget *table, const Comparison &comparison, bool all);
// Per run: status, script, target, environment, snapshot, git commit, branch, uncommitted
// changes, the run it reproduces.
void fillSetupTable(QTableWidget *table, const Comparison &comparison);
// The fields of the setup table in which run `run` (1: the first after the baseline) differs
// from the baseline, in lower case ("status", "snapshot").
QStringList setupDifferences(const Comparison &comparison, int run);
// Per pair: a line naming everything that differs (parameters, code, environment, the setup
// table's fields, the rows below), then RunDiff's `other` rows (field, "A → B"), the hosts' facts
// and the data that differ; "nothing differs" only when nothing does.
void fillOtherDifferences(QTreeWidget *tree, const Comparison &comparison);
// Per pair: the environments' changes, as the environment editor's versions view shows them.
void fillEnvironmentTree(QTreeWidget *tree, const Comparison &comparison);
// For each metric three rows (last, best, at `step`), one column per run, then one per run after
// the baseline with its difference from the baseline (coloured by whether it is better).
void fillMetricTable(QTableWidget *table, const Comparison &comparison, double step);

} // namespace ferry::ui
