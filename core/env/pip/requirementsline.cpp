#include "env/pip/requirementsline.h"

#include "env/pip/pep508tokenizer.h"

#include <QRegularExpression>

#include <algorithm>
#include <array>

using namespace Qt::StringLiterals;

namespace ferry::env::pep508 {

namespace {

// pip's requirement-file options (req_file.py SUPPORTED_OPTIONS and SUPPORTED_OPTIONS_REQ).
enum class OptionKey {
    IndexUrl,
    ExtraIndexUrl,
    NoIndex,
    Constraint,
    Requirement,
    Editable,
    FindLinks,
    TrustedHost,
    Pre,
    OtherGlobal, // --no-binary, --only-binary, --prefer-binary, --require-hashes, --use-feature
    Hash,
    OtherPerRequirement, // --global-option, --config-settings, --install-option
};

struct OptionSpec {
    QStringView longName;
    QChar shortName;
    OptionKey key;
    bool takesValue;
};

constexpr std::array options = {
    OptionSpec{u"index-url", u'i', OptionKey::IndexUrl, true},
    OptionSpec{u"extra-index-url", {}, OptionKey::ExtraIndexUrl, true},
    OptionSpec{u"no-index", {}, OptionKey::NoIndex, false},
    OptionSpec{u"constraint", u'c', OptionKey::Constraint, true},
    OptionSpec{u"requirement", u'r', OptionKey::Requirement, true},
    OptionSpec{u"editable", u'e', OptionKey::Editable, true},
    OptionSpec{u"find-links", u'f', OptionKey::FindLinks, true},
    OptionSpec{u"trusted-host", {}, OptionKey::TrustedHost, true},
    OptionSpec{u"pre", {}, OptionKey::Pre, false},
    OptionSpec{u"no-binary", {}, OptionKey::OtherGlobal, true},
    OptionSpec{u"only-binary", {}, OptionKey::OtherGlobal, true},
    OptionSpec{u"prefer-binary", {}, OptionKey::OtherGlobal, false},
    OptionSpec{u"require-hashes", {}, OptionKey::OtherGlobal, false},
    OptionSpec{u"use-feature", {}, OptionKey::OtherGlobal, true},
    OptionSpec{u"hash", {}, OptionKey::Hash, true},
    OptionSpec{u"global-option", {}, OptionKey::OtherPerRequirement, true},
    OptionSpec{u"config-settings", {}, OptionKey::OtherPerRequirement, true},
    OptionSpec{u"install-option", {}, OptionKey::OtherPerRequirement, true},
};

bool isPerRequirement(OptionKey key)
{
    return key == OptionKey::Hash || key == OptionKey::OtherPerRequirement;
}

bool isBlank(QChar c)
{
    return c == u' ' || c == u'\t';
}

// A word of shlex.split (POSIX mode, no comments) and where it starts in the line.
struct Word {
    QString value;
    qsizetype start = 0;
    qsizetype end = 0;
};

// shlex.split as pip applies it to the options part of a line. On an unclosed quote or a
// trailing backslash returns nothing and sets the offset of the problem.
std::optional<QList<Word>> shellWords(const QString &line, qsizetype from, qsizetype *problemAt)
{
    QList<Word> words;
    qsizetype i = from;
    const qsizetype size = line.size();
    while (true) {
        while (i < size && line.at(i).isSpace())
            ++i;
        if (i >= size)
            return words;
        Word word{{}, i, i};
        while (i < size && !line.at(i).isSpace()) {
            const QChar c = line.at(i);
            if (c == u'\'' || c == u'"') {
                const qsizetype open = i++;
                while (i < size && line.at(i) != c) {
                    if (c == u'"' && line.at(i) == u'\\' && i + 1 < size &&
                        (line.at(i + 1) == u'"' || line.at(i + 1) == u'\\'))
                        ++i;
                    word.value += line.at(i++);
                }
                if (i >= size) {
                    *problemAt = open;
                    return std::nullopt;
                }
                ++i;
            } else if (c == u'\\') {
                if (i + 1 >= size) {
                    *problemAt = i;
                    return std::nullopt;
                }
                word.value += line.at(i + 1);
                i += 2;
            } else {
                word.value += c;
                ++i;
            }
        }
        word.end = i;
        words << word;
    }
}

// pip's is_url(): a scheme pip fetches from, or a version-control scheme.
bool isUrl(const QString &text)
{
    static const QRegularExpression scheme(
        u"^(?i:https?|file|ftp|git|git\\+(?:https?|ssh|git|file)|hg\\+(?:https?|static-http|ssh|file)|"
        "svn|svn\\+(?:ssh|https?|svn|file)|bzr\\+(?:https?|ssh|sftp|ftp|lp|file)):"_s);
    return scheme.match(text).hasMatch();
}

bool looksLikePath(QStringView text)
{
    return text.contains(u'/') || text.contains(u'\\') || text.startsWith(u'.') || text.startsWith(u'~');
}

// pip's is_archive_file(), after _strip_extras().
bool isArchiveFile(const QString &text)
{
    static const QRegularExpression extras(u"^(.+)(\\[[^\\]]+\\])$"_s);
    const QRegularExpressionMatch m = extras.match(text);
    const QString path = (m.hasMatch() ? m.captured(1) : text).toLower();
    static constexpr std::array<QStringView, 12> suffixes = {u".whl", u".zip",     u".tar.gz", u".tgz",
                                                             u".tar", u".tar.bz2", u".tbz",    u".tar.xz",
                                                             u".txz", u".tlz",     u".tar.lz", u".tar.lzma"};
    return std::any_of(suffixes.begin(), suffixes.end(), [&](QStringView s) { return path.endsWith(s); });
}

bool isValidEditable(const QString &target)
{
    static const QRegularExpression vcs(u"^(?i:(?:git|hg|svn|bzr)[+:]|file:)"_s);
    return looksLikePath(target) || vcs.match(target).hasMatch() || target.contains(u"${"_s);
}

// What is wrong with a --hash value: pip refuses a missing or unknown algorithm when it reads
// the file (an error); a digest of the wrong shape only fails at install time (a warning).
std::optional<LineProblem> hashProblem(const QString &value)
{
    const auto error = [](const QString &message) {
        return LineProblem{Diagnostic::Severity::Error, message,
                           u"copy the hash from `pip hash FILE` or `pip-compile --generate-hashes`"_s, 0};
    };
    const qsizetype colon = value.indexOf(u':');
    if (colon < 0)
        return error(u"--hash needs an algorithm and a digest, like --hash=sha256:<64 hexadecimal digits>"_s);
    const QString algorithm = value.first(colon);
    const QString digest = value.sliced(colon + 1);
    const int length = algorithm == u"sha256"_s   ? 64
                       : algorithm == u"sha384"_s ? 96
                       : algorithm == u"sha512"_s ? 128
                                                  : 0;
    if (length == 0)
        return error(u"pip allows the hash algorithms sha256, sha384 and sha512, not '%1'"_s.arg(algorithm));
    static const QRegularExpression hex(u"^[0-9a-fA-F]*$"_s);
    if (digest.size() != length || !hex.match(digest).hasMatch()) {
        return LineProblem{
            Diagnostic::Severity::Warning,
            u"a %1 digest is %2 hexadecimal digits; no file can match this one"_s.arg(algorithm).arg(length),
            u"copy the hash from `pip hash FILE` or `pip-compile --generate-hashes`"_s, 0};
    }
    return std::nullopt;
}

class LineReader {
public:
    explicit LineReader(const QString &line) : m_line(line) {}

