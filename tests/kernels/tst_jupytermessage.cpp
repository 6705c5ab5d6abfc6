// The Jupyter wire format (core/kernels/jupytermessage.h) against jupyter_client's own Session
// (python3-jupyter-client): what it signs, Ferry reads; what Ferry signs, it accepts; a message
// changed on the way, or signed under another key, is refused whole.
#include "kernels/jupytermessage.h"

#include "support/process.h"
#include "support/testmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::kernels::JupyterMessage;

namespace {

// jupyter_client's Session under `key`: `sign` prints the frames of an execute_request it
// signed (base64, JSON list); `check` reads such a list on stdin and prints what it read.
const char *const kSession = R"PY(
import base64, json, sys
from jupyter_client.session import Session
mode, key = sys.argv[1], sys.argv[2].encode()
s = Session(key=key, username="py", session="S1")
if mode == "sign":
    m = s.msg("execute_request", content={"code": "print('héllo')", "silent": False})
    frames = s.serialize(m, ident=[b"client-1"])
    frames += [b"\x00\x01binary"]
    print(json.dumps([base64.b64encode(f).decode() for f in frames]))
else:
    frames = [base64.b64decode(f) for f in json.load(sys.stdin)]
    idents, rest = s.feed_identities(frames)
    m = s.deserialize(rest)
    print(json.dumps({"type": m["header"]["msg_type"], "content": m["content"],
                      "parent": m["parent_header"].get("msg_id", ""),
                      "idents": [i.decode() for i in idents],
                      "buffers": [base64.b64encode(bytes(b)).decode() for b in m["buffers"]]}))
)PY";

QByteArray framesAsJson(const QList<QByteArray> &frames)
{
    QJsonArray list;
    for (const QByteArray &frame : frames)
        list << QString::fromLatin1(frame.toBase64());
    return QJsonDocument(list).toJson(QJsonDocument::Compact);
}

QList<QByteArray> framesFromJson(const QByteArray &json)
{
    QList<QByteArray> frames;
    const QJsonArray list = QJsonDocument::fromJson(json).array();
    for (const QJsonValue &frame : list)
        frames << QByteArray::fromBase64(frame.toString().toLatin1());
    return frames;
}

ferry::test::ProgramOutput session(const QString &mode, const QByteArray &key, const QByteArray &stdinBytes = {})
{
    return ferry::test::runCommand(
        u"/usr/bin/python3"_s, {u"-c"_s, QString::fromUtf8(kSession), mode, QString::fromLatin1(key)}, {}, stdinBytes);
}

} // namespace

