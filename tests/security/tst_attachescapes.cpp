// L7: `ferry runs attach` printed a run's raw log bytes, so a script's terminal control sequences
// (a window title, clearing the screen, an OSC 52 clipboard write, 8-bit CSI) reached the user's
// terminal. Now attach shows the lines as the window does (one rule: run::terminalText): no
// escape, BEL or C1 control is printed, and the visible text of every line is.
#include "run/terminaltext.h"
#include "support/testenv.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QByteArray kScript = "import sys, time\n"
                           "time.sleep(4)  # attach is following by now\n"
                           "out = sys.stdout.buffer\n"
                           "out.write(b'\\x1b]0;pwned title\\x07title set\\n')\n"
                           "out.write(b'\\x1b]52;c;ZWNobyBwd25lZA==\\x1b\\\\clipboard written\\n')\n"
                           "out.write(b'\\x1b[2J\\x1b[Hscreen cleared\\n')\n"
                           "out.write(b'\\x1b[31mred\\x1b[0m text\\n')\n"
                           "out.write(b'\\xc2\\x9b31meight-bit csi\\n')\n"
                           "out.write(b'bell\\x07 and backspace\\x08\\n')\n"
                           "out.write(b'50%\\r100% done\\n')\n"
                           "out.flush()\n";

} // namespace

class TestAttachEscapes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void attachPrintsNoControlSequence()
    {
        QTemporaryDir dir;
        const QString ws = dir.filePath(u"ws"_s);
        QVERIFY(QDir().mkpath(ws + u"/environments"_s));
        QFile script(ws + u"/escapes.py"_s);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(kScript);
        script.close();
        QFile env(ws + u"/environments/local.yml"_s);
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("ferry: 1\nname: l7-local\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n");
        env.close();

        QProcess start;
        start.setWorkingDirectory(ws);
        start.start(ferry::test::ferryBinary(), {u"run"_s, u"escapes.py"_s, u"--env"_s, u"environments/local.yml"_s});
        QVERIFY(start.waitForFinished(120000));
        QVERIFY2(start.exitCode() == 0, start.readAllStandardError().constData());
        const QString id = QString::fromUtf8(start.readAllStandardOutput()).trimmed();

        QProcess attach;
        attach.setWorkingDirectory(ws);
        attach.start(ferry::test::ferryBinary(), {u"runs"_s, u"attach"_s, id});
        QVERIFY(attach.waitForFinished(120000));
        QCOMPARE(attach.exitCode(), 0);
        const QByteArray out = attach.readAllStandardOutput();
        QVERIFY2(!out.contains('\x1b') && !out.contains('\x07') && !out.contains('\x08'), out.toHex(' ').constData());
        QVERIFY2(!out.contains("\xc2\x9b"), out.toHex(' ').constData());
        for (const char *visible :
             {"title set", "clipboard written", "screen cleared", "red text", "eight-bit csi", "bell", "100% done"})
            QVERIFY2(out.contains(visible), out.constData());
        QVERIFY(!out.contains("50%"));
        QVERIFY(!out.contains("pwned"));

        // The log keeps the bytes as written: only what is shown is cleaned.
        QFile log(ws + u"/.ferry/runs/"_s + id + u"/log"_s);
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(log.readAll().contains("\x1b[31mred"));
    }

    void theRule()
    {
        QCOMPARE(ferry::run::terminalText("\x1b[1;32mok\x1b[0m"), u"ok"_s);
        QCOMPARE(ferry::run::terminalText("\x1b]2;title\x1b\\after"), u"after"_s);
        QCOMPARE(ferry::run::terminalText("a\tb"), u"a\tb"_s);
        QCOMPARE(ferry::run::terminalText("x\x01y"), u"x\uFFFDy"_s);
        QCOMPARE(ferry::run::terminalText("1/3\r2/3\r3/3\r"), u"3/3"_s);
        QCOMPARE(ferry::run::terminalText("1/3\r2/3", false), u"1/3\uFFFD2/3"_s);
    }
};

QTEST_GUILESS_MAIN(TestAttachEscapes)
#include "tst_attachescapes.moc"
