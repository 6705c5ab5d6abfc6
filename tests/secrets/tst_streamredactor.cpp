// The run log's redaction (supervisor): a stream cut into reads of any size still loses every
// secret, keeps lines whole and holds back no more than a secret's length. M3 (issue 14): a
// multi-line secret (a PEM key) printed line by line, whole or split mid-line is lost however the
// stream is cut, lines that cannot begin it flow at once, and base64("user:" + token) (HTTP
// Basic) is caught at every alignment.
#include "secrets/streamredactor.h"
#include "support/testmain.h"

#include <QRandomGenerator>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::secrets::Redactor;
using ferry::secrets::StreamRedactor;

class TestStreamRedactor : public QObject {
    Q_OBJECT

    static QByteArray through(StreamRedactor &stream, const QByteArray &text, const QList<qsizetype> &cuts)
    {
        QByteArray out;
        qsizetype from = 0;
        for (const qsizetype cut : cuts) {
            out += stream.feed(text.mid(from, cut - from));
            from = cut;
        }
        out += stream.feed(text.mid(from));
        return out + stream.finish();
    }

private Q_SLOTS:
    // Every cut point of a text with the secret in plain and base64, lines and no final newline.
    void secretSplitAcrossReads()
    {
        const QString secret = u"s3cr3t/value+x"_s;
        const QByteArray text = "step 1 loss=0.5\ntoken " + secret.toUtf8() + " and " + secret.toUtf8().toBase64() +
                                "\n{\"loss\": 0.25}\ntail " + secret.toUtf8();
        const QByteArray expected = "step 1 loss=0.5\ntoken *** and ***\n{\"loss\": 0.25}\ntail ***";
        for (qsizetype a = 0; a <= text.size(); ++a) {
            StreamRedactor stream(Redactor({secret}));
            QCOMPARE(through(stream, text, {a}), expected);
        }
        auto *random = QRandomGenerator::global();
        for (int round = 0; round < 200; ++round) {
            QList<qsizetype> cuts;
            for (qsizetype at = random->bounded(4); at < text.size(); at += 1 + random->bounded(6))
                cuts << at;
            StreamRedactor stream(Redactor({secret}));
            QCOMPARE(through(stream, text, cuts), expected);
        }
    }

    // Whole lines go out at once; a partial line waits for its newline (or a quiet stream).
    void linesGoOutWhole()
    {
        StreamRedactor stream(Redactor({u"hunter2"_s}));
        QCOMPARE(stream.feed("epoch=1 loss=0.9\nepoch=2 lo"), QByteArray("epoch=1 loss=0.9\n"));
        QCOMPARE(stream.feed("ss=0.8\n"), QByteArray("epoch=2 loss=0.8\n"));
        QCOMPARE(stream.held(), 0);
        // A quiet stream writes its partial line except what may begin a secret.
        (void)stream.feed("progress 50% of the epoch hun");
        const QByteArray partial = stream.flushPartial();
        QVERIFY(partial.startsWith("progress 50%"));
        QVERIFY(!partial.contains("hun"));
        QCOMPARE(partial + stream.feed("ter2 done\n"), QByteArray("progress 50% of the epoch *** done\n"));
    }

    // A very long line without a newline is not held whole.
    void heldBytesStayBounded()
    {
        StreamRedactor stream(Redactor({u"abcdef"_s}), 1024);
        QByteArray out;
        for (int i = 0; i < 100; ++i)
            out += stream.feed(QByteArray(100, 'x') + "abcdef");
        QVERIFY(stream.held() <= 1024 + 106);
        out += stream.finish();
        QCOMPARE(out, QByteArray(QByteArray(100, 'x') + "***").repeated(100));
    }

