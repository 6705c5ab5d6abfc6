#include "trainer/checkpoint.h"

#include <QDir>
#include <QFile>

#include <mutex>
#include <string>

using namespace Qt::StringLiterals;

namespace ferry::trainer {

void saveCheckpoint(const QString &dir, Net &net, const FlatOptimizer &optimizer, const Position &p)
{
    QDir().mkpath(dir);
    const QString path = QDir(dir).filePath(u"checkpoint.pt"_s);
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive modelArchive;
    net->save(modelArchive);
    archive.write("model", modelArchive);
    torch::serialize::OutputArchive optimizerArchive;
    optimizer.save(optimizerArchive);
    archive.write("optimizer", optimizerArchive);
    archive.write("epochs_done", torch::tensor(static_cast<std::int64_t>(p.epochsDone)));
    archive.write("step", torch::tensor(p.step));
    archive.write("best_val_loss", torch::tensor(p.bestValLoss, torch::kDouble));
    archive.write("epochs_without_better", torch::tensor(static_cast<std::int64_t>(p.epochsWithoutBetter)));
    archive.write("best_epoch", torch::tensor(static_cast<std::int64_t>(p.bestEpoch)));
    archive.write("best_count", torch::tensor(static_cast<std::int64_t>(p.best.size())));
    for (std::size_t i = 0; i < p.best.size(); ++i)
        archive.write("best_" + std::to_string(i), p.best[i]);
    {
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        const std::lock_guard lock(generator.mutex());
        archive.write("rng", generator.get_state());
    }
    const QString temporary = path + u".tmp"_s;
    archive.save_to(temporary.toStdString());
    QFile::remove(path);
    QFile::rename(temporary, path);
}

// The weights go into `net` (before its parameters become views of the optimiser's buffer);
// the optimiser's state is read by loadOptimizerState once it exists.
Position loadCheckpoint(const QString &path, Net &net, torch::serialize::InputArchive &archive)
{
    archive.load_from(path.toStdString());
    torch::serialize::InputArchive modelArchive;
    archive.read("model", modelArchive);
    net->load(modelArchive);
    const auto scalar = [&archive](const char *key) {
        torch::Tensor t; // a fresh tensor each time: reading into a used one resizes its storage
        archive.read(key, t);
        return t;
    };
    Position p;
    p.epochsDone = static_cast<int>(scalar("epochs_done").item<std::int64_t>());
    p.step = scalar("step").item<std::int64_t>();
    p.bestValLoss = scalar("best_val_loss").item<double>();
    p.epochsWithoutBetter = static_cast<int>(scalar("epochs_without_better").item<std::int64_t>());
    if (torch::Tensor count; archive.try_read("best_count", count)) { // checkpoints from before: none
        p.bestEpoch = static_cast<int>(scalar("best_epoch").item<std::int64_t>());
        for (std::int64_t i = 0; i < count.item<std::int64_t>(); ++i)
            p.best.push_back(scalar(("best_" + std::to_string(i)).c_str()));
    }
    const torch::Tensor t = scalar("rng");
    at::Generator generator = at::detail::getDefaultCPUGenerator(); // a handle on the global one
    const std::lock_guard lock(generator.mutex());
    generator.set_state(t);
    return p;
}

} // namespace ferry::trainer
