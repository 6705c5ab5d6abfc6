// L7: `ferry runs attach` printed a run's raw log bytes, so a script's terminal control sequences
// (a window title, clearing the screen, an OSC 52 clipboard write, 8-bit CSI) reached the user's
// terminal. Now attach shows the lines as the window does (one rule: run::terminalText): no
// escape, BEL or C1 control is printed, and the visible text of every line is.
// L3 (review 2026-12-06): the same held for `ferry runs logs`, `runs show` (the run's error,
// parameters, metric names) and `runs diff` (the code's lines): they print through the same rule
// (run::terminalLines), and `ferry runs logs --raw` gives the bytes as they are.
#include "metrics/terminaltext.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QByteArray kEscapesScript = "import sys, time\n"
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

// A run whose log, error (its failure file), a parameter, a metric name and code carry an OSC 52
// clipboard write, a window title and a screen clear.
const QByteArray kHostile = "import json, os, sys\n"
                            "# code line \x1b]0;code title\x07\x1b[2Jkept\n"
                            "out = sys.stdout.buffer\n"
                            "out.write(b'\\x1b]52;c;ZWNobyBwd25lZA==\\x07clipboard\\n')\n"
                            "out.write(b'\\x1b]0;log title\\x07\\x1b[2Jcleared\\n')\n"
                            "print(json.dumps({'\\x1b]0;metric title\\x07loss': 0.5}), flush=True)\n"
                            "with open(os.path.join(os.environ['SM_OUTPUT_DIR'], 'failure'), 'wb') as f:\n"
                            "    f.write(b'failed \\x1b]52;c;cHduZWQ=\\x07\\x1b]0;error title\\x07\\x1b[2Jhere')\n"
                            "sys.exit(3)\n";

struct Printed {
    int code = -1;
    QByteArray out, err;
};

Printed ferryIn(const QString &ws, const QStringList &arguments)
{
    QProcess p;
    p.setWorkingDirectory(ws);
    p.start(ferry::test::ferryBinary(), arguments);
    if (!p.waitForFinished(120000))
        p.kill();
    p.waitForFinished();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
            p.readAllStandardError()};
}

// A workspace in `dir` with a local environment of /usr/bin/python3; its folder.
QString workspaceIn(const QTemporaryDir &dir)
{
    const QString ws = dir.filePath(u"ws"_s);
    QDir().mkpath(ws + u"/environments"_s);
    QFile env(ws + u"/environments/local.yml"_s);
    if (!env.open(QIODevice::WriteOnly) ||
        env.write("ferry: 1\nname: local\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n") < 0)
        return {};
    return ws;
}

bool clean(const QByteArray &bytes)
{
    return !bytes.contains('\x1b') && !bytes.contains('\x07') && !bytes.contains("\xc2\x9b");
}

} // namespace

class TestAttachEscapes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void attachPrintsNoControlSequence()
    {
        QTemporaryDir dir;
        const QString ws = workspaceIn(dir);
        QVERIFY(!ws.isEmpty());
        QFile script(ws + u"/escapes.py"_s);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write(kEscapesScript);
        script.close();

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

    void logsShowAndDiffPrintNoControlSequence()
    {
        QTemporaryDir dir;
        const QString ws = workspaceIn(dir);
        QVERIFY(!ws.isEmpty());
        const auto runIt = [&](const QByteArray &script) {
            QFile file(ws + u"/hostile.py"_s);
            if (!file.open(QIODevice::WriteOnly) || file.write(script) != script.size())
                return QString();
            file.close();
            ferryIn(ws, {u"run"_s, u"hostile.py"_s, u"--env"_s, u"environments/local.yml"_s, u"--hp"_s,
                         u"title=\x1b]0;param title\x07\x1b[2Jvalue"_s, u"--follow"_s});
            const QJsonArray runs =
                QJsonDocument::fromJson(ferryIn(ws, {u"runs"_s, u"list"_s, u"--json"_s}).out).array();
            return runs.isEmpty() ? QString() : runs.first()[u"id"_s].toString();
        };
        const QString a = runIt(kHostile);
        QByteArray changed = kHostile;
        changed.replace("kept", "changed \x1b]52;c;ZGlmZg==\x07");
        const QString b = runIt(changed);
        QVERIFY(!a.isEmpty() && !b.isEmpty() && a != b);

        const Printed logs = ferryIn(ws, {u"runs"_s, u"logs"_s, a});
        QCOMPARE(logs.code, 0);
        QVERIFY2(clean(logs.out) && clean(logs.err), logs.out.toHex(' ').constData());
        QVERIFY2(logs.out.contains("clipboard\n") && logs.out.contains("cleared\n"), logs.out.constData());
        const Printed raw = ferryIn(ws, {u"runs"_s, u"logs"_s, a, u"--raw"_s});
        QCOMPARE(raw.code, 0);
        QVERIFY2(raw.out.contains("\x1b]52;c;ZWNobyBwd25lZA==\x07"
                                  "clipboard\n") &&
                     raw.out.contains("\x1b]0;log title\x07\x1b[2Jcleared\n"),
                 raw.out.toHex(' ').constData());

        const Printed show = ferryIn(ws, {u"runs"_s, u"show"_s, a});
        QCOMPARE(show.code, 0);
        QVERIFY2(clean(show.out) && clean(show.err), show.out.toHex(' ').constData());
        for (const char *visible : {"error:     failed here", "param:     title = value", "loss = 0.5"})
            QVERIFY2(show.out.contains(visible), show.out.constData());
        QVERIFY2(!show.out.contains("title\n") && !show.out.contains("pwned"), show.out.constData());

        const Printed diff = ferryIn(ws, {u"runs"_s, u"diff"_s, a, b});
        QCOMPARE(diff.code, 0);
        QVERIFY2(clean(diff.out) && clean(diff.err), diff.out.toHex(' ').constData());
        QVERIFY2(diff.out.contains("-# code line kept\n") && diff.out.contains("+# code line changed \n"),
                 diff.out.constData());
    }

    void theRule()
    {
        QCOMPARE(ferry::run::terminalText("\x1b[1;32mok\x1b[0m"), u"ok"_s);
        QCOMPARE(ferry::run::terminalText("\x1b]2;title\x1b\\after"), u"after"_s);
        QCOMPARE(ferry::run::terminalText("a\tb"), u"a\tb"_s);
        QCOMPARE(ferry::run::terminalText("x\x01y"), u"x\uFFFDy"_s);
        QCOMPARE(ferry::run::terminalText("1/3\r2/3\r3/3\r"), u"3/3"_s);
        QCOMPARE(ferry::run::terminalText("1/3\r2/3", false), u"1/3\uFFFD2/3"_s);
        // Lines as the command line prints run-derived text: each line so, newlines kept, a return
        // shown rather than hiding what came before it.
        QCOMPARE(ferry::run::terminalLines("a\x1b]0;t\x07"
                                           "b\n\x1b[2Jc\r\n\nd"),
                 u"ab\nc\uFFFD\n\nd"_s);
        QCOMPARE(ferry::run::terminalLines(u"x\ny\n"_s), u"x\ny\n"_s);
        // The command line's own stderr keeps a progress line's returns.
        QCOMPARE(ferry::run::terminalLines("45%\r\x1b[K50%\rdone\n", true), u"45%\r50%\rdone\n"_s);
    }
};

FERRY_TEST_GUILESS_MAIN(TestAttachEscapes)
#include "tst_attachescapes.moc"
