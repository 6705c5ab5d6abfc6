// Fuzz target for the run query's parser (docs/run-queries.md: `ferry runs list --where`, the runs
// view's filter box). Beyond not crashing (a query nested far enough once overflowed the stack): a
// refused query names a column inside its text or just after its end, and an accepted one keeps
// its text.
#include "tracking/runquery.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using ferry::run::RunQuery;
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const auto parsed = RunQuery::parse(text);
    if (!parsed) {
        const int column = parsed.error().column;
        if (column < 1 || column > text.size() + 1 || parsed.error().message.isEmpty()) {
            std::fprintf(stderr, "refused at column %d of a text of %lld: %s\n", column,
                         static_cast<long long>(text.size()), qPrintable(parsed.error().message));
            std::abort();
        }
    } else if (parsed->text() != text.trimmed() || parsed->isEmpty() != text.trimmed().isEmpty()) {
        std::abort();
    }
    return 0;
}
