// JupyterMessage: one message of the Jupyter messaging protocol (5.3) as it crosses a socket, signed.
#pragma once

// The wire format of https://jupyter-client.readthedocs.io/en/stable/messaging.html: a message is
// a list of ZeroMQ frames, [identities..., "<IDS|MSG>", signature, header, parent_header,
// metadata, content, buffers...]. The signature is the hex HMAC-SHA256, under the kernel's key,
// of the four JSON frames as sent. Nothing here knows a socket or a language: the kernel client
// (later) sends and receives these frames; any kernel that speaks the protocol is served.
#include "common/error.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringView>

namespace ferry::kernels {

// The protocol version Ferry speaks (header.version).
inline constexpr char kProtocolVersion[] = "5.3";

struct JupyterMessage {
    QList<QByteArray> identities; // ROUTER routing frames before the delimiter, kept as they came
    QJsonObject header;           // msg_id, session, username, date, msg_type, version
    QJsonObject parentHeader;     // the header of the request this answers; {} for none
    QJsonObject metadata;
    QJsonObject content;
    QList<QByteArray> buffers; // binary frames after content (comm and widget data)

    QString type() const { return header.value(QStringLiteral("msg_type")).toString(); }
    QString id() const { return header.value(QStringLiteral("msg_id")).toString(); }
    // The msg_id of the request this answers (its parent header's), empty for none.
    QString parentId() const { return parentHeader.value(QStringLiteral("msg_id")).toString(); }
};

// A new message of `type` in `session` (a fresh msg_id and the current UTC date in ISO 8601),
// answering `parent` when given.
JupyterMessage newMessage(const QString &type, const QString &session, const QJsonObject &content,
                          const QJsonObject &parentHeader = {});

// A fresh signing key for one kernel: 32 bytes from the system's random source, as 64 hex
// characters (the connection file's "key"; jupyter_client writes a UUID, any bytes are valid).
QByteArray freshKey();

// The signature of the four JSON frames under `key` (hex HMAC-SHA256); empty when the key is.
QByteArray signature(const QByteArray &key, const QList<QByteArray> &jsonFrames);

// The frames to send: identities, the delimiter, the signature, the four JSON frames (compact
// UTF-8) and the buffers.
QList<QByteArray> toFrames(const JupyterMessage &message, const QByteArray &key);

// A message read from `frames`, its signature checked under `key` (in time that does not depend
// on where it differs). Errors: no delimiter, too few frames, a signature that does not match
// (the message is refused, never half-read), a JSON frame that is not an object.
Expected<JupyterMessage> fromFrames(const QList<QByteArray> &frames, const QByteArray &key);

// Positions in code (complete and inspect's cursor_pos, cursor_start, cursor_end) count Unicode
// code points; a QString counts UTF-16 units (a character past U+FFFF is two). `utf16` inside a
// surrogate pair counts the pair as before it; both clamp to the text.
int codePointPosition(QStringView text, qsizetype utf16);
qsizetype utf16Position(QStringView text, qsizetype codePoints);

} // namespace ferry::kernels
