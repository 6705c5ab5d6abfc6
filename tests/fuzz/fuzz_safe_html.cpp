// Fuzz target for a notebook's HTML made safe (sanitizeHtml, core/notebook/safehtml.h;
// tests/fuzz/run.sh, replayed by fuzz_safe_html_replay). The bytes are a text/html output or a
// markdown cell's HTML: untrusted. With small limits (so the bounds are reached), the output,
// read back by the same tokenizer, holds only allowed elements and attributes, links and images
// that load nothing, no deeper nesting than the limit, and is its own sanitized form.
#include "notebook/htmltokenizer.h"
#include "notebook/safehtml.h"

#include <QSet>
#include <QString>

#include <cstddef>
#include <cstdint>

using namespace Qt::StringLiterals;
using namespace ferry::notebook;

namespace {

SafeHtmlOptions smallLimits()
{
    SafeHtmlOptions options;
    options.limits.inputLength = 1 << 16;
    options.limits.outputLength = 1 << 16;
    options.limits.elements = 200;
    options.limits.depth = 8;
    options.limits.attributeLength = 256;
    options.limits.imageLength = 4096;
    return options;
}

void checkSafe(const QString &html, int depthLimit)
{
    static const QSet<QString> elements = {
        u"table"_s, u"caption"_s, u"colgroup"_s,   u"col"_s, u"thead"_s,  u"tbody"_s, u"tfoot"_s, u"tr"_s,
        u"th"_s,    u"td"_s,      u"p"_s,          u"br"_s,  u"hr"_s,     u"b"_s,     u"i"_s,     u"u"_s,
        u"s"_s,     u"del"_s,     u"ins"_s,        u"em"_s,  u"strong"_s, u"small"_s, u"code"_s,  u"pre"_s,
        u"tt"_s,    u"kbd"_s,     u"samp"_s,       u"var"_s, u"span"_s,   u"div"_s,   u"h1"_s,    u"h2"_s,
        u"h3"_s,    u"h4"_s,      u"h5"_s,         u"h6"_s,  u"ul"_s,     u"ol"_s,    u"li"_s,    u"dl"_s,
        u"dt"_s,    u"dd"_s,      u"blockquote"_s, u"a"_s,   u"img"_s,    u"sub"_s,   u"sup"_s};
    static const QSet<QString> attributes = {u"class"_s,  u"title"_s,       u"id"_s,          u"lang"_s,    u"dir"_s,
                                             u"style"_s,  u"href"_s,        u"name"_s,        u"src"_s,     u"alt"_s,
                                             u"width"_s,  u"height"_s,      u"rowspan"_s,     u"colspan"_s, u"span"_s,
                                             u"border"_s, u"cellpadding"_s, u"cellspacing"_s, u"bgcolor"_s, u"align"_s,
                                             u"valign"_s, u"start"_s,       u"value"_s,       u"type"_s};
    static const QSet<QString> voids = {u"br"_s, u"hr"_s, u"img"_s, u"col"_s};
    HtmlTokenizer tokens(html);
    int depth = 0;
    for (HtmlToken token = tokens.next(); token.kind != HtmlToken::Kind::End; token = tokens.next()) {
        const QString name = token.name.toString();
        if (token.kind == HtmlToken::Kind::EndTag) {
            --depth;
            continue;
        }
        if (token.kind != HtmlToken::Kind::StartTag)
            continue;
        if (!elements.contains(name) || name != name.toLower())
            __builtin_trap();
        if (!voids.contains(name) && ++depth > depthLimit)
            __builtin_trap();
        for (const HtmlAttribute &attribute : token.attributes) {
            const QString value = attribute.value.toString().toLower();
            if (!attributes.contains(attribute.name.toString()))
                __builtin_trap();
            if (attribute.name == u"href"_s && !(value.startsWith(u"http:"_s) || value.startsWith(u"https:"_s) ||
                                                 value.startsWith(u"mailto:"_s) || value.startsWith(u'#')))
                __builtin_trap();
            if (attribute.name == u"src"_s &&
                !(value.startsWith(u"data:image/png;base64,"_s) || value.startsWith(u"data:image/jpeg;base64,"_s) ||
                  value.startsWith(u"data:image/gif;base64,"_s)))
                __builtin_trap();
            if (attribute.name == u"style"_s && (value.contains(u"url"_s) || value.contains(u"expression"_s) ||
                                                 value.contains(u'\\') || value.contains(u'@') || value.contains(u'&')))
                __builtin_trap();
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString html = QString::fromUtf8(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const SafeHtmlOptions options = smallLimits();
    const SafeHtml safe = sanitizeHtml(html, options);
    checkSafe(safe.html, options.limits.depth);
    if (!safe.truncated && sanitizeHtml(safe.html, options).html != safe.html)
        __builtin_trap(); // safe HTML is its own sanitized form
    return 0;
}
