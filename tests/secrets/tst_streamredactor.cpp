// The run log's redaction (supervisor): a stream cut into reads of any size still loses every
// secret, keeps lines whole and holds back no more than a secret's length.
#include "secrets/streamredactor.h"

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

    void noSecretsPassesThrough()
    {
        StreamRedactor stream{Redactor()};
        QCOMPARE(stream.feed("partial"), QByteArray("partial"));
        QCOMPARE(stream.finish(), QByteArray());
    }
};

QTEST_APPLESS_MAIN(TestStreamRedactor)
#include "tst_streamredactor.moc"
