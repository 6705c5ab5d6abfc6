// What a trained model says about itself: model.json in its folder (training.h, ModelCard).
#include "training/training.h"

#include "common/jsonarray.h"
#include "common/textfile.h"

#include <QDir>
#include <QJsonDocument>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::run {

QJsonObject ModelCard::toJson() const
{
    return QJsonObject{
        {u"format"_s, format},
        {u"architecture"_s, config.toJson()},
        {u"input"_s, QJsonObject{{u"kind"_s, data::kindName(inputKind)},
                                 {u"shape"_s, toJsonArray(inputShape)},
                                 {u"features"_s, toJsonArray(featureNames)},
                                 {u"normalization"_s, QJsonObject{{u"mean"_s, toJsonArray(normalization.mean)},
                                                                  {u"std"_s, toJsonArray(normalization.std)}}}}},
        {u"output"_s, QJsonObject{{u"task"_s, data::taskName(task)},
                                  {u"target"_s, targetName},
                                  {u"classes"_s, toJsonArray(classNames)},
                                  {u"target_mean"_s, targetMean},
                                  {u"target_std"_s, targetStd}}},
        {u"metrics"_s, metrics},
        {u"weights"_s, weightsFile},
        {u"torchscript"_s, torchScriptFile},
        {u"torch_version"_s, torchVersion},
    };
}

Expected<ModelCard> ModelCard::fromJson(const QJsonObject &json, const QString &path)
{
    const auto bad = [&](const QString &what) {
        return Error{u"not a Ferry model card: "_s + what, path, 0, 0,
                     u"give the model folder (or model.tar.gz) of a run made by 'ferry train'"_s};
    };
    ModelCard card;
    card.format = json.value(u"format"_s).toInt();
    if (card.format != 1)
        return bad(u"format %1 is not 1"_s.arg(json.value(u"format"_s).toVariant().toString()));
    const auto config = TrainingConfig::fromJson(json.value(u"architecture"_s).toObject());
    if (!config)
        return bad(config.error().message);
    card.config = *config;
    const QJsonObject input = json.value(u"input"_s).toObject();
    const QString kind = input.value(u"kind"_s).toString();
    bool known = false;
    for (const data::DatasetKind k :
         {data::DatasetKind::Table, data::DatasetKind::ImageFolder, data::DatasetKind::Idx}) {
        if (data::kindName(k) == kind) {
            card.inputKind = k;
            known = true;
        }
    }
    if (!known)
        return bad(u"unknown input kind '%1'"_s.arg(kind));
    card.inputShape = fromJsonArray<QList<int>>(input.value(u"shape"_s));
    if (card.inputShape.isEmpty())
        return bad(u"no input shape"_s);
    card.featureNames = fromJsonArray<QStringList>(input.value(u"features"_s));
    const QJsonObject norm = input.value(u"normalization"_s).toObject();
    card.normalization.mean = fromJsonArray<std::vector<float>>(norm.value(u"mean"_s));
    card.normalization.std = fromJsonArray<std::vector<float>>(norm.value(u"std"_s));
    const QJsonObject output = json.value(u"output"_s).toObject();
    card.task = output.value(u"task"_s).toString() == data::taskName(data::Task::Regression)
                    ? data::Task::Regression
                    : data::Task::Classification;
    card.targetName = output.value(u"target"_s).toString();
    card.classNames = fromJsonArray<QStringList>(output.value(u"classes"_s));
    card.targetMean = output.value(u"target_mean"_s).toDouble(0);
    card.targetStd = output.value(u"target_std"_s).toDouble(1);
    if (!(card.targetStd > 0))
        return bad(u"target_std must be above 0"_s);
    if (card.task == data::Task::Classification && card.classNames.size() < 2)
        return bad(u"a classifier with fewer than two classes"_s);
    card.metrics = json.value(u"metrics"_s).toObject();
    // The files the card names are opened (and, from an archive, written) inside the model
    // folder: a name that is a path (`../../x`, `/proc/self/cwd/train.py`) would reach out of it
    // (security review H2). Only plain file names, checked before anything uses them.
    const auto fileName = [&](const QString &key, const QString &fallback, QString &field) -> Expected<void> {
        static const QRegularExpression plainName(u"^[A-Za-z0-9._-]+$"_s);
        const QJsonValue value = json.value(key);
        field = value.toString(fallback);
        if (value.isUndefined() ||
            (value.isString() && plainName.match(field).hasMatch() && field != "."_L1 && field != ".."_L1))
            return {};
        return Error{u"'%1' in model.json must be a file name in the model folder (letters, digits, '.', '_', '-'), "
                     u"not '%2'"_s.arg(key, value.isString() ? field : value.toVariant().toString()),
                     path, 0, 0, u"this model was not made by 'ferry train', or it was altered: do not use it"_s};
    };
    if (const auto named = fileName(u"weights"_s, u"model.pt"_s, card.weightsFile); !named)
        return named.error();
    if (const auto named = fileName(u"torchscript"_s, u"model.ts"_s, card.torchScriptFile); !named)
        return named.error();
    card.torchVersion = json.value(u"torch_version"_s).toString();
    return card;
}

Expected<ModelCard> ModelCard::read(const QString &modelDir)
{
    const QString path = QDir(modelDir).filePath(u"model.json"_s);
    const auto text = readTextFile(path);
    if (!text)
        return text.error();
    return parse(text->toUtf8(), path);
}

Expected<ModelCard> ModelCard::parse(const QByteArray &json, const QString &path)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return Error{u"model.json is not valid JSON: "_s + error.errorString(), path, 0, 0,
                     u"the model folder is damaged: train again"_s};
    return fromJson(doc.object(), path);
}

Expected<void> ModelCard::write(const QString &modelDir) const
{
    return writeTextFileAtomically(QDir(modelDir).filePath(u"model.json"_s),
                                   QString::fromUtf8(QJsonDocument(toJson()).toJson(QJsonDocument::Indented)));
}

Expected<void> ModelCard::accepts(const data::Dataset &input) const
{
    const auto mismatch = [&](const QString &what, const QString &hint) {
        return Error{u"the data does not fit the model: "_s + what, input.source, 0, 0, hint};
    };
    const bool imageModel = inputKind != data::DatasetKind::Table;
    const bool imageInput = input.kind != data::DatasetKind::Table;
    if (imageModel != imageInput)
        return mismatch(u"the model takes %1, the data is %2"_s.arg(imageModel ? u"images"_s : u"table rows"_s,
                                                                    imageInput ? u"images"_s : u"table rows"_s),
                        u"give data of the kind the model was trained on"_s);
    if (!imageModel) {
        QStringList missing;
        for (const QString &f : featureNames) {
            if (!input.featureNames.contains(f))
                missing << f;
        }
        if (!missing.isEmpty())
            return mismatch(u"missing column(s) %1"_s.arg(missing.join(u", "_s)),
                            u"the model needs the columns %1"_s.arg(featureNames.join(u", "_s)));
        if (input.featureNames.size() != featureNames.size())
            return mismatch(
                u"%1 feature columns, the model takes %2"_s.arg(input.featureNames.size()).arg(featureNames.size()),
                u"give exactly the columns %1 (and optionally %2)"_s.arg(featureNames.join(u", "_s), targetName));
        return {};
    }
    if (input.shape != inputShape) {
        return mismatch(
            u"samples of shape %1, the model takes %2"_s.arg(data::shapeText(input.shape), data::shapeText(inputShape)),
            u"load the images at the model's size and colour mode"_s);
    }
    return {};
}

} // namespace ferry::run
