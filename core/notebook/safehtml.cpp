#include "notebook/safehtml.h"

#include "notebook/htmltokenizer.h"
#include "notebook/safehtmlrules.h"

#include <QStringList>
#include <QUrl>

#include <algorithm>
#include <optional>
#include <vector>

using namespace Qt::StringLiterals;

namespace ferry::notebook {

// The tree walk; what it keeps is decided by the allow-lists (safehtmlrules.h).
namespace safehtml {

namespace {

// One pass over the tokens, writing the safe HTML as it goes.
class Sanitizer {
public:
    Sanitizer(QStringView html, const SafeHtmlOptions &options)
        : m_input(html.first(std::min(html.size(), options.limits.inputLength))), m_options(options),
          m_limits(options.limits), m_tokens(m_input)
    {
        m_result.truncated = m_input.size() < html.size();
        m_result.html.reserve(std::min<qsizetype>(m_input.size(), m_limits.outputLength) + 64);
    }

    SafeHtml run()
    {
        while (!m_stop) {
            const HtmlToken token = m_tokens.next();
            if (token.kind == HtmlToken::Kind::End)
                break;
            if (m_skipping != nullptr)
                skip(token);
            else if (token.kind == HtmlToken::Kind::Text)
                text(token.text);
            else if (token.kind == HtmlToken::Kind::StartTag)
                start(token);
            else
                end(token.name.toString().toLower());
        }
        while (!m_open.empty())
            pop();
        if (m_result.truncated)
            m_result.html += u"<p><i>"_s + truncationMark().toHtmlEscaped() + u"</i></p>"_s;
        return std::move(m_result);
    }

private:
    struct Open {
        const ElementRule *rule;
        bool written; // false: unwrapped past the depth limit, kept to match its end tag
    };
    // How far down the open elements an end tag or an implied end looks (a bomb of a million
    // unclosed spans costs no quadratic search).
    static constexpr qsizetype kSearchWindow = 256;

    void removed(bool visible = true) { m_result.removed = m_result.removed || visible; }

    bool room(qsizetype more)
    {
        if (m_result.html.size() + more <= m_limits.outputLength)
            return true;
        m_result.truncated = true;
        m_stop = true;
        return false;
    }

    // Escaped a block at a time, so that text escaped to four times its size stops at the limit
    // without being escaped whole first.
    void text(QStringView text)
    {
        constexpr qsizetype kBlock = 1 << 16;
        for (qsizetype from = 0; from < text.size();) {
            if (m_result.html.size() >= m_limits.outputLength) {
                m_result.truncated = true;
                m_stop = true;
                return;
            }
            qsizetype end = std::min(from + kBlock, text.size());
            // A character reference stays whole in one block.
            if (const qsizetype amp = text.lastIndexOf(u'&', end - 1);
                amp >= from && amp > end - 48 && amp + referenceLength(text, amp) > end)
                end = amp > from ? amp : amp + referenceLength(text, amp);
            appendEscaped(m_result.html, text.sliced(from, end - from));
            from = end;
        }
    }

    // Inside an element dropped with its content: only its own nesting counts.
    void skip(const HtmlToken &token)
    {
        const QString name = token.name.toString().toLower();
        if (token.kind == HtmlToken::Kind::StartTag) {
            const ElementRule *rule = elementRule(name);
            if (rule != nullptr && rule->treatment == Treatment::DropRawText)
                m_tokens.skipRawText(token.name);
            else if (rule == m_skipping && !token.selfClosing)
                ++m_skipDepth;
        } else if (token.kind == HtmlToken::Kind::EndTag && elementRule(name) == m_skipping) {
            if (--m_skipDepth == 0)
                m_skipping = nullptr;
        }
    }

