#include "trainer/models.h"

namespace ferry::trainer {

namespace {

torch::nn::AnyModule activation(run::Activation kind)
{
    switch (kind) {
    case run::Activation::Tanh:
        return torch::nn::AnyModule(torch::nn::Tanh());
    case run::Activation::Gelu:
        return torch::nn::AnyModule(torch::nn::GELU());
    case run::Activation::Relu:
        break;
    }
    return torch::nn::AnyModule(torch::nn::ReLU());
}

} // namespace

NetImpl::NetImpl(const run::TrainingConfig &config, const QList<int> &inputShape, int outputs)
{
    features = register_module("features", torch::nn::Sequential());
    std::int64_t flat = 1;
    if (config.model == run::ModelKind::Cnn) {
        std::int64_t channels = inputShape.value(0, 1);
        std::int64_t height = inputShape.value(1, 1);
        std::int64_t width = inputShape.value(2, 1);
        for (int out : config.convChannels) {
            features->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, out, 3).padding(1)));
            features->push_back(torch::nn::ReLU());
            if (height >= 2 && width >= 2) {
                features->push_back(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(2)));
                height /= 2;
                width /= 2;
            }
            channels = out;
        }
        flat = channels * height * width;
    } else {
        for (int d : inputShape)
            flat *= d;
    }
    head = register_module("head", torch::nn::Sequential());
    std::int64_t in = flat;
    for (int size : config.layers) {
        head->push_back(torch::nn::Linear(in, size));
        head->push_back(activation(config.activation));
        if (config.dropout > 0)
            head->push_back(torch::nn::Dropout(config.dropout));
        in = size;
    }
    head->push_back(torch::nn::Linear(in, outputs));
    cnn = config.model == run::ModelKind::Cnn;
}

torch::Tensor NetImpl::forward(torch::Tensor x)
{
    if (cnn)
        x = features->forward(x);
    return head->forward(x.flatten(1));
}

} // namespace ferry::trainer
