#include "env/pip/pep508.h"
#include "env/pip/pep508tokenizer.h"

#include <QList>
#include <QRegularExpression>
#include <QSet>
#include <QStringList>

#include <algorithm>

using namespace Qt::StringLiterals;

// The regexes of packaging 23.0's Specifier and Version, rewritten for PCRE without the
// IGNORECASE and `\s` flags whose meaning differs between Python and PCRE: every letter is
// spelled as the class of characters Python folds onto it, and whitespace is Python's set.
// Repetitions are possessive: nothing after them can use what they would give back, so no
// result changes, and PCRE's backtracking stack stays flat on versions with 100000 parts.

namespace ferry::env::pep508 {

namespace {

const QString spaceChars = u"\\t\\n\\x{0B}\\f\\r\\x{1C}-\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}"
                           "\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"_s;

QString fold(QStringView word)
{
    QString pattern;
    for (const QChar c : word) {
        switch (c.unicode()) {
        case u'i':
            pattern += u"[iI\\x{130}\\x{131}]"_s;
            break;
        case u'k':
            pattern += u"[kK\\x{212A}]"_s;
            break;
        case u's':
            pattern += u"[sS\\x{17F}]"_s;
            break;
        default:
            pattern += u'[' + c + c.toUpper() + u']';
        }
    }
    return pattern;
}

QString alternatives(QStringView words)
{
    QStringList folded;
    for (const QStringView word : words.split(u'|'))
        folded << fold(word);
    return u"(?:"_s + folded.join(u'|') + u')';
}

struct Patterns {
    QString space = u'[' + spaceChars + u']';
    QString localChar = u"[a-zA-Z0-9\\x{130}\\x{131}\\x{17F}\\x{212A}]"_s;
    QString v = fold(u"v");
    QString pre = u"(?:[-_.]?"_s + alternatives(u"alpha|beta|preview|pre|a|b|c|rc") + u"[-_.]?[0-9]*)?"_s;
    QString post = u"(?:(?:-[0-9]+)|(?:[-_.]?"_s + alternatives(u"post|rev|r") + u"[-_.]?[0-9]*))?"_s;
    QString dev = u"(?:[-_.]?"_s + fold(u"dev") + u"[-_.]?[0-9]*)?"_s;
    QString local = u"(?:\\+"_s + localChar + u"++(?:[-_.]"_s + localChar + u"++)*+)?"_s;
    QString op = u"(?<op>~=|==|!=|<=|>=|<|>|===)"_s;

