#include "run/terminaltext.h"

#include <QByteArray>

namespace ferry::run {

namespace {

// The bytes a terminal shows of `view`: escape sequences dropped; control characters (but tab)
// become U+FFFD, or, with `backspaces`, a backspace erases the character before it.
QString shownText(QByteArrayView view, bool backspaces)
{
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
    if (backspaces && text.contains(u'\b')) {
        QString erased;
        erased.reserve(text.size());
        for (const QChar c : std::as_const(text)) {
            if (c == u'\b')
                erased.chop(1);
            else
                erased.append(c);
        }
        text = erased;
    }
    for (QChar &c : text) {
        // C0 controls but tab, DEL and the C1 controls (U+0080..U+009F, a CSI in one character).
        if ((c.unicode() < 0x20 && c != u'\t') || (c.unicode() >= 0x7f && c.unicode() < 0xa0))
            c = QChar::ReplacementCharacter;
    }
    return text;
}

bool isDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

// "12/313 [": Keras' step counter before its bar.
bool hasCounterBeforeBracket(QStringView text)
{
    for (qsizetype at = text.indexOf(u" ["); at > 0; at = text.indexOf(u" [", at + 1)) {
        qsizetype i = at;
        qsizetype denominator = 0;
        while (i > 0 && isDigit(text[i - 1])) {
            --i;
            ++denominator;
        }
        if (denominator == 0 || i == 0 || text[i - 1] != u'/')
            continue;
        --i;
        if (i > 0 && isDigit(text[i - 1]))
            return true;
    }
    return false;
}

} // namespace

QString terminalText(QByteArrayView line, bool redraws)
{
    QByteArrayView view = line;
    if (redraws) {
        if (view.endsWith('\r'))
            view.chop(1);
        if (const qsizetype cr = view.lastIndexOf('\r'); cr >= 0)
            view = view.sliced(cr + 1);
    }
    return shownText(view, false);
}

bool isProgressBar(QStringView text)
{
    return text.contains(u"%|") || text.contains(u"it/s]") || text.contains(u"s/it]") || text.contains(u"it/s,") ||
           text.contains(u"s/it,") || hasCounterBeforeBracket(text);
}

QStringList metricRecords(QByteArrayView line)
{
    QByteArrayView view = line;
    if (view.endsWith('\r'))
        view.chop(1);
    QStringList records;
    // The common line (no return, escape or backspace) costs one decoding.
    if (!view.contains('\r') && !view.contains('\x1b') && !view.contains('\b')) {
        if (!view.isEmpty())
            records << shownText(view, true);
        return records;
    }
    QStringList parts;
    for (qsizetype from = 0; from <= view.size();) {
        qsizetype cr = view.indexOf('\r', from);
        if (cr < 0)
            cr = view.size();
        QString part = shownText(view.sliced(from, cr - from), true);
        if (!part.trimmed().isEmpty())
            parts << part;
        from = cr + 1;
    }
    for (qsizetype i = 0; i < parts.size(); ++i) {
        // Redrawn by what follows, unless a record was printed at its end (Hugging Face's dict
        // after tqdm's bar: "45/100 [00:01<00:01, 30.1it/s]{'loss': 0.3}").
        if (i + 1 < parts.size() && isProgressBar(parts[i]) && !parts[i].trimmed().endsWith(u'}'))
            continue;
        records << parts[i];
    }
    return records;
}

} // namespace ferry::run