    PipLine read()
    {
        const QString text = m_line.trimmed();
        if (text.isEmpty())
            return {};
        m_entry.text = text;
        qsizetype start = 0;
        while (m_line.at(start).isSpace())
            ++start;
        if (text.startsWith(u'-')) {
            readOptions(start, true);
        } else {
            // pip's break_args_options: the requirement runs up to the first word that starts with '-'.
            qsizetype end = start;
            while (end < m_line.size()) {
                while (end < m_line.size() && !isBlank(m_line.at(end)))
                    ++end;
                qsizetype next = end;
                while (next < m_line.size() && isBlank(m_line.at(next)))
                    ++next;
                if (next >= m_line.size() || m_line.at(next) == u'-')
                    break;
                end = next;
            }
            readArguments(m_line.sliced(start, end - start), start);
            if (!m_verbatim)
                readOptions(end, false);
        }
        if (m_verbatim) {
            m_entry = PipRequirement{PipRequirement::Kind::Verbatim, {}, {}, {}, {}, text};
            m_result.options = PipOptions();
            m_result.includes.clear();
        }
        if (m_hasEntry || m_verbatim)
            m_result.entry = m_entry;
        return m_result;
    }

private:
    void problem(Diagnostic::Severity severity, qsizetype offset, const QString &message, const QString &hint)
    {
        m_result.problems << LineProblem{severity, message, hint, offset};
        m_verbatim = true; // a line with a problem is kept exactly as written
    }

