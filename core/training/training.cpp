#include "training/training.h"

#include "common/jsonarray.h"

#include <QLocale>

#include <cmath>
#include <optional>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

template <typename E> struct Names {
    E value;
    const char16_t *name;
};

constexpr Names<ModelKind> kModels[] = {{ModelKind::Mlp, u"mlp"}, {ModelKind::Cnn, u"cnn"}};
constexpr Names<OptimizerKind> kOptimizers[] = {
    {OptimizerKind::Sgd, u"sgd"}, {OptimizerKind::Adam, u"adam"}, {OptimizerKind::AdamW, u"adamw"}};
constexpr Names<ScheduleKind> kSchedules[] = {
    {ScheduleKind::Constant, u"constant"}, {ScheduleKind::Step, u"step"}, {ScheduleKind::Cosine, u"cosine"}};
constexpr Names<Activation> kActivations[] = {
    {Activation::Relu, u"relu"}, {Activation::Tanh, u"tanh"}, {Activation::Gelu, u"gelu"}};

template <typename E, std::size_t N> QString nameOf(const Names<E> (&table)[N], E value)
{
    for (const auto &entry : table) {
        if (entry.value == value)
            return QString::fromUtf16(entry.name);
    }
    return {};
}

template <typename E, std::size_t N> std::optional<E> valueOf(const Names<E> (&table)[N], const QString &name)
{
    for (const auto &entry : table) {
        if (name.compare(QString::fromUtf16(entry.name), Qt::CaseInsensitive) == 0)
            return entry.value;
    }
    return std::nullopt;
}

template <typename E, std::size_t N> QString choices(const Names<E> (&table)[N])
{
    QStringList names;
    for (const auto &entry : table)
        names << QString::fromUtf16(entry.name);
    return names.join(u", "_s);
}

Error badValue(const QString &name, const QString &value, const QString &hint)
{
    return Error{u"invalid value '%1' for %2"_s.arg(value, name), {}, 0, 0, hint};
}

// The setters' rules, shared by the rows below.
Expected<void> setWhole(int &field, int minimum, const QString &name, const QString &value)
{
    bool ok = false;
    const int v = value.toInt(&ok);
    if (!ok || v < minimum)
        return badValue(name, value, u"give a whole number >= %1"_s.arg(minimum));
    field = v;
    return {};
}

Expected<void> setReal(double &field, double minimum, double maximum, const QString &name, const QString &value)
{
    bool ok = false;
    const double v = value.toDouble(&ok);
    if (!ok || !std::isfinite(v) || v < minimum || v > maximum)
        return badValue(name, value, u"give a number from %1 to %2"_s.arg(minimum).arg(maximum));
    field = v;
    return {};
}

Expected<void> setSizes(QList<int> &field, bool allowEmpty, const QString &name, const QString &value)
{
    QList<int> list;
    for (const QString &part : value.split(u',', Qt::SkipEmptyParts)) {
        bool ok = false;
        const int v = part.trimmed().toInt(&ok);
        if (!ok || v <= 0 || v > 1 << 16)
            return badValue(name, value, u"give sizes separated by commas, e.g. 256,128"_s);
        list << v;
    }
    if (list.isEmpty() && !allowEmpty)
        return badValue(name, value, u"give at least one size, e.g. 64"_s);
    field = list;
    return {};
}

template <typename E, std::size_t N>
Expected<void> setChoice(E &field, const Names<E> (&table)[N], const QString &name, const QString &value)
{
    const auto v = valueOf(table, value);
    if (!v)
        return badValue(name, value, u"one of "_s + choices(table));
    field = *v;
    return {};
}

// "a, b or c", for help texts.
template <typename E, std::size_t N> QString alternatives(const Names<E> (&table)[N])
{
    QStringList names;
    for (const auto &entry : table)
        names << QString::fromUtf16(entry.name);
    const QString last = names.takeLast();
    return names.isEmpty() ? last : names.join(u", "_s) + u" or "_s + last;
}

