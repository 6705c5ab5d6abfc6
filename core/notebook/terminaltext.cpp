#include "notebook/terminaltext.h"

#include "common/escapesequence.h"

#include <QLocale>
#include <QVarLengthArray>

#include <algorithm>
#include <limits>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::notebook {

namespace {

constexpr char16_t kEscape = 0x1b;
// An escape sequence cut between two chunks is kept this long at most (a CSI's parameters; a
// string sequence keeps only its start): past it, it is garbage and dropped.
constexpr qsizetype kPendingLimit = 256;
// A CSI parameter is read up to this (a cursor move of a billion columns is a move to the edge).
constexpr int kParameterLimit = 1000000;

// The characters that are not text: C0 controls but tab, DEL, C1 controls.
bool isControl(char16_t c)
{
    return (c < 0x20 && c != u'\t') || (c >= 0x7f && c < 0xa0);
}

// A parameter of a CSI: its digits, `fallback` when it has none.
int number(QStringView field, int fallback)
{
    if (field.isEmpty() || !field.front().isDigit())
        return fallback;
    int value = 0;
    for (const QChar c : field) {
        if (c < u'0' || c > u'9')
            break;
        value = std::min(value * 10 + (c.unicode() - u'0'), kParameterLimit);
    }
    return value;
}

using Fields = QVarLengthArray<QStringView, 16>;

Fields split(QStringView text, char16_t separator)
{
    Fields fields;
    qsizetype from = 0;
    for (qsizetype at = text.indexOf(separator); at >= 0; at = text.indexOf(separator, from)) {
        fields.append(text.sliced(from, at - from));
        from = at + 1;
    }
    fields.append(text.sliced(from));
    return fields;
}

// An SGR colour after 38 or 48: "5;n" or "2;r;g;b" as separate fields (`fields` from `at`,
// `used` set to how many it took), or the colon form "38:5:n", "38:2::r:g:b" in one field.
std::optional<TerminalColor> extendedColor(const Fields &fields, qsizetype at, qsizetype &used)
{
    used = 0;
    const Fields sub = split(fields[at], u':');
    QVarLengthArray<int, 8> values;
    if (sub.size() > 1) {
        for (qsizetype i = 1; i < sub.size(); ++i)
            values.append(number(sub[i], 0));
    } else {
        const qsizetype kind = at + 1 < fields.size() ? number(fields[at + 1], -1) : -1;
        const qsizetype count = kind == 5 ? 2 : kind == 2 ? 4 : 1;
        for (qsizetype i = at + 1; i < fields.size() && i <= at + count; ++i)
            values.append(number(fields[i], 0));
        used = values.size();
    }
    if (values.size() >= 2 && values[0] == 5 && values[1] <= 255)
        return TerminalColor::indexed(values[1]);
    if (values.size() >= 4 && values[0] == 2) { // the last three: "2:r:g:b" or "2:space:r:g:b"
        const qsizetype r = values.size() - 3;
        if (values[r] <= 255 && values[r + 1] <= 255 && values[r + 2] <= 255)
            return TerminalColor::rgb(unsigned(values[r]) << 16 | unsigned(values[r + 1]) << 8 |
                                      unsigned(values[r + 2]));
    }
    return std::nullopt;
}

// xterm's colour for an index past the 16 ANSI ones.
unsigned xtermColor(unsigned index)
{
    if (index >= 232) {
        const unsigned grey = 8 + 10 * (index - 232);
        return grey << 16 | grey << 8 | grey;
    }
    const unsigned cube = index - 16;
    const auto level = [](unsigned v) { return v == 0 ? 0u : 55 + 40 * v; };
    return level(cube / 36) << 16 | level(cube / 6 % 6) << 8 | level(cube % 6);
}

unsigned blend(unsigned a, unsigned b)
{
    unsigned result = 0;
    for (int shift = 0; shift <= 16; shift += 8)
        result |= ((((a >> shift) & 0xff) + ((b >> shift) & 0xff)) / 2) << shift;
    return result;
}

// Adds text in a style at the end of `runs`: to the last run when the style is the same, or when
// the line has all the runs it may have.
void appendRun(QList<TerminalRun> &runs, QStringView text, const TerminalStyle &style)
{
    if (text.isEmpty())
        return;
    if (!runs.isEmpty() && (runs.last().style == style || runs.size() >= TerminalLine::kMaxRuns))
        runs.last().text += text;
    else
        runs.append({text.toString(), style});
}

// Writes `text` over `line` from `column` (at or before its end), as a terminal in overwrite mode.
void overwrite(TerminalLine &line, qsizetype column, QStringView text, const TerminalStyle &style)
{
    const qsizetype end = column + text.size();
    if (column == line.length) {
        appendRun(line.runs, text, style);
        line.length = end;
        return;
    }
    // Within one run of the same style (a progress bar redrawn over itself): in place.
    qsizetype start = 0;
    qsizetype i = 0;
    while (start + line.runs[i].text.size() <= column) {
        start += line.runs[i].text.size();
        ++i;
    }
    TerminalRun &run = line.runs[i];
    if (run.style == style && end <= start + run.text.size()) {
        std::copy(text.begin(), text.end(), run.text.begin() + (column - start));
        return;
    }
    QList<TerminalRun> runs;
    runs.reserve(line.runs.size() + 2);
    for (qsizetype k = 0; k < i; ++k)
        runs.append(std::move(line.runs[k]));
    appendRun(runs, QStringView(line.runs[i].text).first(column - start), line.runs[i].style);
    appendRun(runs, text, style);
    for (qsizetype k = i; k < line.runs.size(); ++k) {
        const QStringView runText = line.runs[k].text;
        const qsizetype runEnd = start + runText.size();
        if (runEnd > end)
            appendRun(runs, runText.sliced(std::max(end, start) - start), line.runs[k].style);
        start = runEnd;
    }
    line.runs = std::move(runs);
    line.length = std::max(line.length, end);
}

QString colorName(unsigned rgb)
{
    return u"#%1"_s.arg(rgb, 6, 16, QChar(u'0'));
}

} // namespace

