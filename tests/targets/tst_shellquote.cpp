// The one quoting function for remote command lines: a corpus of nasty arguments sent through
// real ssh to real bash on 127.0.0.1 arrives as exactly the same arguments, one each; NUL and
// line breaks are refused with a message naming the argument.
#include "targets/shellquote.h"

#include "support/remote.h"
#include "support/testmain.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::targets;

namespace {

QStringList corpus()
{
    QStringList words{
        u""_s,
        u" "_s,
        u"  two  spaces  "_s,
        u"a b"_s,
        u"'"_s,
        u"''"_s,
        u"\""_s,
        u"\"\""_s,
        u"\\"_s,
        u"\\\\"_s,
        u"trailing\\"_s,
        u"$HOME"_s,
        u"${PATH}"_s,
        u"$(id -u)"_s,
        u"`id -u`"_s,
        u"$((1+1))"_s,
        u"$'\\x41'"_s,
        u"$$"_s,
        u"$?"_s,
        u"$0"_s,
        u"$@"_s,
        u"$*"_s,
        u";"_s,
        u"a;b"_s,
        u"; rm -rf /tmp/nothing"_s,
        u"&&"_s,
        u"||"_s,
        u"|"_s,
        u"&"_s,
        u">"_s,
        u">>out"_s,
        u"<"_s,
        u"<<EOF"_s,
        u"2>&1"_s,
        u"*"_s,
        u"*.py"_s,
        u"?"_s,
        u"[a-z]"_s,
        u"{a,b}"_s,
        u"~"_s,
        u"~root"_s,
        u"-"_s,
        u"--"_s,
        u"-n"_s,
        u"-e"_s,
        u"--help"_s,
        u"-rf"_s,
        u"!"_s,
        u"!!"_s,
        u"!$"_s,
        u"#"_s,
        u"a#b"_s,
        u"# comment"_s,
        u"%"_s,
        u"%s%n"_s,
        u"="_s,
        u"a=b"_s,
        u"IFS=x"_s,
        u"("_s,
        u")"_s,
        u"()"_s,
        u"{ :; }"_s,
        u"\t"_s,
        u"tab\there"_s,
        u"é"_s,
        u"日本語のファイル"_s,
        u"🚀 rocket"_s,
        u"Ω≈ç√"_s,
        u"a'b\"c"_s,
        u"'\"'\"'"_s,
        u"\\'"_s,
        u"'\\''"_s,
        u"it's"_s,
        u"x\x01y"_s,
        u"\x7f"_s,
        u"emoji 🚀 'q' \"d\" $(x) `y` ;z"_s,
        u"/path with spaces/f.py"_s,
        u"...."_s,
        u"^caret"_s,
        u"\\n"_s,
        u"%PATH%"_s,
    };
    words << QString(20000, u'x'); // long
    return words;
}

QStringList argumentsSeenByBash(SshShell &shell, const QStringList &words)
{
    // bash prints each argument it got, NUL-terminated: the count and bytes are exact.
    const ShellResult r = shell.run(QStringList{u"bash"_s, u"-c"_s, u"printf '%s\\0' \"$@\""_s, u"ferry"_s} + words);
    if (!r.ok()) {
        qWarning("%s", qPrintable(r.errorText()));
        return {u"<failed>"_s};
    }
    QStringList seen;
    QByteArray out = r.out;
    if (out.endsWith('\0'))
        out.chop(1);
    else if (!out.isEmpty())
        return {u"<no terminator>"_s};
    if (words.isEmpty())
        return seen;
    for (const QByteArray &arg : out.split('\0'))
        seen << QString::fromUtf8(arg);
    return seen;
}

} // namespace

class TestShellQuote : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(corpus().size() >= 50); }

    void quotesEveryWord()
    {
        QCOMPARE(*shellQuote(u"plain"_s), u"'plain'"_s);
        QCOMPARE(*shellQuote(u"it's"_s), u"'it'\\''s'"_s);
        QCOMPARE(*shellCommandLine({u"a b"_s, u""_s}), u"'a b' ''"_s);
    }

    void refusesNulAndLineBreaks_data()
    {
        QTest::addColumn<QString>("word");
        QTest::addColumn<QString>("message");
        QTest::newRow("NUL") << u"a"_s + QChar(0) + u"b"_s << u"NUL"_s;
        QTest::newRow("newline") << u"line1\nline2"_s << u"line break"_s;
        QTest::newRow("carriage return") << u"a\rb"_s << u"line break"_s;
    }
    void refusesNulAndLineBreaks()
    {
        QFETCH(QString, word);
        QFETCH(QString, message);
        const auto quoted = shellCommandLine({u"ok"_s, word});
        QVERIFY(!quoted);
        QVERIFY2(quoted.error().message.contains(message), qPrintable(quoted.error().message));
        QVERIFY2(quoted.error().message.contains(u"\\"_s), "the word is shown escaped");
        QVERIFY(!quoted.error().hint.isEmpty());
    }

    void eachWordArrivesAlone_data()
    {
        QTest::addColumn<QString>("word");
        int i = 0;
        for (const QString &word : corpus())
            QTest::addRow("%d: %s", i++, qPrintable(word.left(30))) << word;
    }
    // One word per call, between two markers: exactly three arguments arrive, unchanged.
    void eachWordArrivesAlone()
    {
        QFETCH(QString, word);
        SshShell shell = m_sandbox.shell();
        const QStringList sent{u"before"_s, word, u"after"_s};
        QCOMPARE(argumentsSeenByBash(shell, sent), sent);
    }

    // The whole corpus on one command line.
    void allWordsAtOnce()
    {
        SshShell shell = m_sandbox.shell();
        const QStringList words = corpus();
        QCOMPARE(argumentsSeenByBash(shell, words), words);
    }

    void refusedWordNeverReachesTheHost()
    {
        SshShell shell = m_sandbox.shell();
        const ShellResult r = shell.run({u"touch"_s, u"/tmp/x\nid"_s});
        QVERIFY(!r.reached);
        QVERIFY2(r.failure.contains(u"line break"_s), qPrintable(r.failure));
    }

private:
    ferry::test::SshSandbox m_sandbox;
};

FERRY_TEST_GUILESS_MAIN(TestShellQuote)
#include "tst_shellquote.moc"
