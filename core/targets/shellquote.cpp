#include "targets/shellquote.h"

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

QString shown(const QString &word)
{
    QString text = word.left(40);
    text.replace(QChar(0), u"\\0"_s).replace(u'\n', u"\\n"_s).replace(u'\r', u"\\r"_s);
    return word.size() > 40 ? text + u"..."_s : text;
}

} // namespace

Expected<QString> shellQuote(const QString &word)
{
    if (word.contains(QChar(0)))
        return Error{u"the argument '%1' holds a NUL character, which no command line can carry"_s.arg(shown(word)),
                     {},
                     0,
                     0,
                     u"remove it"_s};
    if (word.contains(u'\n') || word.contains(u'\r'))
        return Error{
            u"the argument '%1' holds a line break, which a remote command line cannot carry"_s.arg(shown(word)),
            {},
            0,
            0,
            u"pass multi-line values in a file instead"_s};
    QString quoted = u"'"_s;
    for (const QChar c : word) {
        if (c == u'\'')
            quoted += u"'\\''"_s;
        else
            quoted += c;
    }
    quoted += u'\'';
    return quoted;
}

Expected<QString> shellCommandLine(const QStringList &words)
{
    QStringList quoted;
    for (const QString &word : words) {
        auto q = shellQuote(word);
        if (!q)
            return q.error();
        quoted << *q;
    }
    return quoted.join(u' ');
}

Expected<QString> loginShellCommandLine(const QStringList &words)
{
    const auto line = shellCommandLine(words);
    if (!line)
        return line.error();
    // Base64 has no quote, backslash, $ or space: the single-quoted constant around it reads the
    // same in sh, bash, zsh, fish, tcsh and nushell, and sh then sees exactly the quoted words.
    const QString encoded = QString::fromLatin1(line->toUtf8().toBase64());
    return QString(u"sh -c 'eval \"$(printf %s "_s + encoded + u" | base64 -d)\"'"_s);
}

} // namespace ferry::targets
