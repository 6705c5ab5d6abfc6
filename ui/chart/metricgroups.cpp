#include "ui/chart/metricgroups.h"

#include <QHash>
#include <QRegularExpression>
#include <QStringList>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// A split's name before the quantity ("val_loss", "train/acc", "eval.f1") or after it
// ("Loss/train", as SummaryWriter users write it).
const QRegularExpression kSplitPrefix(u"^(train|training|val|valid|validation|eval|test)[_/.]"_s,
                                      QRegularExpression::CaseInsensitiveOption);
const QRegularExpression kSplitSuffix(u"[_/.](train|training|val|valid|validation|eval|test)$"_s,
                                      QRegularExpression::CaseInsensitiveOption);
const QRegularExpression kGpu(u"^gpu\\d+$"_s);

const QStringList kScoreWords{u"acc"_s,  u"f1"_s,  u"precision"_s, u"recall"_s, u"auc"_s,   u"top1"_s,
                              u"top5"_s, u"iou"_s, u"map"_s,       u"bleu"_s,   u"rouge"_s, u"score"_s};

MetricPanel::Section sectionOf(const QString &base)
{
    const QString name = base.toLower();
    if (name.contains(u"loss"_s))
        return MetricPanel::Loss;
    if (name == u"lr"_s || name.startsWith(u"lr_"_s) || name.contains(u"learning_rate"_s) ||
        name.contains(u"learning-rate"_s))
        return MetricPanel::LearningRate;
    for (const QString &word : kScoreWords) {
        if (name.contains(word))
            return MetricPanel::Accuracy;
    }
    return MetricPanel::Other;
}

} // namespace

MetricPanel metricPanelOf(const QString &metric)
{
    if (metric.startsWith(u"system/"_s)) {
        // system/gpu0/utilization: the quantity, whatever the device.
        QStringList parts = metric.mid(7).split(u'/');
        parts.removeIf([](const QString &p) { return kGpu.match(p).hasMatch(); });
        const bool gpu = metric.contains(u"/gpu"_s);
        const QString quantity = parts.join(u'/');
        // The names system.samples gives (metrics/systemsamples.h), as a person reads them.
        static const QHash<QString, QString> titles{
            {u"cpu_percent"_s, u"CPU"_s},
            {u"memory_rss_mib"_s, u"memory (resident)"_s},
            {u"gpu/utilization_percent"_s, u"GPU utilization"_s},
            {u"gpu/memory_used_mib"_s, u"GPU memory"_s},
            {u"gpu/power_watts"_s, u"GPU power (W)"_s},
        };
        const QString key = (gpu ? u"gpu/"_s : QString()) + quantity;
        return {u"system:"_s + key, titles.value(key, (gpu ? u"GPU "_s : QString()) + quantity), MetricPanel::System};
    }
    QString base = metric;
    base.remove(kSplitPrefix);
    base.remove(kSplitSuffix);
    if (base.isEmpty())
        base = metric;
    return {base.toLower(), base, sectionOf(base)};
}

} // namespace ferry::ui
