// A notebook's outputs without a widget, run by tests/bench/notebookoutputs.sh (not by CI):
// streams drawn as a terminal (TerminalText, core/notebook/terminaltext.h) against appending the
// same chunks to one QString (what a view that kept everything would do), and a DataFrame's HTML
// made safe (sanitizeHtml) against QString::toHtmlEscaped of the same text (one pass, no parsing).
// Each case prints the median CPU time of `rounds` runs, the peer's and their ratio, and how far
// each raised the resident memory (the peak: the terminal keeps 5,000 + 5,000 lines, the string
// all).
#include "notebook/safehtml.h"
#include "notebook/terminaltext.h"
#include "support/cost.h"

#include <QFile>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <vector>

using namespace Qt::StringLiterals;
using namespace ferry::notebook;

namespace {

double cpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) / 1e9;
}

struct Measured {
    double seconds = 0; // median CPU time
    double mib = 0;     // how far the last round raised the resident memory's peak
};

Measured measure(const std::function<void()> &work, int rounds)
{
    std::vector<double> times;
    Measured measured;
    for (int i = 0; i < rounds; ++i) {
        if (QFile clear(u"/proc/self/clear_refs"_s); clear.open(QIODevice::WriteOnly))
            clear.write("5"); // the peak back to the current resident memory
        const qint64 before = ferry::test::processMemory("VmRSS:");
        const double start = cpuSeconds();
        work();
        times.push_back(cpuSeconds() - start);
        measured.mib = double(ferry::test::processMemory("VmHWM:") - before) / (1 << 20);
    }
    std::sort(times.begin(), times.end());
    measured.seconds = times[times.size() / 2];
    return measured;
}

void compare(const char *name, const QStringList &chunks, int rounds)
{
    qsizetype bytes = 0;
    for (const QString &chunk : chunks)
        bytes += chunk.size();
    qsizetype lines = 0;
    const Measured ours = measure(
        [&] {
            TerminalText terminal;
            for (const QString &chunk : chunks)
                terminal.append(chunk);
            lines = terminal.lineCount();
        },
        rounds);
    const Measured peer = measure(
        [&] {
            QString all;
            for (const QString &chunk : chunks)
                all += chunk;
        },
        rounds);
    std::printf("%-44s %8.3f s %7.1f MiB   QString %8.3f s %7.1f MiB   ratio %6.1f   (%lld chunks, %.1f M chars, "
                "%lld lines)\n",
                name, ours.seconds, ours.mib, peer.seconds, peer.mib, ours.seconds / peer.seconds,
                static_cast<long long>(chunks.size()), double(bytes) / 1e6, static_cast<long long>(lines));
}

// `count` lines from `line(i)`, in chunks of `perChunk`.
QStringList chunked(qsizetype count, qsizetype perChunk, const std::function<QString(qsizetype)> &line)
{
    QStringList chunks;
    QString chunk;
    for (qsizetype i = 0; i < count; ++i) {
        chunk += line(i);
        if ((i + 1) % perChunk == 0) {
            chunks << chunk;
            chunk.clear();
        }
    }
    if (!chunk.isEmpty())
        chunks << chunk;
    return chunks;
}

// A DataFrame of `rows` rows as pandas' _repr_html_() writes it.
QString dataFrameHtml(int rows)
{
    QString html =
        u"<div>\n<style scoped>\n    .dataframe tbody tr th:only-of-type {\n        vertical-align: middle;\n"
        u"    }\n</style>\n<table border=\"1\" class=\"dataframe\">\n  <thead>\n    <tr style=\"text-align: "
        u"right;\">\n      <th></th>\n      <th>loss</th>\n      <th>accuracy</th>\n      <th>name</th>\n"
        u"    </tr>\n  </thead>\n  <tbody>\n"_s;
    for (int i = 0; i < rows; ++i) {
        html += u"    <tr>\n      <th>%1</th>\n      <td>%2</td>\n      <td>%3</td>\n      <td>run &lt;%1&gt;</td>\n"
                u"    </tr>\n"_s.arg(i)
                    .arg(1.0 / (i + 1), 0, 'f', 6)
                    .arg(double(i % 1000) / 1000, 0, 'f', 3);
    }
    return html + u"  </tbody>\n</table>\n</div>"_s;
}

} // namespace

int main(int argc, char **argv)
{
    const qsizetype lines = argc > 1 ? QString::fromLocal8Bit(argv[1]).toLongLong() : 1000000;
    const int rounds = argc > 2 ? QString::fromLocal8Bit(argv[2]).toInt() : 3;
    std::printf("median CPU time of %d rounds; memory: how far the last round raised the resident peak\n", rounds);
    compare("short lines, 100 a chunk",
            chunked(lines, 100,
                    [](qsizetype i) -> QString { return u"step "_s + QString::number(i) + u" loss=0.123456\n"_s; }),
            rounds);
    compare("coloured lines (3 SGR each), 100 a chunk",
            chunked(lines, 100,
                    [](qsizetype i) -> QString {
                        return u"\x1b[1;32mstep\x1b[0m "_s + QString::number(i) +
                               u" \x1b[38;5;208mloss\x1b[39m=0.123456\n"_s;
                    }),
            rounds);
    compare("tqdm redraws ('\\r' + bar), 100 a chunk",
            chunked(lines, 100,
                    [lines](qsizetype i) -> QString {
                        const int percent = int(100 * i / lines);
                        return u"\r%1%|%2%3| %4/%5 [00:01<00:01, 30.1it/s]"_s.arg(percent, 3)
                            .arg(QString(percent / 10, QChar(0x2588)), QString(10 - percent / 10, u' '))
                            .arg(i)
                            .arg(lines);
                    }),
            rounds);
    const QString frame = dataFrameHtml(int(lines / 200)); // 25,000 elements: under the limit
    QString escaped;
    SafeHtml safe;
    const Measured ours = measure([&] { safe = sanitizeHtml(frame); }, rounds);
    const Measured peer = measure([&] { escaped = frame.toHtmlEscaped(); }, rounds);
    std::printf("%-44s %8.3f s %7.1f MiB   escaped %8.3f s %7.1f MiB   ratio %6.1f   (%.1f M chars, %lld rows%s)\n",
                "safe HTML of a DataFrame", ours.seconds, ours.mib, peer.seconds, peer.mib, ours.seconds / peer.seconds,
                double(frame.size()) / 1e6, static_cast<long long>(lines / 200),
                safe.truncated ? ", cut at the limits" : "");
    return 0;
}
