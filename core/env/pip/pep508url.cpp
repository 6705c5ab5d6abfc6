#include "env/pip/pep508.h"

#include <QRegularExpression>
#include <QStringList>

#include <algorithm>

using namespace Qt::StringLiterals;

// `name @ URL` is checked by packaging with urllib.parse (Python 3.11 as Debian 12 ships it,
// security fixes included): file URLs must survive urlunparse(urlparse(url)) unchanged, any
// other URL needs a scheme and a host, and urlsplit itself refuses malformed bracketed hosts.

namespace ferry::env::pep508 {

namespace {

struct SplitUrl {
    QString scheme, netloc, path, query, fragment;
};

bool isAsciiAlpha(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z');
}

bool isAsciiDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

bool isHexDigit(QChar c)
{
    return isAsciiDigit(c) || (c >= u'a' && c <= u'f') || (c >= u'A' && c <= u'F');
}

// ipaddress.IPv4Address(text) succeeds.
bool isIPv4(const QString &text)
{
    if (text.isEmpty() || text.contains(u'/'))
        return false;
    const QStringList octets = text.split(u'.');
    if (octets.size() != 4)
        return false;
    for (const QString &octet : octets) {
        if (octet.isEmpty() || octet.size() > 3 || !std::all_of(octet.begin(), octet.end(), isAsciiDigit))
            return false;
        if (octet != u"0"_s && octet.startsWith(u'0'))
            return false;
        if (octet.toInt() > 255)
            return false;
    }
    return true;
}

// ipaddress.IPv6Address(text) succeeds (scope ids included).
bool isIPv6(const QString &text)
{
    if (text.contains(u'/'))
        return false;
    QString address = text;
    const qsizetype percent = text.indexOf(u'%');
    if (percent >= 0) {
        const QString scope = text.sliced(percent + 1);
        if (scope.isEmpty() || scope.contains(u'%'))
            return false;
        address = text.first(percent);
    }
    if (address.isEmpty())
        return false;
    QStringList parts = address.split(u':');
    if (parts.size() < 3)
        return false;
    if (parts.last().contains(u'.')) {
        if (!isIPv4(parts.takeLast()))
            return false;
        parts << u"0"_s << u"0"_s; // two hextets; their value does not matter here
    }
    if (parts.size() > 9)
        return false;
    qsizetype skip = -1;
    for (qsizetype i = 1; i + 1 < parts.size(); ++i) {
        if (parts.at(i).isEmpty()) {
            if (skip >= 0)
                return false;
            skip = i;
        }
    }
    qsizetype high = parts.size();
    qsizetype low = 0;
    if (skip >= 0) {
        high = skip;
        low = parts.size() - skip - 1;
        if (parts.first().isEmpty() && --high != 0)
            return false;
        if (parts.last().isEmpty() && --low != 0)
            return false;
        if (8 - (high + low) < 1)
            return false;
    } else if (parts.size() != 8 || parts.first().isEmpty() || parts.last().isEmpty()) {
        return false;
    }
    const auto hextet = [](const QString &part) {
        return !part.isEmpty() && part.size() <= 4 && std::all_of(part.begin(), part.end(), isHexDigit);
    };
    for (qsizetype i = 0; i < high; ++i) {
        if (!hextet(parts.at(i)))
            return false;
    }
    for (qsizetype i = parts.size() - low; i < parts.size(); ++i) {
        if (!hextet(parts.at(i)))
            return false;
    }
    return true;
}

// urllib.parse._check_bracketed_netloc.
QString bracketedNetlocProblem(const QString &netloc)
{
    const QString hostAndPort = netloc.sliced(netloc.lastIndexOf(u'@') + 1);
    QString hostname;
    const qsizetype open = hostAndPort.indexOf(u'[');
    if (open >= 0) {
        if (open > 0)
            return u"Invalid IPv6 URL"_s;
        const QString bracketed = hostAndPort.sliced(open + 1);
        const qsizetype close = bracketed.indexOf(u']');
        hostname = close < 0 ? bracketed : bracketed.first(close);
        const QString port = close < 0 ? QString() : bracketed.sliced(close + 1);
        if (!port.isEmpty() && !port.startsWith(u':'))
            return u"Invalid IPv6 URL"_s;
    } else {
        hostname = hostAndPort.section(u':', 0, 0);
    }
    if (hostname.startsWith(u'v')) {
        static const QRegularExpression future(u"\\Av[a-fA-F0-9]+\\.[^\\n]+\\z"_s);
        return future.match(hostname).hasMatch() ? QString() : u"IPvFuture address is invalid"_s;
    }
    if (isIPv4(hostname))
        return u"An IPv4 address cannot be in brackets"_s;
    if (!isIPv6(hostname))
        return u"'%1' does not appear to be an IPv4 or IPv6 address"_s.arg(hostname);
    return {};
}

// urllib.parse.urlsplit; returns the problem it raises, if any.
QString split(QString url, SplitUrl &out)
{
    qsizetype start = 0;
    while (start < url.size() && url.at(start).unicode() <= 0x20)
        ++start;
    url = url.sliced(start);
    url.remove(u'\t').remove(u'\r').remove(u'\n');

    const qsizetype colon = url.indexOf(u':');
    if (colon > 0 && isAsciiAlpha(url.at(0))) {
        const QStringView scheme = QStringView(url).first(colon);
        const bool valid = std::all_of(scheme.begin(), scheme.end(), [](QChar c) {
            return isAsciiAlpha(c) || isAsciiDigit(c) || c == u'+' || c == u'-' || c == u'.';
        });
        if (valid) {
            out.scheme = scheme.toString().toLower();
            url = url.sliced(colon + 1);
        }
    }
    if (url.startsWith(u"//"_s)) {
        qsizetype end = url.size();
        for (const QChar delimiter : {u'/', u'?', u'#'}) {
            const qsizetype at = url.indexOf(delimiter, 2);
            if (at >= 0)
                end = std::min(end, at);
        }
        out.netloc = url.sliced(2, end - 2);
        url = url.sliced(end);
        const bool open = out.netloc.contains(u'[');
        const bool close = out.netloc.contains(u']');
        if (open != close)
            return u"Invalid IPv6 URL"_s;
        if (open) {
            if (QString problem = bracketedNetlocProblem(out.netloc); !problem.isEmpty())
                return problem;
        }
    }
    if (const qsizetype hash = url.indexOf(u'#'); hash >= 0) {
        out.fragment = url.sliced(hash + 1);
        url = url.first(hash);
    }
    if (const qsizetype question = url.indexOf(u'?'); question >= 0) {
        out.query = url.sliced(question + 1);
        url = url.first(question);
    }
    out.path = url;

    // _checknetloc: characters that NFKC turns into URL delimiters.
    bool ascii = true;
    for (const QChar c : std::as_const(out.netloc))
        ascii = ascii && c.unicode() < 0x80;
    if (!ascii) {
        QString n = out.netloc;
        n.remove(u'@').remove(u':').remove(u'#').remove(u'?');
        const QString normalized = n.normalized(QString::NormalizationForm_KC);
        if (n != normalized) {
            for (const QChar c : {u'/', u'?', u'#', u'@', u':'}) {
                if (normalized.contains(c))
                    return u"netloc '%1' contains invalid characters under NFKC normalization"_s.arg(out.netloc);
            }
        }
    }
    return {};
}

// urllib.parse.urlunsplit for the parts of a file URL (file takes no ;params).
QString unsplit(const SplitUrl &parts)
{
    static const QStringList usesNetloc = {u""_s,       u"ftp"_s,   u"http"_s,    u"gopher"_s,   u"nntp"_s,
                                           u"telnet"_s, u"imap"_s,  u"wais"_s,    u"file"_s,     u"mms"_s,
                                           u"https"_s,  u"shttp"_s, u"snews"_s,   u"prospero"_s, u"rtsp"_s,
                                           u"rtspu"_s,  u"rsync"_s, u"svn"_s,     u"svn+ssh"_s,  u"sftp"_s,
                                           u"nfs"_s,    u"git"_s,   u"git+ssh"_s, u"ws"_s,       u"wss"_s};
    QString url = parts.path;
    if (!parts.netloc.isEmpty() ||
        (!parts.scheme.isEmpty() && usesNetloc.contains(parts.scheme) && !url.startsWith(u"//"_s))) {
        if (!url.isEmpty() && !url.startsWith(u'/'))
            url.prepend(u'/');
        url = u"//"_s + parts.netloc + url;
    }
    if (!parts.scheme.isEmpty())
        url = parts.scheme + u':' + url;
    if (!parts.query.isEmpty())
        url += u'?' + parts.query;
    if (!parts.fragment.isEmpty())
        url += u'#' + parts.fragment;
    return url;
}

} // namespace

QString urlProblem(const QString &url)
{
    SplitUrl parts;
    if (QString problem = split(url, parts); !problem.isEmpty())
        return problem;
    if (parts.scheme == u"file"_s)
        return unsplit(parts) == url ? QString() : u"Invalid URL given"_s;
    if (parts.scheme.isEmpty() || parts.netloc.isEmpty())
        return u"Invalid URL: "_s + url;
    return {};
}

} // namespace ferry::env::pep508
