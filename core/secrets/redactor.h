// Redactor: hides secret values, and their URL, base64 and JSON encodings, as "***" in text that
// leaves Ferry.
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::secrets {

// Hides secret values in text that leaves Ferry's hands: run log lines, stored command lines,
// error messages. Every occurrence of a value, and of its common encodings (percent-encoded
// as in URLs, base64 with and without padding, base64url, JSON-escaped, and the part of its base64
// that does not depend on its neighbours at each of the three byte alignments, as inside
// base64("user:" + value) for HTTP Basic), becomes "***".
// Longer patterns are replaced first, so a secret that contains another is hidden whole.
// A value type: cheap to copy into a worker thread, immutable while it is used there.
class Redactor {
public:
    static constexpr QLatin1StringView kMask{"***"};

    Redactor() = default;
    explicit Redactor(const QStringList &values);

    // Adds one value (and its encodings). Empty values are ignored.
    void addSecret(const QString &value);
    bool isEmpty() const { return m_patterns.isEmpty(); }
    // The length in bytes of the longest pattern (0 when empty).
    qsizetype longest() const { return m_patterns.isEmpty() ? 0 : m_patterns.first().size(); }
    // The patterns searched for (UTF-8, longest first), for a filter outside Ferry's process.
    const QList<QByteArray> &patterns() const { return m_patterns; }

    QString redact(const QString &text) const;
    // The same on raw bytes (a log line in any encoding; the patterns are UTF-8).
    QByteArray redact(const QByteArray &bytes) const;
    // True when `text` holds a value or an encoding of one.
    bool reveals(const QString &text) const;

    // The forms of `value` that are searched for (the value itself first).
    static QList<QByteArray> encodingsOf(const QString &value);

private:
    QList<QByteArray> m_patterns; // UTF-8, longest first, no duplicates
};

} // namespace ferry::secrets
