#include "secrets/redactor.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUrl>

#include <algorithm>

namespace ferry::secrets {

namespace {

// The value as it appears inside a JSON string: quotes, backslashes and control characters
// escaped. Empty when escaping changes nothing (the raw pattern covers it).
QByteArray jsonEscaped(const QString &value)
{
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    // ["..."] -> ...
    return array.mid(2, array.size() - 4);
}

// Shorter pieces of a base64 text are too likely in ordinary output to be masked.
constexpr qsizetype kMinBase64Core = 8;

} // namespace

Redactor::Redactor(const QStringList &values)
{
    for (const QString &value : values)
        addSecret(value);
}

QList<QByteArray> Redactor::encodingsOf(const QString &value)
{
    const QByteArray raw = value.toUtf8();
    QList<QByteArray> forms{raw};
    const auto add = [&forms](const QByteArray &form) {
        if (!form.isEmpty() && !forms.contains(form))
            forms.append(form);
    };
    add(QUrl::toPercentEncoding(value));
    // A form-encoded space is '+'; lower-case hex digits are as valid as upper-case ones.
    add(QUrl::toPercentEncoding(value).replace("%20", "+"));
    add(QUrl::toPercentEncoding(value).toLower());
    add(raw.toBase64());
    add(raw.toBase64(QByteArray::OmitTrailingEquals));
    add(raw.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    add(jsonEscaped(value));
    // Inside a longer base64 text (HTTP Basic: base64("user:" + token)) the value's encoding
    // depends on where it starts modulo 3 bytes, and its first and last characters mix with its
    // neighbours: the characters that come from the value alone, at each of the three alignments.
    // Only long enough ones, so that a short value does not mask ordinary text.
    for (int shift = 0; shift < 3; ++shift) {
        const QByteArray shifted = QByteArray(shift, '\0') + raw;
        const qsizetype first = (8 * shift + 5) / 6;
        const qsizetype end = 8 * shifted.size() / 6;
        for (const auto options : {QByteArray::Base64Encoding, QByteArray::Base64UrlEncoding}) {
            const QByteArray core = shifted.toBase64(options | QByteArray::OmitTrailingEquals).mid(first, end - first);
            if (core.size() >= kMinBase64Core)
                add(core);
        }
    }
    return forms;
}

void Redactor::addSecret(const QString &value)
{
    if (value.isEmpty())
        return;
    for (const QByteArray &form : encodingsOf(value)) {
        if (!m_patterns.contains(form))
            m_patterns.append(form);
    }
    std::stable_sort(m_patterns.begin(), m_patterns.end(),
                     [](const QByteArray &a, const QByteArray &b) { return a.size() > b.size(); });
}

QByteArray Redactor::redact(const QByteArray &bytes) const
{
    if (m_patterns.isEmpty())
        return bytes;
    QByteArray text = bytes;
    const QByteArray mask = QByteArray(kMask.data(), kMask.size());
    for (const QByteArray &pattern : m_patterns) {
        if (text.contains(pattern)) // the common case is a clean line: no copy, one search
            text.replace(pattern, mask);
    }
    return text;
}

QString Redactor::redact(const QString &text) const
{
    if (m_patterns.isEmpty())
        return text;
    const QByteArray utf8 = text.toUtf8();
    const QByteArray redacted = redact(utf8);
    return redacted == utf8 ? text : QString::fromUtf8(redacted);
}

bool Redactor::reveals(const QString &text) const
{
    const QByteArray utf8 = text.toUtf8();
    return std::any_of(m_patterns.cbegin(), m_patterns.cend(),
                       [&utf8](const QByteArray &pattern) { return utf8.contains(pattern); });
}

} // namespace ferry::secrets
