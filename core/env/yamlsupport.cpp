#include "env/yamlsupport.h"

#include <QRegularExpression>

#include <yaml-cpp/depthguard.h>

#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::env::yaml {

namespace {

// YAML nodes are built recursively; refuse absurd nesting before yaml-cpp (2000) or our own
// recursion gets near the stack limit.
constexpr int kMaxDepth = 200;

int nestingDepth(const QString &text)
{
    // Flow collections and indentation both nest; a cheap upper bound on either is enough
    // to refuse pathological input with a clear message.
    int depth = 0;
    int maxDepth = 0;
    for (const QChar c : text) {
        if (c == u'[' || c == u'{')
            maxDepth = std::max(maxDepth, ++depth);
        else if ((c == u']' || c == u'}') && depth > 0)
            --depth;
    }
    return maxDepth;
}

// Aliases (`*name`) repeat the node they point to, and everything that reads the tree (the
// readers, toJson, writing back) walks each repetition: `l1: &l1 [*l0, *l0, ...]` ten times
// over is a few hundred bytes and 10^N nodes (security review M6). The walk below counts what a
// reader would see, aliases expanded, and stops at this many: a real environment file has a
// few thousand nodes at most.
constexpr qint64 kMaxNodes = 100000;

struct Walk {
    qint64 nodes = 0;
    int deepest = 0;
    YAML::Mark topLevel = YAML::Mark::null_mark();  // the top-level value being walked
    YAML::Mark stoppedAt = YAML::Mark::null_mark(); // that value's, when the node budget ran out
};

// Depth and node count of the expanded tree; stops early past either limit, so it costs at most
// kMaxNodes steps whatever the aliases do.
void walk(const YAML::Node &node, int depth, Walk &w)
{
    if (depth == 1)
        w.topLevel = node.Mark();
    if (++w.nodes > kMaxNodes) {
        if (w.stoppedAt.is_null())
            w.stoppedAt = w.topLevel.is_null() ? node.Mark() : w.topLevel;
        return;
    }
    w.deepest = std::max(w.deepest, depth);
    if (depth > kMaxDepth)
        return;
    if (node.IsSequence()) {
        for (const YAML::Node &child : node) {
            walk(child, depth + 1, w);
            if (w.nodes > kMaxNodes)
                return;
        }
    } else if (node.IsMap()) {
        for (const auto &entry : node) {
            walk(entry.first, depth + 1, w);
            walk(entry.second, depth + 1, w);
            if (w.nodes > kMaxNodes)
                return;
        }
    }
}

bool looksLikeNonString(const QString &s);

// Characters a plain scalar cannot hold as they are: C0/C1 controls, the byte-order mark
// (readers drop it) and the Unicode line and paragraph separators (YAML 1.1 line breaks).
bool isTroublesome(QChar c)
{
    const char16_t u = c.unicode();
    return u < 0x20 || (u >= 0x7F && u <= 0x9F) || u == 0xFEFF || u == 0x2028 || u == 0x2029;
}

bool needsQuotes(const QString &s)
{
    // Plain scalars lose leading and trailing blanks, and control characters (a CR in a
    // hand-edited file) cannot be written plain.
    if (!s.isEmpty() && (s.front().isSpace() || s.back().isSpace()))
        return true;
    for (const QChar c : s) {
        if (isTroublesome(c))
            return true;
    }
    return looksLikeNonString(s);
}

bool looksLikeNonString(const QString &s)
{
    // What a YAML 1.1 reader (PyYAML) or a 1.2 core-schema reader would not read as a string
    // if written plain: booleans, nulls, numbers, timestamps, and text starting with
    // characters that have meaning in YAML.
    static const QRegularExpression special(
        uR"(^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|~|null|Null|NULL|)$|)"
        uR"(^[-+]?(\.[0-9]+|[0-9][0-9_,:]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$|^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$|)"
        uR"(^0[xob][0-9a-fA-F_]+$|^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2})"_s);
    return special.match(s).hasMatch();
}

} // namespace

Expected<YAML::Node> load(const QString &text, const QString &path)
{
    if (nestingDepth(text) > kMaxDepth)
        return Error{u"nested more than %1 levels deep"_s.arg(kMaxDepth), path, 0, 0,
                     u"this is not an environment file"_s};
    try {
        YAML::Node root = YAML::Load(text.toStdString());
        Walk w;
        walk(root, 0, w);
        if (w.nodes > kMaxNodes)
            return Error{u"expands to more than %1 values: aliases (*name) repeat what they point to"_s.arg(kMaxNodes),
                         path, w.stoppedAt.is_null() ? 0 : w.stoppedAt.line + 1,
                         w.stoppedAt.is_null() ? 0 : w.stoppedAt.column + 1,
                         u"an environment file needs no aliases: write the values out, or remove the file"_s};
        if (w.deepest > kMaxDepth)
            return Error{u"nested more than %1 levels deep"_s.arg(kMaxDepth), path, 0, 0,
                         u"this is not an environment file"_s};
        return root;
    } catch (const YAML::DeepRecursion &e) {
        return Error{u"nested too deeply"_s, path, e.mark.line + 1, e.mark.column + 1,
                     u"this is not an environment file"_s};
    } catch (const YAML::Exception &e) {
        return Error{u"YAML syntax: "_s + QString::fromStdString(e.msg), path, e.mark.is_null() ? 0 : e.mark.line + 1,
                     e.mark.is_null() ? 0 : e.mark.column + 1, u"fix the YAML at that position"_s};
    }
}

