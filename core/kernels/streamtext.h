// StreamText: the text of one stream output (a cell's stdout or stderr) as an execution keeps it,
// bounded: a cell that prints a million lines keeps its first and last lines, not all of them.
#pragma once

#include <QString>
#include <QStringView>

#include <deque>
#include <optional>

namespace ferry::kernels {

// How much of a stream output is kept: its first `headLines` lines and its last `tailLines`, the
// lines between counted and left out, each part at most `partChars` characters (lines are left
// out of the tail's start, and the head ends, when it would hold more).
struct StreamLimits {
    qsizetype headLines = 5000;
    qsizetype tailLines = 5000;
    qsizetype partChars = qsizetype(1) << 20;
};

// A stream's text appended chunk by chunk, as it is kept. Under the limits it is the text as
// printed, whole: nbformat's stream text, as Jupyter saves it. Past them it is the first lines,
// one line cutMark(n) for the n lines left out, then the last lines; the kernel's journal keeps
// every line while the kernel lives. A line that alone outgrows a part keeps its start and
// kCutChar (a part's worth with its newline); one redrawn with '\r' (a progress bar) keeps its
// last drawing once it is longer than kRedrawnLine (what a terminal shows when each drawing
// covers the last; not when an escape sequence came before the '\r': it may move the cursor).
class StreamText {
public:
    explicit StreamText(StreamLimits limits = {});

    void append(QStringView chunk);
    // The text kept (see above): what an nbformat stream output holds.
    QString text() const;
    // Lines left out between the head and the tail.
    qsizetype cutLines() const { return m_cutLines; }

    // The line that stands for `lines` lines left out: "… 990,000 lines not kept …\n".
    static QString cutMark(qsizetype lines);
    // Where a kept text holds its cut (cutMark's line): [start, end) in the text, and its count.
    struct Cut {
        qsizetype start = 0;
        qsizetype end = 0;
        qsizetype lines = 0;
    };
    static std::optional<Cut> findCut(QStringView text);
    static constexpr char16_t kCutChar = u'…';
    // A line redrawn with '\r' is reduced to its last drawing past this many characters.
    static constexpr qsizetype kRedrawnLine = 65536;

private:
    void appendToTail(QStringView chunk);
    static bool lineFits(QString &text, qsizetype lineStart, qsizetype budget, bool redrawn);
    qsizetype tailChars() const { return m_tail.size() - (m_tailStart - m_tailBase); }

    StreamLimits m_limits;
    QString m_head;
    qsizetype m_headLines = 0;
    bool m_headDone = false;
    // The tail: m_tail holds the characters from m_tailBase on (of all ever added to the tail);
    // the kept ones start at m_tailStart; m_lineEnds: where each kept complete line ends.
    QString m_tail;
    qsizetype m_tailBase = 0;
    qsizetype m_tailStart = 0;
    std::deque<qsizetype> m_lineEnds;
    qsizetype m_cutLines = 0;
    bool m_droppingLine = false; // the rest of an overlong line, up to its newline
};

} // namespace ferry::kernels
