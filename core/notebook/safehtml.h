// Safe HTML: a notebook's HTML (text/html outputs, HTML inside markdown) is untrusted; made into
// HTML that a QTextDocument may render with nothing reaching the network, the disk or a process.
#pragma once

#include <QString>
#include <QStringList>
#include <QStringView>

namespace ferry::notebook {

// How much of a document is read and written. Past them the output stops, closed, with
// truncationMark().
struct SafeHtmlLimits {
    qsizetype inputLength = 32 * 1024 * 1024; // characters read
    qsizetype outputLength = 16 * 1024 * 1024;
    qsizetype elements = 50000; // elements kept: a table's cells count (a QTextDocument lays out 50,000 in ~0.7 s)
    int depth = 64;             // elements open at once: deeper ones are unwrapped (their text kept)
    qsizetype attributeLength = 4096;         // any attribute's value but an inline image
    qsizetype imageLength = 16 * 1024 * 1024; // an inline image's data: URL
};

struct SafeHtmlOptions {
    // Keep `attachment:NAME` image sources (a markdown cell's attachments, which the view
    // resolves from the notebook itself) for the NAMEs the view has; another is said to be
    // missing. Otherwise they are shown as not loaded.
    bool keepAttachments = false;
    QStringList attachments;
    SafeHtmlLimits limits;
};

struct SafeHtml {
    QString html;
    // Something was left out: an element, an attribute, an image, a link (the view says "some
    // content was not shown").
    bool removed = false;
    // A limit was reached: the output ends with truncationMark().
    bool truncated = false;
};

// Untrusted HTML as HTML a QTextDocument may render: only an allow-list of elements (tables with
// their sections, rowspan and colspan; p, br, b, i, u, s, em, strong, small, code, pre, kbd, span,
// div, h1-h6, lists, blockquote, hr, a, img, sub, sup) and of their attributes (class, title, id,
// align, a style of plain properties and values). What runs, loads or submits is dropped with its
// content (script, style, iframe, object, embed, form and its controls, link, meta, base, svg,
// math, template, audio, video, ...); any other element is unwrapped (its text kept). No `on*`
// attribute, no url() or expression() in a style; an `img` keeps only a data:image/png, jpeg or
// gif source (any other becomes "[remote image not loaded: host]" or alike); an `a` keeps an
// http(s), mailto or '#' target as a link only (never fetched). Entities are kept (well-formed
// ones) or escaped; an HTML bomb (deep nesting, millions of elements, huge attributes) costs one
// linear pass and is cut at the limits. Pure: safe to call on any thread.
SafeHtml sanitizeHtml(QStringView html, const SafeHtmlOptions &options = {});

// Whether `url` is an image a view may show from the notebook itself: a data:image/png, jpeg or
// gif URL in base64 (a QTextDocument's loadResource for markdown answers only these).
bool isInlineImage(QStringView url);
// What stands for an image that is not loaded: "[remote image not loaded: example.com]",
// "[local image not loaded: plot.png]", "[image not loaded]".
QString imageNotLoadedText(QStringView url);
// What stands for `attachment:NAME` when the cell has no attachment of that name:
// "[attachment missing: NAME]".
QString attachmentMissingText(QStringView name);
// What ends an output cut at a limit.
QString truncationMark();

} // namespace ferry::notebook
