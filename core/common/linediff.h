#pragma once

// A line diff (Myers' O(ND) algorithm) written as a unified diff: hunks of changed lines with
// `context` lines around them, as `diff -u` and `git diff` print them.
#include <QString>
#include <QStringList>

namespace ferry {

struct DiffLine {
    enum Kind { Same, Removed, Added } kind = Same;
    QString text;
};

// The shortest edit from `a` to `b`, line by line, in order.
QList<DiffLine> diffLines(const QStringList &a, const QStringList &b);

// "--- NAME_A\n+++ NAME_B\n@@ -l,n +l,n @@\n-old\n+new\n..."; empty when they are the same.
QString unifiedDiff(const QStringList &a, const QStringList &b, const QString &nameA, const QString &nameB,
                    int context = 3);

} // namespace ferry
