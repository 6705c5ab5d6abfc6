// TerminalText: a notebook's stream output (stdout, stderr) or traceback as a terminal shows it,
// built chunk by chunk: colours, carriage-return redraws, cursor moves, bounded.
#pragma once

#include <QList>
#include <QString>
#include <QStringView>

#include <array>
#include <deque>
#include <functional>
#include <optional>

namespace ferry::notebook {

// A colour as SGR names it: the terminal's default, one of xterm's 256 (0..7 the ANSI colours,
// 8..15 their bright forms, 16..231 the 6x6x6 cube, 232..255 greys) or 24-bit.
struct TerminalColor {
    enum class Kind : unsigned char { Default, Indexed, Rgb };
    Kind kind = Kind::Default;
    unsigned value = 0; // Indexed: 0..255; Rgb: 0xRRGGBB

    static TerminalColor indexed(int index) { return {Kind::Indexed, static_cast<unsigned>(index)}; }
    static TerminalColor rgb(unsigned rgb) { return {Kind::Rgb, rgb & 0xffffffu}; }
    friend bool operator==(const TerminalColor &, const TerminalColor &) = default;
};

// The attributes SGR sets on the text written after it.
struct TerminalStyle {
    TerminalColor foreground;
    TerminalColor background;
    bool bold = false;
    bool faint = false;
    bool italic = false;
    bool underline = false;
    bool inverse = false;

    bool isDefault() const { return *this == TerminalStyle{}; }
    friend bool operator==(const TerminalStyle &, const TerminalStyle &) = default;
};

// The colours a view draws with: its own foreground and background and the 16 ANSI colours
// (by default Jupyter's, as JupyterLab shows a stream).
struct TerminalPalette {
    unsigned foreground = 0x000000;
    unsigned background = 0xffffff;
    std::array<unsigned, 16> ansi = {0x3e424d, 0xe75c58, 0x00a250, 0xddb62b, 0x208ffb, 0xd160c4, 0x60c6c8, 0xc5c1b4,
                                     0x282c36, 0xb22b31, 0x007427, 0xb27d12, 0x0065ca, 0xa03196, 0x258f8f, 0xa1a6b2};
};

// What a style looks like with a palette (0xRRGGBB): bold makes an ANSI colour bright (as Jupyter
// does), faint blends the text halfway into the background, inverse swaps the two. `background`
// is empty where the view's own shows through.
struct TerminalColors {
    unsigned foreground = 0;
    std::optional<unsigned> background;
};
TerminalColors colorsOf(const TerminalStyle &style, const TerminalPalette &palette = {});

// Text written in one style.
struct TerminalRun {
    QString text;
    TerminalStyle style;
};

// One line as TerminalText keeps it: its runs in order, adjacent runs in different styles (at
// most kMaxRuns: past them, text takes the style of the run before it).
struct TerminalLine {
    QList<TerminalRun> runs;
    qsizetype length = 0; // characters in the runs
    // Longer than TerminalLimits::lineLength: what went past it was dropped (a view shows a mark).
    bool cut = false;

    QString text() const;
    static constexpr qsizetype kMaxRuns = 500;
};

// How much of an output is kept: its first `headLines` lines and its last `tailLines` (the lines
// between are counted, not kept), each line up to `lineLength` characters.
struct TerminalLimits {
    qsizetype headLines = 5000;
    qsizetype tailLines = 5000; // at least 1: the line being written
    qsizetype lineLength = 10000;
};

// Since the last takeChanges(): the lines a view redraws.
struct TerminalChanges {
    // The first line changed or added (absolute: hidden lines counted); every line after it may
    // have changed too. lineCount() when nothing changed.
    qsizetype firstLine = 0;
    // hiddenLineCount() before and now: the lines [headLineCount() + hiddenBefore,
    // headLineCount() + hiddenNow) went from the tail into the hidden middle.
    qsizetype hiddenBefore = 0;
    qsizetype hiddenNow = 0;
};

// A stream drawn as a terminal draws it, from chunks as they come: a pure processor (no widget,
// no event loop) whose state carries across chunks (the style, the cursor, an escape sequence cut
// in two, a '\r' at the end of one chunk). It understands SGR (bold, faint, italic, underline,
// inverse, their resets; 8/16, 256 and 24-bit colours), '\n', '\r' (back to the line's start:
// what follows overwrites, so a tqdm bar redraws in place), "\r\n", backspace, tab (kept as a
// character), ESC[K (0, 1, 2), cursor up/down/forward/back and to a column (ESC[nA, B, C, D, G:
// nested tqdm bars rewrite a line above). Other escape sequences and control characters are
// dropped. Columns are UTF-16 code units.
// Memory is bounded by TerminalLimits whatever is written: a cell that prints a million lines
// keeps the first and last lines and counts those between.
class TerminalText {
public:
    explicit TerminalText(TerminalLimits limits = {});

