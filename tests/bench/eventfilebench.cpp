// TensorBoard event file throughput, run by tests/bench/eventfile.sh (not by CI): a file read as a
// follower reads a growing one, in blocks of 4 MiB (or what the next record needs) into one buffer,
// each handed to EventFileReader from its offset on. Prints "ferry POINTS SECONDS" (file reading included).
#include "metrics/eventfile.h"

#include <QElapsedTimer>
#include <QFile>

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace ferry::run;

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: ferry_eventfilebench FILE\n");
        return 2;
    }
    QElapsedTimer timer;
    timer.start();
    const QString path = QString::fromLocal8Bit(argv[1]);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 1;
    EventFileReader reader({}, path);
    qsizetype total = 0;
    // buffer[0, filled) holds the file's bytes from reader.offset() on; what a call leaves (a
    // partial record) moves to the front, and the next read fills up behind it.
    QByteArray buffer(4 << 20, Qt::Uninitialized);
    qint64 filled = 0;
    for (;;) {
        if (buffer.size() < reader.bytesWanted())
            buffer.resize(reader.bytesWanted());
        const qint64 got = file.read(buffer.data() + filled, buffer.size() - filled);
        if (got <= 0)
            break;
        filled += got;
        const qint64 before = reader.offset();
        const auto points = reader.read(QByteArrayView(buffer.constData(), filled));
        if (!points) {
            std::fprintf(stderr, "%s\n", qPrintable(points.error().toString()));
            return 1;
        }
        total += points->size(); // stored in batches by the follower; here only counted
        const qint64 used = reader.offset() - before;
        std::memmove(buffer.data(), buffer.constData() + used, static_cast<std::size_t>(filled - used));
        filled -= used;
    }
    std::printf("ferry %lld %.3f\n", static_cast<long long>(total), double(timer.nsecsElapsed()) / 1e9);
    return 0;
}
