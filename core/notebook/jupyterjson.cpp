#include "notebook/jupyterjson.h"

#include <QJsonArray>
#include <QVariant>

#include <algorithm>
#include <charconv>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::notebook {

namespace {

bool isLineEnd(char16_t c)
{
    switch (c) {
    case u'\n':
    case u'\r':
    case u'\v':
    case u'\f':
    case u'\x1c':
    case u'\x1d':
    case u'\x1e':
    case u'\x85':
    case u'\u2028':
    case u'\u2029':
        return true;
    default:
        return false;
    }
}

// Python's repr of a float: the shortest digits that read back the same, fixed notation for
// exponents from -4 to 15 (with ".0" when integral), else d.ddde+XX.
QByteArray pythonFloat(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "Infinity" : "-Infinity";
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
    if (ec != std::errc())
        return QByteArray::number(value, 'g', 17);
    const QByteArray scientific(buffer, int(end - buffer)); // -d.ddde+XX
    const qsizetype e = scientific.indexOf('e');
    const int exponent = scientific.mid(e + 1).toInt();
    const bool negative = scientific.startsWith('-');
    QByteArray digits = scientific.left(e).mid(negative ? 1 : 0);
    digits.replace(".", "");
    QByteArray out = negative ? "-" : "";
    if (exponent >= -4 && exponent < 16) {
        if (exponent < 0) {
            out += "0." + QByteArray(-exponent - 1, '0') + digits;
        } else if (digits.size() <= exponent + 1) {
            out += digits + QByteArray(exponent + 1 - digits.size(), '0') + ".0";
        } else {
            out += digits.left(exponent + 1) + '.' + digits.mid(exponent + 1);
        }
        return out;
    }
    out += digits.left(1);
    if (digits.size() > 1)
        out += '.' + digits.mid(1);
    out += 'e';
    out += exponent < 0 ? '-' : '+';
    const QByteArray magnitude = QByteArray::number(std::abs(exponent));
    out += (magnitude.size() < 2 ? "0" : "") + magnitude;
    return out;
}

void writeString(QByteArray &out, const QString &text)
{
    out += '"';
    QString escaped;
    escaped.reserve(text.size());
    for (const QChar ch : text) {
        const char16_t c = ch.unicode();
        switch (c) {
        case u'"':
            escaped += u"\\\""_s;
            break;
        case u'\\':
            escaped += u"\\\\"_s;
            break;
        case u'\n':
            escaped += u"\\n"_s;
            break;
        case u'\r':
            escaped += u"\\r"_s;
            break;
        case u'\t':
            escaped += u"\\t"_s;
            break;
        case u'\b':
            escaped += u"\\b"_s;
            break;
        case u'\f':
            escaped += u"\\f"_s;
            break;
        default:
            if (c < 0x20)
                escaped += u"\\u%1"_s.arg(int(c), 4, 16, QLatin1Char('0'));
            else
                escaped += ch;
        }
    }
    out += escaped.toUtf8();
    out += '"';
}

bool codePointLess(const QString &a, const QString &b)
{
    const QList<uint> ua = a.toUcs4();
    const QList<uint> ub = b.toUcs4();
    return std::lexicographical_compare(ua.begin(), ua.end(), ub.begin(), ub.end());
}

void write(QByteArray &out, const QJsonValue &value, int depth)
{
    const auto newline = [&](int level) {
        out += '\n';
        out += QByteArray(level, ' ');
    };
    switch (value.type()) {
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        out += "null";
        return;
    case QJsonValue::Bool:
        out += value.toBool() ? "true" : "false";
        return;
    case QJsonValue::Double:
        // Integral (Qt keeps "3.0" as the integer 3 too): an integer.
        if (value.toVariant().typeId() == QMetaType::LongLong)
            out += QByteArray::number(value.toInteger());
        else
            out += pythonFloat(value.toDouble());
        return;
    case QJsonValue::String:
        writeString(out, value.toString());
        return;
    case QJsonValue::Array: {
        const QJsonArray array = value.toArray();
        if (array.isEmpty()) {
            out += "[]";
            return;
        }
        out += '[';
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (i)
                out += ',';
            newline(depth + 1);
            write(out, array.at(i), depth + 1);
        }
        newline(depth);
        out += ']';
        return;
    }
    case QJsonValue::Object: {
        const QJsonObject object = value.toObject();
        if (object.isEmpty()) {
            out += "{}";
            return;
        }
        QStringList keys = object.keys();
        std::sort(keys.begin(), keys.end(), codePointLess);
        out += '{';
        for (qsizetype i = 0; i < keys.size(); ++i) {
            if (i)
                out += ',';
            newline(depth + 1);
            writeString(out, keys.at(i));
            out += ": ";
            write(out, object.value(keys.at(i)), depth + 1);
        }
        newline(depth);
        out += '}';
        return;
    }
    }
}

