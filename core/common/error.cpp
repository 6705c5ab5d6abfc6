#include "common/error.h"

#include <cstring>

using namespace Qt::StringLiterals;

namespace ferry {

QString Error::toString() const
{
    QString where;
    if (!path.isEmpty()) {
        where = path;
        if (line > 0) {
            where += u':' + QString::number(line);
            if (column > 0)
                where += u':' + QString::number(column);
        }
        where += u": "_s;
    }
    QString text = where + message;
    if (!hint.isEmpty())
        text += u"\n  hint: "_s + hint;
    return text;
}

Error withContext(const QString &context, Error error)
{
    error.message = context + u": "_s + error.message;
    return error;
}

QString errnoText(int code)
{
    return QString::fromLocal8Bit(std::strerror(code));
}

bool isControlCharacter(QChar c)
{
    return c.unicode() < 0x20 || (c.unicode() >= 0x7f && c.unicode() < 0xa0) || c.category() == QChar::Other_Format;
}

QString codePoint(QChar c)
{
    return u"U+"_s + QString::number(c.unicode(), 16).toUpper().rightJustified(4, u'0');
}

QString quotedName(QStringView name)
{
    QString out;
    for (const QChar c : name.left(200)) {
        if (isControlCharacter(c))
            out += QStringLiteral("\\u%1").arg(static_cast<uint>(c.unicode()), 4, 16, QChar(u'0'));
        else
            out += c;
    }
    return name.size() > 200 ? out + QStringLiteral("...") : out;
}

} // namespace ferry
