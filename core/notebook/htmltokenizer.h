// HtmlTokenizer: untrusted HTML read as tags and text, the way HTML's own tokenizer reads it, for
// the sanitizer (safehtml.h); nothing is decoded or built, every piece is a view of the input.
#pragma once

#include <QStringView>
#include <QVarLengthArray>

namespace ferry::notebook {

struct HtmlAttribute {
    QStringView name;  // as written
    QStringView value; // as written, entities not decoded; empty without '='
};

struct HtmlToken {
    enum class Kind : unsigned char { Text, StartTag, EndTag, End };
    Kind kind = Kind::End;
    QStringView text; // Text: as written, entities not decoded
    QStringView name; // tags: as written
    QVarLengthArray<HtmlAttribute, 8> attributes;
    bool selfClosing = false;
    // Attributes past kMaxAttributes were skipped (a tag of a million attributes costs a scan).
    bool attributesDropped = false;
    static constexpr qsizetype kMaxAttributes = 64;
};

// Reads HTML as HTML's tokenizer does (the states that matter for text and tags): a '<' that
// starts no tag is text; comments, doctypes, processing instructions and CDATA are skipped; a tag
// the input ends inside is dropped. One pass, linear in the input, whatever it holds.
class HtmlTokenizer {
public:
    explicit HtmlTokenizer(QStringView html) : m_html(html) {}

    // The next token; Kind::End at the end of the input.
    HtmlToken next();
    // After the start tag of a raw-text element (script, style, textarea, ...): skips its content
    // up to and through its end tag `</name ...>` (the whole rest when there is none).
    void skipRawText(QStringView name);
    // How far it has read.
    qsizetype position() const { return m_at; }

private:
    bool readTag(HtmlToken &token);
    void skipTo(QStringView marker);

    QStringView m_html;
    qsizetype m_at = 0;
};

} // namespace ferry::notebook