    // M3: every cut point, and every pair of cut points, of a stream holding a PEM-like key printed
    // line by line, whole and split mid-line, with a decoy that begins like it: the same as
    // redacting the whole text at once.
    void multiLineSecretCutAnywhere()
    {
        const QString key = u"-----BEGIN TEST KEY-----\nMIIBodyLineOne+x/y\nQQBodyLineTwo==\n-----END TEST KEY-----"_s;
        const QByteArray k = key.toUtf8();
        const QByteArray text = "before\n" + k + "\nbetween\n" + k.left(30) + k.mid(30) + "\nloss=0.5\n" +
                                "-----BEGIN TEST KEY-----\nnot the key\n" + k + "\ntail";
        const QByteArray expected =
            "before\n***\nbetween\n***\nloss=0.5\n-----BEGIN TEST KEY-----\nnot the key\n***\ntail";
        QCOMPARE(Redactor({key}).redact(text), expected);
        for (qsizetype a = 0; a <= text.size(); ++a) {
            for (qsizetype b = a; b <= text.size(); b += 3) {
                StreamRedactor stream(Redactor({key}));
                QCOMPARE(through(stream, text, {a, b}), expected);
            }
        }
        auto *random = QRandomGenerator::global();
        for (int round = 0; round < 300; ++round) {
            StreamRedactor stream(Redactor({key}));
            QByteArray out;
            for (qsizetype at = 0; at < text.size();) {
                const qsizetype n = 1 + random->bounded(12);
                out += stream.feed(text.mid(at, n));
                at += n;
                if (random->bounded(3) == 0) // a quiet moment
                    out += stream.flushPartial();
                QVERIFY(!out.contains("BodyLine"));
            }
            QCOMPARE(out + stream.finish(), expected);
        }
    }

    // M3: a line goes out as soon as it cannot begin a secret; one that may waits for the next.
    void linesFlowUnlessTheyMayBeginASecret()
    {
        StreamRedactor stream(Redactor({u"-----BEGIN K-----\nabc123secret\n-----END K-----"_s}));
        QCOMPARE(stream.feed("loss=1\n"), QByteArray("loss=1\n"));
        QCOMPARE(stream.feed("-----BEGIN K-----\n"), QByteArray());
        QCOMPARE(stream.flushPartial(), QByteArray()); // a quiet stream does not give it away either
        QCOMPARE(stream.feed("abc123"), QByteArray());
        QCOMPARE(stream.feed("other\n"), QByteArray("-----BEGIN K-----\nabc123other\n"));
        QCOMPARE(stream.feed("-----BEGIN K-----\nabc123secret\n"), QByteArray());
        QCOMPARE(stream.feed("-----END K-----\nloss=2\n"), QByteArray("***\nloss=2\n"));
        QCOMPARE(stream.held(), 0);
    }

    // The base64 of "user:" + token at every length of the user (so every alignment of the
    // token in it): the token's part is masked.
    void basicAuthAtEveryAlignment()
    {
        const QString token = u"ghp_T0kenValue/With+Chars42"_s;
        const Redactor redactor({token});
        for (const QByteArray user : {"", "u", "us", "use", "user", "usern", "userna", "a.longer.user"}) {
            const QByteArray encoded = QByteArray(user + ":" + token.toUtf8()).toBase64();
            const QByteArray line = "Authorization: Basic " + encoded + "\n";
            const QByteArray out = redactor.redact(line);
            QVERIFY2(out.contains("***"), out.constData());
            // At most three characters on each side of the token's part mix with the user's.
            const qsizetype masked = line.size() - (out.size() - 3);
            QVERIFY2(masked >= token.size() * 4 / 3 - 2, out.constData());
            QVERIFY(!QByteArray::fromBase64(out.mid(out.indexOf("Basic ") + 6)).contains("T0ken"));
        }
    }

    void noSecretsPassesThrough()
    {
        StreamRedactor stream{Redactor()};
        QCOMPARE(stream.feed("partial"), QByteArray("partial"));
        QCOMPARE(stream.finish(), QByteArray());
    }
};

FERRY_TEST_APPLESS_MAIN(TestStreamRedactor)
#include "tst_streamredactor.moc"
