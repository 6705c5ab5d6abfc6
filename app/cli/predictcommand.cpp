// `ferry predict MODEL --data FILE`: a model trained by `ferry train`, applied to new data.
#include "cli/command.h"

#include "common/safefile.h"
#include "common/textfile.h"
#include "data/csvsyntax.h"
#include "data/dataset.h"
#include "run/archive.h"
#include "training/trainerloader.h"
#include "training/training.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

// The model folder: as it is, or unpacked from model.tar.gz into `unpacked`. The card is
// checked before anything is written (its file names are plain names), and the files are
// created new in the temporary folder, never through a link (security review H2). The weights
// are streamed into their file: memory never grows with what the archive declares (review L2).
Expected<QString> modelFolder(const QString &model, const QTemporaryDir &unpacked)
{
    if (!QFileInfo(model).isFile())
        return model;
    if (!unpacked.isValid())
        return Error{u"cannot create a temporary folder"_s, {}, 0, 0, u"check TMPDIR"_s};
    const auto cardText = run::readArchiveFile(model, u"model.json"_s, run::ModelCard::kMaxFileBytes);
    if (!cardText)
        return Error{u"cannot read model.json: "_s + cardText.error().message, model, 0, 0,
                     cardText.error().hint.isEmpty() ? u"give a model.tar.gz made by 'ferry train'"_s
                                                     : cardText.error().hint};
    const auto card = run::ModelCard::parse(*cardText, model);
    if (!card)
        return card.error();
    const QDir into(unpacked.path());
    if (const auto weights = run::copyArchiveFile(model, card->weightsFile, into.filePath(card->weightsFile),
                                                  run::ModelCard::kMaxWeightsBytes);
        !weights)
        return weights.error();
    if (const auto written = createNewFile(into.filePath(u"model.json"_s), *cardText); !written)
        return written.error();
    return unpacked.path();
}

// The data, read the way the model was trained; `labelled` when a table holds the target too
// (an image folder's classes always say what is right).
struct InputData {
    data::Dataset dataset;
    bool labelled = true;
};

Expected<InputData> loadInput(const run::ModelCard &card, const QString &dataPath)
{
    data::LoadOptions load;
    bool labelled = true;
    if (card.inputKind == data::DatasetKind::Table) {
        const auto info = data::detectDataset(dataPath);
        if (!info)
            return info.error();
        labelled = !card.targetName.isEmpty() && info->columns.contains(card.targetName);
        load.table.featuresOnly = !labelled;
        load.table.targetColumn = labelled ? card.targetName : QString();
        load.table.task = card.task;
        load.table.missing = data::MissingPolicy::ImputeMean;
    } else {
        load.image.grayscale = card.inputShape.value(0) == 1;
        load.image.height = card.inputShape.value(1);
        load.image.width = card.inputShape.value(2);
    }
    auto dataset = data::loadDataset(dataPath, load);
    if (!dataset)
        return dataset.error();
    return InputData{std::move(*dataset), labelled};
}

// The predictions as CSV, and how good they are when the data says what is right.
struct Scored {
    QString csv;
    qsizetype correct = 0;
    double squaredError = 0;
};

Scored scorePredictions(const run::Predictions &predictions, const InputData &input)
{
    const data::Dataset &dataset = input.dataset;
    const bool classification = predictions.task == data::Task::Classification;
    Scored scored;
    scored.csv = classification ? u"row,prediction,confidence\n"_s : u"row,prediction\n"_s;
    for (qsizetype i = 0; i < dataset.count; ++i) {
        const auto at = static_cast<std::size_t>(i);
        if (classification) {
            const std::int64_t cls = predictions.classes[at];
            scored.csv += u"%1,%2,%3\n"_s.arg(i + 1)
                              .arg(data::csv::quotedField(predictions.classNames.value(static_cast<qsizetype>(cls))))
                              .arg(static_cast<double>(predictions.confidence[at]), 0, 'f', 4);
            if (input.labelled && dataset.classNames.value(static_cast<qsizetype>(dataset.classes[at])) ==
                                      predictions.classNames.value(static_cast<qsizetype>(cls)))
                ++scored.correct;
        } else {
            scored.csv += u"%1,%2\n"_s.arg(i + 1).arg(static_cast<double>(predictions.values[at]), 0, 'g', 8);
            if (input.labelled) {
                const double d = static_cast<double>(predictions.values[at] - dataset.targets[at]);
                scored.squaredError += d * d;
            }
        }
    }
    return scored;
}