TerminalColors colorsOf(const TerminalStyle &style, const TerminalPalette &palette)
{
    const auto resolve = [&palette](const TerminalColor &color, unsigned fallback, bool bright) {
        switch (color.kind) {
        case TerminalColor::Kind::Default:
            return fallback;
        case TerminalColor::Kind::Indexed: {
            const unsigned index = bright && color.value < 8 ? color.value + 8 : color.value;
            return index < 16 ? palette.ansi[index] : xtermColor(std::min(index, 255u));
        }
        case TerminalColor::Kind::Rgb:
            break;
        }
        return color.value;
    };
    TerminalColors colors;
    colors.foreground = resolve(style.foreground, palette.foreground, style.bold);
    if (style.background.kind != TerminalColor::Kind::Default)
        colors.background = resolve(style.background, palette.background, false);
    if (style.inverse) {
        const unsigned foreground = colors.background.value_or(palette.background);
        colors.background = colors.foreground;
        colors.foreground = foreground;
    }
    if (style.faint)
        colors.foreground = blend(colors.foreground, colors.background.value_or(palette.background));
    return colors;
}

QString TerminalLine::text() const
{
    QString result;
    result.reserve(length);
    for (const TerminalRun &run : runs)
        result += run.text;
    return result;
}

TerminalText::TerminalText(TerminalLimits limits) : m_limits(limits)
{
    m_limits.headLines = std::max<qsizetype>(m_limits.headLines, 0);
    m_limits.tailLines = std::max<qsizetype>(m_limits.tailLines, 1);
    m_limits.lineLength = std::max<qsizetype>(m_limits.lineLength, 1);
}

qsizetype TerminalText::append(QStringView chunk)
{
    m_appendChanged = std::numeric_limits<qsizetype>::max();
    if (m_pending.isEmpty()) {
        processText(chunk);
    } else {
        QString joined = std::exchange(m_pending, {});
        joined.append(chunk);
        processText(joined);
    }
    return std::min(m_appendChanged, m_lineCount);
}

TerminalChanges TerminalText::takeChanges()
{
    const TerminalChanges changes{std::min(m_firstChanged, m_lineCount), m_hiddenReported, m_hidden};
    m_firstChanged = m_lineCount;
    m_hiddenReported = m_hidden;
    return changes;
}

void TerminalText::clear()
{
    *this = TerminalText(m_limits);
}

void TerminalText::skipLines(qsizetype count)
{
    if (count <= 0)
        return;
    if (m_row < m_lineCount || m_column > 0)
        lineFeed();
    changed(firstTailLine());
    m_hidden += static_cast<qsizetype>(m_tail.size()) + count;
    m_tail.clear();
    m_lineCount += count;
    m_row = m_lineCount;
    m_column = 0;
}

const TerminalLine *TerminalText::line(qsizetype index) const
{
    if (index < 0)
        return nullptr;
    if (index < headLineCount())
        return &m_head[index];
    index -= firstTailLine();
    if (index < 0 || index >= static_cast<qsizetype>(m_tail.size()))
        return nullptr;
    return &m_tail[static_cast<size_t>(index)];
}

TerminalLine *TerminalText::mutableLine(qsizetype index)
{
    return const_cast<TerminalLine *>(std::as_const(*this).line(index));
}

void TerminalText::changed(qsizetype index)
{
    m_firstChanged = std::min(m_firstChanged, index);
    m_appendChanged = std::min(m_appendChanged, index);
}

