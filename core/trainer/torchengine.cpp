#include "trainer/torchengine.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <thread>

namespace ferry::trainer {

namespace {
const QString kComputeHint = QStringLiteral("libtorch does not compute as it must: reinstall it "
                                            "(packaging/install-deps.sh runtime)");
} // namespace

QString torchVersion()
{
    return QString::fromLatin1(TORCH_VERSION);
}

int torchThreads()
{
    return at::get_num_threads();
}

void setTorchThreads(int threads)
{
    torch::set_num_threads(threads);
}

int cudaDeviceCount()
{
    return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
}

Expected<void> fitTinyModel()
{
    try {
        torch::manual_seed(7);
        const auto x = torch::linspace(-1.0, 1.0, 64).unsqueeze(1);
        const auto y = 3.0 * x - 1.0;
        torch::nn::Linear model(1, 1);
        torch::optim::SGD optimiser(model->parameters(), torch::optim::SGDOptions(0.1));
        double first = 0.0;
        double last = 0.0;
        for (int step = 0; step < 50; ++step) {
            optimiser.zero_grad();
            auto loss = torch::mse_loss(model->forward(x), y);
            loss.backward();
            optimiser.step();
            last = loss.item<double>();
            if (step == 0)
                first = last;
        }
        if (!(last < first * 0.1))
            return Error{QStringLiteral("loss did not fall: %1 -> %2").arg(first).arg(last), {}, 0, 0, kComputeHint};
        return {};
    } catch (const std::exception &e) {
        return Error{QString::fromUtf8(e.what()), {}, 0, 0, kComputeHint};
    }
}

} // namespace ferry::trainer
