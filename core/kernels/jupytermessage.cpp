#include "kernels/jupytermessage.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QMessageAuthenticationCode>
#include <QRandomGenerator>
#include <QUuid>

#include <algorithm>
#include <array>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {

const QByteArray kDelimiter = QByteArrayLiteral("<IDS|MSG>");
constexpr int kJsonFrames = 4; // header, parent_header, metadata, content

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// Equal, in time that depends only on the lengths.
bool sameBytes(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char differ = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        differ |= static_cast<unsigned char>(a[i] ^ b[i]);
    return differ == 0;
}

} // namespace

JupyterMessage newMessage(const QString &type, const QString &session, const QJsonObject &content,
                          const QJsonObject &parentHeader)
{
    JupyterMessage message;
    message.header = QJsonObject{
        {u"msg_id"_s, QUuid::createUuid().toString(QUuid::WithoutBraces)},
        {u"session"_s, session},
        {u"username"_s, u"ferry"_s},
        {u"date"_s, QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
        {u"msg_type"_s, type},
        {u"version"_s, QString::fromLatin1(kProtocolVersion)},
    };
    message.parentHeader = parentHeader;
    message.content = content;
    return message;
}

QByteArray freshKey()
{
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->fillRange(words.data(), words.size());
    return QByteArray(reinterpret_cast<const char *>(words.data()), qsizetype(sizeof(words))).toHex();
}

QByteArray signature(const QByteArray &key, const QList<QByteArray> &jsonFrames)
{
    if (key.isEmpty())
        return {};
    QMessageAuthenticationCode mac(QCryptographicHash::Sha256, key);
    for (const QByteArray &frame : jsonFrames)
        mac.addData(frame);
    return mac.result().toHex();
}

QList<QByteArray> toFrames(const JupyterMessage &message, const QByteArray &key)
{
    const QList<QByteArray> json{compact(message.header), compact(message.parentHeader), compact(message.metadata),
                                 compact(message.content)};
    QList<QByteArray> frames = message.identities;
    frames << kDelimiter << signature(key, json);
    frames << json << message.buffers;
    return frames;
}

Expected<JupyterMessage> fromFrames(const QList<QByteArray> &frames, const QByteArray &key)
{
    const qsizetype delimiter = frames.indexOf(kDelimiter);
    if (delimiter < 0)
        return Error{u"a Jupyter message without its <IDS|MSG> delimiter (%1 frames)"_s.arg(frames.size()),
                     {},
                     0,
                     0,
                     u"the peer does not speak the Jupyter messaging protocol"_s};
    if (frames.size() - delimiter - 1 < 1 + kJsonFrames)
        return Error{u"a Jupyter message with %1 frames after its delimiter, 5 at least expected"_s.arg(frames.size() -
                                                                                                        delimiter - 1),
                     {},
                     0,
                     0,
                     {}};
    const QList<QByteArray> json = frames.mid(delimiter + 2, kJsonFrames);
    if (!sameBytes(frames.at(delimiter + 1), signature(key, json)))
        return Error{u"a Jupyter message whose signature does not match the kernel's key: refused"_s,
                     {},
                     0,
                     0,
                     u"another process may be writing to the kernel's ports"_s};
    JupyterMessage message;
    message.identities = frames.mid(0, delimiter);
    std::array<QJsonObject *, kJsonFrames> targets{&message.header, &message.parentHeader, &message.metadata,
                                                   &message.content};
    static const std::array<QString, kJsonFrames> names{u"header"_s, u"parent_header"_s, u"metadata"_s, u"content"_s};
    for (int i = 0; i < kJsonFrames; ++i) {
        QJsonParseError parsed;
        const QJsonDocument document = QJsonDocument::fromJson(json.at(i), &parsed);
        if (parsed.error != QJsonParseError::NoError || !document.isObject())
            return Error{u"a Jupyter message whose %1 is not a JSON object: %2"_s.arg(
                             names.at(std::size_t(i)),
                             parsed.error != QJsonParseError::NoError ? parsed.errorString() : u"another value"_s),
                         {},
                         0,
                         0,
                         {}};
        *targets.at(std::size_t(i)) = document.object();
    }
    message.buffers = frames.mid(delimiter + 2 + kJsonFrames);
    return message;
}

int codePointPosition(QStringView text, qsizetype utf16)
{
    utf16 = std::clamp<qsizetype>(utf16, 0, text.size());
    if (utf16 > 0 && utf16 < text.size() && text[utf16].isLowSurrogate() && text[utf16 - 1].isHighSurrogate())
        --utf16;
    qsizetype pairs = 0;
    for (qsizetype i = 1; i < utf16; ++i) {
        if (text[i].isLowSurrogate() && text[i - 1].isHighSurrogate())
            ++pairs;
    }
    return int(utf16 - pairs);
}

qsizetype utf16Position(QStringView text, qsizetype codePoints)
{
    qsizetype i = 0;
    for (qsizetype n = 0; n < codePoints && i < text.size(); ++n)
        i += text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate() ? 2 : 1;
    return i;
}

} // namespace ferry::kernels
