// Fuzz target for the notebook reader and the percent-format conversion (tests/fuzz/run.sh;
// replayed by fuzz_notebook_replay). The bytes are read as an .ipynb file and, independently, as
// the source of one code cell.
#include "notebook/conversion.h"
#include "notebook/pythonsource.h"

#include <cstddef>
#include <cstdint>

namespace {

// Logical lines cover every physical line of the source once, in order.
void checkLogicalLines(const QString &source)
{
    int next = 0;
    for (const auto &line : ferry::notebook::logicalLines(source)) {
        if (line.firstLine != next || line.lastLine < line.firstLine)
            __builtin_trap();
        next = line.lastLine + 1;
    }
    const int physical =
        source.isEmpty() ? 0 : static_cast<int>(source.count(u'\n')) + (source.endsWith(u'\n') ? 0 : 1);
    if (next != physical)
        __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const auto notebook = ferry::notebook::parseNotebook(bytes, QStringLiteral("fuzz.ipynb"));
    if (notebook) {
        const auto conversion = ferry::notebook::convertNotebook(*notebook);
        if (!conversion.script.endsWith(u'\n'))
            __builtin_trap();
        for (const auto &hp : conversion.hyperparameters) {
            if (hp.name.isEmpty() || hp.value.isEmpty())
                __builtin_trap();
        }
        for (const auto &cell : notebook->cells)
            checkLogicalLines(cell.source);
    } else if (notebook.error().message.isEmpty()) {
        __builtin_trap(); // every refusal says why
    }
    checkLogicalLines(QString::fromUtf8(bytes));
    return 0;
}
