// The kernel engine's figures for tests/bench/kernels.sh (run by hand): a local kernel started
// through Ferry's kernel host (keeper, journal) on Debian's ipykernel.
//   ferry_kernelbench WORKSPACE ENV.yml start N [TARGET]  start to ready, N times (seconds, one
//        a line), on this machine or TARGET (container: ENV.yml's image)
//   ferry_kernelbench WORKSPACE ENV.yml roundtrip N  `1+1` sent to result and idle, N times (ms)
//   ferry_kernelbench WORKSPACE ENV.yml lines N [PAUSE_S]
//        a cell printing N numbered lines: the wall time from send to idle, the kernel's own loop
//        time, lines received (each once, in order) and journalled, this process's peak memory;
//        with PAUSE_S this process is stopped (SIGSTOP) that long right after the cell is sent
//   ferry_kernelbench WORKSPACE ENV.yml replay MB    a journal of MB megabytes of output, then
//        a fresh client replaying it whole: seconds
#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernelhost.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QTextStream>

#include <algorithm>
#include <cstdio>

#include <sys/resource.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace ferry::kernels;

namespace {

QTextStream out(stdout);

// The kernels' runs are supervised by `ferry __supervise`: the real ferry beside this program.
QString ferryBinary()
{
    return QCoreApplication::applicationDirPath() + u"/ferry"_s;
}

qint64 peakRssKiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

struct Kernel {
    KernelFolder folder{QString()};
    std::unique_ptr<KernelConnection> connection;
};

Kernel start(const QString &workspace, const QString &env, const QString &target = u"local"_s)
{
    KernelRequest request;
    request.target = *ferry::run::TargetSpec::parse(target);
    request.environmentFile = env;
    request.workingFolder = workspace;
    const auto folder = startKernel(workspace + u"/.ferry/kernels"_s, request, ferryBinary());
    if (!folder) {
        std::fprintf(stderr, "%s\n", qPrintable(folder.error().toString()));
        std::exit(1);
    }
    auto connection = KernelConnection::open(folder->path(), 0);
    if (!connection || !(*connection)->waitReady()) {
        std::fprintf(stderr, "the kernel did not become ready\n");
        std::exit(1);
    }
    return {*folder, std::move(*connection)};
}

void stop(const Kernel &kernel)
{
    (void)removeKernel(kernel.folder.path(), ferryBinary());
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 5) {
        std::fprintf(stderr, "usage: ferry_kernelbench WORKSPACE ENV.yml start|roundtrip|lines|replay N\n");
        return 2;
    }
    const QString workspace = QFileInfo(args[1]).absoluteFilePath();
    const QString env = QFileInfo(args[2]).absoluteFilePath();
    const QString mode = args[3];
    const int n = args[4].toInt();

    if (mode == u"start") {
        for (int i = 0; i < n; ++i) {
            QElapsedTimer clock;
            clock.start();
            Kernel kernel = start(workspace, env, args.value(5, u"local"_s));
            out << clock.nsecsElapsed() / 1e9 << Qt::endl;
            kernel.connection.reset();
            stop(kernel);
        }
        return 0;
    }
    Kernel kernel = start(workspace, env);
    if (mode == u"roundtrip") {
        (void)kernel.connection->execute(u"1+1"_s, {}); // the first execution warms the kernel
        for (int i = 0; i < n; ++i) {
            QElapsedTimer clock;
            clock.start();
            const auto cell = kernel.connection->execute(u"1+1"_s, {});
            const double ms = clock.nsecsElapsed() / 1e6;
            if (!cell || cell->outputs().isEmpty())
                return 1;
            out << ms << Qt::endl;
        }
    } else if (mode == u"lines") {
        const int pause = args.value(5).toInt();
        qint64 expected = 0;
        qint64 received = 0;
        bool inOrder = true;
        QString pending;
        double loopSeconds = -1;
        const QString code =
            u"import sys, time\nt = time.perf_counter()\nfor i in range(%1):\n    print(i)\nsys.stdout.flush()\n"
            "print('LOOP', time.perf_counter() - t, file=sys.stderr)"_s.arg(n);
        if (pause > 0) // stopped from outside while the kernel prints: nothing may be lost
            QProcess::startDetached(u"/bin/sh"_s, {u"-c"_s, u"sleep 0.3; kill -STOP %1; sleep %2; kill -CONT %1"_s
                                                                .arg(QCoreApplication::applicationPid())
                                                                .arg(pause)});
        QElapsedTimer clock;
        clock.start();
        const auto cell = kernel.connection->execute(
            code,
            [&](const JupyterMessage &m) {
                if (m.type() != u"stream")
                    return;
                const QString text = m.content.value(u"text"_s).toString();
                if (m.content.value(u"name"_s).toString() == u"stderr") {
                    if (text.startsWith(u"LOOP "_s))
                        loopSeconds = text.mid(5).trimmed().toDouble();
                    return;
                }
                pending += text;
                qsizetype start = 0;
                for (qsizetype nl = pending.indexOf(u'\n'); nl >= 0; nl = pending.indexOf(u'\n', start)) {
                    if (QStringView(pending).sliced(start, nl - start).toLongLong() != expected)
                        inOrder = false;
                    ++expected;
                    ++received;
                    start = nl + 1;
                }
                pending.remove(0, start);
            },
            -1, true, false);
        const double wall = clock.nsecsElapsed() / 1e9;
        if (!cell)
            return 1;
        const auto status = kernel.folder.readStatus();
        out << "wall " << wall << "\nloop " << loopSeconds << "\nreceived " << received << "\ninorder "
            << (inOrder ? 1 : 0) << "\njournalBytes " << (status && *status ? (*status)->journalBytes : -1)
            << "\npeakRssKiB " << peakRssKiB() << Qt::endl;
    } else if (mode == u"replay") {
        const QString code = u"line = 'x' * 999\nfor i in range(%1 * 1000):\n    print(line)"_s.arg(n);
        (void)kernel.connection->execute(code, {});
        const qint64 journal = QFileInfo(kernel.folder.journalFile()).size();
        QElapsedTimer clock;
        clock.start();
        auto replay = KernelConnection::open(kernel.folder.path(), 0);
        qint64 bytes = 0;
        qint64 messages = 0;
        bool idleSeen = false;
        QString lastRequest;
        (*replay)->follow(
            [&](const JupyterMessage &m) {
                ++messages;
                if (m.type() == u"stream")
                    bytes += m.content.value(u"text"_s).toString().size();
                idleSeen = (*replay)->client().journalOffset() >= journal;
            },
            [&] { return idleSeen; });
        out << "journalBytes " << journal << "\nreplaySeconds " << clock.nsecsElapsed() / 1e9 << "\nmessages "
            << messages << "\nstreamChars " << bytes << "\npeakRssKiB " << peakRssKiB() << Qt::endl;
    }
    kernel.connection.reset();
    stop(kernel);
    return 0;
}
