// `ferry train --data PATH ...`: the embedded libtorch trainer on a dataset, recorded as a run
// (target `embedded`) like any script run.
#include "cli/command.h"
#include "cli/runsupport.h"

#include "data/dataset.h"
#include "targets/embeddedtarget.h"
#include "tracking/runfollower.h"
#include "training/embeddedrun.h"
#include "training/trainerloader.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QThread>

#include <atomic>
#include <csignal>
#include <thread>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::cli {

namespace {

std::atomic<int> g_stopRequests{0};

extern "C" void onStopSignal(int)
{
    ++g_stopRequests;
}

QString bar(double fraction, int width)
{
    const int filled = std::clamp(static_cast<int>(fraction * width + 0.5), 0, width);
    return QString(filled, u'#') + QString(width - filled, u'.');
}

QString seconds(double s)
{
    if (s < 0)
        return u"?"_s;
    const auto total = static_cast<qint64>(s + 0.5);
    return total >= 60 ? u"%1m%2s"_s.arg(total / 60).arg(total % 60, 2, 10, QChar(u'0')) : u"%1s"_s.arg(total);
}

// An epoch record of the log, for people: "epoch 3/10  train_loss 0.2512  val_loss 0.2710 ...".
QString epochLine(const QJsonObject &record, int epochs)
{
    QString line = u"epoch %1/%2"_s.arg(record.value(u"epoch"_s).toInt()).arg(epochs);
    for (const QString &key : {u"train_loss"_s, u"val_loss"_s, u"val_accuracy"_s}) {
        if (record.contains(key))
            line += u"  %1 %2"_s.arg(key).arg(record.value(key).toDouble(), 0, 'f', 4);
    }
    return line;
}

class TrainCommand final : public Command {
public:
    QString name() const override { return u"train"_s; }
    QString summary() const override { return u"train an MLP or a small CNN on a dataset with the embedded trainer"_s; }

    void configure(QCommandLineParser &parser) const override
    {
        parser.setApplicationDescription(
            u"Trains in this process with libtorch, no Python needed, and records the run in WORKSPACE/.ferry\n"
            u"(target 'embedded'; see 'ferry runs'). DATA: a CSV/TSV file (features + target column), an image\n"
            u"folder (one subfolder per class) or MNIST idx files. The model folder (model.pt, model.json)\n"
            u"is packed as model.tar.gz; use it with 'ferry predict'. Ctrl-C cancels within one step."_s);
        parser.addOption({u"data"_s, u"The dataset: CSV/TSV file, image folder or MNIST idx."_s, u"PATH"_s});
        parser.addOption(
            {u"target-column"_s, u"CSV: the column to predict (name or number; default: the last)."_s, u"NAME"_s});
        parser.addOption({u"task"_s, u"classification or regression (default: from the target column)."_s, u"TASK"_s});
        parser.addOption(
            {u"missing"_s, u"CSV: drop (rows with missing values, default) or impute (training mean)."_s, u"POLICY"_s});
        parser.addOption({u"image-size"_s, u"Images: resize to WIDTHxHEIGHT (default 28x28)."_s, u"WxH"_s});
        parser.addOption({u"rgb"_s, u"Images: keep colour (3 channels) instead of grayscale."_s});
        parser.addOption({u"model"_s, u"mlp (default) or cnn."_s, u"MODEL"_s});
        parser.addOption({u"layers"_s, u"Hidden layer sizes, e.g. 256,128 (default 128,64)."_s, u"SIZES"_s});
        parser.addOption({u"conv-channels"_s, u"CNN: channels per conv-pool block (default 16,32)."_s, u"SIZES"_s});
        parser.addOption({u"activation"_s, u"relu (default), tanh or gelu."_s, u"NAME"_s});
        parser.addOption({u"dropout"_s, u"Dropout after each hidden layer (default 0)."_s, u"P"_s});
        parser.addOption({u"epochs"_s, u"Epochs (default 10)."_s, u"N"_s});
        parser.addOption({u"batch-size"_s, u"Batch size (default 32)."_s, u"N"_s});
        parser.addOption({u"lr"_s, u"Learning rate (default 0.001)."_s, u"X"_s});
        parser.addOption({u"optimizer"_s, u"adam (default), adamw or sgd."_s, u"NAME"_s});
        parser.addOption({u"momentum"_s, u"SGD momentum (default 0.9)."_s, u"X"_s});
        parser.addOption({u"weight-decay"_s, u"Weight decay (default 0)."_s, u"X"_s});
        parser.addOption({u"schedule"_s, u"Learning-rate schedule: constant (default), step or cosine."_s, u"NAME"_s});
        parser.addOption({u"step-size"_s, u"Step schedule: epochs between decays (default 10)."_s, u"N"_s});
        parser.addOption({u"gamma"_s, u"Step schedule: decay factor (default 0.1)."_s, u"X"_s});
        parser.addOption({u"seed"_s, u"Random seed: the same seed gives the same losses (default 1)."_s, u"N"_s});
        parser.addOption({u"validation"_s, u"Fraction held out for validation (default 0.2)."_s, u"F"_s});
        parser.addOption(
            {u"patience"_s, u"Early stopping: epochs without a better validation loss (0: off)."_s, u"N"_s});
        parser.addOption({u"log-every"_s, u"A loss point every N steps (default 10)."_s, u"N"_s});
        parser.addOption({u"threads"_s, u"Torch threads (default: 1 on 2 cores or fewer)."_s, u"N"_s});
        parser.addOption(
            {u"resume"_s, u"Continue a run from its last checkpoint (a run id, or a checkpoint file)."_s, u"RUN"_s});
        parser.addOption({u"out"_s, u"Also copy the model folder here."_s, u"DIR"_s});
        parser.addOption({u"workspace"_s, u"The workspace folder (default: the current folder)."_s, u"DIR"_s});
        parser.addOption({u"json"_s, u"Print the result as JSON."_s});
    }

