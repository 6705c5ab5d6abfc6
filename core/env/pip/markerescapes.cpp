#include "env/pip/marker.h"

#include <QStringView>

#include <algorithm>
#include <array>

using namespace Qt::StringLiterals;

// Python 3.11's reading of a one-line string literal, as ast.literal_eval does it for marker
// values: newlines translated first, a raw newline or an escaped closing quote leave the
// string unterminated, then the escapes are decoded (unknown ones are kept, as Python does).

namespace ferry::env::pep508 {

namespace {

struct CharacterName {
    const char16_t *name;
    char32_t codePoint;
};

// \N{...}: the names and aliases Python knows for U+0000..U+00FF. Other names are reported
// as unsupported rather than guessed.
constexpr CharacterName characterNames[] = {
    // clang-format off
    CharacterName{u"ACK", 0x06},
    CharacterName{u"ACKNOWLEDGE", 0x06},
    CharacterName{u"ACUTE ACCENT", 0xB4},
    CharacterName{u"ALERT", 0x07},
    CharacterName{u"AMPERSAND", 0x26},
    CharacterName{u"APC", 0x9F},
    CharacterName{u"APOSTROPHE", 0x27},
    CharacterName{u"APPLICATION PROGRAM COMMAND", 0x9F},
    CharacterName{u"ASTERISK", 0x2A},
    CharacterName{u"BACKSPACE", 0x08},
    CharacterName{u"BEL", 0x07},
    CharacterName{u"BPH", 0x82},
    CharacterName{u"BREAK PERMITTED HERE", 0x82},
    CharacterName{u"BROKEN BAR", 0xA6},
    CharacterName{u"BS", 0x08},
    CharacterName{u"CAN", 0x18},
    CharacterName{u"CANCEL", 0x18},
    CharacterName{u"CANCEL CHARACTER", 0x94},
    CharacterName{u"CARRIAGE RETURN", 0x0D},
    CharacterName{u"CCH", 0x94},
    CharacterName{u"CEDILLA", 0xB8},
    CharacterName{u"CENT SIGN", 0xA2},
    CharacterName{u"CHARACTER TABULATION", 0x09},
    CharacterName{u"CHARACTER TABULATION SET", 0x88},
    CharacterName{u"CHARACTER TABULATION WITH JUSTIFICATION", 0x89},
    CharacterName{u"CIRCUMFLEX ACCENT", 0x5E},
    CharacterName{u"COLON", 0x3A},
    CharacterName{u"COMMA", 0x2C},
    CharacterName{u"COMMERCIAL AT", 0x40},
    CharacterName{u"CONTROL SEQUENCE INTRODUCER", 0x9B},
    CharacterName{u"COPYRIGHT SIGN", 0xA9},
    CharacterName{u"CR", 0x0D},
    CharacterName{u"CSI", 0x9B},
    CharacterName{u"CURRENCY SIGN", 0xA4},
    CharacterName{u"DATA LINK ESCAPE", 0x10},
    CharacterName{u"DC1", 0x11},
    CharacterName{u"DC2", 0x12},
    CharacterName{u"DC3", 0x13},
    CharacterName{u"DC4", 0x14},
    CharacterName{u"DCS", 0x90},
    CharacterName{u"DEGREE SIGN", 0xB0},
    CharacterName{u"DEL", 0x7F},
    CharacterName{u"DELETE", 0x7F},
    CharacterName{u"DEVICE CONTROL FOUR", 0x14},
    CharacterName{u"DEVICE CONTROL ONE", 0x11},
    CharacterName{u"DEVICE CONTROL STRING", 0x90},
    CharacterName{u"DEVICE CONTROL THREE", 0x13},
    CharacterName{u"DEVICE CONTROL TWO", 0x12},
    CharacterName{u"DIAERESIS", 0xA8},
    CharacterName{u"DIGIT EIGHT", 0x38},
    CharacterName{u"DIGIT FIVE", 0x35},
    CharacterName{u"DIGIT FOUR", 0x34},
    CharacterName{u"DIGIT NINE", 0x39},
    CharacterName{u"DIGIT ONE", 0x31},
    CharacterName{u"DIGIT SEVEN", 0x37},
    CharacterName{u"DIGIT SIX", 0x36},
    CharacterName{u"DIGIT THREE", 0x33},
    CharacterName{u"DIGIT TWO", 0x32},
    CharacterName{u"DIGIT ZERO", 0x30},
    CharacterName{u"DIVISION SIGN", 0xF7},
    CharacterName{u"DLE", 0x10},
    CharacterName{u"DOLLAR SIGN", 0x24},
    CharacterName{u"END OF GUARDED AREA", 0x97},
    CharacterName{u"END OF LINE", 0x0A},
    CharacterName{u"END OF MEDIUM", 0x19},
    CharacterName{u"END OF PROTECTED AREA", 0x97},
    CharacterName{u"END OF SELECTED AREA", 0x87},
    CharacterName{u"END OF TEXT", 0x03},
    CharacterName{u"END OF TRANSMISSION", 0x04},
    CharacterName{u"END OF TRANSMISSION BLOCK", 0x17},
    CharacterName{u"ENQ", 0x05},
    CharacterName{u"ENQUIRY", 0x05},
    CharacterName{u"EOL", 0x0A},
    CharacterName{u"EOM", 0x19},
    CharacterName{u"EOT", 0x04},
    CharacterName{u"EPA", 0x97},
    CharacterName{u"EQUALS SIGN", 0x3D},
    CharacterName{u"ESA", 0x87},
    CharacterName{u"ESC", 0x1B},
    CharacterName{u"ESCAPE", 0x1B},
    CharacterName{u"ETB", 0x17},
    CharacterName{u"ETX", 0x03},
    CharacterName{u"EXCLAMATION MARK", 0x21},
    CharacterName{u"FEMININE ORDINAL INDICATOR", 0xAA},
    CharacterName{u"FF", 0x0C},
    CharacterName{u"FILE SEPARATOR", 0x1C},
    CharacterName{u"FORM FEED", 0x0C},
    CharacterName{u"FS", 0x1C},
    CharacterName{u"FULL STOP", 0x2E},
    CharacterName{u"GRAVE ACCENT", 0x60},
    CharacterName{u"GREATER-THAN SIGN", 0x3E},
    CharacterName{u"GROUP SEPARATOR", 0x1D},
    CharacterName{u"GS", 0x1D},
    CharacterName{u"HIGH OCTET PRESET", 0x81},
    CharacterName{u"HOP", 0x81},
    CharacterName{u"HORIZONTAL TABULATION", 0x09},
    CharacterName{u"HORIZONTAL TABULATION SET", 0x88},
    CharacterName{u"HORIZONTAL TABULATION WITH JUSTIFICATION", 0x89},
    CharacterName{u"HT", 0x09},
    CharacterName{u"HTJ", 0x89},
    CharacterName{u"HTS", 0x88},
    CharacterName{u"HYPHEN-MINUS", 0x2D},
    CharacterName{u"IND", 0x84},
    CharacterName{u"INDEX", 0x84},
    CharacterName{u"INFORMATION SEPARATOR FOUR", 0x1C},
    CharacterName{u"INFORMATION SEPARATOR ONE", 0x1F},
    CharacterName{u"INFORMATION SEPARATOR THREE", 0x1D},
    CharacterName{u"INFORMATION SEPARATOR TWO", 0x1E},
    CharacterName{u"INVERTED EXCLAMATION MARK", 0xA1},
    CharacterName{u"INVERTED QUESTION MARK", 0xBF},
    CharacterName{u"LATIN CAPITAL LETTER A", 0x41},
    CharacterName{u"LATIN CAPITAL LETTER A WITH ACUTE", 0xC1},
    CharacterName{u"LATIN CAPITAL LETTER A WITH CIRCUMFLEX", 0xC2},
    CharacterName{u"LATIN CAPITAL LETTER A WITH DIAERESIS", 0xC4},
    CharacterName{u"LATIN CAPITAL LETTER A WITH GRAVE", 0xC0},
    CharacterName{u"LATIN CAPITAL LETTER A WITH RING ABOVE", 0xC5},
    CharacterName{u"LATIN CAPITAL LETTER A WITH TILDE", 0xC3},
    CharacterName{u"LATIN CAPITAL LETTER AE", 0xC6},
    CharacterName{u"LATIN CAPITAL LETTER B", 0x42},
    CharacterName{u"LATIN CAPITAL LETTER C", 0x43},
    CharacterName{u"LATIN CAPITAL LETTER C WITH CEDILLA", 0xC7},
    CharacterName{u"LATIN CAPITAL LETTER D", 0x44},
    CharacterName{u"LATIN CAPITAL LETTER E", 0x45},
    CharacterName{u"LATIN CAPITAL LETTER E WITH ACUTE", 0xC9},
    CharacterName{u"LATIN CAPITAL LETTER E WITH CIRCUMFLEX", 0xCA},
    CharacterName{u"LATIN CAPITAL LETTER E WITH DIAERESIS", 0xCB},
    CharacterName{u"LATIN CAPITAL LETTER E WITH GRAVE", 0xC8},
    CharacterName{u"LATIN CAPITAL LETTER ETH", 0xD0},
    CharacterName{u"LATIN CAPITAL LETTER F", 0x46},
    CharacterName{u"LATIN CAPITAL LETTER G", 0x47},
    CharacterName{u"LATIN CAPITAL LETTER H", 0x48},
    CharacterName{u"LATIN CAPITAL LETTER I", 0x49},
    CharacterName{u"LATIN CAPITAL LETTER I WITH ACUTE", 0xCD},
    CharacterName{u"LATIN CAPITAL LETTER I WITH CIRCUMFLEX", 0xCE},
    CharacterName{u"LATIN CAPITAL LETTER I WITH DIAERESIS", 0xCF},
    CharacterName{u"LATIN CAPITAL LETTER I WITH GRAVE", 0xCC},
    CharacterName{u"LATIN CAPITAL LETTER J", 0x4A},
    CharacterName{u"LATIN CAPITAL LETTER K", 0x4B},
    CharacterName{u"LATIN CAPITAL LETTER L", 0x4C},
    CharacterName{u"LATIN CAPITAL LETTER M", 0x4D},
    CharacterName{u"LATIN CAPITAL LETTER N", 0x4E},
    CharacterName{u"LATIN CAPITAL LETTER N WITH TILDE", 0xD1},
    CharacterName{u"LATIN CAPITAL LETTER O", 0x4F},
    CharacterName{u"LATIN CAPITAL LETTER O WITH ACUTE", 0xD3},
    CharacterName{u"LATIN CAPITAL LETTER O WITH CIRCUMFLEX", 0xD4},
    CharacterName{u"LATIN CAPITAL LETTER O WITH DIAERESIS", 0xD6},
    CharacterName{u"LATIN CAPITAL LETTER O WITH GRAVE", 0xD2},
    CharacterName{u"LATIN CAPITAL LETTER O WITH STROKE", 0xD8},
    CharacterName{u"LATIN CAPITAL LETTER O WITH TILDE", 0xD5},
    CharacterName{u"LATIN CAPITAL LETTER P", 0x50},
    CharacterName{u"LATIN CAPITAL LETTER Q", 0x51},
    CharacterName{u"LATIN CAPITAL LETTER R", 0x52},
    CharacterName{u"LATIN CAPITAL LETTER S", 0x53},
    CharacterName{u"LATIN CAPITAL LETTER T", 0x54},
    CharacterName{u"LATIN CAPITAL LETTER THORN", 0xDE},
    CharacterName{u"LATIN CAPITAL LETTER U", 0x55},
    CharacterName{u"LATIN CAPITAL LETTER U WITH ACUTE", 0xDA},
    CharacterName{u"LATIN CAPITAL LETTER U WITH CIRCUMFLEX", 0xDB},
    CharacterName{u"LATIN CAPITAL LETTER U WITH DIAERESIS", 0xDC},
    CharacterName{u"LATIN CAPITAL LETTER U WITH GRAVE", 0xD9},
    CharacterName{u"LATIN CAPITAL LETTER V", 0x56},
    CharacterName{u"LATIN CAPITAL LETTER W", 0x57},
    CharacterName{u"LATIN CAPITAL LETTER X", 0x58},
    CharacterName{u"LATIN CAPITAL LETTER Y", 0x59},
    CharacterName{u"LATIN CAPITAL LETTER Y WITH ACUTE", 0xDD},
    CharacterName{u"LATIN CAPITAL LETTER Z", 0x5A},
    CharacterName{u"LATIN SMALL LETTER A", 0x61},
    CharacterName{u"LATIN SMALL LETTER A WITH ACUTE", 0xE1},
    CharacterName{u"LATIN SMALL LETTER A WITH CIRCUMFLEX", 0xE2},
    CharacterName{u"LATIN SMALL LETTER A WITH DIAERESIS", 0xE4},
    CharacterName{u"LATIN SMALL LETTER A WITH GRAVE", 0xE0},
    CharacterName{u"LATIN SMALL LETTER A WITH RING ABOVE", 0xE5},
    CharacterName{u"LATIN SMALL LETTER A WITH TILDE", 0xE3},
    CharacterName{u"LATIN SMALL LETTER AE", 0xE6},
    CharacterName{u"LATIN SMALL LETTER B", 0x62},
    CharacterName{u"LATIN SMALL LETTER C", 0x63},
    CharacterName{u"LATIN SMALL LETTER C WITH CEDILLA", 0xE7},
    CharacterName{u"LATIN SMALL LETTER D", 0x64},
    CharacterName{u"LATIN SMALL LETTER E", 0x65},
    CharacterName{u"LATIN SMALL LETTER E WITH ACUTE", 0xE9},
    CharacterName{u"LATIN SMALL LETTER E WITH CIRCUMFLEX", 0xEA},
    CharacterName{u"LATIN SMALL LETTER E WITH DIAERESIS", 0xEB},
    CharacterName{u"LATIN SMALL LETTER E WITH GRAVE", 0xE8},
    CharacterName{u"LATIN SMALL LETTER ETH", 0xF0},
    CharacterName{u"LATIN SMALL LETTER F", 0x66},
    CharacterName{u"LATIN SMALL LETTER G", 0x67},
    CharacterName{u"LATIN SMALL LETTER H", 0x68},
    CharacterName{u"LATIN SMALL LETTER I", 0x69},
    CharacterName{u"LATIN SMALL LETTER I WITH ACUTE", 0xED},
    CharacterName{u"LATIN SMALL LETTER I WITH CIRCUMFLEX", 0xEE},
    CharacterName{u"LATIN SMALL LETTER I WITH DIAERESIS", 0xEF},
    CharacterName{u"LATIN SMALL LETTER I WITH GRAVE", 0xEC},
    CharacterName{u"LATIN SMALL LETTER J", 0x6A},
    CharacterName{u"LATIN SMALL LETTER K", 0x6B},
    CharacterName{u"LATIN SMALL LETTER L", 0x6C},
    CharacterName{u"LATIN SMALL LETTER M", 0x6D},
    CharacterName{u"LATIN SMALL LETTER N", 0x6E},
    CharacterName{u"LATIN SMALL LETTER N WITH TILDE", 0xF1},
    CharacterName{u"LATIN SMALL LETTER O", 0x6F},
    CharacterName{u"LATIN SMALL LETTER O WITH ACUTE", 0xF3},
    CharacterName{u"LATIN SMALL LETTER O WITH CIRCUMFLEX", 0xF4},
    CharacterName{u"LATIN SMALL LETTER O WITH DIAERESIS", 0xF6},
    CharacterName{u"LATIN SMALL LETTER O WITH GRAVE", 0xF2},
    CharacterName{u"LATIN SMALL LETTER O WITH STROKE", 0xF8},
    CharacterName{u"LATIN SMALL LETTER O WITH TILDE", 0xF5},
    CharacterName{u"LATIN SMALL LETTER P", 0x70},
    CharacterName{u"LATIN SMALL LETTER Q", 0x71},
    CharacterName{u"LATIN SMALL LETTER R", 0x72},
    CharacterName{u"LATIN SMALL LETTER S", 0x73},
    CharacterName{u"LATIN SMALL LETTER SHARP S", 0xDF},
    CharacterName{u"LATIN SMALL LETTER T", 0x74},
    CharacterName{u"LATIN SMALL LETTER THORN", 0xFE},
    CharacterName{u"LATIN SMALL LETTER U", 0x75},
    CharacterName{u"LATIN SMALL LETTER U WITH ACUTE", 0xFA},
    CharacterName{u"LATIN SMALL LETTER U WITH CIRCUMFLEX", 0xFB},
    CharacterName{u"LATIN SMALL LETTER U WITH DIAERESIS", 0xFC},
    CharacterName{u"LATIN SMALL LETTER U WITH GRAVE", 0xF9},
    CharacterName{u"LATIN SMALL LETTER V", 0x76},
    CharacterName{u"LATIN SMALL LETTER W", 0x77},
    CharacterName{u"LATIN SMALL LETTER X", 0x78},
    CharacterName{u"LATIN SMALL LETTER Y", 0x79},
    CharacterName{u"LATIN SMALL LETTER Y WITH ACUTE", 0xFD},
    CharacterName{u"LATIN SMALL LETTER Y WITH DIAERESIS", 0xFF},
    CharacterName{u"LATIN SMALL LETTER Z", 0x7A},
    CharacterName{u"LEFT CURLY BRACKET", 0x7B},
    CharacterName{u"LEFT PARENTHESIS", 0x28},
    CharacterName{u"LEFT SQUARE BRACKET", 0x5B},
    CharacterName{u"LEFT-POINTING DOUBLE ANGLE QUOTATION MARK", 0xAB},
    CharacterName{u"LESS-THAN SIGN", 0x3C},
    CharacterName{u"LF", 0x0A},
    CharacterName{u"LINE FEED", 0x0A},
    CharacterName{u"LINE TABULATION", 0x0B},
    CharacterName{u"LINE TABULATION SET", 0x8A},
    CharacterName{u"LOCKING-SHIFT ONE", 0x0E},
    CharacterName{u"LOCKING-SHIFT ZERO", 0x0F},
    CharacterName{u"LOW LINE", 0x5F},
    CharacterName{u"MACRON", 0xAF},
    CharacterName{u"MASCULINE ORDINAL INDICATOR", 0xBA},
    CharacterName{u"MESSAGE WAITING", 0x95},
    CharacterName{u"MICRO SIGN", 0xB5},
    CharacterName{u"MIDDLE DOT", 0xB7},
    CharacterName{u"MULTIPLICATION SIGN", 0xD7},
    CharacterName{u"MW", 0x95},
    CharacterName{u"NAK", 0x15},
    CharacterName{u"NBH", 0x83},
    CharacterName{u"NBSP", 0xA0},
    CharacterName{u"NEGATIVE ACKNOWLEDGE", 0x15},
    CharacterName{u"NEL", 0x85},
    CharacterName{u"NEW LINE", 0x0A},
    CharacterName{u"NEXT LINE", 0x85},
    CharacterName{u"NL", 0x0A},
    CharacterName{u"NO BREAK HERE", 0x83},
    CharacterName{u"NO-BREAK SPACE", 0xA0},
    CharacterName{u"NOT SIGN", 0xAC},
    CharacterName{u"NUL", 0x00},
    CharacterName{u"NULL", 0x00},
    CharacterName{u"NUMBER SIGN", 0x23},
    CharacterName{u"OPERATING SYSTEM COMMAND", 0x9D},
    CharacterName{u"OSC", 0x9D},
    CharacterName{u"PAD", 0x80},
    CharacterName{u"PADDING CHARACTER", 0x80},
    CharacterName{u"PARTIAL LINE BACKWARD", 0x8C},
    CharacterName{u"PARTIAL LINE DOWN", 0x8B},
    CharacterName{u"PARTIAL LINE FORWARD", 0x8B},
    CharacterName{u"PARTIAL LINE UP", 0x8C},
    CharacterName{u"PERCENT SIGN", 0x25},
    CharacterName{u"PILCROW SIGN", 0xB6},
    CharacterName{u"PLD", 0x8B},
    CharacterName{u"PLU", 0x8C},
    CharacterName{u"PLUS SIGN", 0x2B},
    CharacterName{u"PLUS-MINUS SIGN", 0xB1},
    CharacterName{u"PM", 0x9E},
    CharacterName{u"POUND SIGN", 0xA3},
    CharacterName{u"PRIVACY MESSAGE", 0x9E},
    CharacterName{u"PRIVATE USE ONE", 0x91},
    CharacterName{u"PRIVATE USE TWO", 0x92},
    CharacterName{u"PRIVATE USE-1", 0x91},
    CharacterName{u"PRIVATE USE-2", 0x92},
    CharacterName{u"PU1", 0x91},
    CharacterName{u"PU2", 0x92},
    CharacterName{u"QUESTION MARK", 0x3F},
    CharacterName{u"QUOTATION MARK", 0x22},
    CharacterName{u"RECORD SEPARATOR", 0x1E},
    CharacterName{u"REGISTERED SIGN", 0xAE},
    CharacterName{u"REVERSE INDEX", 0x8D},
    CharacterName{u"REVERSE LINE FEED", 0x8D},
    CharacterName{u"REVERSE SOLIDUS", 0x5C},
    CharacterName{u"RI", 0x8D},
    CharacterName{u"RIGHT CURLY BRACKET", 0x7D},
    CharacterName{u"RIGHT PARENTHESIS", 0x29},
    CharacterName{u"RIGHT SQUARE BRACKET", 0x5D},
    CharacterName{u"RIGHT-POINTING DOUBLE ANGLE QUOTATION MARK", 0xBB},
    CharacterName{u"RS", 0x1E},
    CharacterName{u"SCI", 0x9A},
    CharacterName{u"SECTION SIGN", 0xA7},
    CharacterName{u"SEMICOLON", 0x3B},
    CharacterName{u"SET TRANSMIT STATE", 0x93},
    CharacterName{u"SGC", 0x99},
    CharacterName{u"SHIFT IN", 0x0F},
    CharacterName{u"SHIFT OUT", 0x0E},
    CharacterName{u"SHY", 0xAD},
    CharacterName{u"SI", 0x0F},
    CharacterName{u"SINGLE CHARACTER INTRODUCER", 0x9A},
    CharacterName{u"SINGLE GRAPHIC CHARACTER INTRODUCER", 0x99},
    CharacterName{u"SINGLE SHIFT THREE", 0x8F},
    CharacterName{u"SINGLE SHIFT TWO", 0x8E},
    CharacterName{u"SINGLE-SHIFT-2", 0x8E},
    CharacterName{u"SINGLE-SHIFT-3", 0x8F},
    CharacterName{u"SO", 0x0E},
    CharacterName{u"SOFT HYPHEN", 0xAD},
    CharacterName{u"SOH", 0x01},
    CharacterName{u"SOLIDUS", 0x2F},
    CharacterName{u"SOS", 0x98},
    CharacterName{u"SP", 0x20},
    CharacterName{u"SPA", 0x96},
    CharacterName{u"SPACE", 0x20},
    CharacterName{u"SS2", 0x8E},
    CharacterName{u"SS3", 0x8F},
    CharacterName{u"SSA", 0x86},
    CharacterName{u"ST", 0x9C},
    CharacterName{u"START OF GUARDED AREA", 0x96},
    CharacterName{u"START OF HEADING", 0x01},
    CharacterName{u"START OF PROTECTED AREA", 0x96},
    CharacterName{u"START OF SELECTED AREA", 0x86},
    CharacterName{u"START OF STRING", 0x98},
    CharacterName{u"START OF TEXT", 0x02},
    CharacterName{u"STRING TERMINATOR", 0x9C},
    CharacterName{u"STS", 0x93},
    CharacterName{u"STX", 0x02},
    CharacterName{u"SUB", 0x1A},
    CharacterName{u"SUBSTITUTE", 0x1A},
    CharacterName{u"SUPERSCRIPT ONE", 0xB9},
    CharacterName{u"SUPERSCRIPT THREE", 0xB3},
    CharacterName{u"SUPERSCRIPT TWO", 0xB2},
    CharacterName{u"SYN", 0x16},
    CharacterName{u"SYNCHRONOUS IDLE", 0x16},
    CharacterName{u"TAB", 0x09},
    CharacterName{u"TILDE", 0x7E},
    CharacterName{u"UNIT SEPARATOR", 0x1F},
    CharacterName{u"US", 0x1F},
    CharacterName{u"VERTICAL LINE", 0x7C},
    CharacterName{u"VERTICAL TABULATION", 0x0B},
    CharacterName{u"VERTICAL TABULATION SET", 0x8A},
    CharacterName{u"VT", 0x0B},
    CharacterName{u"VTS", 0x8A},
    CharacterName{u"VULGAR FRACTION ONE HALF", 0xBD},
    CharacterName{u"VULGAR FRACTION ONE QUARTER", 0xBC},
    CharacterName{u"VULGAR FRACTION THREE QUARTERS", 0xBE},
    CharacterName{u"YEN SIGN", 0xA5}
    // clang-format on
};

int hexDigit(QChar c)
{
    if (c >= u'0' && c <= u'9')
        return c.unicode() - u'0';
    if (c >= u'a' && c <= u'f')
        return c.unicode() - u'a' + 10;
    if (c >= u'A' && c <= u'F')
        return c.unicode() - u'A' + 10;
    return -1;
}

bool isOctal(QChar c)
{
    return c >= u'0' && c <= u'7';
}

void appendCodePoint(QString &out, char32_t c)
{
    if (c < 0x10000)
        out += QChar(static_cast<char16_t>(c)); // lone surrogates stay lone, as in Python
    else
        out += QString::fromUcs4(&c, 1);
}

// `count` hex digits at `pos`, or nothing.
std::optional<char32_t> hexValue(QStringView text, qsizetype pos, qsizetype count)
{
    if (pos + count > text.size())
        return std::nullopt;
    char32_t value = 0;
    for (qsizetype i = pos; i < pos + count; ++i) {
        const int digit = hexDigit(text.at(i));
        if (digit < 0)
            return std::nullopt;
        value = value * 16 + static_cast<char32_t>(digit);
    }
    return value;
}

QString unicodeError(const QString &what)
{
    return u"(unicode error) 'unicodeescape' codec can't decode bytes: "_s + what;
}

// Tokenizing: whether the literal's content (its quotes taken off) ends before its closing
// quote, at a line break or with a backslash that escapes that quote.
bool unterminated(const QString &content)
{
    for (qsizetype i = 0; i < content.size(); ++i) {
        if (content.at(i) == u'\\') {
            if (i + 1 == content.size())
                return true; // the backslash escapes the closing quote
            ++i;
        } else if (content.at(i) == u'\n') {
            return true;
        }
    }
    return false;
}

// The character a one-letter escape stands for (\\ \' \" \a \b \f \n \r \t \v), or nothing.
std::optional<QChar> simpleEscape(QChar e)
{
    switch (e.unicode()) {
    case u'\\':
    case u'\'':
    case u'"':
        return e;
    case u'a':
        return QChar(0x07);
    case u'b':
        return QChar(0x08);
    case u'f':
        return QChar(0x0c);
    case u'n':
        return QChar(0x0a);
    case u'r':
        return QChar(0x0d);
    case u't':
        return QChar(0x09);
    case u'v':
        return QChar(0x0b);
    default:
        return std::nullopt;
    }
}

} // namespace

std::optional<QString> evaluateStringLiteral(const QString &token, QString *error)
{
    const auto fail = [&](const QString &message) -> std::optional<QString> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    if (token.contains(QChar(0)))
        return fail(u"source code string cannot contain null bytes"_s);
    QString content = token.sliced(1, token.size() - 2);
    content.replace(u"\r\n"_s, u"\n"_s).replace(u'\r', u'\n');

    if (unterminated(content))
        return fail(u"unterminated string literal"_s);

    QString value;
    for (qsizetype i = 0; i < content.size();) {
        const QChar c = content.at(i);
        if (c != u'\\') {
            value += c;
            ++i;
            continue;
        }
        const QChar e = content.at(i + 1);
        i += 2;
        if (e == u'\n')
            continue; // a backslash before a line break joins the lines
        if (const std::optional<QChar> simple = simpleEscape(e)) {
            value += *simple;
            continue;
        }
        switch (e.unicode()) {
        case u'x':
        case u'u':
        case u'U': {
            const qsizetype digits = e == u'x' ? 2 : e == u'u' ? 4 : 8;
            const std::optional<char32_t> code = hexValue(content, i, digits);
            if (!code) {
                return fail(unicodeError(e == u'x'   ? u"truncated \\xXX escape"_s
                                         : e == u'u' ? u"truncated \\uXXXX escape"_s
                                                     : u"truncated \\UXXXXXXXX escape"_s));
            }
            if (*code > 0x10ffff)
                return fail(unicodeError(u"illegal Unicode character"_s));
            appendCodePoint(value, *code);
            i += digits;
            break;
        }
        case u'N': {
            const qsizetype close = content.indexOf(u'}', i);
            if (i >= content.size() || content.at(i) != u'{' || close < 0 || close == i + 1)
                return fail(unicodeError(u"malformed \\N character escape"_s));
            const QString name = content.sliced(i + 1, close - i - 1).toUpper();
            const auto found = std::find_if(std::begin(characterNames), std::end(characterNames),
                                            [&](const CharacterName &n) { return QStringView(n.name) == name; });
            if (found == std::end(characterNames)) {
                return fail(unicodeError(u"unknown Unicode character name (Ferry knows the names of "
                                         "U+0000..U+00FF only; write \\x or \\u escapes instead)"_s));
            }
            appendCodePoint(value, found->codePoint);
            i = close + 1;
            break;
        }
        default:
            if (isOctal(e)) {
                char32_t code = static_cast<char32_t>(e.unicode() - u'0');
                for (int n = 0; n < 2 && i < content.size() && isOctal(content.at(i)); ++n, ++i)
                    code = code * 8 + static_cast<char32_t>(content.at(i).unicode() - u'0');
                appendCodePoint(value, code);
            } else {
                value += u'\\';
                value += e; // Python keeps unknown escapes (with a DeprecationWarning)
            }
        }
    }
    return value;
}

} // namespace ferry::env::pep508
