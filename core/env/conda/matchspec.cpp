#include "env/conda/matchspec.h"
#include "env/conda/matchspecversion.h"

#include <QStringList>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

// A hand-written reader for conda's MatchSpec syntax. It accepts what conda's
// `_parse_spec_str` and `VersionSpec` accept for real-world specs, reads them the same way
// (`=1.17` is 1.17.*, a bare `1.17` is ==1.17, `=1.17=py38_0` pins 1.17 exactly, `==` before
// a lone version is dropped, brackets set fields), and turns the odd corners conda quietly
// misreads (text after the build, `[key = value]`, a version both outside and inside the
// brackets, parentheses outside brackets) into errors that name the column.

using namespace Qt::StringLiterals;

namespace ferry::env {
namespace {

using namespace matchspec_detail;

// conda's KNOWN_SUBDIRS (conda/base/constants.py), plus those newer conda releases added.
const QStringList knownSubdirs = u"noarch linux-32 linux-64 linux-aarch64 linux-armv6l linux-armv7l linux-ppc64 "
                                 "linux-ppc64le linux-riscv64 linux-s390x osx-64 osx-arm64 win-32 win-64 win-arm64 "
                                 "zos-z freebsd-64 wasi-wasm32 emscripten-wasm32"_s.split(u' ');
// Bracket keys kept as written (conda's MatchSpec.FIELD_NAMES less those modelled as fields).
const QStringList otherKeyNames =
    u"build_number md5 sha256 license license_family url fn features track_features"_s.split(u' ');

class SpecParser {
public:
    explicit SpecParser(const QString &text) : m_text(text) {}

    Expected<MatchSpec> parse()
    {
        qsizetype begin = 0;
        qsizetype end = m_text.size();
        while (begin < end && m_text[begin].isSpace())
            ++begin;
        while (end > begin && m_text[end - 1].isSpace())
            --end;
        m_spec.text = m_text.mid(begin, end - begin);
        m_pos = begin;
        m_end = end;
        if (begin == end)
            return Error{u"expected a package name, found an empty spec"_s, {}, 0, 1, {}};
        if (parseChannelPrefix() && parseName() && parseVersionAndBuild() && parseBrackets() && expectEnd())
            return m_spec;
        return *m_error;
    }

private:
    bool fail(qsizetype at, const QString &message)
    {
        if (!m_error)
            m_error = Error{message, {}, 0, column(at), {}};
        return false;
    }
    bool atEnd() const { return m_pos >= m_end || m_text[m_pos] == u'#'; } // `#` starts a comment
    bool skipSpaces()
    {
        const qsizetype start = m_pos;
        while (m_pos < m_end && isSpace(m_text[m_pos]))
            ++m_pos;
        return m_pos > start;
    }
    QString found() const { return atEnd() ? u"the end"_s : quoted(m_text[m_pos]); }

    // `channel[/label...][/subdir]::` before the name.
    bool parseChannelPrefix()
    {
        qsizetype headEnd = m_pos;
        while (headEnd < m_end && !isSpace(m_text[headEnd]) && m_text[headEnd] != u'[' && m_text[headEnd] != u'#')
            ++headEnd;
        const qsizetype separator = QStringView(m_text).mid(m_pos, headEnd - m_pos).lastIndexOf(u"::"_s);
        if (separator < 0)
            return true;
        if (!parseChannel(m_pos, m_pos + separator))
            return false;
        m_channelGiven = true;
        m_pos += separator + 2;
        return true;
    }

    bool parseChannel(qsizetype from, qsizetype to)
    {
        if (from == to)
            return fail(from, u"expected a channel name before '::'"_s);
        QString channel = m_text.mid(from, to - from);
        QString subdir;
        if (channel == u"*"_s || channel.startsWith(u"*/"_s)) { // any channel, maybe one subdir
            subdir = channel.mid(2);
            if (channel.size() > 1 && !knownSubdirs.contains(subdir))
                return fail(from + 2, u"expected a subdir such as linux-64 after '*/'"_s);
            channel.clear();
        } else {
            const qsizetype scheme = channel.indexOf(u"://"_s);
            const qsizetype pathStart = scheme >= 0 ? scheme + 3 : 0;
            if (scheme >= 0 && !checkUrl(channel, from, scheme))
                return false;
            if (scheme < 0 && !checkChannelPath(channel, from))
                return false;
            while (channel.size() > pathStart + 1 && channel.endsWith(u'/'))
                channel.chop(1);
            const qsizetype slash = channel.lastIndexOf(u'/');
            if (slash > 0 && slash >= pathStart && knownSubdirs.contains(channel.mid(slash + 1))) {
                subdir = channel.mid(slash + 1);
                channel.truncate(slash);
            }
        }
        if (!subdir.isEmpty() && !m_spec.subdir.isEmpty())
            return fail(from, u"expected the subdir once, found it in the brackets and in the channel"_s);
        m_spec.channel = channel;
        if (!subdir.isEmpty())
            m_spec.subdir = subdir;
        return true;
    }

