// A log line as a terminal shows it, and as the metric parser reads it (records).
#pragma once

#include <QByteArrayView>
#include <QString>
#include <QStringList>

namespace ferry::run {

// What a terminal ends up showing for one log line (without its newline): the text after its
// last '\r' when `redraws` (a progress bar redrawing itself), terminal escape sequences (colours,
// cursor moves, titles) dropped, other control characters but tabs, and invalid UTF-8, shown as
// U+FFFD. The window's log view and `ferry runs attach` show a run's lines through it (L7), so
// nothing a script prints reaches the user's terminal as a control sequence.
QString terminalText(QByteArrayView line, bool redraws = true);

// Text of several lines as the terminal is to show it, whatever wrote it (a run's error, note,
// parameters or code, an archive's entry names in a message): each line as terminalText shows it
// without redraws (a '\r' shown as U+FFFD, so nothing hides what comes before it), the newlines
// kept. The command line prints everything run-derived through it (L3). With `keepReturns` a '\r'
// stays itself: a progress line redrawn in place (the command line's own stderr, where a build's
// progress passes).
QString terminalLines(QByteArrayView text, bool keepReturns = false);
inline QString terminalLines(QStringView text)
{
    return terminalLines(QByteArrayView(text.toUtf8()));
}

// What a metric parser reads of one log line (without its newline): the line split at each bare
// '\r' (a terminal's return to the line's start), each part as a terminal shows it (escape
// sequences dropped, a backspace erasing the character before it, invalid UTF-8 as U+FFFD),
// empty parts left out, and of a progress bar's redraws only the last (tqdm and Keras redraw
// their bar with '\r': its postfix's values count once, not once per redraw). Text that is no
// progress bar (a record printed between two redraws) is kept wherever it stands. Ferry's own
// notes ("ferry: ..." lines) give none.
QStringList metricRecords(QByteArrayView line);
// The same for a reader of many lines, without an allocation per line: the common line (no '\r'
// but a last one, no escape, no backspace) is decoded into `buffer`, which the next call reuses;
// `record` is then its one record, or empty when it has none, and the result true. False: the
// line is not that common one; take metricRecords(line).
bool plainMetricRecord(QByteArrayView line, QString &buffer, QStringView &record);

// Whether `text` is a progress bar's redraw: tqdm's "45%|███▌  | 45/100 [00:01<00:01, 30.1it/s]"
// (or "45it [00:01, 30.1it/s]" without a total), Keras' "12/313 [==>.....] - ETA: 5s".
bool isProgressBar(QStringView text);

} // namespace ferry::run