    int run(const QCommandLineParser &parser, Io &io) override
    {
        json = parser.isSet(u"json"_s);
        auto context = openRunContext(parser.value(u"workspace"_s), io);
        if (!context)
            return kExitUserError;

        // 1. Settings: those of the run resumed (if any), then the options given.
        run::TrainingConfig config;
        data::LoadOptions load;
        QString dataPath = parser.value(u"data"_s);
        QString resumeFile;
        if (parser.isSet(u"resume"_s)) {
            const QString resume = parser.value(u"resume"_s);
            if (QFileInfo(resume).isFile()) {
                resumeFile = QFileInfo(resume).absoluteFilePath();
            } else {
                const auto previous = findRun(*context->store, resume, io);
                if (!previous)
                    return kExitUserError;
                const auto spec = run::RunSpec::fromJson(previous->spec);
                if (!spec || spec->target.kind != run::TargetKind::Embedded) {
                    io.err << "ferry train: run " << previous->id << " is not an embedded training" << Qt::endl;
                    return kExitUserError;
                }
                resumeFile = runDirOf(*context, previous->id) + u"/checkpoints/checkpoint.pt"_s;
                for (const run::Hyperparameter &hp : spec->hyperparameters) {
                    if (!config.set(hp.name, hp.value))
                        (void)run::setDataOption(load, hp.name, hp.value);
                }
                if (dataPath.isEmpty() && !spec->channels.isEmpty())
                    dataPath = spec->channels.first().path;
            }
            if (!QFileInfo(resumeFile).isFile()) {
                io.err << "ferry train: no checkpoint to resume from at " << resumeFile
                       << " (a run writes one at the end of each epoch)" << Qt::endl;
                return kExitUserError;
            }
            config.resumeFrom = resumeFile;
        }
        for (const QString &setting : run::trainingSettingNames()) {
            if (!parser.isSet(setting))
                continue;
            if (const auto done = config.set(setting, parser.value(setting)); !done) {
                io.err << "ferry train: --" << setting << ": " << done.error().toString() << Qt::endl;
                return kExitUserError;
            }
        }
        for (const QString &option : run::dataOptionNames()) {
            if (!parser.isSet(option))
                continue;
            if (const auto done = run::setDataOption(load, option, parser.value(option)); !done) {
                io.err << "ferry train: --" << option << ": " << done.error().toString() << Qt::endl;
                return kExitUserError;
            }
        }
        if (dataPath.isEmpty()) {
            io.err << "ferry train: give the dataset with --data PATH; see 'ferry help train'" << Qt::endl;
            return kExitUserError;
        }

        // 2. The trainer (libtorch loads now, not at start-up).
        run::TrainerLoader loader(run::TrainerLoader::defaultSearchDirs(QCoreApplication::applicationDirPath()));
        const auto engine = loader.load();
        if (!engine) {
            io.err << "ferry train: " << engine.error().toString() << Qt::endl;
            return kExitUserError;
        }

        // 3. The data.
        const bool tty = ::isatty(STDERR_FILENO) == 1;
        load.progress = [&](qsizetype done, qsizetype total) {
            if (tty && total > 0)
                io.err << "\rloading " << QFileInfo(dataPath).fileName() << ' ' << (100 * done / total) << '%'
                       << Qt::flush;
        };
        const auto dataset = data::loadDataset(dataPath, load);
        if (tty)
            io.err << "\r\x1b[K" << Qt::flush;
        if (!dataset) {
            io.err << "ferry train: " << dataset.error().toString() << Qt::endl;
            return kExitUserError;
        }
        for (const QString &note : dataset->notes)
            io.err << "note: " << note << Qt::endl;

        // 4. The run: recorded before it starts, like every run.
        const run::RunSpec spec = run::embeddedRunSpec(dataPath, config, load, context->workspace.root());
        auto embedded = run::EmbeddedRun::start(*context->store, context->workspace.runsDir(), spec,
                                                u"train "_s + QFileInfo(dataPath).fileName());
        if (!embedded) {
            context->store->flush();
            io.err << "ferry train: " << embedded.error().toString() << Qt::endl;
            return kExitUserError;
        }
        const QString runDir = runDirOf(*context, spec.id);
        const std::optional<run::RunRecord> stored = (context->store->flush(), context->store->run(spec.id));
        run::RunRecord record = stored.value_or(run::newRunRecord(spec));
        run::EmbeddedRun &trainingRun = **embedded;
        context->store->setStatus(record.id, run::RunStatus::Running);
        config.modelDir = trainingRun.modelDir();
        config.checkpointDir = trainingRun.checkpointDir();
        if (!json)
            io.err << "run " << record.id << ": training on " << dataset->count << " samples of "
                   << data::kindName(dataset->kind) << " data (" << data::taskName(dataset->task)
                   << (dataset->task == data::Task::Classification ? u", %1 classes"_s.arg(dataset->classNames.size())
                                                                   : QString())
                   << ")" << Qt::endl;

        // 5. Train in a worker; this thread stores the metrics, shows progress and relays Ctrl-C.
        run::TrainingControl control;
        run::TrainingResult result;
        std::atomic<bool> done{false};
        std::thread worker([&] {
            result = (*engine)->train(*dataset, config, control, trainingRun);
            done = true;
        });
        g_stopRequests = 0;
        const auto previousInt = std::signal(SIGINT, onStopSignal);
        const auto previousTerm = std::signal(SIGTERM, onStopSignal);
        targets::EmbeddedTarget target;
        run::RunFollower follower(*context->store, target, runDir, record);
        bool cancelling = false;
        const auto show = [&](const run::RunFollower::Step &step) {
            for (const QByteArray &line : step.lines) {
                if (json)
                    continue;
                if (line.startsWith("{\"epoch\"")) {
                    if (tty)
                        io.err << "\r\x1b[K" << Qt::flush;
                    io.out << epochLine(QJsonDocument::fromJson(line).object(), config.epochs) << Qt::endl;
                } else if (line.startsWith("ferry: ")) {
                    if (tty)
                        io.err << "\r\x1b[K";
                    io.err << QString::fromUtf8(line.mid(7)) << Qt::endl;
                }
            }
            if (tty && !json && !done) {
                const run::TrainingProgress p = trainingRun.lastProgress();
                if (p.totalSteps > 0)
                    io.err << "\r\x1b[K"
                           << "epoch " << p.epoch << '/' << p.epochs << " ["
                           << bar(static_cast<double>(p.step) / static_cast<double>(p.totalSteps), 30) << "] "
                           << (100 * p.step / p.totalSteps) << "%  " << static_cast<qint64>(p.samplesPerSecond)
                           << " samples/s  ETA " << seconds(p.etaSeconds) << (p.paused ? "  (paused)" : "")
                           << Qt::flush;
            }
        };
        while (!done) {
            if (g_stopRequests > 0 && !cancelling) {
                cancelling = true;
                control.cancel();
                io.err << "\ncancelling (the trainer stops within one step)" << Qt::endl;
            }
            if (const auto step = follower.poll(); step)
                show(*step);
            QThread::msleep(tty ? 100 : 250);
        }
        worker.join();
        std::signal(SIGINT, previousInt);
        std::signal(SIGTERM, previousTerm);
        if (const auto finished = trainingRun.finish(result); !finished)
            io.err << "ferry train: " << finished.error().toString() << Qt::endl;
        for (int i = 0; i < 40; ++i) { // until the end is stored
            const auto step = follower.poll();
            if (!step)
                break;
            show(*step);
            if (step->finished)
                break;
            QThread::msleep(50);
        }
        context->store->flush();

        // 6. The result.
        if (parser.isSet(u"out"_s) && result.epochsDone > 0) {
            const QString out = parser.value(u"out"_s);
            QDir().mkpath(out);
            for (const QString &file : QDir(config.modelDir).entryList(QDir::Files)) {
                QFile::remove(QDir(out).filePath(file));
                if (!QFile::copy(QDir(config.modelDir).filePath(file), QDir(out).filePath(file)))
                    io.err << "ferry train: cannot copy " << file << " to " << out << Qt::endl;
            }
        }
        const QString archive = runDir + u"/model.tar.gz"_s;
        if (json) {
            QJsonObject object{{u"run"_s, record.id},
                               {u"outcome"_s, run::outcomeName(result.outcome)},
                               {u"epochs"_s, result.epochsDone},
                               {u"metrics"_s, result.finalMetrics},
                               {u"modelDir"_s, config.modelDir},
                               {u"modelArchive"_s, archive}};
            if (!result.error.isEmpty())
                object[u"error"_s] = result.error;
            io.out << QJsonDocument(object).toJson(QJsonDocument::Indented);
        } else {
            io.err << "run " << record.id << ": " << run::outcomeName(result.outcome);
            if (!result.error.isEmpty())
                io.err << ": " << result.error;
            io.err << Qt::endl;
            if (result.epochsDone > 0)
                io.err << "model: " << QDir::current().relativeFilePath(archive) << " (predict with 'ferry predict "
                       << QDir::current().relativeFilePath(archive) << " --data FILE')" << Qt::endl;
        }
        switch (result.outcome) {
        case run::TrainingResult::Outcome::Completed:
        case run::TrainingResult::Outcome::StoppedEarly:
            return kExitOk;
        case run::TrainingResult::Outcome::Cancelled:
        case run::TrainingResult::Outcome::Failed:
            break;
        }
        return kExitUserError;
    }

private:
    bool json = false;

    static int usage(const QString &message, Io &io)
    {
        io.err << "ferry train: " << message << "; see 'ferry help train'" << Qt::endl;
        return kExitUserError;
    }
};

} // namespace

std::unique_ptr<Command> makeTrainCommand()
{
    return std::make_unique<TrainCommand>();
}

} // namespace ferry::cli
