// The trainer's datasets as plain value types (no torch): loading, detection, train/validation
// splits and normalization.
#pragma once

#include "common/error.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

// Datasets for the embedded trainer, in plain value types: no torch here. The trainer plugin
// turns a Dataset into tensors; the GUI shows a DatasetInfo when something is dropped.
namespace ferry::data {

enum class DatasetKind { Table, ImageFolder, Idx };
enum class Task { Classification, Regression };

QString kindName(DatasetKind kind); // "table", "image-folder", "idx"
QString taskName(Task task);        // "classification", "regression"
// A sample's shape as text: "3x28x28" (the command line's and the messages' way; the GUI gives " × ").
QString shapeText(const QList<int> &shape, const QString &separator = QStringLiteral("x"));

// A dataset in memory, ready for training: one float row per sample.
struct Dataset {
    DatasetKind kind = DatasetKind::Table;
    QString source; // the path it was loaded from
    Task task = Task::Classification;
    qsizetype count = 0;               // samples
    QList<int> shape;                  // of one sample: {features} for tables, {channels, height, width} for images
    std::vector<float> x;              // count × sampleSize(), row-major; a missing table value is NaN
    std::vector<std::int64_t> classes; // classification: the class index of each sample
    std::vector<float> targets;        // regression: the target value of each sample
    QStringList classNames;            // classification: index → name (CSV label, folder name, digit)
    QStringList featureNames;          // tables: the feature columns, in order; images: empty
    QString targetName;                // tables: the target column
    QStringList notes;                 // what loading did, for the user: "dropped 3 rows with missing values"

    qsizetype sampleSize() const
    {
        qsizetype n = 1;
        for (int d : shape)
            n *= d;
        return shape.isEmpty() ? 0 : n;
    }
};

// What to do with a missing table value (empty, NA, N/A, NaN, null, ?).
enum class MissingPolicy {
    DropRow,    // the row goes, counted in the notes
    ImputeMean, // kept as NaN; applyNormalization fills it with the training split's mean
};

struct TableOptions {
    QString targetColumn;     // by name (or 1-based number); empty: the last column
    std::optional<Task> task; // empty: classification when the target is not numeric, or
                              // holds only integers with at most 20 distinct values
    MissingPolicy missing = MissingPolicy::DropRow;
    std::optional<char> delimiter; // empty: sniffed from the first lines (, \t ; |)
    std::optional<bool> header;    // empty: detected (a first row of names above numbers)
    bool featuresOnly = false;     // no target: every column is a feature (data to predict on)
};

struct ImageOptions {
    int width = 28; // every image is resized to this size
    int height = 28;
    bool grayscale = true; // false: RGB, 3 channels
    int threads = 0;       // decoding threads; 0: one per core
};

struct LoadOptions {
    TableOptions table;
    ImageOptions image;
    std::function<bool()> cancelled;                               // asked now and then; true stops with an error
    std::function<void(qsizetype done, qsizetype total)> progress; // samples (images) or bytes (tables)
};

// Loads a CSV/TSV file, an image folder (one subfolder per class) or MNIST idx files (a
// `*-images-idx3-ubyte[.gz]` file, or a folder holding one with its `*-labels-idx1-ubyte[.gz]`).
// Errors say which file, line, column and value, and what to do.
Expected<Dataset> loadDataset(const QString &path, const LoadOptions &options = {});

// What a path holds, found fast (the GUI asks on drop): no full decode, no full parse.
struct DatasetInfo {
    DatasetKind kind = DatasetKind::Table;
    QString path;
    QString format;                               // "csv", "tsv", "image-folder", "mnist-idx"
    qsizetype samples = 0;                        // rows (without the header) or images
    QList<int> shape;                             // of one sample, as far as known without decoding everything
    QList<QPair<QString, qsizetype>> classCounts; // image folders and idx labels; tables: empty
    qint64 bytes = 0;                             // on disk
    QStringList columns;                          // tables: the header (or column1..n)
    QList<QStringList> head;                      // tables: the first rows, as text
    QStringList columnTypes;                      // tables: "number" or "text", per column, from the head
    QStringList problems; // what will fail or be dropped: "class 'cat' has no images", "line 7: 3 columns, not 4"
};
Expected<DatasetInfo> detectDataset(const QString &path);

// A train/validation split: the same seed gives the same split on every machine.
struct Split {
    std::vector<qsizetype> train;
    std::vector<qsizetype> validation;
};
Split splitIndices(qsizetype count, double validationFraction, std::uint64_t seed);

// Standardisation statistics, from the training rows only: per feature for tables, per
// channel for images. Missing values (NaN) are left out of the statistics.
struct Normalization {
    std::vector<float> mean;
    std::vector<float> std; // a constant feature gets 1, so it maps to 0
    bool operator==(const Normalization &) const = default;
};
Normalization computeNormalization(const Dataset &dataset, const std::vector<qsizetype> &rows);
// (x - mean) / std over every sample; a NaN becomes 0 (the mean, standardised).
void applyNormalization(Dataset &dataset, const Normalization &normalization);

} // namespace ferry::data
