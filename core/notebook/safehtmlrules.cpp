// The allow-lists of safe HTML: the elements and attributes kept, the checks of their values, and
// the escaping of text (safehtmlrules.h).
#include "notebook/safehtmlrules.h"

#include <QHash>
#include <QStringList>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::notebook::safehtml {

namespace {

bool isAsciiAlnum(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
}

bool isHexDigit(QChar c)
{
    return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
}

bool allOf(QStringView text, bool (*accept)(QChar))
{
    return std::all_of(text.begin(), text.end(), accept);
}

// A character a numeric reference may stand for: not NUL, a control but tab and newlines, or a
// surrogate.
bool isReferable(char32_t c)
{
    if (c == u'\t' || c == u'\n' || c == u'\r')
        return true;
    return c >= 0x20 && !(c >= 0x7f && c < 0xa0) && !(c >= 0xd800 && c < 0xe000) && c <= 0x10ffff;
}

bool startsWith(QStringView text, QLatin1StringView prefix)
{
    return text.startsWith(prefix, Qt::CaseInsensitive);
}

std::optional<QString> linkTarget(QStringView value)
{
    const QString url = trimmedUrl(decoded(value)).toString();
    if (std::any_of(url.begin(), url.end(), [](QChar c) { return c.unicode() < 0x20 || c.unicode() == 0x7f; }))
        return std::nullopt;
    const QString scheme = schemeOf(url);
    if (scheme == u"http"_s || scheme == u"https"_s || scheme == u"mailto"_s || url.startsWith(u'#'))
        return url;
    return std::nullopt;
}

// A style's declarations that only colour, align, space and size text: a property of the list
// and a value of plain words, numbers (4 digits at most), #colours and rgb(); nothing that loads.
std::optional<QString> plainStyle(QStringView value)
{
    static const QStringList properties =
        QString::fromLatin1(
            "color background-color text-align vertical-align font-weight font-style font-size font-family "
            "text-decoration white-space width height padding padding-left padding-right padding-top "
            "padding-bottom margin margin-left margin-right margin-top margin-bottom border border-width "
            "border-style border-color border-collapse border-spacing")
            .split(u' ');
    const QString text = decoded(value);
    QStringList kept;
    for (const QStringView declaration : QStringView(text).split(u';')) {
        const qsizetype colon = declaration.indexOf(u':');
        if (colon < 0)
            continue;
        const QString property = declaration.first(colon).trimmed().toString().toLower();
        const QStringView v = declaration.sliced(colon + 1).trimmed();
        if (!properties.contains(property) || v.isEmpty())
            continue;
        bool plain = true;
        qsizetype digits = 0;
        for (const QChar c : v) {
            digits = c.isDigit() ? digits + 1 : 0;
            if (digits > 4 || !(isAsciiAlnum(c) || c == u' ' || c == u'#' || c == u'%' || c == u'.' || c == u',' ||
                                c == u'-' || c == u'(' || c == u')'))
                plain = false;
        }
        if (v.contains(u'(') && !startsWith(v, "rgb("_L1) && !startsWith(v, "rgba("_L1))
            plain = false;
        // Not even the words of what loads or runs, parentheses or not.
        for (const QLatin1StringView word : {"url"_L1, "expression"_L1, "image"_L1})
            plain = plain && !v.contains(word, Qt::CaseInsensitive);
        if (plain)
            kept << property + u": "_s + v.toString();
    }
    if (kept.isEmpty())
        return std::nullopt;
    return kept.join(u"; "_s);
}

bool isNameCharacter(QChar c)
{
    return isAsciiAlnum(c) || c == u'_' || c == u':' || c == u'.' || c == u'-';
}

bool isDigitCharacter(QChar c)
{
    return c >= u'0' && c <= u'9';
}

bool oneOf(QStringView value, const char *words)
{
    for (const QString &word : QString::fromLatin1(words).split(u' ')) {
        if (value.compare(word, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

} // namespace

const ElementRule *elementRule(const QString &lowerName)
{
    static const QHash<QString, ElementRule> rules = [] {
        QHash<QString, ElementRule> table;
        const auto add = [&table](const char *names, Treatment treatment, bool visible) {
            for (const QString &name : QString::fromLatin1(names).split(u' '))
                table.insert(name, {name, treatment, visible});
        };
        add("table caption colgroup thead tbody tfoot tr th td p b i u s del ins em strong small "
            "code pre tt kbd samp var span div h1 h2 h3 h4 h5 h6 ul ol li dl dt dd blockquote a sub sup",
            Treatment::Keep, true);
        add("br hr img col", Treatment::KeepVoid, true);
        add("object applet form button select datalist svg math template audio video canvas map "
            "frameset dialog",
            Treatment::Drop, true);
        add("script iframe noembed noframes noscript textarea xmp plaintext", Treatment::DropRawText, true);
        add("style title", Treatment::DropRawText, false);
        add("embed input keygen frame source track area", Treatment::DropVoid, true);
        add("link meta base param wbr", Treatment::DropVoid, false);
        return table;
    }();
    const auto it = rules.constFind(lowerName);
    return it == rules.constEnd() ? nullptr : &*it;
}

std::optional<Value> attributeRule(QStringView element, QStringView attribute)
{
    static const QHash<QString, Value> rules = [] {
        QHash<QString, Value> table;
        const auto add = [&table](const char *elements, const char *attributes, Value value) {
            for (const QString &e : QString::fromLatin1(elements).split(u' ')) {
                for (const QString &a : QString::fromLatin1(attributes).split(u' '))
                    table.insert(e + u'/' + a, value);
            }
        };
        add("*", "class title", Value::Text);
        add("*", "id lang", Value::Name);
        add("*", "dir", Value::Dir);
        add("*", "style", Value::Style);
        add("a", "href", Value::Href);
        add("a", "name", Value::Name);
        add("img", "src", Value::Src);
        add("img", "alt", Value::Text);
        add("img table td th col colgroup hr", "width", Value::Length);
        add("img td th", "height", Value::Length);
        add("td th", "rowspan colspan", Value::Span);
        add("col colgroup", "span", Value::Span);
        add("table", "border cellpadding cellspacing", Value::Size);
        add("table tr td th", "bgcolor", Value::Color);
        add("table tr td th thead tbody tfoot col colgroup p div h1 h2 h3 h4 h5 h6 caption hr", "align", Value::Align);
        add("tr td th thead tbody tfoot col colgroup", "valign", Value::VAlign);
        add("ol", "start", Value::Number);
        add("li", "value", Value::Number);
        add("ol ul li", "type", Value::ListType);
        return table;
    }();
    const QString name = attribute.toString().toLower();
    if (const auto it = rules.constFind(u"*/"_s + name); it != rules.constEnd())
        return *it;
    if (const auto it = rules.constFind(element.toString() + u'/' + name); it != rules.constEnd())
        return *it;
    return std::nullopt;
}

// The length of the character reference at text[at] ('&'): "&name;", "&#123;", "&#x1f;"; 0 when
// there is none (the '&' is then a character of its own).
qsizetype referenceLength(QStringView text, qsizetype at, char32_t *code)
{
    qsizetype i = at + 1;
    const qsizetype size = text.size();
    if (i < size && text[i] == u'#') {
        ++i;
        const bool hex = i < size && (text[i] == u'x' || text[i] == u'X');
        if (hex)
            ++i;
        const qsizetype digits = i;
        char32_t value = 0;
        while (i < size && i - digits < 8 && (hex ? isHexDigit(text[i]) : text[i].isDigit())) {
            const char16_t c = text[i].unicode();
            value = value * (hex ? 16 : 10) + (c <= u'9' ? c - u'0' : (c | 0x20) - u'a' + 10);
            ++i;
        }
        if (i == digits || i >= size || text[i] != u';' || !isReferable(value))
            return 0;
        if (code != nullptr)
            *code = value;
        return i + 1 - at;
    }
    if (i >= size || !text[i].isLetter() || text[i].unicode() > 0x7f)
        return 0;
    while (i < size && i - at <= 32 && isAsciiAlnum(text[i]))
        ++i;
    if (i >= size || text[i] != u';')
        return 0;
    if (code != nullptr)
        *code = 0;
    return i + 1 - at;
}

// Text or an attribute's value as HTML: well-formed character references kept (the document
// decodes them as text, never as markup), '<', '>', '"' and any other '&' escaped, control
// characters but tab and newlines dropped.
void appendEscaped(QString &out, QStringView text)
{
    qsizetype from = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        QLatin1StringView replacement;
        switch (c) {
        case u'&':
            if (const qsizetype length = referenceLength(text, i); length > 0) {
                i += length - 1;
                continue;
            }
            replacement = "&amp;"_L1;
            break;
        case u'<':
            replacement = "&lt;"_L1;
            break;
        case u'>':
            replacement = "&gt;"_L1;
            break;
        case u'"':
            replacement = "&quot;"_L1;
            break;
        default:
            if ((c >= 0x20 && c != 0x7f) || c == u'\t' || c == u'\n' || c == u'\r')
                continue;
            break; // a control character: dropped
        }
        out.append(text.sliced(from, i - from));
        out.append(replacement);
        from = i + 1;
    }
    out.append(text.sliced(from));
}

// An attribute's value as the document reads it: numeric references and the named ones a URL or
// a style may hide behind decoded; any other '&' stays itself (as the sanitized output, escaped
// in full, says to the document).
QString decoded(QStringView value)
{
    if (!value.contains(u'&'))
        return value.toString();
    static const QHash<QString, QString> named = {
        {u"amp"_s, u"&"_s},      {u"lt"_s, u"<"_s},     {u"gt"_s, u">"_s},     {u"quot"_s, u"\""_s},
        {u"apos"_s, u"'"_s},     {u"colon"_s, u":"_s},  {u"sol"_s, u"/"_s},    {u"tab"_s, u"\t"_s},
        {u"newline"_s, u"\n"_s}, {u"lpar"_s, u"("_s},   {u"rpar"_s, u")"_s},   {u"period"_s, u"."_s},
        {u"comma"_s, u","_s},    {u"semi"_s, u";"_s},   {u"num"_s, u"#"_s},    {u"nbsp"_s, QString(QChar(0xa0))},
        {u"bsol"_s, u"\\"_s},    {u"equals"_s, u"="_s}, {u"percnt"_s, u"%"_s}, {u"excl"_s, u"!"_s}};
    QString result;
    result.reserve(value.size());
    for (qsizetype i = 0; i < value.size(); ++i) {
        char32_t code = 0;
        const qsizetype length = value[i] == u'&' ? referenceLength(value, i, &code) : 0;
        if (length == 0) {
            result += value[i];
            continue;
        }
        if (code != 0) {
            result += QString::fromUcs4(&code, 1);
        } else {
            const auto it = named.constFind(value.sliced(i + 1, length - 2).toString().toLower());
            if (it == named.constEnd()) {
                result += value[i];
                continue;
            }
            result += *it;
        }
        i += length - 1;
    }
    return result;
}

// The value without the spaces and control characters around it (as a URL is read).
QStringView trimmedUrl(QStringView url)
{
    while (!url.isEmpty() && url.front().unicode() <= 0x20)
        url = url.sliced(1);
    while (!url.isEmpty() && url.back().unicode() <= 0x20)
        url.chop(1);
    return url;
}

// An inline image's URL without the spaces its base64 may hold; nothing when it is no inline image.
std::optional<QString> inlineImage(QStringView url, qsizetype limit)
{
    url = trimmedUrl(url);
    if (url.size() > limit)
        return std::nullopt;
    static const QLatin1StringView kinds[] = {"data:image/png;base64,"_L1, "data:image/jpeg;base64,"_L1,
                                              "data:image/gif;base64,"_L1};
    const auto kind = std::find_if(std::begin(kinds), std::end(kinds),
                                   [url](QLatin1StringView prefix) { return startsWith(url, prefix); });
    if (kind == std::end(kinds))
        return std::nullopt;
    QString result = QString(*kind).toLower();
    result.reserve(url.size());
    for (const QChar c : url.sliced(kind->size())) {
        if (isAsciiAlnum(c) || c == u'+' || c == u'/' || c == u'=')
            result += c;
        else if (c != u' ' && c != u'\t' && c != u'\n' && c != u'\r' && c != u'\f')
            return std::nullopt;
    }
    return result;
}

// A URL's scheme ("https", "file"), empty for a relative one.
QString schemeOf(QStringView url)
{
    if (url.isEmpty() || !url.front().isLetter() || url.front().unicode() > 0x7f)
        return {};
    for (qsizetype i = 1; i < url.size() && i < 32; ++i) {
        const QChar c = url[i];
        if (c == u':')
            return url.first(i).toString().toLower();
        if (!isAsciiAlnum(c) && c != u'+' && c != u'-' && c != u'.')
            return {};
    }
    return {};
}

// An attribute's value as written out (escaped), or nothing when it is left out.
std::optional<QString> checkedValue(Value kind, QStringView value, const SafeHtmlLimits &limits)
{
    if (kind != Value::Src && value.size() > limits.attributeLength)
        return std::nullopt;
    QString out;
    const auto number = [&](int low, int high) -> std::optional<QString> {
        const QStringView v = value.trimmed();
        if (v.isEmpty() || v.size() > 9 || !allOf(v, isDigitCharacter))
            return std::nullopt;
        return QString::number(std::clamp(v.toInt(), low, high));
    };
    switch (kind) {
    case Value::Text:
        appendEscaped(out, value);
        return out;
    case Value::Name:
        if (value.isEmpty() || value.size() > 128 || !allOf(value, isNameCharacter))
            return std::nullopt;
        return value.toString();
    case Value::Span:
        return number(1, 1000);
    case Value::Size:
        return number(0, 100);
    case Value::Number:
        return number(0, 999999);
    case Value::Length: {
        QStringView v = value.trimmed();
        QString unit;
        if (v.endsWith(u'%')) {
            unit = u"%"_s;
            v.chop(1);
        } else if (v.endsWith(u"px"_s, Qt::CaseInsensitive)) {
            v.chop(2);
        }
        if (v.isEmpty() || v.size() > 4 || !allOf(v, isDigitCharacter))
            return std::nullopt;
        return v.toString() + unit;
    }
    case Value::Color: {
        const QStringView v = value.trimmed();
        const bool hex = v.size() >= 4 && v.size() <= 9 && v.front() == u'#' && allOf(v.sliced(1), isHexDigit);
        const bool word =
            !v.isEmpty() && v.size() <= 20 && allOf(v, [](QChar c) { return c.isLetter() && c.unicode() < 0x80; });
        if (!hex && !word)
            return std::nullopt;
        return v.toString();
    }
    case Value::Align:
        return oneOf(value, "left right center justify") ? std::optional(value.toString().toLower()) : std::nullopt;
    case Value::VAlign:
        return oneOf(value, "top middle bottom baseline") ? std::optional(value.toString().toLower()) : std::nullopt;
    case Value::Dir:
        return oneOf(value, "ltr rtl auto") ? std::optional(value.toString().toLower()) : std::nullopt;
    case Value::ListType:
        return oneOf(value, "1 a i disc circle square") ? std::optional(value.toString()) : std::nullopt;
    case Value::Style:
        if (const std::optional<QString> style = plainStyle(value))
            return style->toHtmlEscaped();
        return std::nullopt;
    case Value::Href:
        if (const std::optional<QString> url = linkTarget(value))
            return url->toHtmlEscaped();
        return std::nullopt;
    case Value::Src:
        return std::nullopt; // an image's source is decided with the image (Sanitizer::image)
    }
    return std::nullopt;
}

} // namespace ferry::notebook::safehtml
