// Where a terminal escape sequence ends: the one grammar every reader of a program's output uses
// (a run's log shown as text, a notebook's streams drawn as a terminal).
#pragma once

#include <QByteArrayView>
#include <QStringView>

namespace ferry {

// One escape sequence, from its ESC (0x1b):
//   Csi     ESC '[', parameters (0x30..0x3f), intermediates (0x20..0x2f), a final byte
//           (0x40..0x7e): colours, cursor moves, erasing. A character outside those ranges ends
//           it early (length stops before it): the caller finds no final byte and drops it.
//   String  ESC ']' (OSC: a window title, a link), 'P', 'X', '^' or '_', up to BEL or ST
//           (ESC '\'); an ESC followed by anything else ends it before that ESC.
//   Other   ESC, intermediates (0x20..0x2f), one final byte (0x30..0x7e); an ESC followed by
//           anything else is the ESC alone.
struct EscapeSequence {
    enum class Kind : unsigned char { Csi, String, Other };
    Kind kind = Kind::Other;
    // Characters from the ESC through its last; when incomplete, through the end of the text.
    qsizetype length = 0;
    // False when the text ends inside it: the rest may come with the next chunk of output.
    bool complete = false;
};

// The escape sequence at `text[at]`, which is an ESC.
EscapeSequence escapeSequenceAt(QByteArrayView text, qsizetype at);
EscapeSequence escapeSequenceAt(QStringView text, qsizetype at);

} // namespace ferry