QString scalar(const YAML::Node &node)
{
    return node.IsScalar() ? QString::fromStdString(node.Scalar()) : QString();
}

int line(const YAML::Node &node)
{
    const YAML::Mark m = node.Mark();
    return m.is_null() ? 0 : m.line + 1;
}

int column(const YAML::Node &node)
{
    const YAML::Mark m = node.Mark();
    return m.is_null() ? 0 : m.column + 1;
}

void Reader::error(const YAML::Node &at, const QString &message, const QString &hint)
{
    m_diagnostics << Diagnostic{Diagnostic::Severity::Error, Error{message, m_path, line(at), column(at), hint}};
}

void Reader::warning(const YAML::Node &at, const QString &message, const QString &hint)
{
    m_diagnostics << Diagnostic{Diagnostic::Severity::Warning, Error{message, m_path, line(at), column(at), hint}};
}

QString Reader::string(const YAML::Node &node, const QString &key)
{
    if (!node || node.IsNull())
        return {};
    if (!node.IsScalar()) {
        error(node, u"'%1' must be text, not a %2"_s.arg(key, node.IsSequence() ? u"list"_s : u"mapping"_s));
        return {};
    }
    return scalar(node);
}

void Reader::formatVersion(const YAML::Node &node, const QString &key, int supported)
{
    bool ok = false;
    const int version = string(node, key).toInt(&ok);
    if (!ok || version < 1)
        error(node, u"'%1' is the format version, a whole number such as 1"_s.arg(key));
    else if (version > supported)
        error(node, u"written by a newer Ferry (format %1; this one reads up to %2)"_s.arg(version).arg(supported),
              u"update Ferry"_s);
}

QStringList Reader::strings(const YAML::Node &node, const QString &key)
{
    QStringList result;
    if (!node || node.IsNull())
        return result;
    if (node.IsScalar())
        return {scalar(node)};
    if (!node.IsSequence()) {
        error(node, u"'%1' must be a list"_s.arg(key));
        return result;
    }
    for (const YAML::Node &item : node) {
        if (!item.IsScalar())
            error(item, u"each entry of '%1' must be text"_s.arg(key));
        else
            result << scalar(item);
    }
    return result;
}

bool Reader::boolean(const YAML::Node &node, const QString &key, bool fallback)
{
    if (!node || node.IsNull())
        return fallback;
    const QString v = scalar(node).toLower();
    if (node.IsScalar() && (v == "true"_L1 || v == "yes"_L1 || v == "on"_L1))
        return true;
    if (node.IsScalar() && (v == "false"_L1 || v == "no"_L1 || v == "off"_L1))
        return false;
    error(node, u"'%1' must be true or false"_s.arg(key));
    return fallback;
}

bool Reader::isMap(const YAML::Node &node, const QString &key)
{
    if (!node || node.IsNull())
        return false;
    if (!node.IsMap()) {
        error(node, u"'%1' must be a mapping (key: value lines)"_s.arg(key));
        return false;
    }
    return true;
}

std::optional<YAML::Node> loadMapping(const QString &text, Reader &r, const QString &emptyHint,
                                      const QString &notMapMessage)
{
    auto root = load(text, r.path());
    if (!root) {
        r.add(Diagnostic{Diagnostic::Severity::Error, root.error()});
        return std::nullopt;
    }
    if (root->IsNull()) {
        r.add(Diagnostic{Diagnostic::Severity::Error, Error{u"the file is empty"_s, r.path(), 0, 0, emptyHint}});
        return std::nullopt;
    }
    if (!root->IsMap()) {
        r.error(*root, notMapMessage);
        return std::nullopt;
    }
    return *root;
}