// One training setting: its command-line name (in JSON with '_' for '-'), what its value is
// and a line about it for help texts, its choices when it has a fixed set, and how it is set
// and read. The one list of the settings: set(), toJson(), trainingSettingNames() and the
// command line's options and defaults (trainingSettings()) all come from it.
struct SettingRow {
    const char16_t *name;
    const char16_t *valueName;
    const char16_t *description;
    QString (*choices)(); // nullptr: any value of its kind
    Expected<void> (*set)(TrainingConfig &config, const QString &name, const QString &value);
    QJsonValue (*get)(const TrainingConfig &config);
};

using C = TrainingConfig;
using V = const QString &;

const SettingRow kSettingRows[] = {
    {u"model", u"MODEL", u"The model", [] { return alternatives(kModels); },
     [](C &c, V n, V v) { return setChoice(c.model, kModels, n, v); },
     [](const C &c) -> QJsonValue { return modelKindName(c.model); }},
    {u"layers", u"SIZES", u"Hidden layer sizes, e.g. 256,128", nullptr,
     [](C &c, V n, V v) { return setSizes(c.layers, true, n, v); },
     [](const C &c) -> QJsonValue { return toJsonArray(c.layers); }},
    {u"activation", u"NAME", u"Activation", [] { return alternatives(kActivations); },
     [](C &c, V n, V v) { return setChoice(c.activation, kActivations, n, v); },
     [](const C &c) -> QJsonValue { return activationName(c.activation); }},
    {u"dropout", u"P", u"Dropout after each hidden layer", nullptr,
     [](C &c, V n, V v) { return setReal(c.dropout, 0.0, 0.95, n, v); },
     [](const C &c) -> QJsonValue { return c.dropout; }},
    {u"conv-channels", u"SIZES", u"CNN: channels per conv-pool block", nullptr,
     [](C &c, V n, V v) { return setSizes(c.convChannels, false, n, v); },
     [](const C &c) -> QJsonValue { return toJsonArray(c.convChannels); }},
    {u"optimizer", u"NAME", u"Optimizer", [] { return alternatives(kOptimizers); },
     [](C &c, V n, V v) { return setChoice(c.optimizer, kOptimizers, n, v); },
     [](const C &c) -> QJsonValue { return optimizerName(c.optimizer); }},
    {u"lr", u"X", u"Learning rate", nullptr,
     [](C &c, V n, V v) -> Expected<void> {
         double lr = c.learningRate;
         if (const auto r = setReal(lr, 0.0, 10.0, n, v); !r)
             return r;
         if (lr <= 0)
             return badValue(n, v, u"give a learning rate above 0, e.g. 0.001"_s);
         c.learningRate = lr;
         return {};
     },
     [](const C &c) -> QJsonValue { return c.learningRate; }},
    {u"momentum", u"X", u"SGD momentum", nullptr, [](C &c, V n, V v) { return setReal(c.momentum, 0.0, 1.0, n, v); },
     [](const C &c) -> QJsonValue { return c.momentum; }},
    {u"weight-decay", u"X", u"Weight decay", nullptr,
     [](C &c, V n, V v) { return setReal(c.weightDecay, 0.0, 1.0, n, v); },
     [](const C &c) -> QJsonValue { return c.weightDecay; }},
    {u"schedule", u"NAME", u"Learning-rate schedule", [] { return alternatives(kSchedules); },
     [](C &c, V n, V v) { return setChoice(c.schedule, kSchedules, n, v); },
     [](const C &c) -> QJsonValue { return scheduleName(c.schedule); }},
    {u"step-size", u"N", u"Step schedule: epochs between decays", nullptr,
     [](C &c, V n, V v) { return setWhole(c.stepSize, 1, n, v); }, [](const C &c) -> QJsonValue { return c.stepSize; }},
    {u"gamma", u"X", u"Step schedule: decay factor", nullptr,
     [](C &c, V n, V v) { return setReal(c.gamma, 0.0, 1.0, n, v); }, [](const C &c) -> QJsonValue { return c.gamma; }},
    {u"epochs", u"N", u"Epochs", nullptr, [](C &c, V n, V v) { return setWhole(c.epochs, 1, n, v); },
     [](const C &c) -> QJsonValue { return c.epochs; }},
    {u"batch-size", u"N", u"Batch size", nullptr, [](C &c, V n, V v) { return setWhole(c.batchSize, 1, n, v); },
     [](const C &c) -> QJsonValue { return c.batchSize; }},
    {u"seed", u"N", u"Random seed: the same seed gives the same losses", nullptr,
     [](C &c, V n, V v) -> Expected<void> {
         bool ok = false;
         const qulonglong seed = v.toULongLong(&ok);
         if (!ok)
             return badValue(n, v, u"give a whole number >= 0"_s);
         c.seed = seed;
         return {};
     },
     // 64 bits do not fit a JSON double
     [](const C &c) -> QJsonValue { return QString::number(c.seed); }},
    {u"validation", u"F", u"Fraction held out for validation", nullptr,
     [](C &c, V n, V v) { return setReal(c.validationFraction, 0.0, 0.9, n, v); },
     [](const C &c) -> QJsonValue { return c.validationFraction; }},
    {u"patience", u"N", u"Early stopping: epochs without a better validation loss; 0: off", nullptr,
     [](C &c, V n, V v) { return setWhole(c.earlyStoppingPatience, 0, n, v); },
     [](const C &c) -> QJsonValue { return c.earlyStoppingPatience; }},
    {u"log-every", u"N", u"A loss point every N steps", nullptr,
     [](C &c, V n, V v) { return setWhole(c.logEverySteps, 1, n, v); },
     [](const C &c) -> QJsonValue { return c.logEverySteps; }},
    {u"threads", u"N", u"Torch threads; 0: the plugin's choice (1 on 2 cores or fewer)", nullptr,
     [](C &c, V n, V v) { return setWhole(c.threads, 0, n, v); }, [](const C &c) -> QJsonValue { return c.threads; }},
};