    void start(const HtmlToken &token)
    {
        const QString name = token.name.size() <= 16 ? token.name.toString().toLower() : QString();
        const ElementRule *rule = name.isEmpty() ? nullptr : elementRule(name);
        if (rule == nullptr)
            return; // unwrapped: its content stays
        switch (rule->treatment) {
        case Treatment::DropRawText:
            m_tokens.skipRawText(token.name);
            removed(rule->visible);
            return;
        case Treatment::DropVoid:
            removed(rule->visible);
            return;
        case Treatment::Drop:
            removed(rule->visible);
            // A self-closed <svg/> or <math/> has nothing inside (foreign content honours '/>').
            if (!(token.selfClosing && (name == u"svg"_s || name == u"math"_s))) {
                m_skipping = rule;
                m_skipDepth = 1;
            }
            return;
        case Treatment::Keep:
        case Treatment::KeepVoid:
            break;
        }
        closeImplied(name);
        if (name == u"img"_s) {
            image(token);
            return;
        }
        const bool isVoid = rule->treatment == Treatment::KeepVoid;
        if (!isVoid && m_depth >= m_limits.depth) {
            m_open.push_back({rule, false});
            return;
        }
        if (m_elements >= m_limits.elements) {
            m_result.truncated = true;
            m_stop = true;
            return;
        }
        QString tag = u"<"_s + name;
        attributes(name, token, tag);
        tag += u'>';
        if (!room(tag.size()))
            return;
        ++m_elements;
        m_result.html += tag;
        if (!isVoid) {
            m_open.push_back({rule, true});
            ++m_depth;
        }
    }

    void attributes(const QString &element, const HtmlToken &token, QString &tag)
    {
        if (token.attributesDropped)
            removed(false);
        QStringList seen;
        for (const HtmlAttribute &attribute : token.attributes) {
            const QString name = attribute.name.size() <= 32 ? attribute.name.toString().toLower() : QString();
            if (name.isEmpty() || seen.contains(name))
                continue; // HTML keeps an attribute's first
            seen << name;
            const std::optional<Value> kind = attributeRule(element, name);
            std::optional<QString> value;
            if (kind)
                value = checkedValue(*kind, attribute.value, m_limits);
            // Within the bound as written out too (escaped, it may grow): what is kept is kept again.
            if (value && value->size() > m_limits.attributeLength)
                value.reset();
            if (!value) {
                // An event handler or a style that loads is no content; a dropped link target is.
                removed(kind == Value::Href);
                continue;
            }
            tag += u' ' + name + u"=\""_s + *value + u'"';
        }
    }

    // An image: shown when inline (or an attachment the view resolves), else the text saying so.
    void image(const HtmlToken &token)
    {
        std::optional<QString> source; // as written out, escaped
        bool hasSource = false;
        for (const HtmlAttribute &attribute : token.attributes) {
            if (attribute.name.compare(u"src"_s, Qt::CaseInsensitive) != 0)
                continue;
            hasSource = true;
            if (attribute.value.size() > m_limits.imageLength) {
                text(u"[image not loaded: too large]"_s);
                break;
            }
            // (An inline image of megabytes is copied as few times as may be.)
            const QString decodedUrl = attribute.value.contains(u'&') ? decoded(attribute.value) : QString();
            const QStringView url = decodedUrl.isNull() ? attribute.value : QStringView(decodedUrl);
            source = inlineImage(url, m_limits.imageLength); // base64: nothing to escape
            if (!source && m_options.keepAttachments &&
                trimmedUrl(url).startsWith("attachment:"_L1, Qt::CaseInsensitive)) {
                const QStringView name = trimmedUrl(url).sliced(11);
                if (!m_options.attachments.contains(name)) {
                    text(attachmentMissingText(name));
                    return; // what it says is all there is to say: nothing was taken out
                }
                source = trimmedUrl(url).toString().toHtmlEscaped();
                if (source->size() > m_limits.attributeLength)
                    source.reset();
            }
            if (!source)
                text(imageNotLoadedText(url));
            break;
        }
        if (!source) {
            removed(hasSource);
            return;
        }
        if (m_elements >= m_limits.elements) {
            m_result.truncated = true;
            m_stop = true;
            return;
        }
        QString rest;
        attributes(u"img"_s, token, rest); // its src again: left out as no attribute of its own
        if (!room(source->size() + rest.size() + 12))
            return;
        ++m_elements;
        m_result.html += u"<img src=\""_s + *source + u'"' + rest + u'>';
    }

