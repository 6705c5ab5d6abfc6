#include "metrics/terminaltext.h"

#include "common/escapesequence.h"
#include "metrics/metricsyntax.h"

#include <QByteArray>

#include <algorithm>

namespace ferry::run {

namespace {

// Control characters (but tab) as U+FFFD; with `backspaces` a backspace erases the character
// before it instead.
QString controlsShown(QString text, bool backspaces)
{
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

// The bytes a terminal shows of `view`: escape sequences dropped, then controlsShown.
QString shownText(QByteArrayView view, bool backspaces)
{
    if (!view.contains('\x1b'))
        return controlsShown(QString::fromUtf8(view), backspaces); // invalid sequences become U+FFFD
    QByteArray clean;
    clean.reserve(view.size());
    for (qsizetype i = 0; i < view.size(); ++i) {
        const qsizetype escape = view.indexOf('\x1b', i);
        // The bytes up to the next escape in one piece.
        clean.append(view.sliced(i, (escape < 0 ? view.size() : escape) - i));
        if (escape < 0)
            break;
        i = escape + escapeSequenceAt(view, escape).length - 1; // the loop steps past its last
    }
    return controlsShown(QString::fromUtf8(clean), backspaces);
}

char16_t code(QChar c)
{
    return c.unicode();
}
char16_t code(char c)
{
    return static_cast<unsigned char>(c);
}

template <typename Char> bool isDigit(Char c)
{
    return code(c) >= u'0' && code(c) <= u'9';
}

bool has(QStringView text, const char *marker)
{
    return text.contains(QLatin1StringView(marker));
}
bool has(QByteArrayView text, const char *marker)
{
    return text.contains(QByteArrayView(marker));
}
qsizetype find(QStringView text, const char *marker, qsizetype from)
{
    return text.indexOf(QLatin1StringView(marker), from);
}
qsizetype find(QByteArrayView text, const char *marker, qsizetype from)
{
    return text.indexOf(QByteArrayView(marker), from);
}

// "12/313 [": Keras' step counter before its bar.
template <typename View> bool hasCounterBeforeBracket(View text)
{
    for (qsizetype at = find(text, " [", 0); at > 0; at = find(text, " [", at + 1)) {
        qsizetype i = at;
        qsizetype denominator = 0;
        while (i > 0 && isDigit(text[i - 1])) {
            --i;
            ++denominator;
        }
        if (denominator == 0 || i == 0 || code(text[i - 1]) != u'/')
            continue;
        --i;
        if (i > 0 && isDigit(text[i - 1]))
            return true;
    }
    return false;
}

// The markers of a progress bar, in text or in bytes (ASCII either way).
template <typename View> bool progressBar(View text)
{
    return std::any_of(metricsyntax::kTqdmBarMarkers.begin(), metricsyntax::kTqdmBarMarkers.end(),
                       [text](const char *marker) { return has(text, marker); }) ||
           hasCounterBeforeBracket(text);
}

template <typename View> bool endsWithRecord(View text)
{
    qsizetype end = text.size();
    while (end > 0 && (code(text[end - 1]) == u' ' || code(text[end - 1]) == u'\t'))
        --end;
    return end > 0 && code(text[end - 1]) == u'}';
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

QString terminalLines(QByteArrayView text, bool keepReturns)
{
    QString shown;
    shown.reserve(text.size());
    for (qsizetype from = 0; from <= text.size();) {
        qsizetype end = text.indexOf('\n', from);
        if (keepReturns) {
            const qsizetype ret = text.indexOf('\r', from);
            if (ret >= 0 && (end < 0 || ret < end))
                end = ret;
        }
        if (end < 0)
            end = text.size();
        shown += shownText(text.sliced(from, end - from), false);
        if (end < text.size())
            shown += QChar::fromLatin1(text[end]);
        from = end + 1;
    }
    return shown;
}

bool plainMetricRecord(QByteArrayView line, QString &buffer, QStringView &record)
{
    record = {};
    QByteArrayView view = line;
    if (view.startsWith("ferry: "))
        return true; // Ferry's own notes: no record
    if (view.endsWith('\r'))
        view.chop(1);
    const qsizetype n = view.size();
    buffer.resize(n); // reuses its memory
    char16_t *out = reinterpret_cast<char16_t *>(buffer.data());
    const auto *in = reinterpret_cast<const uchar *>(view.data());
    // ASCII as metricRecords' common path shows it (controlsShown): a C0 control but tab, or DEL,
    // as U+FFFD; a return, escape or backspace, or any byte past ASCII, is for the general path.
    for (qsizetype i = 0; i < n; ++i) {
        const uchar c = in[i];
        if (c >= 0x20 && c < 0x7f) {
            out[i] = c;
            continue;
        }
        if (c == '\r' || c == '\x1b' || c == '\b')
            return false;
        if (c >= 0x80) { // UTF-8: decoded as metricRecords decodes it
            if (view.contains('\r') || view.contains('\x1b') || view.contains('\b'))
                return false;
            buffer = controlsShown(QString::fromUtf8(view), true);
            record = buffer;
            return true;
        }
        out[i] = c == '\t' ? u'\t' : char16_t(QChar::ReplacementCharacter);
    }
    record = QStringView(buffer.constData(), n);
    return true;
}

bool isProgressBar(QStringView text)
{
    return progressBar(text);
}

QStringList metricRecords(QByteArrayView line)
{
    QByteArrayView view = line;
    // Ferry's own notes in a run's log ("ferry: attempt 2: ...", "ferry: 2 nodes ...": the
    // supervisor's and the remote runners') are not the script's output: no metrics in them.
    if (view.startsWith("ferry: "))
        return {};
    if (view.endsWith('\r'))
        view.chop(1);
    QStringList records;
    // The common line (no return, escape or backspace) costs one decoding.
    if (!view.contains('\r') && !view.contains('\x1b') && !view.contains('\b')) {
        if (!view.isEmpty())
            records << shownText(view, true);
        return records;
    }
    QList<QByteArrayView> parts;
    for (qsizetype from = 0; from <= view.size();) {
        qsizetype cr = view.indexOf('\r', from);
        if (cr < 0)
            cr = view.size();
        const QByteArrayView part = view.sliced(from, cr - from);
        if (!part.trimmed().isEmpty())
            parts << part;
        from = cr + 1;
    }
    for (qsizetype i = 0; i < parts.size(); ++i) {
        // Redrawn by what follows, unless a record was printed at its end (Hugging Face's dict
        // after tqdm's bar: "45/100 [00:01<00:01, 30.1it/s]{'loss': 0.3}"). Told from the bytes
        // where no escape can hide a marker: a redraw left out is never decoded.
        const bool last = i + 1 == parts.size();
        const bool plain = !parts[i].contains('\x1b');
        if (!last && plain && progressBar(parts[i]) && !endsWithRecord(parts[i]))
            continue;
        QString text = shownText(parts[i], true);
        if (!last && !plain && progressBar(QStringView(text)) && !endsWithRecord(QStringView(text)))
            continue;
        if (!text.trimmed().isEmpty())
            records << text;
    }
    return records;
}

} // namespace ferry::run
