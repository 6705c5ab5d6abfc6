// RunQuery: parses and evaluates the query language that finds runs by parameters, metrics, tags
// and fields.
#pragma once

// A query that finds runs: `hp.lr < 0.01 and metrics.val_loss.last < 0.3 and tag = baseline`
// (`ferry runs list --where`, the runs view's filter). The grammar and what each field means are
// in docs/run-queries.md; parse() says where a text breaks it (the column, 1-based).
#include "common/error.h"
#include "store/runstore.h"

#include <QList>
#include <QString>

#include <memory>
#include <optional>

namespace ferry::run {

namespace query {

// The text as a number, when it is one ("1e-3", " 12 "): how a parameter's value compares in a
// query, sorts in a group and counts in parameter importance.
inline std::optional<double> numberOf(const QString &text)
{
    bool ok = false;
    const double value = text.trimmed().toDouble(&ok);
    return ok ? std::optional<double>(value) : std::nullopt;
}

} // namespace query

class RunQuery {
public:
    RunQuery(); // the empty query: every run matches

    // The query a text says; empty (or blank) text: every run. An error names the column
    // (Error::column, 1-based, the text's length + 1 at its end) and what was expected there.
    static Expected<RunQuery> parse(const QString &text);
    // "column 14: expected a value after '<'": a parse error as the command line and the runs
    // view say it.
    static QString errorText(const Error &error);

    bool isEmpty() const { return !m_root; }
    QString text() const { return m_text; }

    // The runs of `runs` that match, in their order. Blocking: reads the store (one read per
    // parameter and per metric the query names, for all runs at once; a metric's best, min or
    // max reads that run's points, only for the runs that get that far).
    QList<RunRecord> filter(const RunStore &store, const QList<RunRecord> &runs) const;

    struct Node;

private:
    QString m_text;
    std::shared_ptr<const Node> m_root;
};

} // namespace ferry::run
