// The one redaction filter every log line, stored command line and error message goes through.
#include "secrets/redactor.h"
#include "support/testmain.h"

#include <QTest>
#include <QUrl>

using namespace Qt::StringLiterals;
using ferry::secrets::Redactor;

class TestRedactor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void hidesEveryForm_data()
    {
        QTest::addColumn<QString>("secret");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << u"hunter2"_s << u"password=hunter2 ok"_s << u"password=*** ok"_s;
        QTest::newRow("twice") << u"tok"_s << u"tok tok"_s << u"*** ***"_s;
        QTest::newRow("url-encoded") << u"p@ss word/1"_s << u"https://u:p%40ss%20word%2F1@host/"_s
                                     << u"https://u:***@host/"_s;
        QTest::newRow("form-encoded") << u"a b&c"_s << u"q=a+b%26c"_s << u"q=***"_s;
        QTest::newRow("base64") << u"s3cr3t-value"_s << u"Authorization: Basic czNjcjN0LXZhbHVl"_s
                                << u"Authorization: Basic ***"_s;
        QTest::newRow("base64 padded") << u"abcd"_s << u"x YWJjZA== y"_s << u"x *** y"_s;
        QTest::newRow("json escaped") << u"a\"b\\c"_s << u"{\"pw\": \"a\\\"b\\\\c\"}"_s << u"{\"pw\": \"***\"}"_s;
        QTest::newRow("unicode") << u"pässwörd"_s << u"[pässwörd]"_s << u"[***]"_s;
        QTest::newRow("nothing to hide") << u"zzz"_s << u"clean line"_s << u"clean line"_s;
    }
    void hidesEveryForm()
    {
        QFETCH(QString, secret);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const Redactor redactor({secret});
        QCOMPARE(redactor.redact(text), expected);
        QCOMPARE(redactor.redact(text.toUtf8()), expected.toUtf8());
        QCOMPARE(redactor.reveals(text), text != expected);
        QVERIFY(!redactor.reveals(redactor.redact(text)));
    }

    // A secret that contains another is hidden whole, not as "***-rest".
    void longestFirst()
    {
        const Redactor redactor({u"abc"_s, u"abcdef"_s});
        QCOMPARE(redactor.redact(u"abcdef abc"_s), u"*** ***"_s);
    }

    void emptyRedactorChangesNothing()
    {
        Redactor redactor;
        redactor.addSecret(QString());
        QVERIFY(redactor.isEmpty());
        QCOMPARE(redactor.redact(u"anything"_s), u"anything"_s);
    }

    void encodingsOfAValue()
    {
        const auto forms = Redactor::encodingsOf(u"a/b"_s);
        QCOMPARE(forms.first(), QByteArray("a/b"));
        QVERIFY(forms.contains(QByteArray("a%2Fb")));
        QVERIFY(forms.contains(QByteArray("YS9i")));
    }
};

FERRY_TEST_APPLESS_MAIN(TestRedactor)
#include "tst_redactor.moc"