void TerminalText::processText(QStringView text)
{
    const qsizetype size = text.size();
    qsizetype i = 0;
    while (i < size) {
        qsizetype j = i;
        while (j < size && !isControl(text[j].unicode()))
            ++j;
        if (j > i)
            write(text.sliced(i, j - i));
        if (j == size)
            break;
        switch (text[j].unicode()) {
        case u'\n':
        case u'\v':
        case u'\f':
            lineFeed();
            break;
        case u'\r':
            m_column = 0;
            break;
        case u'\b':
            m_column = std::max<qsizetype>(m_column - 1, 0);
            break;
        case kEscape: {
            const EscapeSequence sequence = escapeSequenceAt(text, j);
            if (!sequence.complete) {
                if (sequence.kind == EscapeSequence::Kind::String) {
                    // Its content is dropped anyway: its start (and an ESC that may begin its end).
                    m_pending = text.sliced(j, 2).toString();
                    if (sequence.length > 2 && text.back() == QChar(kEscape))
                        m_pending += QChar(kEscape);
                } else if (sequence.length <= kPendingLimit) {
                    m_pending = text.sliced(j).toString();
                }
                return;
            }
            applyEscape(text.sliced(j, sequence.length));
            i = j + sequence.length;
            continue;
        }
        default:
            break; // another control character: nothing a terminal shows
        }
        i = j + 1;
    }
}

void TerminalText::applyEscape(QStringView sequence)
{
    if (sequence.size() < 3 || sequence[1] != u'[')
        return; // no CSI: a title, a character set, a keypad mode: nothing shown
    const QChar final = sequence.back();
    if (final < u'@' || final > u'~')
        return; // malformed
    applyCsi(sequence.sliced(2, sequence.size() - 3), final);
}

void TerminalText::applyCsi(QStringView parameters, QChar final)
{
    // A private mode ("?25l": the cursor hidden) or an intermediate byte: nothing of the text.
    if (!parameters.isEmpty() && parameters.front() >= u'<' && parameters.front() <= u'?')
        return;
    if (std::any_of(parameters.begin(), parameters.end(), [](QChar c) { return c < u'0'; }))
        return;
    const int n = std::max(number(parameters, 1), 1);
    switch (final.unicode()) {
    case u'm':
        applySgr(parameters);
        break;
    case u'A':
        m_row = std::max<qsizetype>(m_row - n, 0);
        break;
    case u'B':
        if (m_row < m_lineCount - 1)
            m_row = std::min<qsizetype>(m_row + n, m_lineCount - 1);
        break;
    case u'C': // up to the last column, as a terminal's right edge
        m_column = std::min<qsizetype>(m_column + n, m_limits.lineLength - 1);
        break;
    case u'D':
        m_column = std::max<qsizetype>(m_column - n, 0);
        break;
    case u'G':
        m_column = std::min<qsizetype>(n - 1, m_limits.lineLength - 1);
        break;
    case u'K':
        eraseInLine(number(parameters, 0));
        break;
    default:
        break;
    }
}

void TerminalText::applySgr(QStringView parameters)
{
    const Fields fields = split(parameters, u';');
    for (qsizetype i = 0; i < fields.size(); ++i) {
        const Fields sub = fields[i].contains(u':') ? split(fields[i], u':') : Fields{fields[i]};
        const int code = number(sub[0], 0);
        TerminalStyle &s = m_style;
        if (code >= 30 && code <= 37)
            s.foreground = TerminalColor::indexed(code - 30);
        else if (code >= 40 && code <= 47)
            s.background = TerminalColor::indexed(code - 40);
        else if (code >= 90 && code <= 97)
            s.foreground = TerminalColor::indexed(code - 90 + 8);
        else if (code >= 100 && code <= 107)
            s.background = TerminalColor::indexed(code - 100 + 8);
        else if (code == 38 || code == 48) {
            qsizetype used = 0;
            if (const std::optional<TerminalColor> color = extendedColor(fields, i, used))
                (code == 38 ? s.foreground : s.background) = *color;
            i += used;
        } else {
            switch (code) {
            case 0:
                s = {};
                break;
            case 1:
                s.bold = true;
                break;
            case 2:
                s.faint = true;
                break;
            case 3:
                s.italic = true;
                break;
            case 4:
                s.underline = sub.size() < 2 || number(sub[1], 1) != 0; // "4:0": no underline
                break;
            case 7:
                s.inverse = true;
                break;
            case 21:
                s.underline = true; // double underline, drawn single
                break;
            case 22:
                s.bold = s.faint = false;
                break;
            case 23:
                s.italic = false;
                break;
            case 24:
                s.underline = false;
                break;
            case 27:
                s.inverse = false;
                break;
            case 39:
                s.foreground = {};
                break;
            case 49:
                s.background = {};
                break;
            default:
                break; // blink, strike-through, fonts, ...: not drawn
            }
        }
    }
}

