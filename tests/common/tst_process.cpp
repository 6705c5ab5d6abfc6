// The one process runner (core/common/process.h): exit codes, stdin, environment, working
// folder, the time-out, cancel, the output bounds and the line sink, on real programs.
#include "common/process.h"
#include "support/testmain.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

ProgramCall shell(const QString &script)
{
    ProgramCall call;
    call.program = u"sh"_s;
    call.arguments = {u"-c"_s, script};
    return call;
}

} // namespace

class ProcessTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void exitCodeAndBothChannelsAreKept()
    {
        const ProcessResult r = runProgram(shell(u"echo out; echo err >&2; exit 3"_s));
        QCOMPARE(r.end, ProcessResult::End::Exited);
        QCOMPARE(r.exitCode, 3);
        QVERIFY(!r.ok());
        QCOMPARE(r.out, "out\n");
        QCOMPARE(r.err, "err\n");
        QVERIFY(r.failure(u"sh"_s).isEmpty()); // it exited: the exit code says the rest
    }

    void inputGoesToStdinAndNoInputIsAnEmptyStdin()
    {
        ProgramCall call;
        call.program = u"cat"_s;
        call.input = "line one\nline two";
        QCOMPARE(runProgram(call).out, "line one\nline two");
        call.input.clear();
        const ProcessResult empty = runProgram(call); // /dev/null: cat ends at once
        QVERIFY(empty.ok());
        QVERIFY(empty.out.isEmpty());
    }

    void environmentAndWorkingFolderAreTheCallsOwn()
    {
        QTemporaryDir dir;
        ProgramCall call = shell(u"echo \"$FERRY_PROCESS_TEST\"; pwd"_s);
        QProcessEnvironment env;
        env.insert(u"FERRY_PROCESS_TEST"_s, u"a value"_s);
        env.insert(u"PATH"_s, qEnvironmentVariable("PATH"));
        call.environment = env;
        call.workingDirectory = dir.path();
        const ProcessResult r = runProgram(call);
        QVERIFY(r.ok());
        QCOMPARE(QString::fromUtf8(r.out), u"a value\n"_s + QDir(dir.path()).canonicalPath() + u'\n');
    }

    void aMissingProgramDoesNotStartAndSaysWhy()
    {
        ProgramCall call;
        call.program = u"/nonexistent/ferry-no-such-program"_s;
        const ProcessResult r = runProgram(call);
        QCOMPARE(r.end, ProcessResult::End::NotStarted);
        QVERIFY(!r.started());
        QVERIFY(r.failure(u"it"_s).startsWith(u"cannot run it: "_s));
    }

    void aProgramKilledByASignalCrashed()
    {
        const ProcessResult r = runProgram(shell(u"kill -KILL $$"_s));
        QCOMPARE(r.end, ProcessResult::End::Crashed);
        QCOMPARE(r.failure(u"sh"_s), u"sh crashed"_s);
    }

    void theTimeOutKillsTheProgram()
    {
        ProgramCall call = shell(u"echo started; exec sleep 30"_s);
        call.timeoutMs = 300;
        const ProcessResult r = runProgram(call);
        QCOMPARE(r.end, ProcessResult::End::TimedOut);
        QCOMPARE(r.out, "started\n"); // what came before is kept
        QCOMPARE(r.failure(u"sleep"_s), u"sleep did not finish within 0.3 s"_s);
    }

    void cancelStopsTheProgram()
    {
        ProgramCall call = shell(u"exec sleep 30"_s);
        std::atomic<int> asked = 0;
        call.cancelled = [&] { return ++asked > 2; };
        const ProcessResult r = runProgram(call);
        QCOMPARE(r.end, ProcessResult::End::Cancelled);
        QCOMPARE(asked.load(), 3);
    }

    void outputPastAFailingLimitStopsTheProgram()
    {
        ProgramCall call = shell(u"exec yes"_s); // endless
        call.out.limit = 1024 * 1024;
        const ProcessResult r = runProgram(call);
        QCOMPARE(r.end, ProcessResult::End::TooMuchOutput);
        QCOMPARE(r.out.size(), call.out.limit);
        QCOMPARE(r.outputLimit, call.out.limit);
        QCOMPARE(r.failure(u"yes"_s), u"yes sent more than 1 MiB; stopped"_s);
    }

    void aTailCaptureKeepsTheEnd()
    {
        ProgramCall call = shell(u"for i in 1 2 3 4 5 6 7 8 9; do echo line$i; done; echo last >&2"_s);
        call.out = OutputCapture::tail(12);
        call.err = OutputCapture::discard();
        const ProcessResult r = runProgram(call);
        QVERIFY(r.ok());
        QCOMPARE(r.out, "line8\nline9\n");
        QVERIFY(r.err.isEmpty());
    }

    void theSinkGetsWholeLinesAndTheLastOneEnded()
    {
        ProgramCall call = shell(u"printf 'a\\nb'; sleep 0.3; printf 'c\\nd'"_s);
        QByteArrayList chunks;
        call.lineSink = [&](const QByteArray &lines) { chunks << lines; };
        QVERIFY(runProgram(call).ok());
        QCOMPARE(chunks.join(), "a\nbc\nd\n");
        for (const QByteArray &chunk : chunks)
            QVERIFY2(chunk.endsWith('\n'), chunk.constData()); // never half a line
    }

    void carriageReturnsEndLinesWhenAsked()
    {
        ProgramCall call = shell(u"printf ' 10%% \\r 55%% \\r'; sleep 0.3; printf ' 99%% \\r'"_s);
        QByteArrayList chunks;
        call.carriageReturnEndsLine = true;
        call.lineSink = [&](const QByteArray &lines) { chunks << lines; };
        QVERIFY(runProgram(call).ok());
        QCOMPARE(chunks.join(), " 10% \r 55% \r 99% \r");
        QVERIFY(chunks.size() >= 2); // each arrived as it came, not at the end
    }

    void mergedChannelsComeInOneStream()
    {
        ProgramCall call = shell(u"echo one; echo two >&2; echo three"_s);
        call.mergeChannels = true;
        QByteArray seen;
        call.lineSink = [&](const QByteArray &lines) { seen += lines; };
        const ProcessResult r = runProgram(call);
        QVERIFY(r.ok());
        QCOMPARE(r.out, "one\ntwo\nthree\n");
        QCOMPARE(seen, r.out);
        QVERIFY(r.err.isEmpty());
    }

    void aLargeInputAndOutputDoNotDeadlock()
    {
        // More than a pipe holds in both directions: the runner writes while it reads.
        ProgramCall call;
        call.program = u"cat"_s;
        call.input = QByteArray(4 * 1024 * 1024, 'x');
        const ProcessResult r = runProgram(call);
        QVERIFY(r.ok());
        QCOMPARE(r.out.size(), call.input.size());
    }
};

FERRY_TEST_APPLESS_MAIN(ProcessTest)
#include "tst_process.moc"