    bool checkUrl(const QString &url, qsizetype from, qsizetype scheme)
    {
        if (scheme == 0 || url.size() == scheme + 3)
            return fail(from + scheme, u"expected a scheme before and a location after '://'"_s);
        for (qsizetype i = 0; i < url.size(); ++i) {
            const QChar c = url[i];
            if (i < scheme && !(isAsciiAlnum(c) || (i > 0 && QStringView(u"+.-").contains(c))))
                return fail(from + i, u"expected a URL scheme such as https://, found "_s + quoted(c));
            if (i >= scheme + 3 && !(isAsciiAlnum(c) || QStringView(u"-._~:/?&%@+!$;=*").contains(c)))
                return fail(from + i, u"expected a URL character in the channel, found "_s + quoted(c));
        }
        return true;
    }

    // `conda-forge`, `pytorch/label/nightly`, `/opt/channel`: segments of [A-Za-z0-9_.-].
    bool checkChannelPath(const QString &path, qsizetype from)
    {
        qsizetype segmentStart = path.startsWith(u'/') ? 1 : 0;
        for (qsizetype i = segmentStart; i < path.size(); ++i) {
            const QChar c = path[i];
            if (c == u'/') {
                if (i == segmentStart)
                    return fail(from + i, u"expected a channel name or label before '/'"_s);
                segmentStart = i + 1;
            } else if (!(isAsciiAlnum(c) || QStringView(u"_.-").contains(c))) {
                return fail(from + i,
                            u"expected letters, digits, '-', '_', '.' or '/' in the channel, found "_s + quoted(c));
            }
        }
        if (segmentStart == 1 && path.size() == 1)
            return fail(from, u"expected a channel name or path before '::'"_s);
        return true;
    }

    bool parseName()
    {
        const qsizetype start = m_pos;
        while (m_pos < m_end && isWordChar(m_text[m_pos], u"_.-*"))
            ++m_pos;
        if (m_pos == start)
            return fail(m_pos, u"expected a package name, found "_s + found());
        const QChar first = m_text[start];
        if (!(isAsciiAlnum(first) || first == u'_' || first == u'*'))
            return fail(start,
                        u"expected a package name starting with a letter, digit or '_', found "_s + quoted(first));
        if (!atEnd() && !isSpace(m_text[m_pos]) && !operatorChars.contains(m_text[m_pos]) && m_text[m_pos] != u'[') {
            if (m_text[m_pos] == u':')
                return fail(m_pos, u"expected '::' between the channel and the package name"_s);
            return fail(m_pos, u"expected letters, digits, '-', '_' or '.' in the package name, a version or '[', "
                               "found "_s +
                                   quoted(m_text[m_pos]));
        }
        m_spec.name = collapseStars(m_text.mid(start, m_pos - start).toLower());
        return true;
    }

    bool parseVersionAndBuild()
    {
        skipSpaces();
        if (atEnd() || m_text[m_pos] == u'[')
            return true;
        const qsizetype start = m_pos;
        VersionParser first(m_text, start, m_end, false, false);
        if (!readVersion(first))
            return false;
        m_pos = first.pos();
        const bool hasBuild = parseBuild();
        if (m_error)
            return false;
        // conda drops a leading `==` when no build follows, and reads `=1.17 build` as exactly 1.17.
        const QString op = first.firstOperator();
        if ((!hasBuild && op == u"=="_s) || (hasBuild && op == u"="_s && first.atomCount() == 1)) {
            VersionParser again(m_text, start, first.pos(), false, true);
            return readVersion(again);
        }
        return true;
    }

