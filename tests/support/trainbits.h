// A tiny training CSV and the stored points' bits, shared by the embedded-trainer rerun tests.
#pragma once

// What the tests of an embedded-trainer rerun share (tst_trainrerun, tst_mainwindow): a tiny
// CSV that trains in a second, and the bits of every stored point a training computed.
#include "store/runstore.h"

#include <QByteArray>
#include <QMap>

#include <bit>
#include <cstdint>

namespace ferry::test {

// Two classes split by a line, 200 rows: a second's training.
inline QByteArray tinyTrainingCsv()
{
    QByteArray csv = "a,b,label\n";
    for (int i = 0; i < 200; ++i) {
        const double a = (i * 37 % 101) / 10.0, b = (i * 53 % 97) / 10.0;
        csv += QByteArray::number(a, 'f', 2) + ',' + QByteArray::number(b, 'f', 2) + (a > b ? ",yes\n" : ",no\n");
    }
    return csv;
}

// name@step → the value's bits, of every stored point of the losses and metrics: not the
// machine's (system/...) nor the clock's (samples_per_s), what the training computed.
inline QMap<QString, std::uint64_t> trainingPointBits(const run::RunStore &store, const QString &id)
{
    QMap<QString, std::uint64_t> bits;
    for (const run::MetricPoint &p : store.metrics(id)) {
        if (!p.name.startsWith(QStringLiteral("system/")) && !p.name.contains(QStringLiteral("per_s")))
            bits.insert(p.name + u'@' + QString::number(p.step, 'g', 17), std::bit_cast<std::uint64_t>(p.value));
    }
    return bits;
}

} // namespace ferry::test