QString jsonKey(const SettingRow &row)
{
    return QString::fromUtf16(row.name).replace(u'-', u'_');
}

// A setting's value as text, the way set() reads it back: "128,64", "0.001", "adam".
QString settingText(const QJsonValue &v)
{
    if (v.isArray()) {
        QStringList parts;
        for (const QJsonValue &item : v.toArray())
            parts << QString::number(item.toInt());
        return parts.join(u',');
    }
    return v.isDouble() ? QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest) : v.toString();
}

} // namespace

QString modelKindName(ModelKind kind)
{
    return nameOf(kModels, kind);
}
QString optimizerName(OptimizerKind kind)
{
    return nameOf(kOptimizers, kind);
}
QString scheduleName(ScheduleKind kind)
{
    return nameOf(kSchedules, kind);
}
QString activationName(Activation activation)
{
    return nameOf(kActivations, activation);
}

QString outcomeName(TrainingResult::Outcome outcome)
{
    switch (outcome) {
    case TrainingResult::Outcome::Completed:
        return u"completed"_s;
    case TrainingResult::Outcome::StoppedEarly:
        return u"stopped-early"_s;
    case TrainingResult::Outcome::Cancelled:
        return u"cancelled"_s;
    case TrainingResult::Outcome::Failed:
        break;
    }
    return u"failed"_s;
}

QJsonObject TrainingConfig::toJson() const
{
    QJsonObject json;
    for (const SettingRow &row : kSettingRows)
        json.insert(jsonKey(row), row.get(*this));
    return json;
}

Expected<TrainingConfig> TrainingConfig::fromJson(const QJsonObject &json)
{
    TrainingConfig config;
    // Through set(), so a stored config obeys the same rules as a typed one.
    for (auto it = json.begin(); it != json.end(); ++it) {
        if (const auto done = config.set(it.key(), settingText(it.value())); !done)
            return done.error();
    }
    return config;
}

Expected<void> TrainingConfig::set(const QString &rawName, const QString &value)
{
    QString name = rawName;
    name.replace(u'-', u'_');
    if (name == "learning_rate"_L1)
        name = u"lr"_s;
    for (const SettingRow &row : kSettingRows) {
        if (jsonKey(row) == name)
            return row.set(*this, rawName, value);
    }
    return Error{
        u"unknown training setting '%1'"_s.arg(rawName), {}, 0, 0, u"known: "_s + trainingSettingNames().join(u", "_s)};
}

QStringList trainingSettingNames()
{
    QStringList names;
    for (const SettingRow &row : kSettingRows)
        names << QString::fromUtf16(row.name);
    return names;
}

