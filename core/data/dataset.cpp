#include "data/dataset.h"

#include "common/memorybudget.h"
#include "data/csvreader.h"
#include "data/datasetpath.h"
#include "data/idxreader.h"
#include "data/imagefolder.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace Qt::StringLiterals;

namespace ferry::data {

QString kindName(DatasetKind kind)
{
    switch (kind) {
    case DatasetKind::Table:
        return u"table"_s;
    case DatasetKind::ImageFolder:
        return u"image-folder"_s;
    case DatasetKind::Idx:
        return u"idx"_s;
    }
    return {};
}

QString taskName(Task task)
{
    return task == Task::Regression ? u"regression"_s : u"classification"_s;
}

QString shapeText(const QList<int> &shape, const QString &separator)
{
    QStringList parts;
    for (int d : shape)
        parts << QString::number(d);
    return parts.join(separator);
}

Expected<Dataset> loadDataset(const QString &path, const LoadOptions &options)
{
    const auto kind = datasetKindOf(path);
    if (!kind)
        return kind.error();
    if (options.cancelled && options.cancelled())
        return Error{u"loading was cancelled"_s, path, 0, 0, {}};
    // The loaders check what a file asks for against memoryBudget() before allocating; this
    // catches what gets past that (the machine's memory taken meanwhile), never an abort.
    try {
        switch (*kind) {
        case DatasetKind::Table:
            return loadTable(path, options);
        case DatasetKind::ImageFolder:
            return loadImageFolder(path, options);
        case DatasetKind::Idx:
            return loadIdx(path, options);
        }
    } catch (const std::bad_alloc &) {
        return outOfMemoryError(path);
    }
    return Error{u"unknown dataset kind"_s, path, 0, 0, supportedFormats()};
}

namespace {

// A uniform integer in [0, bound) from the generator alone, by rejection: the standard
// distributions differ between library implementations, this does not.
std::uint64_t uniformBelow(std::mt19937_64 &random, std::uint64_t bound)
{
    const std::uint64_t threshold = (0 - bound) % bound; // 2^64 mod bound
    for (;;) {
        const std::uint64_t r = random();
        if (r >= threshold)
            return r % bound;
    }
}

// Which statistics group (feature or channel) each value of a sample belongs to.
struct Groups {
    qsizetype count = 0; // features (tables) or channels (images)
    qsizetype plane = 1; // consecutive values of one group: 1 for tables, height × width for images
};

Groups groupsOf(const Dataset &dataset)
{
    const qsizetype size = dataset.sampleSize();
    if (size <= 0)
        return {};
    if (dataset.kind == DatasetKind::Table || dataset.shape.size() < 2)
        return {size, 1};
    const qsizetype channels = std::max(1, dataset.shape.first());
    return {channels, size / channels};
}

} // namespace

Split splitIndices(qsizetype count, double validationFraction, std::uint64_t seed)
{
    Split split;
    if (count <= 0)
        return split;
    std::vector<qsizetype> order(static_cast<size_t>(count));
    std::iota(order.begin(), order.end(), qsizetype(0));
    std::mt19937_64 random(seed);
    for (size_t i = order.size() - 1; i > 0; --i) // Fisher–Yates
        std::swap(order[i], order[size_t(uniformBelow(random, i + 1))]);
    const double fraction = std::isfinite(validationFraction) ? std::clamp(validationFraction, 0.0, 1.0) : 0.0;
    const qsizetype validation = std::min<qsizetype>(std::llround(double(count) * fraction), count - 1);
    split.validation.assign(order.begin(), order.begin() + validation);
    split.train.assign(order.begin() + validation, order.end());
    return split;
}

Normalization computeNormalization(const Dataset &dataset, const std::vector<qsizetype> &rows)
{
    const Groups groups = groupsOf(dataset);
    const qsizetype size = dataset.sampleSize();
    std::vector<double> sum(size_t(groups.count), 0.0);
    std::vector<double> squares(size_t(groups.count), 0.0);
    std::vector<qint64> counts(size_t(groups.count), 0);
    auto forEachValue = [&](auto take) {
        for (qsizetype row : rows) {
            if (row < 0 || row >= dataset.count || size_t((row + 1) * size) > dataset.x.size())
                continue;
            const float *sample = dataset.x.data() + row * size;
            for (qsizetype g = 0; g < groups.count; ++g) {
                const float *values = sample + g * groups.plane;
                for (qsizetype i = 0; i < groups.plane; ++i) {
                    if (!std::isnan(values[i]))
                        take(size_t(g), double(values[i]));
                }
            }
        }
    };
    // Two passes (mean, then squared deviations): exact for a constant feature.
    forEachValue([&](size_t g, double v) {
        sum[g] += v;
        ++counts[g];
    });
    std::vector<double> means(sum.size(), 0.0);
    Normalization normalization;
    for (size_t g = 0; g < sum.size(); ++g) {
        means[g] = counts[g] > 0 ? sum[g] / double(counts[g]) : 0.0;
        normalization.mean.push_back(float(means[g]));
    }
    forEachValue([&](size_t g, double v) { squares[g] += (v - means[g]) * (v - means[g]); });
    for (size_t g = 0; g < sum.size(); ++g) {
        const double deviation = counts[g] > 0 ? std::sqrt(squares[g] / double(counts[g])) : 0.0;
        normalization.std.push_back(deviation > 1e-12 ? float(deviation) : 1.0f);
    }
    return normalization;
}

void applyNormalization(Dataset &dataset, const Normalization &normalization)
{
    const Groups groups = groupsOf(dataset);
    if (groups.count == 0 || normalization.mean.size() != size_t(groups.count) ||
        normalization.std.size() != size_t(groups.count))
        return; // statistics of another dataset: nothing sensible to do
    std::vector<float> scale(static_cast<size_t>(groups.count));
    for (size_t g = 0; g < scale.size(); ++g)
        scale[g] = normalization.std[g] != 0.0f ? 1.0f / normalization.std[g] : 1.0f;
    const qsizetype size = dataset.sampleSize();
    const qsizetype samples = std::min<qsizetype>(dataset.count, qsizetype(dataset.x.size()) / size);
    for (qsizetype row = 0; row < samples; ++row) {
        float *sample = dataset.x.data() + row * size;
        for (qsizetype g = 0; g < groups.count; ++g) {
            const float mean = normalization.mean[size_t(g)];
            const float factor = scale[size_t(g)];
            float *values = sample + g * groups.plane;
            for (qsizetype i = 0; i < groups.plane; ++i)
                values[i] = std::isnan(values[i]) ? 0.0f : (values[i] - mean) * factor;
        }
    }
}

} // namespace ferry::data