    void end(const QString &name)
    {
        const ElementRule *rule = name.size() <= 16 ? elementRule(name) : nullptr;
        const qsizetype last = static_cast<qsizetype>(m_open.size()) - 1;
        for (qsizetype i = last; rule != nullptr && i >= 0 && last - i < kSearchWindow; --i) {
            if (m_open[size_t(i)].rule == rule) {
                while (static_cast<qsizetype>(m_open.size()) > i)
                    pop();
                return;
            }
        }
    }

    // The ends HTML implies: a new <li> ends the open one, a cell the open cell, a block the open <p>.
    void closeImplied(const QString &name)
    {
        using Rules = QList<const ElementRule *>;
        struct Implied {
            QStringList starts; // a start tag of one of these
            Rules closes;       // closes the nearest open one of these
            Rules stops;        // unless one of these is open nearer
        };
        const auto words = [](const char *text) { return QString::fromLatin1(text).split(u' '); };
        const auto rules = [&words](const char *text) {
            Rules found;
            for (const QString &word : words(text))
                found << elementRule(word);
            return found;
        };
        static const std::vector<Implied> implied = {
            {words("li"), rules("li"), rules("ul ol table")},
            {words("dt dd"), rules("dt dd"), rules("dl table")},
            {words("tr"), rules("tr"), rules("table thead tbody tfoot")},
            {words("td th"), rules("td th"), rules("tr table")},
            {words("thead tbody tfoot"), rules("thead tbody tfoot"), rules("table")},
            {words("p div table ul ol dl h1 h2 h3 h4 h5 h6 pre blockquote hr"), rules("p"),
             rules("table td th caption")},
        };
        for (const Implied &rule : implied) {
            if (!rule.starts.contains(name))
                continue;
            const qsizetype last = static_cast<qsizetype>(m_open.size()) - 1;
            for (qsizetype i = last; i >= 0 && last - i < kSearchWindow; --i) {
                const ElementRule *open = m_open[size_t(i)].rule;
                if (rule.closes.contains(open)) {
                    while (static_cast<qsizetype>(m_open.size()) > i)
                        pop();
                    break;
                }
                if (rule.stops.contains(open))
                    break;
            }
        }
    }

    void pop()
    {
        const Open open = m_open.back();
        m_open.pop_back();
        if (open.written) {
            m_result.html += u"</"_s + open.rule->name + u'>';
            --m_depth;
        }
    }

    QStringView m_input;
    const SafeHtmlOptions &m_options;
    const SafeHtmlLimits &m_limits;
    HtmlTokenizer m_tokens;
    SafeHtml m_result;
    std::vector<Open> m_open;
    int m_depth = 0; // written elements open
    qsizetype m_elements = 0;
    const ElementRule *m_skipping = nullptr;
    qsizetype m_skipDepth = 0;
    bool m_stop = false;
};

} // namespace

} // namespace safehtml

SafeHtml sanitizeHtml(QStringView html, const SafeHtmlOptions &options)
{
    return safehtml::Sanitizer(html, options).run();
}

bool isInlineImage(QStringView url)
{
    return safehtml::inlineImage(url, SafeHtmlLimits{}.imageLength).has_value();
}

QString imageNotLoadedText(QStringView url)
{
    url = safehtml::trimmedUrl(url);
    const QString scheme = safehtml::schemeOf(url);
    if (scheme == u"http"_s || scheme == u"https"_s || url.startsWith(u"//"_s)) {
        const QString host = QUrl(url.first(std::min<qsizetype>(url.size(), 2048)).toString()).host();
        return host.isEmpty() || host.size() > 253 ? u"[remote image not loaded]"_s
                                                   : u"[remote image not loaded: %1]"_s.arg(host);
    }
    if (scheme.isEmpty() || scheme == u"file"_s) {
        QStringView name = url.sliced(url.lastIndexOf(u'/') + 1);
        if (name.isEmpty() || name.size() > 100)
            return u"[local image not loaded]"_s;
        return u"[local image not loaded: %1]"_s.arg(name);
    }
    return u"[image not loaded]"_s;
}

QString attachmentMissingText(QStringView name)
{
    return name.isEmpty() || name.size() > 100 ? u"[attachment missing]"_s : u"[attachment missing: %1]"_s.arg(name);
}

QString truncationMark()
{
    return u"[… cut here: the rest of this output is too large to show]"_s;
}

} // namespace ferry::notebook
