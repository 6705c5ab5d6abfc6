// The pieces of text a metric record is made of, read in place for the metric parser.
#pragma once

// The pieces of text a metric record is made of, read in place (internal to the metric parser,
// metrics/metricparser.cpp): numbers, Python dict reprs, tqdm postfixes, counters and fractions.

#include <QList>
#include <QStringView>

#include <array>
#include <utility>

namespace ferry::run::metricsyntax {

// A plain decimal number (ASCII, no nan/inf) converted without going through QString; false
// when it is anything else, or out of range: the caller then takes the general path.
bool plainNumber(QStringView text, double &value);

// A number at `pos` (strtod's syntax, plus nan/inf) that ends its token (a space, a separator, a
// bracket, a quote or '/' follows); its length, or 0.
qsizetype numberAt(QStringView s, qsizetype pos, double &value);

// Where the Python dict a line ends with starts ("{'loss': 0.3}", also after a progress bar),
// or -1. `s` is trimmed.
qsizetype pythonDictStart(QStringView s);

// The numeric fields of a flat Python dict repr, in its order: `{'loss': 0.31, 'lr': 5e-05,
// 'eval_loss': '2.897', 'x': nan}`: bare and quoted numbers, nan and inf; strings, True, False
// and None are no metrics. False (and `fields` as it was) when `s` is no such dict.
bool pythonDict(QStringView s, QList<std::pair<QStringView, double>> &fields);

// What marks a tqdm bar, in text or in bytes (ASCII): "45%|███▌ |", or a rate in its bracket
// ("[00:01, 30.1it/s]", "[00:01, 7.03s/it, loss=0.3]").
inline constexpr std::array<const char *, 5> kTqdmBarMarkers{"%|", "it/s]", "s/it]", "it/s,", "s/it,"};

// Whether `s` holds a tqdm bar (one of kTqdmBarMarkers).
bool tqdmBar(QStringView s);

// The postfix of a tqdm bar ("Epoch 0: 45%|███▌ | 45/100 [00:01<00:01, 30.12it/s, v_num=0,
// loss=0.31]" → "v_num=0, loss=0.31"); empty when `s` is no tqdm bar or has none.
QStringView tqdmPostfix(QStringView s);

// After a number at `end`: "/10000 (98%)" makes it a fraction (the value divided by 10000, its
// length returned in `length`); "/500" without a percentage a counter. 0: neither.
enum class Ratio { None, Fraction, Counter };
Ratio ratioAfter(QStringView s, qsizetype end, double &denominator, qsizetype &length);

// Keys that are never metrics whatever their value: Lightning's version number (v_num) and
// progress estimates (eta).
bool neverMetric(QStringView key);

// Whether the text before a line's first key=value pair makes the line a banner, a setting
// printed once, rather than a record: "starting lr=0.01 seed=1", "Using device cuda, lr=0.001",
// "Hyperparameters: lr=0.01". It is when that text is words alone (letters, commas, a label's
// colon) and one of them is prose or the last is a settings label (config, args, params, ...).
// Words that qualify a quantity keep a record a record: a split ("train", "val", "test", "eval")
// or "final", "best", "average", "mean", "total" right before the key ("val loss=0.3", "final
// test_acc=0.98"; not "Total optimization steps = 200", where prose follows it); so do
// a step or an epoch on the line, and "key: value" pairs ("Test set: Average loss: 0.03"),
// which the caller does not ask about.
bool bannerPrefix(QStringView prefix);

} // namespace ferry::run::metricsyntax
