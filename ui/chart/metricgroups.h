// Groups metrics into chart panels by quantity (losses, accuracies, learning rates, the rest,
// system) as TensorBoard does.
#pragma once

#include <QString>

namespace ferry::ui {

// Which panel of the metric grid a metric is drawn in, TensorBoard / W&B style: the splits of
// one quantity share a panel (loss, train_loss, val_loss, eval_loss, train/loss, Loss/train),
// each panel with its own y range, so a throughput of 15,000 samples/s never flattens a loss
// of 0.3. Panels come in sections: losses, accuracies and scores, learning rates, the rest,
// then the system's (system/cpu_percent, system/gpu0/utilization: per quantity, every GPU in
// one panel).
struct MetricPanel {
    enum Section { Loss, Accuracy, LearningRate, Other, System };
    QString key;   // the panel's identity: metrics with the same key share it
    QString title; // what the panel is called
    Section section = Other;
};

MetricPanel metricPanelOf(const QString &metric);

} // namespace ferry::ui
