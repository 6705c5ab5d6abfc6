// Line diffs by Myers' linear-space algorithm, written as unified diffs, with a bound on how many
// changed lines are worked out.
#pragma once

// A line diff written as a unified diff: hunks of changed lines with `context` lines around them,
// as `diff -u` and `git diff` print them. Myers' O(ND) algorithm in its linear-space form (the
// middle snake, divide and conquer, as GNU diff does it): memory grows with the lines, time with
// the lines times the changes, and past kMostChangedLines changes it stops ("too large to show").
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry {

struct DiffLine {
    enum Kind { Same, Removed, Added } kind = Same;
    QString text;
};

// Lines removed plus lines added past which a diff is not worked out: its time grows with their
// square (20,000: about a second), and no person reads such a diff.
inline constexpr qsizetype kMostChangedLines = 20000;

// The shortest edit from `a` to `b`, line by line, in order; nullopt when it changes more than
// `mostChanged` lines.
std::optional<QList<DiffLine>> diffLines(const QStringList &a, const QStringList &b,
                                         qsizetype mostChanged = kMostChangedLines);

// "--- NAME_A\n+++ NAME_B\n@@ -l,n +l,n @@\n-old\n+new\n..."; empty when they are the same;
// nullopt when it would change more than kMostChangedLines lines (diffLines).
std::optional<QString> unifiedDiff(const QStringList &a, const QStringList &b, const QString &nameA,
                                   const QString &nameB, int context = 3);

} // namespace ferry
