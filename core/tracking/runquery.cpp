#include "tracking/runquery.h"
#include "tracking/runquerynode.h"

#include <QDateTime>

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

using namespace Qt::StringLiterals;
using namespace ferry::run::query;

namespace ferry::run {

namespace {

constexpr std::pair<QStringView, Field> kFields[]{
    {u"tag", Field::Tag},         {u"status", Field::Status},
    {u"target", Field::Target},   {u"id", Field::Id},
    {u"name", Field::Name},       {u"script", Field::Script},
    {u"sweep", Field::Sweep},     {u"experiment", Field::Experiment},
    {u"note", Field::Note},       {u"created", Field::Created},
    {u"started", Field::Started},
};
constexpr std::pair<QStringView, Aggregate> kAggregates[]{
    {u"last", Aggregate::Last}, {u"best", Aggregate::Best}, {u"min", Aggregate::Min}, {u"max", Aggregate::Max}};
constexpr std::pair<QStringView, Op> kOps[]{{u"<=", Op::Le}, {u">=", Op::Ge}, {u"!=", Op::Ne},     {u"=", Op::Eq},
                                            {u"<", Op::Lt},  {u">", Op::Gt},  {u"~", Op::Contains}};

const QString kFieldList = u"hp.NAME, metrics.NAME.last|best|min|max, tag, status, target, id, name, script, "
                           "sweep, experiment, note, created or started"_s;

struct Token {
    enum Kind { Word, Text, Operator, Open, Close, End } kind = End;
    QString text;
    int column = 0; // 1-based
    bool is(QStringView keyword) const { return kind == Word && text.compare(keyword, Qt::CaseInsensitive) == 0; }
};

bool wordCharacter(QChar c)
{
    return c.isLetterOrNumber() || u"_.-+/:@"_s.contains(c);
}

Error errorAt(int column, const QString &message)
{
    return Error{message, {}, 0, column, u"see docs/run-queries.md for the fields and operators"_s};
}

Expected<QList<Token>> tokenize(const QString &text)
{
    QList<Token> tokens;
    qsizetype i = 0;
    while (i < text.size()) {
        const QChar c = text[i];
        const int column = int(i) + 1;
        if (c.isSpace()) {
            ++i;
        } else if (c == u'(' || c == u')') {
            tokens.append({c == u'(' ? Token::Open : Token::Close, c, column});
            ++i;
        } else if (c == u'"' || c == u'\'') {
            QString value;
            qsizetype j = i + 1;
            for (; j < text.size() && text[j] != c; ++j) {
                if (text[j] == u'\\' && j + 1 < text.size())
                    ++j;
                value += text[j];
            }
            if (j >= text.size())
                return errorAt(column, u"expected a closing %1 for this string"_s.arg(c));
            tokens.append({Token::Text, value, column});
            i = j + 1;
        } else if (const auto op =
                       std::find_if(std::begin(kOps), std::end(kOps),
                                    [&](const auto &o) { return QStringView(text).mid(i).startsWith(o.first); });
                   op != std::end(kOps)) {
            tokens.append({Token::Operator, op->first.toString(), column});
            i += op->first.size();
        } else if (wordCharacter(c)) {
            qsizetype j = i;
            while (j < text.size() && wordCharacter(text[j]))
                ++j;
            tokens.append({Token::Word, text.mid(i, j - i), column});
            i = j;
        } else {
            return errorAt(column,
                           u"unexpected '%1'; expected a field, a value, an operator or a parenthesis"_s.arg(c));
        }
    }
    tokens.append({Token::End, {}, int(text.size()) + 1});
    return tokens;
}

std::optional<qint64> timeOf(const QString &value)
{
    if (const QDateTime time = QDateTime::fromString(value, Qt::ISODate); time.isValid())
        return time.toMSecsSinceEpoch();
    if (const QDate date = QDate::fromString(value, Qt::ISODate); date.isValid())
        return date.startOfDay().toMSecsSinceEpoch();
    return std::nullopt;
}

} // namespace

namespace {

using Node = RunQuery::Node;
using NodePtr = std::shared_ptr<const Node>;

// How deep `not` and parentheses nest, and how many conditions a query holds: far beyond a query
// a person writes, short of a pasted or crafted one whose parse (recursive), evaluation and
// destruction would overflow the stack.
constexpr int kMaxNesting = 64;
constexpr int kMaxConditions = 1000;

// Recursive descent: or < and < not < comparison; parentheses group.
class Parser {
public:
    explicit Parser(QList<Token> tokens) : m_tokens(std::move(tokens)) {}

