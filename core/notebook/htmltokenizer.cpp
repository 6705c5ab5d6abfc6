#include "notebook/htmltokenizer.h"

namespace ferry::notebook {

namespace {

bool isSpace(QChar c)
{
    return c == u' ' || c == u'\t' || c == u'\n' || c == u'\f' || c == u'\r';
}

bool isAsciiLetter(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z');
}

} // namespace

HtmlToken HtmlTokenizer::next()
{
    const qsizetype size = m_html.size();
    while (m_at < size) {
        // Text up to a '<' that starts markup.
        qsizetype at = m_at;
        for (;;) {
            at = m_html.indexOf(u'<', at);
            if (at < 0 || at + 1 >= size)
                break;
            const QChar c = m_html[at + 1];
            if (isAsciiLetter(c) || c == u'/' || c == u'!' || c == u'?')
                break;
            ++at;
        }
        if (at < 0 || at + 1 >= size)
            at = size; // a '<' at the very end is text
        if (at > m_at) {
            HtmlToken token;
            token.kind = HtmlToken::Kind::Text;
            token.text = m_html.sliced(m_at, at - m_at);
            m_at = at;
            return token;
        }
        const QStringView rest = m_html.sliced(m_at);
        if (rest.startsWith(u"<!--")) {
            m_at += 4;
            if (m_at < size && m_html[m_at] == u'>') // "<!-->"
                ++m_at;
            else if (m_html.sliced(m_at).startsWith(u"->")) // "<!--->"
                m_at += 2;
            else
                skipTo(u"-->");
            continue;
        }
        if (rest[1] == u'!' || rest[1] == u'?') { // doctype, CDATA, processing instruction
            skipTo(u">");
            continue;
        }
        HtmlToken token;
        if (readTag(token))
            return token;
    }
    return {};
}

bool HtmlTokenizer::readTag(HtmlToken &token)
{
    const qsizetype size = m_html.size();
    const bool end = m_html[m_at + 1] == u'/';
    qsizetype i = m_at + (end ? 2 : 1);
    if (end && (i >= size || !isAsciiLetter(m_html[i]))) {
        // "</>" is nothing; "</3..." a comment up to '>'.
        skipTo(u">");
        return false;
    }
    const qsizetype nameStart = i;
    while (i < size && !isSpace(m_html[i]) && m_html[i] != u'/' && m_html[i] != u'>')
        ++i;
    token.kind = end ? HtmlToken::Kind::EndTag : HtmlToken::Kind::StartTag;
    token.name = m_html.sliced(nameStart, i - nameStart);
    for (;;) {
        while (i < size && isSpace(m_html[i]))
            ++i;
        if (i >= size)
            break;
        if (m_html[i] == u'>') {
            m_at = i + 1;
            return true;
        }
        if (m_html[i] == u'/') {
            ++i;
            if (i < size && m_html[i] == u'>') {
                token.selfClosing = true;
                m_at = i + 1;
                return true;
            }
            continue;
        }
        const qsizetype attributeStart = i++; // a first '=' belongs to the name
        while (i < size && !isSpace(m_html[i]) && m_html[i] != u'/' && m_html[i] != u'>' && m_html[i] != u'=')
            ++i;
        HtmlAttribute attribute{m_html.sliced(attributeStart, i - attributeStart), {}};
        qsizetype after = i;
        while (after < size && isSpace(m_html[after]))
            ++after;
        if (after < size && m_html[after] == u'=') {
            i = after + 1;
            while (i < size && isSpace(m_html[i]))
                ++i;
            if (i >= size)
                break;
            const QChar quote = m_html[i];
            if (quote == u'"' || quote == u'\'') {
                const qsizetype close = m_html.indexOf(quote, i + 1);
                if (close < 0)
                    break;
                attribute.value = m_html.sliced(i + 1, close - i - 1);
                i = close + 1;
            } else {
                const qsizetype valueStart = i;
                while (i < size && !isSpace(m_html[i]) && m_html[i] != u'>')
                    ++i;
                attribute.value = m_html.sliced(valueStart, i - valueStart);
            }
        }
        if (token.attributes.size() < HtmlToken::kMaxAttributes)
            token.attributes.append(attribute);
        else
            token.attributesDropped = true;
    }
    // The input ended inside the tag: HTML drops it.
    m_at = size;
    token = {};
    return false;
}

void HtmlTokenizer::skipRawText(QStringView name)
{
    const qsizetype size = m_html.size();
    for (qsizetype at = m_html.indexOf(u"</", m_at); at >= 0; at = m_html.indexOf(u"</", at + 2)) {
        const qsizetype after = at + 2 + name.size();
        if (after > size)
            break;
        if (m_html.sliced(at + 2, name.size()).compare(name, Qt::CaseInsensitive) != 0)
            continue;
        if (after < size && !isSpace(m_html[after]) && m_html[after] != u'/' && m_html[after] != u'>')
            continue;
        m_at = at;
        HtmlToken end;
        readTag(end); // through its '>' (its attributes, if any, read and dropped)
        return;
    }
    m_at = size;
}

void HtmlTokenizer::skipTo(QStringView marker)
{
    const qsizetype found = m_html.indexOf(marker, m_at);
    m_at = found < 0 ? m_html.size() : found + marker.size();
}

} // namespace ferry::notebook