    void readArguments(const QString &args, qsizetype offset)
    {
        m_hasEntry = true;
        const qsizetype at = args.indexOf(u'@');
        const bool directReference = at > 0 && !looksLikePath(QStringView(args).first(at));
        if (isUrl(args) || (!directReference && isArchiveFile(args))) {
            m_entry.kind = PipRequirement::Kind::Archive;
            m_entry.target = args;
            return;
        }
        const auto requirement = parseRequirement(args);
        if (requirement) {
            m_entry.kind = PipRequirement::Kind::Requirement;
            m_entry.requirement = *requirement;
            return;
        }
        if (!directReference && looksLikePath(args)) {
            m_entry.kind = PipRequirement::Kind::Archive;
            m_entry.target = args;
            return;
        }
        if (args.contains(u"${"_s)) {
            problem(Diagnostic::Severity::Warning, offset + args.indexOf(u"${"_s),
                    u"kept as written: pip expands ${...} before reading the requirement"_s,
                    u"Ferry never expands environment variables; the line goes to pip unchanged"_s);
            return;
        }
        const Error &error = requirement.error();
        problem(Diagnostic::Severity::Error, offset + std::max(0, error.column - 1), error.message, error.hint);
    }

    void readOptions(qsizetype from, bool optionLine)
    {
        qsizetype problemAt = 0;
        const std::optional<QList<Word>> words = shellWords(m_line, from, &problemAt);
        if (!words) {
            problem(Diagnostic::Severity::Error, problemAt,
                    u"cannot split the options: unclosed quote or lone backslash"_s,
                    u"close the quote, or quote the backslash"_s);
            return;
        }
        for (qsizetype i = 0; i < words->size() && !m_verbatim; ++i) {
            const Word &word = words->at(i);
            const OptionSpec *spec = nullptr;
            QString value;
            bool hasValue = false;
            if (word.value.startsWith(u"--"_s)) {
                const qsizetype equals = word.value.indexOf(u'=');
                const QStringView name =
                    QStringView(word.value).sliced(2, (equals < 0 ? word.value.size() : equals) - 2);
                for (const OptionSpec &s : options)
                    spec = s.longName == name ? &s : spec;
                if (equals >= 0) {
                    value = word.value.sliced(equals + 1);
                    hasValue = true;
                }
            } else if (word.value.size() >= 2 && word.value.startsWith(u'-')) {
                for (const OptionSpec &s : options)
                    spec = s.shortName == word.value.at(1) ? &s : spec;
                if (word.value.size() > 2) {
                    value = word.value.sliced(2);
                    hasValue = true;
                }
            } else {
                // optparse keeps a word that is no option as a positional argument, and pip drops
                // those (req_file.py: `opts, _ = parser.parse_args(...)`): `-r URL [--no-deps]`
                // includes URL. The same here, with a warning; the line is still read.
                m_result.problems << LineProblem{
                    Diagnostic::Severity::Warning,
                    u"'%1' after the options is ignored: pip drops words that are not options"_s.arg(word.value),
                    optionLine ? u"remove it; a requirement goes on a line of its own"_s
                               : u"remove it, or put it on a line of its own if it is a requirement"_s,
                    word.start};
                continue;
            }
            if (!spec) {
                problem(Diagnostic::Severity::Warning, word.start,
                        u"kept as written: '%1' is not an option pip accepts in requirements files"_s.arg(
                            word.value.section(u'=', 0, 0)),
                        u"check the spelling; Ferry passes the line to pip unchanged"_s);
                return;
            }
            qsizetype end = word.end;
            if (spec->takesValue && !hasValue) {
                if (i + 1 >= words->size()) {
                    problem(Diagnostic::Severity::Error, word.end, u"%1 needs a value"_s.arg(word.value),
                            u"write %1 VALUE or --%2=VALUE"_s.arg(word.value, spec->longName));
                    return;
                }
                value = words->at(++i).value;
                end = words->at(i).end;
            } else if (!spec->takesValue && hasValue) {
                problem(Diagnostic::Severity::Error, word.start, u"--%1 takes no value"_s.arg(spec->longName),
                        u"write --%1 alone"_s.arg(spec->longName));
                return;
            }
            apply(*spec, value, word.start, m_line.sliced(word.start, end - word.start), optionLine);
        }
    }