class TestJupyterMessage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void whatJupyterSignsIsRead()
    {
        const QByteArray key = ferry::kernels::freshKey();
        const auto signedByJupyter = session(u"sign"_s, key);
        QVERIFY2(signedByJupyter.code == 0, signedByJupyter.err.constData());
        const auto message = ferry::kernels::fromFrames(framesFromJson(signedByJupyter.out), key);
        QVERIFY2(message, qPrintable(message ? QString() : message.error().toString()));
        QCOMPARE(message->identities, QList<QByteArray>{"client-1"});
        QCOMPARE(message->type(), u"execute_request"_s);
        QCOMPARE(message->content[u"code"_s].toString(), u"print('héllo')"_s);
        QCOMPARE(message->header[u"session"_s].toString(), u"S1"_s);
        QCOMPARE(message->buffers, QList<QByteArray>{QByteArray("\x00\x01"
                                                                "binary",
                                                                8)});
    }

    void whatFerrySignsJupyterAccepts()
    {
        const QByteArray key = ferry::kernels::freshKey();
        const JupyterMessage request =
            ferry::kernels::newMessage(u"execute_request"_s, u"S9"_s, {{u"code"_s, u"1+1"_s}});
        JupyterMessage reply = ferry::kernels::newMessage(
            u"execute_reply"_s, u"S9"_s, {{u"status"_s, u"ok"_s}, {u"execution_count"_s, 3}}, request.header);
        reply.identities = {"kernel-a", "kernel-b"};
        reply.buffers = {QByteArray("\xff\x00", 2)};
        const auto checked = session(u"check"_s, key, framesAsJson(ferry::kernels::toFrames(reply, key)));
        QVERIFY2(checked.code == 0, checked.err.constData());
        const QJsonObject read = QJsonDocument::fromJson(checked.out).object();
        QCOMPARE(read[u"type"_s].toString(), u"execute_reply"_s);
        QCOMPARE(read[u"content"_s].toObject()[u"execution_count"_s].toInt(), 3);
        QCOMPARE(read[u"parent"_s].toString(), request.id());
        QCOMPARE(read[u"idents"_s].toArray(), (QJsonArray{u"kernel-a"_s, u"kernel-b"_s}));
        QCOMPARE(read[u"buffers"_s].toArray(), QJsonArray{QString::fromLatin1(QByteArray("\xff\x00", 2).toBase64())});
        // And Jupyter refuses it under another key, as Ferry does.
        const auto refused =
            session(u"check"_s, ferry::kernels::freshKey(), framesAsJson(ferry::kernels::toFrames(reply, key)));
        QVERIFY(refused.code != 0);
        QVERIFY2(refused.err.contains("Invalid Signature"), refused.err.constData());
    }

    void aChangedMessageIsRefusedWhole()
    {
        const QByteArray key = ferry::kernels::freshKey();
        const JupyterMessage message =
            ferry::kernels::newMessage(u"execute_request"_s, u"S2"_s, {{u"code"_s, u"print(1)"_s}});
        QList<QByteArray> frames = ferry::kernels::toFrames(message, key);
        QVERIFY(ferry::kernels::fromFrames(frames, key));
        // The code changed on the way, the signature kept.
        QList<QByteArray> changed = frames;
        changed[5] = QByteArray(changed[5]).replace("print(1)", "print(2)");
        const auto tampered = ferry::kernels::fromFrames(changed, key);
        QVERIFY(!tampered);
        QVERIFY2(tampered.error().message.contains(u"signature does not match"_s),
                 qPrintable(tampered.error().message));
        // Signed under another key, or not signed at all.
        QVERIFY(!ferry::kernels::fromFrames(ferry::kernels::toFrames(message, ferry::kernels::freshKey()), key));
        QVERIFY(!ferry::kernels::fromFrames(ferry::kernels::toFrames(message, {}), key));
        // No delimiter, too few frames, a frame that is not a JSON object.
        QVERIFY(ferry::kernels::fromFrames(frames.mid(1), key).error().message.contains(u"delimiter"_s));
        QVERIFY(ferry::kernels::fromFrames(frames.mid(0, 4), key).error().message.contains(u"frames"_s));
        QList<QByteArray> notObject = ferry::kernels::toFrames(message, {});
        notObject[5] = "[1, 2]";
        const auto array = ferry::kernels::fromFrames(notObject, {});
        QVERIFY(!array);
        QVERIFY2(array.error().message.contains(u"content is not a JSON object"_s), qPrintable(array.error().message));
    }

    void keysAreFreshAndLongEnough()
    {
        const QByteArray a = ferry::kernels::freshKey();
        const QByteArray b = ferry::kernels::freshKey();
        QCOMPARE(a.size(), 64);
        QVERIFY(a != b);
        QVERIFY(QByteArray::fromHex(a).toHex() == a); // hex only
        // A signature is the hex HMAC-SHA256 (RFC 4231, test case 2's key and data in one frame).
        QCOMPARE(ferry::kernels::signature("Jefe", {"what do ya want ", "for nothing?"}),
                 QByteArray("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
        QCOMPARE(ferry::kernels::signature({}, {"anything"}), QByteArray());
    }

    // Completion's cursor_pos, cursor_start and cursor_end count code points, as Python's str does
    // (two emoji, a newline and "impor": 10 for Python, 12 UTF-16 units for a QString).
    void cursorPositionsCountCodePoints()
    {
        const QString code = u"# \U0001F600\U0001F600\nimpor"_s;
        QCOMPARE(code.size(), 12);
        QCOMPARE(ferry::kernels::codePointPosition(code, 12), 10);
        QCOMPARE(ferry::kernels::codePointPosition(code, 2), 2);
        QCOMPARE(ferry::kernels::codePointPosition(code, 4), 3);   // after the first emoji
        QCOMPARE(ferry::kernels::codePointPosition(code, 3), 2);   // inside it: before it
        QCOMPARE(ferry::kernels::codePointPosition(code, 99), 10); // clamped
        QCOMPARE(ferry::kernels::utf16Position(code, 5), 7);       // "impor" starts there
        QCOMPARE(ferry::kernels::utf16Position(code, 10), 12);
        QCOMPARE(ferry::kernels::utf16Position(code, 99), 12);
        QCOMPARE(ferry::kernels::utf16Position(code, 0), 0);
        for (int i = 0; i <= 10; ++i)
            QCOMPARE(ferry::kernels::codePointPosition(code, ferry::kernels::utf16Position(code, i)), i);
    }
};

FERRY_TEST_APPLESS_MAIN(TestJupyterMessage)
#include "tst_jupytermessage.moc"