// rows, task, accuracy or mse (when the data is labelled), and the output file.
QJsonObject predictionSummary(const run::Predictions &predictions, const InputData &input, const Scored &scored,
                              const QString &output)
{
    const qsizetype count = input.dataset.count;
    QJsonObject summary{{u"rows"_s, count}, {u"task"_s, data::taskName(predictions.task)}};
    if (input.labelled && count > 0) {
        if (predictions.task == data::Task::Classification)
            summary[u"accuracy"_s] = static_cast<double>(scored.correct) / static_cast<double>(count);
        else
            summary[u"mse"_s] = scored.squaredError / static_cast<double>(count);
    }
    if (!output.isEmpty())
        summary[u"output"_s] = output;
    return summary;
}

class PredictCommand final : public Command {
public:
    QString name() const override { return u"predict"_s; }
    QString summary() const override { return u"apply a model trained by 'ferry train' to new data"_s; }
    int maxPositionalArguments() const override { return 1; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"MODEL: a run's model folder or its model.tar.gz. The data must fit the model's input (the same\n"
            u"CSV columns, by name, in any order; images of the same kind). When the data holds the target too,\n"
            u"the accuracy (or mean squared error) is printed. Predictions are CSV: row, prediction, confidence."_s);
        parser.addPositionalArgument(u"model"_s, u"Model folder or model.tar.gz."_s, u"MODEL"_s);
        parser.addOption({u"data"_s, u"The data to predict on."_s, u"FILE"_s});
        parser.addOption(
            {{u"o"_s, u"output"_s}, u"Write the predictions here instead of standard output."_s, u"predictions.csv"_s});
        parser.addOption({u"json"_s, u"Print a summary as JSON (the predictions still go to -o)."_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        if (parser.positionalArguments().isEmpty() || !parser.isSet(u"data"_s))
            return usage(u"give the model and the data: ferry predict MODEL --data FILE"_s, io);
        const QTemporaryDir unpacked;
        const auto modelDir = modelFolder(parser.positionalArguments().constFirst(), unpacked);
        if (!modelDir)
            return fail(modelDir.error(), io);
        const auto card = run::ModelCard::read(*modelDir);
        if (!card)
            return fail(card.error(), io);
        const auto input = loadInput(*card, parser.value(u"data"_s));
        if (!input)
            return fail(input.error(), io);
        if (const auto fits = card->accepts(input->dataset); !fits)
            return fail(fits.error(), io);

        run::TrainerLoader loader(run::TrainerLoader::defaultSearchDirs(QCoreApplication::applicationDirPath()));
        const auto engine = loader.load();
        if (!engine)
            return fail(engine.error(), io);
        const auto predictions = (*engine)->predict(*modelDir, input->dataset);
        if (!predictions)
            return fail(predictions.error(), io);

        const Scored scored = scorePredictions(*predictions, *input);
        const QString output = parser.value(u"output"_s);
        if (output.isEmpty() && !parser.isSet(u"json"_s)) {
            io.out << scored.csv << Qt::flush;
        } else if (!output.isEmpty()) {
            if (const auto written = writeTextFileAtomically(output, scored.csv); !written)
                return fail(written.error(), io);
        }
        const QJsonObject summary = predictionSummary(*predictions, *input, scored, output);
        if (parser.isSet(u"json"_s)) {
            io.out << QJsonDocument(summary).toJson(QJsonDocument::Indented);
        } else {
            io.err << input->dataset.count << " predictions" << (output.isEmpty() ? QString() : u" in "_s + output);
            if (summary.contains(u"accuracy"_s))
                io.err << "; accuracy " << summary[u"accuracy"_s].toDouble() << " against column '"
                       << (card->targetName.isEmpty() ? u"labels"_s : card->targetName) << "'";
            if (summary.contains(u"mse"_s))
                io.err << "; mean squared error " << summary[u"mse"_s].toDouble();
            io.err << Qt::endl;
        }
        return kExitOk;
    }

private:
    static int usage(const QString &message, Io &io) { return usageError(u"predict"_s, message, io); }
    static int fail(const Error &error, Io &io)
    {
        io.err << "ferry predict: " << error.toString() << Qt::endl;
        return kExitUserError;
    }
};

} // namespace

std::unique_ptr<Command> makePredictCommand()
{
    return std::make_unique<PredictCommand>();
}

} // namespace ferry::cli