    // Draws one chunk of output; returns the first line it changed (lineCount() if none).
    qsizetype append(QStringView chunk);
    // Everything appended since the last call: what a view that redraws on a timer redraws.
    TerminalChanges takeChanges();
    // Forgets everything (clear_output), the style and cursor included.
    void clear();
    // Counts `count` lines that never reach it as written here and hidden (a view that draws only
    // the first and last lines of a long text skips the rest; a kernel left lines out of a long
    // stream: kernels/streamtext.h). The lines written so far past the head are hidden with them;
    // what comes next starts a new line.
    void skipLines(qsizetype count);

    // Lines written, hidden ones included. A '\n' at the end starts no line until something is
    // written after it.
    qsizetype lineCount() const { return m_lineCount; }
    // The first lines, kept whole (line indexes 0 .. headLineCount() - 1).
    qsizetype headLineCount() const { return static_cast<qsizetype>(m_head.size()); }
    // Lines left out between the head and the tail (headLineCount() .. firstTailLine() - 1).
    qsizetype hiddenLineCount() const { return m_hidden; }
    qsizetype firstTailLine() const { return headLineCount() + m_hidden; }
    // Line `index` (absolute); nullptr when it is hidden or out of range. Valid until the next
    // append() or clear().
    const TerminalLine *line(qsizetype index) const;

    // The cursor: the line ('\n' at the end: lineCount()) and column the next text goes to.
    qsizetype cursorLine() const { return m_row; }
    qsizetype cursorColumn() const { return m_column; }
    const TerminalStyle &style() const { return m_style; }

    // The text as shown, for copying and for tests: the lines joined with '\n' (and one after the
    // last when the output ended with a newline), a cut line ending in kCutMark, the hidden lines
    // as one line hiddenMark(n).
    QString plainText() const;
    // The same as HTML for a QTextDocument (a <pre>, one <span style=...> per styled run,
    // colours from `palette`).
    QString html(const TerminalPalette &palette = {}) const;

    // What stands for `count` hidden lines: "… 990,000 lines hidden …".
    static QString hiddenMark(qsizetype count);
    static constexpr char16_t kCutMark = u'…';

private:
    void processText(QStringView text);
    void applyEscape(QStringView sequence);
    void applyCsi(QStringView parameters, QChar final);
    void applySgr(QStringView parameters);
    void write(QStringView text);
    void lineFeed();
    void eraseInLine(int mode);
    TerminalLine *lineForWrite();
    TerminalLine *mutableLine(qsizetype index);
    void changed(qsizetype index);
    // The shown lines joined as plainText() says, each run and the hidden lines' mark as given.
    QString joinedLines(const std::function<void(QString &, const TerminalRun &)> &run,
                        const std::function<void(QString &, const QString &)> &mark) const;

    TerminalLimits m_limits;
    QList<TerminalLine> m_head;
    std::deque<TerminalLine> m_tail;
    qsizetype m_hidden = 0;
    qsizetype m_lineCount = 0;
    qsizetype m_row = 0;
    qsizetype m_column = 0;
    TerminalStyle m_style;
    // An escape sequence the last chunk ended inside, to be read with the next one (a string
    // sequence's content is never kept: only its start).
    QString m_pending;
    qsizetype m_firstChanged = 0;  // for takeChanges()
    qsizetype m_appendChanged = 0; // for append()'s result
    qsizetype m_hiddenReported = 0;
};

} // namespace ferry::notebook
