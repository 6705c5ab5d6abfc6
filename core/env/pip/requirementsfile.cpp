#include "env/pip/requirementsfile.h"

#include "env/pip/pep508tokenizer.h"
#include "env/pip/requirementsline.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringDecoder>

using namespace Qt::StringLiterals;
using namespace ferry::env::pep508;

// Files are read as pip reads them (pip/_internal/req/req_file.py): physical lines ending in a
// backslash are joined, comments removed, then each logical line is a requirement or options.

namespace ferry::env {

namespace {

constexpr qint64 maxFileBytes = 10 * 1024 * 1024;
constexpr int maxIncludeDepth = 64;
// Includes may repeat without a cycle (a file that names the same file twice, nested): cap the
// total so that no include graph makes reading slow.
constexpr int maxIncludedFiles = 1000;
constexpr qsizetype maxIncludedChars = 50 * 1024 * 1024;

// Where a stretch of a logical line came from, to report physical line and column.
struct Piece {
    qsizetype logicalStart = 0;
    int physicalIndex = 0;
    qsizetype physicalOffset = 0;
};

struct LogicalLine {
    QString text;
    QList<Piece> pieces;
};

QStringList physicalLines(const QString &text)
{
    // Python's str.splitlines(), which pip uses.
    static const QRegularExpression newline(
        u"\\r\\n|[\\n\\r\\x{0B}\\x{0C}\\x{1C}\\x{1D}\\x{1E}\\x{85}\\x{2028}\\x{2029}]"_s);
    QStringList lines = text.split(newline);
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// pip's join_lines: a line ending in '\' continues on the next one, unless it is a comment;
// the backslashes are stripped from both ends of the continued line.
QList<LogicalLine> logicalLines(const QStringList &lines)
{
    static const QRegularExpression comment(u"^\\s*#"_s);
    QList<LogicalLine> result;
    LogicalLine pending;
    for (int i = 0; i < lines.size(); ++i) {
        QString line = lines.at(i);
        const bool isComment = comment.match(line).hasMatch();
        if (!line.endsWith(u'\\') || isComment) {
            qsizetype offset = 0;
            if (isComment) {
                line.prepend(u' '); // so that the comment is removed even when glued to a continuation
                offset = -1;
            }
            pending.pieces << Piece{pending.text.size(), i, offset};
            pending.text += line;
            result << pending;
            pending = LogicalLine();
        } else {
            qsizetype begin = 0;
            qsizetype end = line.size();
            while (begin < end && line.at(begin) == u'\\')
                ++begin;
            while (end > begin && line.at(end - 1) == u'\\')
                --end;
            pending.pieces << Piece{pending.text.size(), i, begin};
            pending.text += line.sliced(begin, end - begin);
        }
    }
    if (!pending.pieces.isEmpty())
        result << pending;
    return result;
}

QString decodeProblem(const QByteArray &bytes, QString *text)
{
    QByteArrayView view(bytes);
    std::optional<QStringConverter::Encoding> encoding;
    // The byte-order marks spelled with explicit lengths: they contain NUL bytes.
    if (view.startsWith(QByteArrayView("\xFF\xFE\x00\x00", 4)))
        encoding = QStringConverter::Utf32LE;
    else if (view.startsWith(QByteArrayView("\x00\x00\xFE\xFF", 4)))
        encoding = QStringConverter::Utf32BE;
    else if (view.startsWith(QByteArrayView("\xFF\xFE", 2)))
        encoding = QStringConverter::Utf16LE;
    else if (view.startsWith(QByteArrayView("\xFE\xFF", 2)))
        encoding = QStringConverter::Utf16BE;
    else if (const qsizetype nul = view.indexOf('\0'); nul >= 0)
        return u"binary data (a NUL byte at offset %1), not a requirements file"_s.arg(nul);

    QStringDecoder decoder(encoding.value_or(QStringConverter::Utf8));
    *text = decoder(view);
    if (text->startsWith(QChar(0xFEFF)))
        text->remove(0, 1);
    if (decoder.hasError()) {
        const qsizetype bad = text->indexOf(QChar::ReplacementCharacter);
        const qsizetype line = bad < 0 ? 0 : QStringView(*text).first(bad).count(u'\n') + 1;
        return u"not UTF-8 text (first bad byte on line %1)"_s.arg(line);
    }
    if (const qsizetype nul = text->indexOf(QChar(0)); nul >= 0)
        return u"binary data (a NUL character at offset %1), not a requirements file"_s.arg(nul);
    return {};
}

// The text of a requirements file, or why it cannot be one. Refuses early what would be slow
// or hang: folders, devices and pipes, files over 10 MB.
Expected<QString> readFileText(const QString &path)
{
    const auto error = [&](const QString &message, const QString &hint) { return Error{message, path, 0, 0, hint}; };
    if (path.isEmpty())
        return error(u"no file name given"_s, u"name a requirements file"_s);
    const QFileInfo info(path);
    if (!info.exists())
        return error(u"no such file"_s, u"check the path"_s);
    if (info.isDir())
        return error(u"is a folder, not a requirements file"_s, u"name the requirements.txt inside it"_s);
    if (!info.isFile())
        return error(u"not a regular file (a device, pipe or socket)"_s, u"save the requirements to a file"_s);
    const auto tooLarge = [&] {
        return error(u"too large: %1 MB (requirements files are at most %2 MB)"_s.arg(info.size() / (1024 * 1024))
                         .arg(maxFileBytes / (1024 * 1024)),
                     u"is this the right file?"_s);
    };
    if (info.size() > maxFileBytes)
        return tooLarge();
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return error(u"cannot read: "_s + file.errorString(), u"check the file's permissions"_s);
    const QByteArray bytes = file.read(maxFileBytes + 1);
    if (file.error() != QFileDevice::NoError)
        return error(u"cannot read: "_s + file.errorString(), u"check the file's permissions"_s);
    if (bytes.size() > maxFileBytes)
        return tooLarge();
    QString text;
    if (const QString problem = decodeProblem(bytes, &text); !problem.isEmpty())
        return error(problem, u"a requirements file is UTF-8 (or UTF-16 with a byte-order mark) text"_s);
    return text;
}

QString fileKey(const QString &path)
{
    const QFileInfo info(path);
    const QString canonical = info.canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

void appendUnique(QStringList &into, const QStringList &values)
{
    for (const QString &value : values) {
        if (!into.contains(value))
            into << value;
    }
}

class FileReader {
public:
    RequirementsFile result;

    void read(const QString &text, const QString &path, bool constraint)
    {
        const QStringList lines = physicalLines(text);
        for (const LogicalLine &logical : logicalLines(lines)) {
            const QString line = removeComment(logical.text);
            const PipLine parsed = parseLogicalLine(line);
            const auto at = [&](qsizetype offset) { return location(lines, logical, offset, path); };
            for (const LineProblem &problem : parsed.problems) {
                Error where = at(problem.offset);
                where.message = problem.message;
                where.hint = problem.hint;
                result.diagnostics << Diagnostic{problem.severity, where};
            }
            mergeOptions(parsed.options, at(0));
            if (parsed.entry)
                (constraint ? result.constraints : result.requirements) << *parsed.entry;
            for (const LineInclude &include : parsed.includes) {
                // pip: -r inside a constraints file reads requirements, -c reads constraints.
                if (!follow(include, path, at(include.offset)))
                    (constraint ? result.constraints : result.requirements) << verbatim(line);
            }
        }
    }

    QStringList stack;   // fileKey() of the files being read, outermost first
    QStringList display; // their paths as reported

private:
    int m_includedFiles = 0;
    qsizetype m_includedChars = 0;

    static PipRequirement verbatim(const QString &line)
    {
        return PipRequirement{PipRequirement::Kind::Verbatim, {}, {}, {}, {}, line.trimmed()};
    }

    static Error location(const QStringList &lines, const LogicalLine &logical, qsizetype offset, const QString &path)
    {
        Piece piece = logical.pieces.first();
        for (const Piece &p : logical.pieces) {
            if (p.logicalStart <= offset)
                piece = p;
        }
        const QString &physical = lines.at(piece.physicalIndex);
        const qsizetype physicalOffset = std::max<qsizetype>(0, piece.physicalOffset + offset - piece.logicalStart);
        return Error{{}, path, piece.physicalIndex + 1, columnOf(physical, physicalOffset), {}};
    }

    void add(Diagnostic::Severity severity, Error where, const QString &message, const QString &hint)
    {
        where.message = message;
        where.hint = hint;
        result.diagnostics << Diagnostic{severity, where};
    }

    void mergeOptions(const PipOptions &options, const Error &where)
    {
        PipOptions &o = result.options;
        if (!options.indexUrl.isEmpty()) {
            if (!o.indexUrl.isEmpty() && o.indexUrl != options.indexUrl) {
                add(Diagnostic::Severity::Warning, where, u"this --index-url replaces %1"_s.arg(o.indexUrl),
                    u"pip uses one index URL; add others with --extra-index-url"_s);
            }
            o.indexUrl = options.indexUrl;
        }
        appendUnique(o.extraIndexUrls, options.extraIndexUrls);
        appendUnique(o.findLinks, options.findLinks);
        appendUnique(o.trustedHosts, options.trustedHosts);
        appendUnique(o.other, options.other);
        o.pre = o.pre || options.pre;
        o.noIndex = o.noIndex || options.noIndex;
    }

    // Reads an included file into the result; false when it is kept as a verbatim line instead.
    bool follow(const LineInclude &include, const QString &fromPath, const Error &where)
    {
        const QString option = include.constraint ? u"-c"_s : u"-r"_s;
        static const QRegularExpression remote(u"^(?i:https?|ftp|file):"_s);
        if (include.target.contains(u"${"_s)) {
            add(Diagnostic::Severity::Warning, where,
                u"%1 %2 is kept as written: Ferry does not expand ${...}"_s.arg(option, include.target),
                u"pip expands it when it installs; name the file directly to import its contents"_s);
            return false;
        }
        if (remote.match(include.target).hasMatch()) {
            add(Diagnostic::Severity::Warning, where,
                u"%1 %2 is kept as written: Ferry does not download requirements files"_s.arg(option, include.target),
                u"download it and include the local copy to import its contents"_s);
            return false;
        }
        // Relative to the including file, spelled relative when that file's path was.
        const QString folder = fromPath.isEmpty() ? QString() : QFileInfo(fromPath).path();
        const QString resolved = QDir::cleanPath(
            QDir::isAbsolutePath(include.target) || folder.isEmpty() ? include.target : folder + u'/' + include.target);
        const QString key = fileKey(resolved);
        if (const qsizetype cycleStart = stack.indexOf(key); cycleStart >= 0) {
            const QStringList cycle = display.sliced(cycleStart) << resolved;
            add(Diagnostic::Severity::Error, where, u"include cycle: "_s + cycle.join(u" -> "_s),
                u"remove one of the -r/-c lines that lead back to a file already being read"_s);
            return false;
        }
        if (stack.size() >= maxIncludeDepth) {
            add(Diagnostic::Severity::Error, where, u"includes nested more than %1 deep"_s.arg(maxIncludeDepth),
                u"flatten the chain of -r/-c files"_s);
            return false;
        }
        if (++m_includedFiles > maxIncludedFiles) {
            add(Diagnostic::Severity::Error, where, u"more than %1 included files"_s.arg(maxIncludedFiles),
                u"the same files are included again and again; remove repeated -r/-c lines"_s);
            return false;
        }
        const Expected<QString> text = readFileText(resolved);
        if (!text) {
            const bool missing = !QFileInfo::exists(resolved);
            add(Diagnostic::Severity::Error, where,
                missing ? u"included file not found: "_s + resolved
                        : u"cannot include %1: %2"_s.arg(resolved, text.error().message),
                missing ? u"paths after -r and -c are relative to the including file's folder (%1)"_s.arg(
                              QFileInfo(fromPath).absolutePath())
                        : text.error().hint);
            return false;
        }
        m_includedChars += text->size();
        if (m_includedChars > maxIncludedChars) {
            add(Diagnostic::Severity::Error, where,
                u"included files add up to more than %1 MB"_s.arg(maxIncludedChars / (1024 * 1024)),
                u"the same files are included again and again; remove repeated -r/-c lines"_s);
            return false;
        }
        stack << key;
        display << resolved;
        read(*text, resolved, include.constraint);
        stack.removeLast();
        display.removeLast();
        return true;
    }
};

} // namespace

RequirementsFile readRequirementsFile(const QString &path)
{
    const Expected<QString> text = readFileText(path);
    if (!text) {
        RequirementsFile file;
        file.diagnostics << Diagnostic{Diagnostic::Severity::Error, text.error()};
        return file;
    }
    return parseRequirementsText(*text, path);
}

RequirementsFile parseRequirementsText(const QString &text, const QString &path)
{
    FileReader reader;
    if (!path.isEmpty()) {
        reader.stack << fileKey(path);
        reader.display << path;
    }
    QString content = text;
    if (content.startsWith(QChar(0xFEFF)))
        content.remove(0, 1);
    reader.read(content, path, false);
    return reader.result;
}

QString writeRequirementsText(const QList<PipRequirement> &requirements, const PipOptions &options)
{
    QStringList lines = options.toLines();
    for (const PipRequirement &requirement : requirements)
        lines << requirement.toLine();
    return lines.isEmpty() ? QString() : lines.join(u'\n') + u'\n';
}

} // namespace ferry::env
