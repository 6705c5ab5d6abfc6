// Edit distance and the "did you mean" lookup of the nearest name to a mistyped word.
#pragma once

#include <QString>
#include <QStringList>

namespace ferry {

// The number of single-character insertions, deletions and substitutions that turn `a` into `b`
// (Levenshtein).
int editDistance(const QString &a, const QString &b);

// The candidate nearest to `word` if it is a near miss (at most `maxDistance` edits: a typo such
// as "max_trails" for "max_trials"); the first of equally near ones; empty when none is near.
QString closestName(const QString &word, const QStringList &candidates, int maxDistance = 2);

} // namespace ferry
