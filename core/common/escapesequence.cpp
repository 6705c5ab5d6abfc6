#include "common/escapesequence.h"

namespace ferry {

namespace {

char16_t code(char c)
{
    return static_cast<unsigned char>(c);
}
char16_t code(QChar c)
{
    return c.unicode();
}

bool within(char16_t c, char16_t low, char16_t high)
{
    return c >= low && c <= high;
}

template <typename View> EscapeSequence sequenceAt(View text, qsizetype at)
{
    const qsizetype size = text.size();
    qsizetype i = at + 1;
    if (i >= size)
        return {EscapeSequence::Kind::Other, size - at, false};
    const char16_t introducer = code(text[i]);
    if (introducer == u'[') {
        for (++i; i < size; ++i) {
            const char16_t c = code(text[i]);
            if (within(c, 0x40, 0x7e))
                return {EscapeSequence::Kind::Csi, i + 1 - at, true};
            if (!within(c, 0x20, 0x3f))
                return {EscapeSequence::Kind::Csi, i - at, true}; // malformed: no final byte
        }
        return {EscapeSequence::Kind::Csi, size - at, false};
    }
    if (introducer == u']' || introducer == u'P' || introducer == u'X' || introducer == u'^' || introducer == u'_') {
        for (++i; i < size; ++i) {
            const char16_t c = code(text[i]);
            if (c == u'\a')
                return {EscapeSequence::Kind::String, i + 1 - at, true};
            if (c == 0x1b) {
                if (i + 1 == size)
                    break;
                if (code(text[i + 1]) == u'\\')
                    return {EscapeSequence::Kind::String, i + 2 - at, true};
                return {EscapeSequence::Kind::String, i - at, true};
            }
        }
        return {EscapeSequence::Kind::String, size - at, false};
    }
    for (; i < size; ++i) {
        const char16_t c = code(text[i]);
        if (within(c, 0x30, 0x7e))
            return {EscapeSequence::Kind::Other, i + 1 - at, true};
        if (!within(c, 0x20, 0x2f))
            return {EscapeSequence::Kind::Other, i - at, true};
    }
    return {EscapeSequence::Kind::Other, size - at, false};
}

} // namespace

EscapeSequence escapeSequenceAt(QByteArrayView text, qsizetype at)
{
    return sequenceAt(text, at);
}

EscapeSequence escapeSequenceAt(QStringView text, qsizetype at)
{
    return sequenceAt(text, at);
}

} // namespace ferry