    bool readVersion(VersionParser &parser)
    {
        const QString version = render(parser.parse());
        if (parser.error()) {
            m_error = parser.error();
            return false;
        }
        m_spec.version = version == u"*"_s ? QString() : version;
        m_versionGiven = true;
        return true;
    }

    bool checkBuild(qsizetype from, qsizetype to)
    {
        for (qsizetype i = from; i < to; ++i) {
            if (!isWordChar(m_text[i], buildChars))
                return fail(i, u"expected letters, digits, '_', '.', '+' or '*' in the build string, found "_s +
                                   quoted(m_text[i]));
        }
        m_spec.build = collapseStars(m_text.mid(from, to - from));
        if (m_spec.build == u"*"_s)
            m_spec.build.clear();
        m_buildGiven = true;
        return true;
    }

    // After the version: `=build`, ` build`, ` =build`. Returns whether a build string was read.
    bool parseBuild()
    {
        const bool spaced = skipSpaces();
        if (atEnd() || m_text[m_pos] == u'[')
            return false;
        const bool equals = m_text[m_pos] == u'=';
        if (!spaced && !equals)
            return fail(m_pos, u"expected ',' or '|' between version constraints, a build string, '[' or the end, "
                               "found "_s +
                                   quoted(m_text[m_pos]));
        if (equals)
            ++m_pos;
        const qsizetype start = m_pos;
        while (m_pos < m_end && isWordChar(m_text[m_pos], buildChars))
            ++m_pos;
        if (m_pos == start && equals)
            return fail(m_pos, u"expected a build string after '=', found "_s + found());
        if (m_pos == start)
            return fail(m_pos,
                        u"expected ',' or '|' between version constraints, or a build string, found "_s + found());
        while (m_pos < m_end && !isSpace(m_text[m_pos]) && m_text[m_pos] != u'[' && m_text[m_pos] != u'#')
            ++m_pos;
        if (!checkBuild(start, m_pos))
            return false;
        skipSpaces();
        if (!atEnd() && m_text[m_pos] != u'[')
            return fail(m_pos, u"expected '[' or the end after the build string, found "_s + quoted(m_text[m_pos]));
        return true;
    }

    bool parseBrackets()
    {
        if (atEnd())
            return true;
        const qsizetype open = m_pos++;
        QStringList seen;
        const auto unclosed = [&] {
            return fail(m_end, u"expected ']' to close the '[' at column %1"_s.arg(column(open)));
        };
        while (true) {
            skipSpaces();
            if (m_pos >= m_end)
                return unclosed();
            if (m_text[m_pos] == u']')
                break;
            const qsizetype keyStart = m_pos;
            while (m_pos < m_end && isWordChar(m_text[m_pos], u"_-"))
                ++m_pos;
            if (m_pos == keyStart)
                return fail(m_pos,
                            u"expected a key such as version, build, channel or md5, found "_s + quoted(m_text[m_pos]));
            const QString key = m_text.mid(keyStart, m_pos - keyStart);
            if (m_pos >= m_end || m_text[m_pos] != u'=')
                return fail(m_pos, u"expected '=' right after '%1', found %2"_s.arg(key, found()));
            ++m_pos;
            qsizetype valueStart = m_pos;
            qsizetype valueEnd = m_pos;
            if (m_pos < m_end && (m_text[m_pos] == u'\'' || m_text[m_pos] == u'"')) {
                const qsizetype close = m_text.indexOf(m_text[m_pos], m_pos + 1);
                if (close < 0 || close >= m_end)
                    return fail(m_pos, u"expected a closing %1 to match this quote"_s.arg(m_text[m_pos]));
                valueStart = m_pos + 1;
                valueEnd = close;
                m_pos = close + 1;
            } else {
                while (m_pos < m_end && !isSpace(m_text[m_pos]) && m_text[m_pos] != u',' && m_text[m_pos] != u']')
                    ++m_pos;
                valueEnd = m_pos;
            }
            if (valueStart == valueEnd)
                return fail(valueStart, u"expected a value after '%1='"_s.arg(key));
            for (qsizetype i = valueStart; i < valueEnd; ++i) {
                const QChar c = m_text[i];
                if (c == u'\'' || c == u'"' || c == u'#' || c == u'[' || c.unicode() < 0x20 || c.unicode() == 0x7f)
                    return fail(i, u"expected a value without quotes, '#', '[' or control characters, found "_s +
                                       quoted(c));
            }
            if (seen.contains(key))
                return fail(keyStart, u"expected each key once, found '%1' again"_s.arg(key));
            seen << key;
            if (!applyKey(key, keyStart, valueStart, valueEnd))
                return false;
            const bool spaced = skipSpaces();
            if (m_pos >= m_end)
                return unclosed();
            if (m_text[m_pos] == u',') {
                ++m_pos;
                continue;
            }
            if (m_text[m_pos] == u']')
                break;
            if (!spaced)
                return fail(m_pos, u"expected ',' or ']' after the value of '%1', found %2"_s.arg(key, found()));
        }
        ++m_pos;
        skipSpaces();
        return true;
    }

