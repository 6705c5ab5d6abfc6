// The allow-lists of safe HTML (which elements and attributes are kept, which values pass) and the
// escaping of its text; internal to core/notebook.
#pragma once

// What the sanitizer's tree walk (safehtml.cpp) asks of each element, attribute and piece of text:
// the rules of sanitizeHtml (safehtml.h), apart from the walk. Internal to core/notebook.
#include "notebook/safehtml.h"

#include <QString>
#include <QStringView>

#include <optional>

namespace ferry::notebook::safehtml {

// What becomes of an element.
enum class Treatment : unsigned char {
    Keep,        // written, its allowed attributes with it
    KeepVoid,    // the same, an element without content (br, hr, img, col)
    Drop,        // left out with its content (object, form, svg, template, ...)
    DropRawText, // left out with its content, which is raw text to its end tag (script, style)
    DropVoid,    // left out, nothing inside it (embed, input, link, meta, base)
};

struct ElementRule {
    QString name;
    Treatment treatment;
    // Whether leaving it out leaves out something the user would see or use (a script, a plot's
    // iframe, a form), as opposed to presentation (a <style>, a <meta>).
    bool visible = true;
};

// The rule of an element by its lower-case name; nullptr: not listed (unwrapped, its text kept).
const ElementRule *elementRule(const QString &lowerName);

// How an attribute's value is checked.
enum class Value : unsigned char {
    Text,     // any text (entities kept, the rest escaped)
    Name,     // an id, a name, a language: [A-Za-z0-9_:.-]
    Span,     // rowspan, colspan, span: 1..1000
    Size,     // border, cellpadding, cellspacing: 0..100
    Number,   // ol start, li value
    Length,   // width, height: up to 4 digits, then "%" or "px"
    Color,    // #hex or a colour's name
    Align,    // left, right, center, justify
    VAlign,   // top, middle, bottom, baseline
    Dir,      // ltr, rtl, auto
    ListType, // 1 a A i I disc circle square
    Style,    // declarations of plain properties and values
    Href,     // http(s), mailto or '#': a link's target
    Src,      // an inline image (data:image/png|jpeg|gif;base64)
};

// How `attribute` of `element` is checked; nothing: it is left out.
std::optional<Value> attributeRule(QStringView element, QStringView attribute);
// An attribute's value as written out (escaped), or nothing when it is left out.
std::optional<QString> checkedValue(Value kind, QStringView value, const SafeHtmlLimits &limits);

// The length of the character reference at text[at] ('&'): "&name;", "&#123;", "&#x1f;"; 0 when
// there is none (the '&' is then a character of its own).
qsizetype referenceLength(QStringView text, qsizetype at, char32_t *code = nullptr);
// Text or an attribute's value as HTML: well-formed character references kept, '<', '>', '"' and
// any other '&' escaped, control characters but tab and newlines dropped.
void appendEscaped(QString &out, QStringView text);
// An attribute's value as the document reads it: numeric references and the named ones a URL or
// a style may hide behind decoded.
QString decoded(QStringView value);

// The value without the spaces and control characters around it (as a URL is read).
QStringView trimmedUrl(QStringView url);
// An inline image's URL without the spaces its base64 may hold; nothing when it is no inline image.
std::optional<QString> inlineImage(QStringView url, qsizetype limit);
// A URL's scheme ("https", "file"), empty for a relative one.
QString schemeOf(QStringView url);

} // namespace ferry::notebook::safehtml