ExtraKeys toJson(const YAML::Node &node)
{
    if (!node || node.IsNull())
        return nullptr;
    if (node.IsSequence()) {
        ExtraKeys array = ExtraKeys::array();
        for (const YAML::Node &item : node)
            array.push_back(toJson(item));
        return array;
    }
    if (node.IsMap()) {
        ExtraKeys object = ExtraKeys::object();
        for (const auto &entry : node)
            object[entry.first.Scalar()] = toJson(entry.second);
        return object;
    }
    const std::string &text = node.Scalar();
    if (node.Tag() != "?") // quoted or explicitly tagged: a string
        return text;
    const QString s = QString::fromStdString(text);
    static const QRegularExpression integer(u"^[-+]?[0-9]+$"_s);
    static const QRegularExpression real(u"^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$"_s);
    if (s == "true"_L1 || s == "True"_L1 || s == "TRUE"_L1)
        return true;
    if (s == "false"_L1 || s == "False"_L1 || s == "FALSE"_L1)
        return false;
    if (s == "~"_L1 || s == "null"_L1 || s == "Null"_L1 || s == "NULL"_L1)
        return nullptr;
    bool ok = false;
    if (integer.match(s).hasMatch()) {
        const qlonglong v = s.toLongLong(&ok);
        if (ok)
            return v;
    }
    if (real.match(s).hasMatch()) {
        const double v = s.toDouble(&ok);
        if (ok)
            return v;
    }
    return text;
}

ExtraKeys unknownKeys(const YAML::Node &map, const QStringList &known)
{
    ExtraKeys extra;
    if (!map || !map.IsMap())
        return extra;
    for (const auto &entry : map) {
        const QString key = QString::fromStdString(entry.first.Scalar());
        if (!known.contains(key))
            extra[entry.first.Scalar()] = toJson(entry.second);
    }
    return extra;
}

bool hasControlCharacterKeys(const ExtraKeys &value)
{
    if (value.is_array()) {
        for (const auto &child : value)
            if (hasControlCharacterKeys(child))
                return true;
    }
    if (!value.is_object())
        return false;
    for (const auto &[key, child] : value.items()) {
        const QString text = QString::fromStdString(key);
        if (std::any_of(text.cbegin(), text.cend(), isTroublesome) || hasControlCharacterKeys(child))
            return true;
    }
    return false;
}

void emitKey(YAML::Emitter &out, const QString &key)
{
    out << YAML::Key;
    // YAML allows implicit keys of at most 1024 characters as written (quotes and escapes
    // included: a key of 500 '"' is 1000 characters once escaped); longer ones need the
    // explicit `? key` form, or a reader (yaml-cpp included) rejects the file.
    YAML::Emitter measure;
    emitString(measure, key);
    if (measure.size() > 1000)
        out << YAML::LongKey;
    emitString(out, key);
}

void emitString(YAML::Emitter &out, const QString &value)
{
    if (needsQuotes(value))
        out << YAML::DoubleQuoted;
    out << value.toStdString();
}

void emitStrings(YAML::Emitter &out, const QStringList &values, bool flow)
{
    if (flow)
        out << YAML::Flow;
    out << YAML::BeginSeq;
    for (const QString &v : values)
        emitString(out, v);
    out << YAML::EndSeq;
}

void emitJson(YAML::Emitter &out, const ExtraKeys &value)
{
    switch (value.type()) {
    case ExtraKeys::value_t::object:
        out << YAML::BeginMap;
        for (const auto &[key, child] : value.items()) {
            emitKey(out, QString::fromStdString(key));
            out << YAML::Value;
            emitJson(out, child);
        }
        out << YAML::EndMap;
        break;
    case ExtraKeys::value_t::array:
        out << YAML::BeginSeq;
        for (const auto &child : value)
            emitJson(out, child);
        out << YAML::EndSeq;
        break;
    case ExtraKeys::value_t::string:
        emitString(out, QString::fromStdString(value.get<std::string>()));
        break;
    case ExtraKeys::value_t::boolean:
        out << (value.get<bool>() ? "true" : "false");
        break;
    case ExtraKeys::value_t::number_integer:
        out << value.get<qint64>();
        break;
    case ExtraKeys::value_t::number_unsigned:
        out << value.get<quint64>();
        break;
    case ExtraKeys::value_t::number_float:
        out << YAML::Precision(std::numeric_limits<double>::max_digits10) << value.get<double>();
        break;
    default:
        out << YAML::Null;
        break;
    }
}

void emitVariables(YAML::Emitter &out, const QList<std::pair<QString, QString>> &variables, const QStringList &secret)
{
    if (variables.isEmpty())
        return;
    out << YAML::Key << "variables" << YAML::Value << YAML::BeginMap;
    for (const auto &[key, value] : variables) {
        emitKey(out, key);
        out << YAML::Value;
        if (secret.contains(key)) {
            out << YAML::Flow << YAML::BeginMap << YAML::Key << "secret" << YAML::Value;
            emitString(out, value);
            out << YAML::EndMap;
        } else {
            emitString(out, value);
        }
    }
    out << YAML::EndMap;
}

void emitExtraKeys(YAML::Emitter &out, const ExtraKeys &extra)
{
    if (!extra.is_object())
        return;
    for (const auto &[key, child] : extra.items()) {
        emitKey(out, QString::fromStdString(key));
        out << YAML::Value;
        emitJson(out, child);
    }
}

QString toText(const YAML::Emitter &out)
{
    return QString::fromUtf8(out.c_str()) + u'\n';
}

} // namespace ferry::env::yaml