    Expected<NodePtr> query()
    {
        auto root = disjunction();
        if (root && peek().kind != Token::End)
            return errorAt(peek().column,
                           peek().kind == Token::Close
                               ? u"unexpected ')': no '(' is open"_s
                               : u"expected 'and', 'or' or the end after a condition, not '%1'"_s.arg(peek().text));
        return root;
    }

private:
    const Token &peek() const { return m_tokens.at(m_at); }
    const Token &take() { return m_tokens.at(m_at++); }

    static NodePtr join(Node::Kind kind, NodePtr left, NodePtr right)
    {
        auto node = std::make_shared<Node>();
        node->kind = kind;
        node->left = std::move(left);
        node->right = std::move(right);
        return node;
    }

    Expected<NodePtr> disjunction() { return chain(Node::Or, u"or", &Parser::conjunction); }
    Expected<NodePtr> conjunction() { return chain(Node::And, u"and", &Parser::negation); }

    // operand (keyword operand)*, joined from the left.
    Expected<NodePtr> chain(Node::Kind kind, QStringView keyword, Expected<NodePtr> (Parser::*operand)())
    {
        auto left = (this->*operand)();
        while (left && peek().is(keyword)) {
            take();
            auto right = (this->*operand)();
            if (!right)
                return right;
            left = join(kind, *left, *right);
        }
        return left;
    }

    Expected<NodePtr> negation()
    {
        if (peek().is(u"not") || peek().kind == Token::Open) {
            if (m_nesting == kMaxNesting)
                return errorAt(
                    peek().column,
                    u"more than %1 nested 'not' and parentheses: write the query flatter"_s.arg(kMaxNesting));
            ++m_nesting;
            auto inner = nested();
            --m_nesting;
            return inner;
        }
        if (++m_conditions > kMaxConditions)
            return errorAt(peek().column, u"more than %1 conditions in one query"_s.arg(kMaxConditions));
        return comparison();
    }

    // `not` a negation, or a parenthesised query.
    Expected<NodePtr> nested()
    {
        if (peek().is(u"not")) {
            take();
            auto inner = negation();
            if (!inner)
                return inner;
            return join(Node::Not, *inner, nullptr);
        }
        const Token open = take();
        auto inner = disjunction();
        if (inner && peek().kind != Token::Close)
            return errorAt(peek().column, u"expected ')' to close the '(' at column %1"_s.arg(open.column));
        if (inner)
            take();
        return inner;
    }

    Expected<NodePtr> comparison();
    Expected<void> resolveField(Node &node, const Token &token) const;
    static Expected<void> checkOperand(Node &node, const Token &op, const Token &value);

