#include "run/terminaltext.h"

#include <QByteArray>

namespace ferry::run {

QString terminalText(QByteArrayView line, bool redraws)
{
    QByteArrayView view = line;
    if (redraws) {
        if (view.endsWith('\r'))
            view.chop(1);
        if (const qsizetype cr = view.lastIndexOf('\r'); cr >= 0)
            view = view.sliced(cr + 1);
    }
    QByteArray clean;
    clean.reserve(view.size());
    for (qsizetype i = 0; i < view.size(); ++i) {
        const char c = view[i];
        if (c != '\x1b') {
            clean.append(c);
            continue;
        }
        if (i + 1 < view.size() && view[i + 1] == '[') { // CSI: parameters up to a final byte
            i += 2;
            while (i < view.size() && !(view[i] >= '@' && view[i] <= '~'))
                ++i;
        } else if (i + 1 < view.size() && view[i + 1] == ']') { // OSC (a window title): up to BEL or ESC '\'
            i += 2;
            while (i < view.size() && view[i] != '\a' &&
                   !(view[i] == '\x1b' && i + 1 < view.size() && view[i + 1] == '\\'))
                ++i;
            if (i < view.size() && view[i] == '\x1b')
                ++i;
        } else {
            ++i; // a two-byte escape
        }
    }
    QString text = QString::fromUtf8(clean); // invalid sequences become U+FFFD
    for (QChar &c : text) {
        // C0 controls but tab, DEL and the C1 controls (U+0080..U+009F, a CSI in one character).
        if ((c.unicode() < 0x20 && c != u'\t') || (c.unicode() >= 0x7f && c.unicode() < 0xa0))
            c = QChar::ReplacementCharacter;
    }
    return text;
}

} // namespace ferry::run
