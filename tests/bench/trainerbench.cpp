// One measurement of the trainer benchmark (tests/bench/trainer.sh runs the rounds):
//   trainerbench ferry|bare SIZE EPOCHS   samples/s of Ferry's trainer (through its plugin) or of
//                                         a bare libtorch loop on the same model and data
//   trainerbench sgemm                    single-thread sgemm GFLOP/s (1024x1024, at::mm)
// SIZE: small (16-32-2, batch 32, Adam) or medium (784-256-256-10, batch 64, SGD). Data and
// initial weights come from torch's generator with fixed seeds, so trainer_reference.py (PyTorch
// eager in Python) builds the very same ones; each prints a checksum of both to prove it.
#include "training/trainerloader.h"

#include <torch/torch.h>

#include <QCoreApplication>
#include <QElapsedTimer>

#include <cstdio>

using namespace Qt::StringLiterals;

namespace {

struct Size {
    int inputs;
    std::vector<int> hidden;
    int classes;
    int batch;
    bool adam;
    std::int64_t samples;
};

Size sizeOf(const std::string &name)
{
    if (name == "medium")
        return {784, {256, 256}, 10, 64, false, 8192};
    return {16, {32}, 2, 32, true, 32768};
}

// The data: x ~ N(0, 1) and labels uniform, from seed 1 (the same calls as the Python side).
std::pair<torch::Tensor, torch::Tensor> makeData(const Size &s)
{
    torch::manual_seed(1);
    torch::Tensor x = torch::randn({s.samples, s.inputs});
    torch::Tensor y = torch::randint(0, s.classes, {s.samples}, torch::kLong);
    return {x, y};
}

torch::nn::Sequential makeModel(const Size &s)
{
    torch::manual_seed(0);
    torch::nn::Sequential model;
    int in = s.inputs;
    for (int h : s.hidden) {
        model->push_back(torch::nn::Linear(in, h));
        model->push_back(torch::nn::ReLU());
        in = h;
    }
    model->push_back(torch::nn::Linear(in, s.classes));
    return model;
}

double bare(const Size &s, int epochs)
{
    auto [x, y] = makeData(s);
    auto model = makeModel(s);
    std::fprintf(stderr, "checksum data %.6f weights %.6f\n", x.sum().item<double>(),
                 model->parameters().front().sum().item<double>());
    std::unique_ptr<torch::optim::Optimizer> optimizer;
    if (s.adam)
        optimizer = std::make_unique<torch::optim::Adam>(model->parameters(), torch::optim::AdamOptions(1e-3));
    else
        optimizer =
            std::make_unique<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    QElapsedTimer clock;
    clock.start();
    for (int e = 0; e < epochs; ++e) {
        for (std::int64_t start = 0; start < s.samples; start += s.batch) {
            const std::int64_t len = std::min<std::int64_t>(s.batch, s.samples - start);
            optimizer->zero_grad();
            auto loss =
                torch::nn::functional::cross_entropy(model->forward(x.narrow(0, start, len)), y.narrow(0, start, len));
            loss.backward();
            optimizer->step();
        }
    }
    return static_cast<double>(s.samples * epochs) / (static_cast<double>(clock.nsecsElapsed()) / 1e9);
}

class Quiet final : public ferry::run::TrainingSink {
public:
    void record(const ferry::run::MetricRecord &) override {}
    void progress(const ferry::run::TrainingProgress &) override {}
    void message(const QString &) override {}
};

double ferryTrainer(const Size &s, int epochs)
{
    ferry::run::TrainerLoader loader(
        ferry::run::TrainerLoader::defaultSearchDirs(QCoreApplication::applicationDirPath()));
    const auto engine = loader.load();
    if (!engine) {
        std::fprintf(stderr, "%s\n", qPrintable(engine.error().toString()));
        return -1;
    }
    auto [x, y] = makeData(s);
    ferry::data::Dataset d;
    d.count = s.samples;
    d.shape = {s.inputs};
    d.x.assign(x.data_ptr<float>(), x.data_ptr<float>() + x.numel());
    d.classes.assign(y.data_ptr<std::int64_t>(), y.data_ptr<std::int64_t>() + y.numel());
    for (int c = 0; c < s.classes; ++c)
        d.classNames << QString::number(c);
    for (int f = 0; f < s.inputs; ++f)
        d.featureNames << u"f%1"_s.arg(f);
    ferry::run::TrainingConfig c;
    c.layers.clear();
    for (int h : s.hidden)
        c.layers << h;
    c.optimizer = s.adam ? ferry::run::OptimizerKind::Adam : ferry::run::OptimizerKind::Sgd;
    c.learningRate = s.adam ? 1e-3 : 0.01;
    c.momentum = 0.9;
    c.batchSize = s.batch;
    c.epochs = epochs;
    c.seed = 0; // the same initial weights as makeModel
    c.validationFraction = 0;
    c.logEverySteps = 100;
    c.threads = 1;
    ferry::run::TrainingControl control;
    Quiet sink;
    QElapsedTimer clock;
    clock.start();
    const auto result = (*engine)->train(d, c, control, sink);
    const double seconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
    if (result.outcome != ferry::run::TrainingResult::Outcome::Completed) {
        std::fprintf(stderr, "training failed: %s\n", qPrintable(result.error.toString()));
        return -1;
    }
    return static_cast<double>(s.samples * epochs) / seconds;
}

double sgemm()
{
    const auto a = torch::randn({1024, 1024});
    const auto b = torch::randn({1024, 1024});
    (void)torch::mm(a, b); // warm up
    double best = 0;
    for (int i = 0; i < 5; ++i) {
        QElapsedTimer clock;
        clock.start();
        (void)torch::mm(a, b);
        const double seconds = static_cast<double>(clock.nsecsElapsed()) / 1e9;
        best = std::max(best, 2.0 * 1024 * 1024 * 1024 / seconds / 1e9);
    }
    return best;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    torch::set_num_threads(1);
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "sgemm") {
        std::printf("%.3f\n", sgemm());
        return 0;
    }
    if (argc != 4 || (mode != "ferry" && mode != "bare")) {
        std::fprintf(stderr, "usage: trainerbench ferry|bare small|medium EPOCHS | trainerbench sgemm\n");
        return 2;
    }
    const Size size = sizeOf(argv[2]);
    const int epochs = std::atoi(argv[3]);
    const double rate = mode == "bare" ? bare(size, epochs) : ferryTrainer(size, epochs);
    if (rate < 0)
        return 1;
    std::printf("%.1f\n", rate);
    return 0;
}
