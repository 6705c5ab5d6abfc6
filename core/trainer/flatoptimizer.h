// FlatOptimizer: libtorch's SGD, Adam and AdamW over one flat buffer of all weights, for fast steps
// on small models.
#pragma once

#include "trainer/models.h"
#include "training/training.h"

#include <cmath>

#include <torch/torch.h>

namespace ferry::trainer {

// The optimiser over one flat buffer. Every parameter of the net is made a view into one
// tensor, and its gradient a view into another, so zeroing the gradients is one operation and
// an optimiser step is a handful of element-wise operations over all the weights at once,
// instead of a handful per parameter tensor: for small models the per-operation overhead is
// most of a step. The arithmetic is libtorch's own SGD / Adam / AdamW (torch/optim, 1.13),
// operation for operation, so the results are the same values.
class FlatOptimizer {
public:
    FlatOptimizer(const run::TrainingConfig &c, Net &net) : m_config(c), m_lr(c.learningRate)
    {
        std::vector<torch::Tensor> parameters = net->parameters();
        std::int64_t total = 0;
        for (const torch::Tensor &p : parameters)
            total += p.numel();
        m_params = torch::empty({total});
        m_grads = torch::zeros({total});
        torch::NoGradGuard noGrad;
        std::int64_t offset = 0;
        for (torch::Tensor &p : parameters) {
            const std::int64_t n = p.numel();
            torch::Tensor view = m_params.narrow(0, offset, n).view(p.sizes());
            view.copy_(p);
            p.set_data(view);
            p.mutable_grad() = m_grads.narrow(0, offset, n).view(p.sizes()); // autograd accumulates in place
            offset += n;
        }
    }

    void setLearningRate(double lr) { m_lr = lr; }
    void zeroGrad() { m_grads.zero_(); }

    void step()
    {
        torch::NoGradGuard noGrad;
        const double wd = m_config.weightDecay;
        if (m_config.optimizer == run::OptimizerKind::Sgd) {
            torch::Tensor g = wd != 0 ? m_grads.add(m_params, wd) : m_grads;
            if (m_config.momentum != 0) {
                if (!m_buffer.defined()) {
                    m_buffer = torch::clone(g).detach();
                } else {
                    m_buffer.mul_(m_config.momentum).add_(g, 1.0);
                }
                g = m_buffer;
            }
            m_params.add_(g, -m_lr);
            return;
        }
        // Adam and AdamW, betas 0.9 and 0.999, eps 1e-8 (the libtorch defaults).
        constexpr double beta1 = 0.9;
        constexpr double beta2 = 0.999;
        constexpr double eps = 1e-8;
        if (!m_expAvg.defined()) {
            m_expAvg = torch::zeros_like(m_params);
            m_expAvgSq = torch::zeros_like(m_params);
        }
        ++m_step;
        torch::Tensor g = m_grads;
        if (m_config.optimizer == run::OptimizerKind::AdamW)
            m_params.mul_(1 - m_lr * wd);
        else if (wd != 0)
            g = g.add(m_params, wd);
        const double biasCorrection1 = 1 - std::pow(beta1, static_cast<double>(m_step));
        const double biasCorrection2 = 1 - std::pow(beta2, static_cast<double>(m_step));
        m_expAvg.mul_(beta1).add_(g, 1 - beta1);
        m_expAvgSq.mul_(beta2).addcmul_(g, g, 1 - beta2);
        const torch::Tensor denom = (m_expAvgSq.sqrt() / std::sqrt(biasCorrection2)).add_(eps);
        m_params.addcdiv_(m_expAvg, denom, -m_lr / biasCorrection1);
    }

    void save(torch::serialize::OutputArchive &archive) const
    {
        archive.write("step", torch::tensor(m_step));
        if (m_buffer.defined())
            archive.write("momentum_buffer", m_buffer);
        if (m_expAvg.defined()) {
            archive.write("exp_avg", m_expAvg);
            archive.write("exp_avg_sq", m_expAvgSq);
        }
    }

    void load(torch::serialize::InputArchive &archive)
    {
        torch::Tensor t;
        archive.read("step", t);
        m_step = t.item<std::int64_t>();
        const auto optional = [&archive](const char *key) {
            torch::Tensor value;
            return archive.try_read(key, value) ? value : torch::Tensor();
        };
        m_buffer = optional("momentum_buffer");
        m_expAvg = optional("exp_avg");
        m_expAvgSq = optional("exp_avg_sq");
    }

private:
    run::TrainingConfig m_config;
    double m_lr;
    torch::Tensor m_params;
    torch::Tensor m_grads;
    torch::Tensor m_buffer; // SGD momentum
    torch::Tensor m_expAvg;
    torch::Tensor m_expAvgSq;
    std::int64_t m_step = 0;
};

} // namespace ferry::trainer