QList<TrainingSetting> trainingSettings()
{
    const TrainingConfig defaults;
    QList<TrainingSetting> settings;
    for (const SettingRow &row : kSettingRows) {
        QString description = QString::fromUtf16(row.description);
        if (row.choices)
            description += u": "_s + row.choices();
        settings << TrainingSetting{QString::fromUtf16(row.name), QString::fromUtf16(row.valueName), description,
                                    settingText(row.get(defaults))};
    }
    return settings;
}

QList<Hyperparameter> TrainingConfig::toHyperparameters() const
{
    QList<Hyperparameter> list;
    for (const SettingRow &row : kSettingRows)
        list << Hyperparameter{QString::fromUtf16(row.name), settingText(row.get(*this))};
    return list;
}

QStringList dataOptionNames()
{
    return {u"target-column"_s, u"task"_s, u"missing"_s, u"image-size"_s, u"rgb"_s};
}

QList<Hyperparameter> dataOptionsToHyperparameters(const data::LoadOptions &options)
{
    QList<Hyperparameter> list;
    if (!options.table.targetColumn.isEmpty())
        list << Hyperparameter{u"target-column"_s, options.table.targetColumn};
    if (options.table.task)
        list << Hyperparameter{u"task"_s, data::taskName(*options.table.task)};
    if (options.table.missing == data::MissingPolicy::ImputeMean)
        list << Hyperparameter{u"missing"_s, u"impute"_s};
    const data::ImageOptions defaults;
    if (options.image.width != defaults.width || options.image.height != defaults.height)
        list << Hyperparameter{u"image-size"_s, u"%1x%2"_s.arg(options.image.width).arg(options.image.height)};
    if (!options.image.grayscale)
        list << Hyperparameter{u"rgb"_s, u"true"_s};
    return list;
}

Expected<void> setDataOption(data::LoadOptions &options, const QString &name, const QString &value)
{
    if (name == "target-column"_L1) {
        options.table.targetColumn = value;
        return {};
    }
    if (name == "task"_L1) {
        if (value == data::taskName(data::Task::Classification))
            options.table.task = data::Task::Classification;
        else if (value == data::taskName(data::Task::Regression))
            options.table.task = data::Task::Regression;
        else if (!value.isEmpty())
            return badValue(name, value, u"classification or regression"_s);
        else
            options.table.task.reset();
        return {};
    }
    if (name == "missing"_L1) {
        if (value != "drop"_L1 && value != "impute"_L1)
            return badValue(name, value, u"drop (rows with missing values) or impute (the training mean)"_s);
        options.table.missing = value == "impute"_L1 ? data::MissingPolicy::ImputeMean : data::MissingPolicy::DropRow;
        return {};
    }
    if (name == "image-size"_L1) {
        const QStringList parts = value.toLower().split(u'x');
        bool okW = false;
        bool okH = false;
        const int width = parts.value(0).toInt(&okW);
        const int height = parts.value(1).toInt(&okH);
        if (parts.size() != 2 || !okW || !okH || width < 1 || height < 1 || width > 4096 || height > 4096)
            return badValue(name, value, u"WIDTHxHEIGHT, e.g. 32x32"_s);
        options.image.width = width;
        options.image.height = height;
        return {};
    }
    if (name == "rgb"_L1) {
        options.image.grayscale = !(value.isEmpty() || value == "true"_L1 || value == "1"_L1);
        return {};
    }
    return Error{u"%1 is not a data option"_s.arg(name),
                 {},
                 0,
                 0,
                 u"the data options are %1"_s.arg(dataOptionNames().join(u", "_s))};
}

void TrainingControl::cancel()
{
    {
        const std::lock_guard lock(m_mutex);
        m_cancelled = true;
    }
    m_wake.notify_all();
}

void TrainingControl::pause()
{
    const std::lock_guard lock(m_mutex);
    m_paused = true;
}

void TrainingControl::resume()
{
    {
        const std::lock_guard lock(m_mutex);
        m_paused = false;
    }
    m_wake.notify_all();
}

bool TrainingControl::proceed(const std::function<void()> &whilePaused)
{
    if (m_paused.load() && !m_cancelled.load()) {
        if (whilePaused)
            whilePaused();
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [this] { return !m_paused.load() || m_cancelled.load(); });
    }
    return !m_cancelled.load();
}

} // namespace ferry::run
