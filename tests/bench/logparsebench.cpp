// Log parsing throughput, run by tests/bench/logparse.sh (not by CI): a log read as a run's
// follower reads it, each line split into its records (metricRecords: carriage returns,
// escapes) and parsed (MetricParser). Prints "ferry POINTS SECONDS" (file reading included).
#include "metrics/metricparser.h"
#include "metrics/terminaltext.h"

#include <QElapsedTimer>
#include <QFile>

#include <cstdio>

using namespace ferry::run;

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: ferry_logparsebench LOG\n");
        return 2;
    }
    QElapsedTimer timer;
    timer.start();
    QFile file(QString::fromLocal8Bit(argv[1]));
    if (!file.open(QIODevice::ReadOnly))
        return 1;
    MetricParser parser;
    QList<MetricPoint> points;
    qsizetype total = 0;
    QByteArray rest;
    for (;;) {
        QByteArray block = file.read(4 << 20);
        if (block.isEmpty())
            break;
        if (!rest.isEmpty())
            block.prepend(rest);
        qsizetype from = 0;
        for (qsizetype nl = block.indexOf('\n'); nl >= 0; nl = block.indexOf('\n', from)) {
            for (const QString &record : metricRecords(QByteArrayView(block).sliced(from, nl - from)))
                parser.parseLine(record, 0, points);
            from = nl + 1;
        }
        rest = block.sliced(from);
        total += points.size();
        points.clear(); // stored in batches by the follower; here only counted
    }
    std::printf("ferry %lld %.3f\n", static_cast<long long>(total), double(timer.nsecsElapsed()) / 1e9);
    return 0;
}