    void apply(const OptionSpec &spec, const QString &value, qsizetype at, const QString &written, bool optionLine)
    {
        if (isPerRequirement(spec.key) && !m_hasEntry) {
            problem(Diagnostic::Severity::Error, at, u"--%1 belongs after a requirement"_s.arg(spec.longName),
                    u"write it on the requirement's line: name==1.0 --%1=..."_s.arg(spec.longName));
            return;
        }
        if (!isPerRequirement(spec.key) && !optionLine) {
            problem(Diagnostic::Severity::Error, at, u"--%1 cannot follow a requirement"_s.arg(spec.longName),
                    u"put global options on a line of their own"_s);
            return;
        }
        PipOptions &o = m_result.options;
        switch (spec.key) {
        case OptionKey::IndexUrl:
            o.indexUrl = value;
            break;
        case OptionKey::ExtraIndexUrl:
            o.extraIndexUrls << value;
            break;
        case OptionKey::FindLinks:
            o.findLinks << value;
            break;
        case OptionKey::TrustedHost:
            o.trustedHosts << value;
            break;
        case OptionKey::NoIndex:
            o.noIndex = true;
            break;
        case OptionKey::Pre:
            o.pre = true;
            break;
        case OptionKey::OtherGlobal:
            o.other << written;
            break;
        case OptionKey::Constraint:
        case OptionKey::Requirement:
            m_result.includes << LineInclude{value, at, spec.key == OptionKey::Constraint};
            break;
        case OptionKey::Editable:
            if (m_hasEntry) {
                problem(Diagnostic::Severity::Error, at, u"one -e per line"_s, u"put each editable on its own line"_s);
                return;
            }
            if (!isValidEditable(value)) {
                problem(Diagnostic::Severity::Error, at, u"'%1' is not a valid editable requirement"_s.arg(value),
                        u"-e takes a path to a local project (./src/pkg) or a VCS URL "
                        "(git+https://host/repo.git#egg=name)"_s);
                return;
            }
            m_hasEntry = true;
            m_entry.kind = PipRequirement::Kind::Editable;
            m_entry.target = value;
            break;
        case OptionKey::Hash:
            if (std::optional<LineProblem> bad = hashProblem(value)) {
                bad->offset = at;
                if (bad->severity == Diagnostic::Severity::Error) {
                    problem(bad->severity, at, bad->message, bad->hint);
                    return;
                }
                m_result.problems << *bad; // kept and modelled: pip reads it too
            }
            m_entry.hashes << value;
            break;
        case OptionKey::OtherPerRequirement:
            m_entry.options << u"--"_s + spec.longName + u'=' + shellQuote(value);
            break;
        }
    }

    const QString &m_line;
    PipLine m_result;
    PipRequirement m_entry;
    bool m_hasEntry = false;
    bool m_verbatim = false;
};

} // namespace

QString removeComment(const QString &line)
{
    for (qsizetype i = 0; i < line.size(); ++i) {
        if (line.at(i) != u'#' || (i > 0 && !line.at(i - 1).isSpace()))
            continue;
        qsizetype start = i;
        while (start > 0 && line.at(start - 1).isSpace())
            --start;
        return line.first(start);
    }
    return line;
}

QString shellQuote(const QString &value)
{
    static const QRegularExpression plain(u"^[^\\s'\"\\\\]+$"_s);
    if (plain.match(value).hasMatch())
        return value;
    QString quoted = value;
    return u'\'' + quoted.replace(u"'"_s, u"'\"'\"'"_s) + u'\'';
}

PipLine parseLogicalLine(const QString &line)
{
    return LineReader(line).read();
}

} // namespace ferry::env::pep508