    bool applyKey(const QString &key, qsizetype keyStart, qsizetype from, qsizetype to)
    {
        const QString value = m_text.mid(from, to - from);
        if (key == u"version"_s) {
            if (m_versionGiven)
                return fail(keyStart, u"expected the version once, found it before and inside the brackets"_s);
            VersionParser parser(m_text, from, to, true, false);
            return readVersion(parser);
        } else if (key == u"build"_s || key == u"build_string"_s) {
            if (m_buildGiven)
                return fail(keyStart, u"expected the build string once, found it before and inside the brackets"_s);
            return checkBuild(from, to);
        } else if (key == u"channel"_s) {
            if (m_channelGiven)
                return fail(keyStart, u"expected the channel once, found it before '::' and inside the brackets"_s);
            return m_channelGiven = parseChannel(from, to);
        } else if (key == u"subdir"_s) {
            if (!m_spec.subdir.isEmpty())
                return fail(keyStart, u"expected the subdir once, found it in the channel and inside the brackets"_s);
            if (!knownSubdirs.contains(value))
                return fail(from, u"expected a known subdir (%1), found '%2'"_s.arg(knownSubdirs.join(u", "_s), value));
            m_spec.subdir = value;
        } else if (key == u"name"_s) {
            return fail(keyStart, u"expected the package name before the brackets, not as a key"_s);
        } else if (otherKeyNames.contains(key)) {
            m_spec.otherKeys.append({key, value});
        } else {
            return fail(keyStart, u"unknown key '%1'; expected one of version, build, channel, subdir, %2"_s.arg(
                                      key, otherKeyNames.join(u", "_s)));
        }
        return true;
    }

    bool expectEnd()
    {
        if (!atEnd())
            return fail(m_pos, u"expected the end of the spec (or a # comment), found "_s + quoted(m_text[m_pos]));
        return true;
    }

    const QString &m_text;
    qsizetype m_pos = 0;
    qsizetype m_end = 0;
    MatchSpec m_spec;
    std::optional<Error> m_error;
    bool m_channelGiven = false;
    bool m_versionGiven = false;
    bool m_buildGiven = false;
};

} // namespace

QString MatchSpec::canonical() const
{
    QString out;
    if (!channel.isEmpty() || !subdir.isEmpty()) {
        out += channel.isEmpty() ? u"*"_s : channel;
        if (!subdir.isEmpty())
            out += u'/' + subdir;
        out += u"::"_s;
    }
    out += name.isEmpty() ? u"*"_s : name;
    QList<std::pair<QString, QString>> brackets = otherKeys;
    // Parentheses and regular expressions are only read inside brackets (by conda too).
    const bool versionOutside = !version.contains(u'(') && !version.contains(u'^');
    if (versionOutside) {
        if (!version.isEmpty() || !build.isEmpty())
            out += u' ' + (version.isEmpty() ? u"*"_s : version);
        if (!build.isEmpty())
            out += u' ' + build;
    } else {
        brackets.append({u"version"_s, version});
        if (!build.isEmpty())
            brackets.append({u"build"_s, build});
    }
    std::sort(brackets.begin(), brackets.end());
    if (!brackets.isEmpty()) {
        QStringList parts;
        for (const auto &[key, value] : brackets)
            parts << key + u"='"_s + value + u'\'';
        out += u'[' + parts.join(u',') + u']';
    }
    return out;
}

Expected<MatchSpec> parseMatchSpec(const QString &text)
{
    return SpecParser(text).parse();
}

} // namespace ferry::env
