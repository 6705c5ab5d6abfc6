#include "trainer/torchscriptexport.h"

#include <torch/script.h>

#include <sstream>

using namespace Qt::StringLiterals;

namespace ferry::trainer {

namespace {

// Appends the TorchScript lines for one layer of `net` and registers its weights on `out`.
class Writer {
public:
    explicit Writer(torch::jit::Module &out) : m_out(out) {}

    void layer(const std::shared_ptr<torch::nn::Module> &m)
    {
        if (auto linear = std::dynamic_pointer_cast<torch::nn::LinearImpl>(m)) {
            const std::string w = parameter(linear->weight), b = parameter(linear->bias);
            line("x = torch.linear(x, self." + w + ", self." + b + ")");
        } else if (auto conv = std::dynamic_pointer_cast<torch::nn::Conv2dImpl>(m)) {
            const std::string w = parameter(conv->weight), b = parameter(conv->bias);
            const auto pad = c10::get<torch::ExpandingArray<2>>(conv->options.padding());
            line("x = torch.conv2d(x, self." + w + ", self." + b + ", [1, 1], [" + std::to_string((*pad)[0]) + ", " +
                 std::to_string((*pad)[1]) + "])");
        } else if (auto pool = std::dynamic_pointer_cast<torch::nn::MaxPool2dImpl>(m)) {
            const auto k = *pool->options.kernel_size();
            line("x = torch.max_pool2d(x, [" + std::to_string(k[0]) + ", " + std::to_string(k[1]) + "])");
        } else if (std::dynamic_pointer_cast<torch::nn::ReLUImpl>(m)) {
            line("x = torch.relu(x)");
        } else if (std::dynamic_pointer_cast<torch::nn::TanhImpl>(m)) {
            line("x = torch.tanh(x)");
        } else if (std::dynamic_pointer_cast<torch::nn::GELUImpl>(m)) {
            line("x = torch.gelu(x)");
        } else if (std::dynamic_pointer_cast<torch::nn::DropoutImpl>(m)) {
            // inference: nothing
        } else {
            throw std::runtime_error("no TorchScript for layer " + m->name());
        }
    }
    void line(const std::string &text) { m_body << "        " << text << "\n"; }
    std::string body() const { return m_body.str(); }

private:
    std::string parameter(const torch::Tensor &t)
    {
        const std::string name = "p" + std::to_string(m_count++);
        m_out.register_parameter(name, t.detach().clone(), false);
        return name;
    }

    torch::jit::Module &m_out;
    std::ostringstream m_body;
    int m_count = 0;
};

} // namespace

Expected<void> writeTorchScript(Net &net, const run::ModelCard &card, const QString &path)
{
    try {
        torch::jit::Module out("FerryModel");
        // The training statistics, shaped to broadcast over a batch: one per column of a table,
        // one per channel of an image.
        const auto groups = static_cast<std::int64_t>(card.normalization.mean.size());
        std::vector<std::int64_t> statShape{1, groups};
        if (card.inputKind != data::DatasetKind::Table && card.inputShape.size() == 3)
            statShape = {1, groups, 1, 1};
        auto tensorOf = [&](const std::vector<float> &v) { return torch::tensor(v, torch::kFloat).reshape(statShape); };
        std::vector<float> scale;
        for (const float s : card.normalization.std)
            scale.push_back(s != 0.0f ? 1.0f / s : 1.0f);
        const bool normalise = groups > 0 && card.normalization.std.size() == card.normalization.mean.size();
        if (normalise) {
            out.register_buffer("mean", tensorOf(card.normalization.mean));
            out.register_buffer("scale", tensorOf(scale));
        }
        const bool regression = card.task == data::Task::Regression;
        out.register_buffer("target_mean", torch::tensor(card.targetMean, torch::kFloat));
        out.register_buffer("target_std", torch::tensor(card.targetStd, torch::kFloat));

        Writer writer(out);
        if (normalise)
            writer.line("x = torch.where(torch.isnan(x), torch.zeros_like(x), (x - self.mean) * self.scale)");
        if (net->cnn) {
            for (const auto &m : net->features->children())
                writer.layer(m);
        }
        writer.line("x = x.flatten(1)");
        for (const auto &m : net->head->children())
            writer.layer(m);
        writer.line(regression ? "return x.squeeze(1) * self.target_std + self.target_mean" : "return x");
        out.define("def forward(self, x: torch.Tensor) -> torch.Tensor:\n" + writer.body());
        out.eval();
        out.save(path.toStdString());
        return {};
    } catch (const std::exception &e) {
        return Error{u"cannot write TorchScript: "_s + QString::fromUtf8(e.what()).trimmed().section(u'\n', 0, 0), path,
                     0, 0, u"report this as a bug, with the model.json of the run"_s};
    }
}

} // namespace ferry::trainer
