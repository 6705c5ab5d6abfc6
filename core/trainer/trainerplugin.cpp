#include "trainer/trainerplugin.h"

#include "trainer/torchengine.h"
#include "trainer/torchtrainer.h"

#include <QFile>
#include <QThread>

namespace ferry::trainer {

namespace {

// Which libblas.so.3 the dynamic loader picked (Debian's alternatives decide): the
// reference BLAS trains small MLPs an order of magnitude slower than OpenBLAS.
QString mappedBlas()
{
    QFile maps(QStringLiteral("/proc/self/maps"));
    if (!maps.open(QIODevice::ReadOnly))
        return {};
    const QList<QByteArray> lines = maps.readAll().split('\n');
    for (const QByteArray &line : lines) {
        const qsizetype slash = line.indexOf('/');
        if (slash < 0)
            continue;
        const QByteArray path = line.mid(slash);
        if (path.contains("libblas") || path.contains("libopenblas"))
            return QString::fromLocal8Bit(path);
    }
    return {};
}

} // namespace

TrainerPlugin::TrainerPlugin(QObject *parent) : QObject(parent)
{
    // On two cores one intra-op thread beat two for small models (measured); torch must be
    // told before any other torch work.
    if (QThread::idealThreadCount() <= 2)
        setTorchThreads(1);
}

run::TrainerInfo TrainerPlugin::info() const
{
    run::TrainerInfo info;
    info.torchVersion = torchVersion();
    info.threads = torchThreads();
    info.cudaDevices = cudaDeviceCount();
    info.cudaAvailable = info.cudaDevices > 0;
    info.blasLibrary = mappedBlas();
    return info;
}

Expected<void> TrainerPlugin::selfTest()
{
    return fitTinyModel();
}

run::TrainingResult TrainerPlugin::train(const data::Dataset &dataset, const run::TrainingConfig &config,
                                         run::TrainingControl &control, run::TrainingSink &sink)
{
    return trainModel(dataset, config, control, sink);
}

Expected<run::Predictions> TrainerPlugin::predict(const QString &modelDir, const data::Dataset &input)
{
    return predictWithModel(modelDir, input);
}

} // namespace ferry::trainer
