#include "notebook/kernelquery.h"

#include "notebook/pythonsource.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::notebook {

namespace {

constexpr char16_t kExpressionKey[] = u"ferry";

// Cell magics whose body is Python run in the user's namespace (or timed there).
bool pythonCellMagic(const QString &magic)
{
    return magic == "time"_L1 || magic == "timeit"_L1 || magic == "prun"_L1 || magic == "capture"_L1;
}

// What stands for one IPython line in the source `ast` reads (at the line's indentation).
QString standIn(const LogicalLine &line)
{
    const QString indent = line.text.left(line.indent);
    const QString text = line.text.trimmed();
    static const QRegularExpression assigned(u"^([A-Za-z_][A-Za-z0-9_.]*)\\s*=\\s*[%!]"_s);
    if (const auto m = assigned.match(text); m.hasMatch())
        return indent + m.captured(1) + u" = None"_s;
    static const QRegularExpression timed(u"^%time\\s+(\\S.*)$"_s, QRegularExpression::DotMatchesEverythingOption);
    if (const auto m = timed.match(text); m.hasMatch() && !m.captured(1).contains(u'\n'))
        return indent + m.captured(1);
    static const QRegularExpression capture(u"^%%capture\\b(?:\\s+--?[A-Za-z-]+)*\\s+([A-Za-z_][A-Za-z0-9_]*)"_s);
    if (const auto m = capture.match(text); m.hasMatch())
        return indent + m.captured(1) + u" = None"_s;
    return indent + u"pass"_s;
}

QString base64Json(const QJsonObject &object)
{
    return QString::fromLatin1(QJsonDocument(object).toJson(QJsonDocument::Compact).toBase64());
}

Error queryError(const QString &message)
{
    return Error{message, {}, 0, 0, {}};
}

KernelVariable readVariable(const QJsonObject &o)
{
    KernelVariable v;
    v.name = o.value(u"name"_s).toString();
    v.type = o.value(u"type"_s).toString();
    v.hasShape = o.value(u"shape"_s).isArray();
    for (const QJsonValue &d : o.value(u"shape"_s).toArray())
        v.shape << qint64(d.toDouble());
    v.length = qint64(o.value(u"length"_s).toDouble(-1));
    v.bytes = qint64(o.value(u"bytes"_s).toDouble(-1));
    v.dtype = o.value(u"dtype"_s).toString();
    v.value = o.value(u"value"_s).toString();
    return v;
}

QStringList strings(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &s : value.toArray())
        list << s.toString();
    return list;
}

} // namespace

QJsonObject kernelQueryExpressions(const KernelQuery &query)
{
    QJsonArray sources;
    for (const QString &source : query.sources)
        sources.append(source);
    const QString request =
        base64Json({{u"sources"_s, sources}, {u"variables"_s, query.variables}, {u"most"_s, query.mostVariables}});
    // Evaluated in the user's namespace by IPython: lambdas, so that nothing is bound there (a
    // walrus would bind); the helper's own names live in the fresh dict `d`.
    const QString expression =
        u"(lambda g: (lambda d: (__import__('builtins').exec(__import__('base64').b64decode('%1').decode('utf-8'), d), "
        u"d['query'](g, '%2'))[1])({'__name__': 'ferry_kernel_query'}))(__import__('builtins').globals())"_s.arg(
            QString::fromLatin1(kernelQuerySource().toBase64()), request);
    return {{QString::fromUtf16(kExpressionKey), expression}};
}

Expected<KernelQueryAnswer> readKernelQueryReply(const QJsonObject &executeReply, bool *aborted)
{
    const QString status = executeReply.value(u"status"_s).toString();
    if (aborted)
        *aborted = status == "aborted"_L1;
    if (status != "ok"_L1)
        return queryError(u"the kernel did not answer the query: %1"_s.arg(status));
    const QJsonObject answer =
        executeReply.value(u"user_expressions"_s).toObject().value(QString::fromUtf16(kExpressionKey)).toObject();
    if (answer.value(u"status"_s).toString() != "ok"_L1) {
        return queryError(u"the query failed in the kernel: %1: %2"_s.arg(answer.value(u"ename"_s).toString(),
                                                                          answer.value(u"evalue"_s).toString()));
    }
    const QJsonValue json = answer.value(u"data"_s).toObject().value(u"application/json"_s);
    if (!json.isObject())
        return queryError(u"the kernel's answer has no application/json (is it IPython's?)"_s);
    const QJsonObject o = json.toObject();
    KernelQueryAnswer result;
    for (const QJsonValue &c : o.value(u"cells"_s).toArray()) {
        const QJsonObject cell = c.toObject();
        result.cells.append(
            {strings(cell.value(u"defines"_s)), strings(cell.value(u"reads"_s)), cell.value(u"error"_s).toString()});
    }
    if (o.contains(u"variables"_s)) {
        result.hasVariables = true;
        const QJsonArray variables = o.value(u"variables"_s).toArray();
        result.variables.reserve(variables.size());
        for (const QJsonValue &v : variables)
            result.variables.append(readVariable(v.toObject()));
        result.variableCount = qint64(o.value(u"count"_s).toDouble(double(variables.size())));
    }
    return result;
}

QString analyzableSource(const QString &cell)
{
    if (const QString magic = cellMagic(cell); !magic.isEmpty() && !pythonCellMagic(magic))
        return {};
    QStringList lines = cell.split(u'\n');
    for (const LogicalLine &line : logicalLines(cell)) {
        if (!line.isIPython())
            continue;
        lines[line.firstLine] = standIn(line);
        for (int i = line.firstLine + 1; i <= line.lastLine && i < lines.size(); ++i)
            lines[i].clear();
    }
    return lines.join(u'\n');
}

} // namespace ferry::notebook
