#pragma once

#include <QByteArrayView>
#include <QString>

namespace ferry::run {

// What a terminal ends up showing for one log line (without its newline): the text after its
// last '\r' when `redraws` (a progress bar redrawing itself), terminal escape sequences (colours,
// cursor moves, titles) dropped, other control characters but tabs, and invalid UTF-8, shown as
// U+FFFD. The window's log view and `ferry runs attach` show a run's lines through it (L7), so
// nothing a script prints reaches the user's terminal as a control sequence.
QString terminalText(QByteArrayView line, bool redraws = true);

} // namespace ferry::run