namespace ferry::env {

using namespace pep508;

namespace {

// The PEP 508 text of a requirement: as written when that still says the same, else rebuilt.
QString requirementText(const Requirement &r)
{
    if (!r.text.isEmpty()) {
        const auto reparsed = parseRequirement(r.text);
        if (reparsed && *reparsed == r)
            return r.text;
    }
    QString text = r.name;
    if (!r.extras.isEmpty())
        text += u'[' + r.extras.join(u',') + u']';
    text += r.specifier;
    if (!r.url.isEmpty())
        text += u" @ "_s + r.url;
    if (!r.marker.isEmpty())
        text += u" ; "_s + r.marker;
    return text;
}

} // namespace

QString PipRequirement::canonical() const
{
    QString out;
    switch (kind) {
    case Kind::Requirement:
        out = requirement.canonical();
        break;
    case Kind::Editable:
        out = u"-e "_s + target;
        break;
    case Kind::Archive:
        out = target;
        break;
    case Kind::Verbatim:
        out = text.simplified();
        break;
    }
    QStringList sortedHashes = hashes;
    sortedHashes.sort();
    sortedHashes.removeDuplicates();
    for (const QString &hash : std::as_const(sortedHashes))
        out += u" --hash="_s + hash;
    QStringList sortedOptions = options;
    sortedOptions.sort();
    sortedOptions.removeDuplicates();
    for (const QString &option : std::as_const(sortedOptions))
        out += u' ' + option;
    return out;
}

QString PipRequirement::toLine() const
{
    if (kind == Kind::Verbatim)
        return text;
    if (!text.isEmpty()) {
        const auto reparsed = parsePipLine(text);
        if (reparsed && *reparsed == *this)
            return text;
    }
    QString line;
    switch (kind) {
    case Kind::Requirement:
        line = requirementText(requirement);
        break;
    case Kind::Editable:
        line = u"-e "_s + shellQuote(target);
        break;
    case Kind::Archive:
    case Kind::Verbatim:
        line = target;
        break;
    }
    for (const QString &hash : hashes)
        line += u" --hash="_s + shellQuote(hash);
    for (const QString &option : options)
        line += u' ' + option;
    return line;
}

QStringList PipOptions::toLines() const
{
    QStringList lines;
    if (!indexUrl.isEmpty())
        lines << u"--index-url "_s + shellQuote(indexUrl);
    for (const QString &url : extraIndexUrls)
        lines << u"--extra-index-url "_s + shellQuote(url);
    for (const QString &link : findLinks)
        lines << u"--find-links "_s + shellQuote(link);
    for (const QString &host : trustedHosts)
        lines << u"--trusted-host "_s + shellQuote(host);
    if (noIndex)
        lines << u"--no-index"_s;
    if (pre)
        lines << u"--pre"_s;
    lines << other;
    return lines;
}

Expected<PipRequirement> parsePipLine(const QString &line)
{
    const QString logical = removeComment(line);
    const PipLine parsed = parseLogicalLine(logical);
    for (const LineProblem &problem : parsed.problems) {
        if (problem.severity == Diagnostic::Severity::Error)
            return Error{problem.message, {}, 0, columnOf(line, problem.offset), problem.hint};
    }
    if (parsed.entry)
        return *parsed.entry;
    const QString text = logical.trimmed();
    if (text.isEmpty()) {
        return Error{
            u"empty requirement"_s, {}, 0, 1, u"write a requirement such as requests>=2.31, or remove the entry"_s};
    }
    // A global option or an include: nothing to model on its own, so it is kept as written.
    return PipRequirement{PipRequirement::Kind::Verbatim, {}, {}, {}, {}, text};
}

} // namespace ferry::env
