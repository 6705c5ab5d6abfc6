// CSV loading benchmark, run by tests/bench/csvload.sh (not by CI): loads a numeric table with
// loadDataset, as the trainer does, into a float matrix.
//   ferry_csvbench CSV [THREADS]      (THREADS 0 or absent: as loadDataset chooses)
// stdout: "ferry SECONDS ROWS FEATURES"; stderr: the error, when loading fails.
#include "data/csvreader.h"
#include "data/dataset.h"

#include <QElapsedTimer>
#include <QString>

#include <cstdio>
#include <cstdlib>

using namespace ferry::data;

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: ferry_csvbench CSV [THREADS]\n");
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    const int threads = argc > 2 ? std::atoi(argv[2]) : 0;
    QElapsedTimer timer;
    timer.start();
    const auto data = threads > 0 ? loadTable(path, {}, threads) : loadDataset(path);
    const qint64 ns = timer.nsecsElapsed();
    if (!data) {
        std::fprintf(stderr, "%s\n", qPrintable(data.error().toString()));
        return 1;
    }
    std::printf("ferry %.4f %lld %lld\n", double(ns) / 1e9, static_cast<long long>(data->count),
                static_cast<long long>(data->sampleSize()));
    return 0;
}