    QString version() const
    {
        const QString head = space + u'*' + v + u"?(?:[0-9]+!)?[0-9]+"_s;
        const QString arbitrary = u"(?:(?<====)"_s + space + u"*[^"_s + spaceChars + u";)]*)"_s;
        const QString equality =
            u"(?:(?<===|!=)"_s + head + u"(?:\\.[0-9]++)*+(?:\\.\\*|"_s + pre + post + dev + local + u")?)"_s;
        const QString compatible = u"(?:(?<=~=)"_s + head + u"(?:\\.[0-9]++)++"_s + pre + post + dev + u')';
        const QString ordered = u"(?:(?<!==|!=|~=)"_s + head + u"(?:\\.[0-9]++)*+"_s + pre + post + dev + u')';
        return u"(?<version>"_s + QStringList{arbitrary, equality, compatible, ordered}.join(u'|') + u')';
    }
};

const QRegularExpression &tokenRegex()
{
    static const QRegularExpression regex = [] {
        const Patterns p;
        return QRegularExpression(p.op + p.version());
    }();
    return regex;
}

const QRegularExpression &specifierRegex()
{
    static const QRegularExpression regex = [] {
        const Patterns p;
        return QRegularExpression(u'^' + p.space + u'*' + p.op + p.version() + p.space + u"*$"_s);
    }();
    return regex;
}

const QRegularExpression &versionRegex()
{
    static const QRegularExpression regex = [] {
        const Patterns p;
        return QRegularExpression(
            u'^' + p.space + u'*' + p.v + u"?(?:(?:(?<epoch>[0-9]+)!)?(?<release>[0-9]+(?:\\.[0-9]++)*+)"_s +
            u"(?<pre>[-_.]?(?<prel>"_s + alternatives(u"a|b|c|rc|alpha|beta|pre|preview") +
            u")[-_.]?(?<pren>[0-9]+)?)?"_s + u"(?<post>(?:-(?<postn1>[0-9]+))|(?:[-_.]?(?<postl>"_s +
            alternatives(u"post|rev|r") + u")[-_.]?(?<postn2>[0-9]+)?))?"_s + u"(?<dev>[-_.]?(?<devl>"_s +
            fold(u"dev") + u")[-_.]?(?<devn>[0-9]+)?)?)"_s + u"(?:\\+(?<local>"_s + p.localChar + u"++(?:[-_.]"_s +
            p.localChar + u"++)*+))?"_s + p.space + u"*$"_s);
    }();
    return regex;
}

// str(int(digits)): Python integers are unbounded, so strip zeros instead of converting.
QString integerText(const QString &digits)
{
    qsizetype i = 0;
    while (i + 1 < digits.size() && digits.at(i) == u'0')
        ++i;
    return digits.isEmpty() ? u"0"_s : digits.sliced(i);
}

bool allAsciiDigits(QStringView text)
{
    return !text.isEmpty() && std::all_of(text.begin(), text.end(), [](QChar c) { return c >= u'0' && c <= u'9'; });
}

bool codePointLess(const QString &a, const QString &b)
{
    return a.toUcs4() < b.toUcs4();
}

// The operator at the start of one specifier in str(Specifier) form.
qsizetype operatorLength(QStringView spec)
{
    if (spec.startsWith(u"==="))
        return 3;
    if (spec.size() >= 2 && spec.at(1) == u'=')
        return 2;
    return 1;
}

} // namespace

qsizetype matchSpecifierToken(const QString &source, qsizetype position, bool sourceIsValidUtf16)
{
    QRegularExpression::MatchOptions options = QRegularExpression::AnchorAtOffsetMatchOption;
    if (sourceIsValidUtf16)
        options |= QRegularExpression::DontCheckSubjectStringMatchOption;
    const QRegularExpressionMatch match =
        tokenRegex().match(source, position, QRegularExpression::NormalMatch, options);
    return match.hasMatch() ? match.capturedLength(0) : -1;
}

QString canonicalizeVersion(const QString &version, bool stripTrailingZero)
{
    const QRegularExpressionMatch m = versionRegex().match(version);
    if (!m.hasMatch())
        return version;

    QString text;
    const QString epoch = integerText(m.captured(u"epoch"));
    if (epoch != u"0"_s)
        text += epoch + u'!';

    QStringList release;
    for (const QString &part : m.captured(u"release").split(u'.'))
        release << integerText(part);
    QString releaseText = release.join(u'.');
    if (stripTrailingZero) {
        while (releaseText.endsWith(u".0"_s))
            releaseText.chop(2);
    }
    text += releaseText;

    if (m.hasCaptured(u"prel")) {
        QString letter = m.captured(u"prel").toLower();
        if (letter == u"alpha"_s)
            letter = u"a"_s;
        else if (letter == u"beta"_s)
            letter = u"b"_s;
        else if (letter == u"c"_s || letter == u"pre"_s || letter == u"preview"_s)
            letter = u"rc"_s;
        text += letter + integerText(m.captured(u"pren"));
    }
    if (m.hasCaptured(u"post")) {
        const QString number = m.hasCaptured(u"postn1") ? m.captured(u"postn1") : m.captured(u"postn2");
        text += u".post"_s + integerText(number);
    }
    if (m.hasCaptured(u"dev"))
        text += u".dev"_s + integerText(m.captured(u"devn"));
    if (m.hasCaptured(u"local")) {
        static const QRegularExpression separators(u"[-_.]"_s);
        QStringList parts;
        for (const QString &part : m.captured(u"local").split(separators))
            parts << (allAsciiDigits(part) ? integerText(part) : part.toLower());
        text += u'+' + parts.join(u'.');
    }
    return text;
}

std::optional<QString> specifierSetString(const QString &joined, QString *badPart)
{
    QSet<QString> seen;
    QStringList specs;
    for (const QString &raw : joined.split(u',')) {
        const QString part = pythonStrip(raw);
        if (part.isEmpty())
            continue;
        const QRegularExpressionMatch m = specifierRegex().match(part);
        if (!m.hasMatch()) {
            if (badPart)
                *badPart = part;
            return std::nullopt;
        }
        const QString op = m.captured(u"op");
        const QString version = pythonStrip(m.captured(u"version"));
        // Specifier equality (and so set membership) compares canonical versions.
        const QString key = op + u' ' + canonicalizeVersion(version, op != u"~="_s);
        if (seen.contains(key))
            continue;
        seen.insert(key);
        specs << op + version;
    }
    std::sort(specs.begin(), specs.end(), codePointLess);
    return specs.join(u',');
}

QString canonicalSpecifierSet(const QString &specifierSet)
{
    QStringList specs;
    for (const QString &spec : specifierSet.split(u',', Qt::SkipEmptyParts)) {
        const qsizetype length = operatorLength(spec);
        const QString op = spec.first(length);
        const QString version = spec.sliced(length);
        // `===` compares text, so its version keeps its spelling.
        const QString canonical = op == u"==="_s ? spec : op + canonicalizeVersion(version, op != u"~="_s);
        if (!specs.contains(canonical))
            specs << canonical;
    }
    std::sort(specs.begin(), specs.end(), codePointLess);
    return specs.join(u',');
}

} // namespace ferry::env::pep508