    QList<Token> m_tokens;
    qsizetype m_at = 0;
    int m_nesting = 0;    // `not` and '(' open around the operand being read
    int m_conditions = 0; // comparisons read so far
};

Expected<NodePtr> Parser::comparison()
{
    const Token &field = take();
    if (field.kind != Token::Word || field.is(u"and") || field.is(u"or"))
        return errorAt(field.column, field.kind == Token::End
                                         ? u"expected a condition (a field, an operator and a value)"_s
                                         : u"expected a field (%1), not '%2'"_s.arg(kFieldList, field.text));
    auto node = std::make_shared<Node>();
    if (auto known = resolveField(*node, field); !known)
        return known.error();
    const Token &op = take();
    if (op.kind != Token::Operator)
        return errorAt(op.column, u"expected an operator (= != < <= > >= ~) after '%1'"_s.arg(field.text));
    node->op =
        std::find_if(std::begin(kOps), std::end(kOps), [&](const auto &o) { return o.first == op.text; })->second;
    const Token &value = take();
    if (value.kind != Token::Word && value.kind != Token::Text)
        return errorAt(value.column, u"expected a value after '%1'"_s.arg(op.text));
    node->value = value.text;
    if (auto fits = checkOperand(*node, op, value); !fits)
        return fits.error();
    return NodePtr(node);
}

Expected<void> Parser::resolveField(Node &node, const Token &token) const
{
    const QString &word = token.text;
    if (word.startsWith(u"hp."_s) && word.size() > 3) {
        node.field = Field::Param;
        node.name = word.mid(3);
        return {};
    }
    if (word.startsWith(u"metrics."_s)) {
        const qsizetype dot = word.lastIndexOf(u'.');
        const QStringView last = QStringView(word).mid(dot + 1);
        const auto aggregate = std::find_if(std::begin(kAggregates), std::end(kAggregates),
                                            [&](const auto &a) { return a.first == last; });
        if (dot <= 8 || aggregate == std::end(kAggregates))
            return errorAt(token.column, u"expected metrics.NAME.last, .best, .min or .max, not '%1'"_s.arg(word));
        node.field = Field::Metric;
        node.name = word.mid(8, dot - 8);
        node.aggregate = aggregate->second;
        return {};
    }
    for (const auto &[name, field] : kFields) {
        if (word == name) {
            node.field = field;
            return {};
        }
    }
    return errorAt(token.column, u"unknown field '%1'; expected %2"_s.arg(word, kFieldList));
}

// What each kind of field can be compared with: numbers for metrics, times for created and
// started, a status name for status; tags and statuses are equal or contain, never less.
Expected<void> Parser::checkOperand(Node &node, const Token &op, const Token &value)
{
    node.number = numberOf(node.value);
    const bool ordering = node.op != Op::Eq && node.op != Op::Ne && node.op != Op::Contains;
    switch (node.field) {
    case Field::Metric:
        if (node.op == Op::Contains)
            return errorAt(op.column, u"'~' compares text; a metric is a number: use = != < <= > >="_s);
        if (!node.number)
            return errorAt(value.column, u"expected a number after '%1', not '%2'"_s.arg(op.text, node.value));
        return {};
    case Field::Created:
    case Field::Started:
        if (node.op == Op::Contains)
            return errorAt(op.column, u"'~' compares text; a time is compared with = != < <= > >="_s);
        if (const auto time = timeOf(node.value))
            node.timeMs = *time;
        else
            return errorAt(value.column,
                           u"expected a date or a time after '%1' (2026-12-01 or 2026-12-01T14:30), not '%2'"_s.arg(
                               op.text, node.value));
        return {};
    case Field::Tag:
    case Field::Status:
        if (ordering)
            return errorAt(op.column, u"%1 takes = != or ~, not '%2'"_s.arg(
                                          node.field == Field::Tag ? u"tag"_s : u"status"_s, op.text));
        if (node.field == Field::Status && node.op != Op::Contains && !runStatusFromText(node.value) &&
            node.value != kStoppedEarly)
            return errorAt(value.column, u"expected a status (created, building, running, succeeded, failed, "
                                         "cancelled, lost or 'stopped early'), not '%1'"_s.arg(node.value));
        return {};
    default:
        return {};
    }
}

} // namespace

RunQuery::RunQuery() = default;

QString RunQuery::errorText(const Error &error)
{
    return error.column > 0 ? u"column %1: %2"_s.arg(error.column).arg(error.message) : error.message;
}

Expected<RunQuery> RunQuery::parse(const QString &text)
{
    RunQuery query;
    query.m_text = text.trimmed();
    if (query.m_text.isEmpty())
        return query;
    auto tokens = tokenize(text);
    if (!tokens)
        return tokens.error();
    auto root = Parser(std::move(*tokens)).query();
    if (!root)
        return root.error();
    query.m_root = std::move(*root);
    return query;
}

} // namespace ferry::run