QJsonValue splitText(const QJsonValue &value)
{
    if (!value.isString())
        return value;
    return QJsonArray::fromStringList(splitLinesKeepingEnds(value.toString()));
}

QJsonObject splitBundle(QJsonObject bundle)
{
    for (auto it = bundle.begin(); it != bundle.end(); ++it) {
        const QString &mime = it.key();
        if (it.value().isString() &&
            (mime.startsWith(u"text/"_s) || mime == u"image/svg+xml"_s || mime == u"application/javascript"_s))
            it.value() = splitText(it.value());
    }
    return bundle;
}

} // namespace

QStringList splitLinesKeepingEnds(const QString &text)
{
    QStringList lines;
    qsizetype start = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text.at(i).unicode();
        if (!isLineEnd(c))
            continue;
        if (c == u'\r' && i + 1 < text.size() && text.at(i + 1) == u'\n')
            ++i;
        lines << text.mid(start, i + 1 - start);
        start = i + 1;
    }
    if (start < text.size())
        lines << text.mid(start);
    return lines;
}

QString joinedText(const QJsonValue &value)
{
    if (value.isString())
        return value.toString();
    QString text;
    for (const QJsonValue &line : value.toArray())
        text += line.toString();
    return text;
}

QByteArray pythonJson(const QJsonValue &value)
{
    QByteArray out;
    write(out, value, 0);
    return out;
}

QByteArray jupyterNotebookBytes(const QJsonObject &notebook)
{
    QJsonObject nb = notebook;
    QJsonObject metadata = nb.value(u"metadata"_s).toObject();
    for (const auto *transient : {u"orig_nbformat", u"orig_nbformat_minor", u"signature"})
        metadata.remove(QString::fromUtf16(transient));
    if (nb.contains(u"metadata"_s))
        nb[u"metadata"_s] = metadata;
    QJsonArray cells;
    for (const QJsonValue &c : nb.value(u"cells"_s).toArray()) {
        QJsonObject cell = c.toObject();
        if (const QJsonValue source = cell.value(u"source"_s); source.isString())
            cell[u"source"_s] = splitText(source);
        if (cell.value(u"metadata"_s).isObject()) {
            QJsonObject cellMetadata = cell.value(u"metadata"_s).toObject();
            cellMetadata.remove(u"trusted"_s);
            cell[u"metadata"_s] = cellMetadata;
        }
        if (cell.value(u"attachments"_s).isObject()) {
            QJsonObject attachments = cell.value(u"attachments"_s).toObject();
            for (auto it = attachments.begin(); it != attachments.end(); ++it)
                it.value() = splitBundle(it.value().toObject());
            cell[u"attachments"_s] = attachments;
        }
        if (cell.value(u"cell_type"_s).toString() == u"code"_s && cell.value(u"outputs"_s).isArray()) {
            QJsonArray outputs;
            for (const QJsonValue &o : cell.value(u"outputs"_s).toArray()) {
                QJsonObject output = o.toObject();
                const QString type = output.value(u"output_type"_s).toString();
                if ((type == u"execute_result"_s || type == u"display_data"_s) && output.value(u"data"_s).isObject())
                    output[u"data"_s] = splitBundle(output.value(u"data"_s).toObject());
                else if (type == u"stream"_s)
                    output[u"text"_s] = splitText(output.value(u"text"_s));
                outputs.append(o.isObject() ? QJsonValue(output) : o);
            }
            cell[u"outputs"_s] = outputs;
        }
        cells.append(c.isObject() ? QJsonValue(cell) : c);
    }
    if (nb.contains(u"cells"_s))
        nb[u"cells"_s] = cells;
    return pythonJson(nb) + '\n';
}

} // namespace ferry::notebook