TerminalLine *TerminalText::lineForWrite()
{
    if (m_row == m_lineCount) {
        if (m_tail.empty() && m_hidden == 0 && headLineCount() < m_limits.headLines) {
            m_head.append(TerminalLine{});
        } else {
            m_tail.emplace_back();
            if (static_cast<qsizetype>(m_tail.size()) > m_limits.tailLines) {
                m_tail.pop_front();
                ++m_hidden;
            }
        }
        ++m_lineCount;
    }
    return mutableLine(m_row);
}

void TerminalText::write(QStringView text)
{
    TerminalLine *line = lineForWrite();
    const qsizetype column = m_column;
    m_column = std::min(m_column + text.size(), m_limits.lineLength);
    changed(m_row);
    if (line == nullptr)
        return; // a line above that is hidden now
    const qsizetype room = m_limits.lineLength - column;
    if (text.size() > room) {
        line->cut = true;
        text = text.first(room);
    }
    if (text.isEmpty())
        return;
    if (column > line->length)
        overwrite(*line, line->length, QString(column - line->length, u' '), TerminalStyle{});
    overwrite(*line, column, text, m_style);
}

void TerminalText::lineFeed()
{
    if (m_row == m_lineCount) {
        lineForWrite(); // an empty line
        changed(m_row);
    }
    m_row = std::min(m_row + 1, m_lineCount);
    m_column = 0;
}

void TerminalText::eraseInLine(int mode)
{
    TerminalLine *line = mutableLine(m_row);
    if (line == nullptr)
        return;
    changed(m_row);
    if (mode == 0 || mode == 2) {
        // What remains is before the cursor (mode 2: blanks up to it, as a terminal leaves).
        const qsizetype keep = std::min(m_column, line->length);
        TerminalLine kept;
        if (mode == 0) {
            qsizetype start = 0;
            for (const TerminalRun &run : std::as_const(line->runs)) {
                if (start >= keep)
                    break;
                appendRun(kept.runs, QStringView(run.text).first(std::min(run.text.size(), keep - start)), run.style);
                start += run.text.size();
            }
            kept.length = keep;
        }
        *line = std::move(kept);
    } else if (mode == 1) {
        const qsizetype through = std::min(m_column + 1, line->length);
        overwrite(*line, 0, QString(through, u' '), TerminalStyle{});
    }
}

QString TerminalText::joinedLines(const std::function<void(QString &, const TerminalRun &)> &run,
                                  const std::function<void(QString &, const QString &)> &mark) const
{
    QString text;
    const auto add = [&](const TerminalLine &line) {
        for (const TerminalRun &r : line.runs)
            run(text, r);
        if (line.cut)
            text += QChar(kCutMark);
        text += u'\n';
    };
    for (const TerminalLine &line : m_head)
        add(line);
    if (m_hidden > 0) {
        mark(text, hiddenMark(m_hidden));
        text += u'\n';
    }
    for (const TerminalLine &line : m_tail)
        add(line);
    if (m_row < m_lineCount || m_lineCount == 0)
        text.chop(1); // no newline after the last line
    return text;
}

QString TerminalText::plainText() const
{
    return joinedLines([](QString &text, const TerminalRun &run) { text += run.text; },
                       [](QString &text, const QString &mark) { text += mark; });
}

QString TerminalText::html(const TerminalPalette &palette) const
{
    const auto span = [&palette](QString &html, const TerminalRun &run) {
        if (run.style.isDefault()) {
            html += run.text.toHtmlEscaped();
            return;
        }
        const TerminalColors colors = colorsOf(run.style, palette);
        QString style = u"color:"_s + colorName(colors.foreground);
        if (colors.background)
            style += u";background-color:"_s + colorName(*colors.background);
        if (run.style.bold)
            style += u";font-weight:bold"_s;
        if (run.style.italic)
            style += u";font-style:italic"_s;
        if (run.style.underline)
            style += u";text-decoration:underline"_s;
        html += u"<span style=\""_s + style + u"\">"_s + run.text.toHtmlEscaped() + u"</span>"_s;
    };
    const auto italic = [](QString &html, const QString &mark) { html += u"<i>"_s + mark.toHtmlEscaped() + u"</i>"_s; };
    return u"<pre>"_s + joinedLines(span, italic) + u"</pre>"_s;
}

QString TerminalText::hiddenMark(qsizetype count)
{
    const QString number = QLocale(QLocale::English).toString(count);
    return count == 1 ? u"… 1 line hidden …"_s : u"… %1 lines hidden …"_s.arg(number);
}

} // namespace ferry::notebook
