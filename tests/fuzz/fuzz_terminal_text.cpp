// Fuzz target for a stream drawn as a terminal (TerminalText, core/notebook/terminaltext.h;
// tests/fuzz/run.sh, replayed by fuzz_terminal_text_replay). The bytes are what a kernel printed:
// untrusted. They are drawn whole and in chunks (cut every 1 to 17 characters, as the first byte
// says) with small bounds, so the head, the tail and the cut lines are reached; whatever they
// hold, the drawing keeps its bounds and shows no control character, and a short input draws the
// same whole or chunked (escape sequences and returns carried across chunks).
#include "notebook/terminaltext.h"

#include <QString>

#include <cstddef>
#include <cstdint>

using namespace ferry::notebook;

namespace {

constexpr TerminalLimits kLimits{4, 4, 64};

void checkDrawing(const TerminalText &terminal)
{
    if (terminal.headLineCount() > kLimits.headLines ||
        terminal.lineCount() - terminal.firstTailLine() > kLimits.tailLines ||
        terminal.firstTailLine() > terminal.lineCount() || terminal.cursorLine() > terminal.lineCount() ||
        terminal.cursorColumn() > kLimits.lineLength)
        __builtin_trap();
    for (qsizetype i = 0; i < terminal.lineCount(); ++i) {
        const TerminalLine *line = terminal.line(i);
        if ((line == nullptr) != (i >= terminal.headLineCount() && i < terminal.firstTailLine()))
            __builtin_trap(); // exactly the hidden lines are missing
        if (line == nullptr)
            continue;
        qsizetype length = 0;
        for (qsizetype r = 0; r < line->runs.size(); ++r) {
            if (line->runs[r].text.isEmpty() || (r > 0 && line->runs[r].style == line->runs[r - 1].style))
                __builtin_trap(); // no empty run, neighbours differ
            length += line->runs[r].text.size();
        }
        if (length != line->length || length > kLimits.lineLength || line->runs.size() > TerminalLine::kMaxRuns)
            __builtin_trap();
    }
    for (const QChar c : terminal.plainText()) {
        const char16_t u = c.unicode();
        if ((u < 0x20 && u != u'\n' && u != u'\t') || (u >= 0x7f && u < 0xa0))
            __builtin_trap(); // a control character reached the view
    }
}

QString drawing(const TerminalText &terminal)
{
    QString all = terminal.plainText() + u'\n';
    for (qsizetype i = 0; i < terminal.lineCount(); ++i) {
        if (const TerminalLine *line = terminal.line(i)) {
            for (const TerminalRun &run : line->runs) {
                const TerminalColors colors = colorsOf(run.style);
                all += QString::number(run.text.size()) + u':' + QString::number(colors.foreground) + u';';
            }
        }
    }
    return all;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString text = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    TerminalText whole(kLimits);
    whole.append(text);
    checkDrawing(whole);
    TerminalText chunked(kLimits);
    const qsizetype step = size > 0 ? 1 + data[0] % 17 : 1;
    for (qsizetype at = 0; at < text.size(); at += step)
        chunked.append(QStringView(text).sliced(at, std::min(step, text.size() - at)));
    checkDrawing(chunked);
    // An escape sequence cut between chunks is kept up to 256 characters: any in a short input.
    if (text.size() <= 200 && drawing(whole) != drawing(chunked))
        __builtin_trap();
    (void)whole.html();
    return 0;
}
