// `ferry train --data PATH ...`: the embedded libtorch trainer on a dataset, recorded as a run
// (target `embedded`) like any script run.
#include "cli/command.h"
#include "cli/rerunprovenance.h"
#include "cli/runsupport.h"
#include "cli/trainrerun.h"

#include "data/dataset.h"
#include "targets/embeddedtarget.h"
#include "tracking/runfollower.h"
#include "training/embeddedrun.h"
#include "training/trainerloader.h"
#include "training/trainingsession.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QThread>

#include <atomic>
#include <cmath>
#include <csignal>
#include <mutex>
#include <optional>
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
    const int filled = std::clamp(static_cast<int>(std::lround(fraction * width)), 0, width);
    return QString(filled, u'#') + QString(width - filled, u'.');
}

QString seconds(double s)
{
    if (s < 0)
        return u"?"_s;
    const qint64 total = std::llround(s);
    return total >= 60 ? u"%1m%2s"_s.arg(total / 60).arg(total % 60, 2, 10, QChar(u'0')) : u"%1s"_s.arg(total);
}

// An epoch record of the log, for people: "epoch 3/10  train_loss 0.2512  val_loss 0.2710 ...".
QString epochLine(const run::MetricRecord &record, int epochs)
{
    QString line = u"epoch %1/%2"_s.arg(static_cast<int>(record.epoch)).arg(epochs);
    for (const QLatin1StringView key : {run::kTrainLoss, run::kValLoss, run::kValAccuracy}) {
        for (const auto &[name, value] : record.values) {
            if (name == key)
                line += u"  %1 %2"_s.arg(key).arg(value, 0, 'f', 4);
        }
    }
    return line;
}

// Ctrl-C and TERM, while one is alive: counted, for the training to be cancelled (within one
// step) instead of the process ending with the run left behind.
class StopSignals {
public:
    StopSignals()
    {
        g_stopRequests = 0;
        m_int = std::signal(SIGINT, onStopSignal);
        m_term = std::signal(SIGTERM, onStopSignal);
    }
    ~StopSignals()
    {
        std::signal(SIGINT, m_int);
        std::signal(SIGTERM, m_term);
    }
    StopSignals(const StopSignals &) = delete;
    StopSignals &operator=(const StopSignals &) = delete;

    static bool requested() { return g_stopRequests > 0; }

private:
    void (*m_int)(int) = nullptr;
    void (*m_term)(int) = nullptr;
};

// "training on 1600 samples of table data (classification, 2 classes)".
QString datasetSummary(const data::Dataset &dataset)
{
    return u"training on %1 samples of %2 data (%3%4)"_s.arg(dataset.count)
        .arg(data::kindName(dataset.kind), data::taskName(dataset.task),
             dataset.task == data::Task::Classification ? u", %1 classes"_s.arg(dataset.classNames.size()) : QString());
}

// Shows a training the session runs on another thread: the loading, the run's log as its
// follower stores it (epoch lines, Ferry's messages), a progress bar on a terminal, and
// relays Ctrl-C as a cancel. Everything is printed from the thread that calls poll().
class TrainingWatch {
public:
    TrainingWatch(RunContext &context, run::TrainingSession &session, const run::TrainingSession::Request &request,
                  bool json, Io &io)
        : m_context(context), m_session(session), m_dataName(QFileInfo(request.dataPath).fileName()),
          m_epochs(request.config.epochs), m_json(json), m_tty(::isatty(STDERR_FILENO) == 1), m_io(io)
    {
    }

    // For the session: what it reports, kept for poll() (they come on the training thread).
    run::TrainingSession::Events events()
    {
        run::TrainingSession::Events events;
        events.loading = [this](qsizetype done, qsizetype total) {
            m_loadedPercent = total > 0 ? static_cast<int>(100 * done / total) : -1;
        };
        events.started = [this](const run::TrainingSession::Started &started) {
            const std::lock_guard lock(m_mutex);
            m_started = Started{started.spec, started.runDir, started.dataset->notes, datasetSummary(*started.dataset)};
        };
        return events;
    }

    void poll(bool trainingDone)
    {
        if (StopSignals::requested() && !m_cancelling) {
            m_cancelling = true;
            m_session.cancel();
            m_io.err << "\ncancelling (the trainer stops within one step)" << Qt::endl;
        }
        if (!m_follower)
            follow();
        if (!m_follower) {
            showLoading();
            return;
        }
        if (const auto step = m_follower->poll(); step)
            show(*step, trainingDone);
    }

    // After the training: the rest of the log, until the end is stored.
    void drain()
    {
        clearLine();
        if (!m_follower) // the training ended before poll() saw it start
            follow();
        if (!m_follower)
            return;
        for (int i = 0; i < 40; ++i) {
            const auto step = m_follower->poll();
            if (!step)
                break;
            show(*step, true);
            if (step->finished)
                break;
            QThread::msleep(50);
        }
    }

    int pollMs() const { return m_tty ? 100 : 250; }

private:
    struct Started {
        run::RunSpec spec;
        QString runDir;
        QStringList notes;
        QString summary;
    };

    // Once the run is recorded: its follower, and what the loading said.
    void follow()
    {
        std::optional<Started> started;
        {
            const std::lock_guard lock(m_mutex);
            started = m_started;
        }
        if (!started)
            return;
        clearLine();
        m_context.store->flush();
        const run::RunRecord record = m_context.store->run(started->spec.id).value_or(run::newRunRecord(started->spec));
        m_follower.emplace(*m_context.store, m_target, started->runDir, record);
        for (const QString &note : started->notes)
            m_io.err << "note: " << note << Qt::endl;
        if (!m_json)
            m_io.err << "run " << record.id << ": " << started->summary << Qt::endl;
    }

    void showLoading()
    {
        const int percent = m_loadedPercent;
        if (m_tty && percent >= 0)
            m_io.err << "\rloading " << m_dataName << ' ' << percent << '%' << Qt::flush;
    }

    void show(const run::RunFollower::Step &step, bool trainingDone)
    {
        for (const QByteArray &line : step.lines) {
            if (m_json)
                continue;
            // The record read, not its first bytes: its keys' order is the writer's to choose.
            if (const auto record = run::readMetricRecordLine(line); record && !std::isnan(record->epoch)) {
                clearLine();
                m_io.out << epochLine(*record, m_epochs) << Qt::endl;
            } else if (line.startsWith("ferry: ") && !line.startsWith("ferry: note: ")) { // notes: shown above
                clearLine();
                m_io.err << QString::fromUtf8(line.mid(7)) << Qt::endl;
            }
        }
        if (m_tty && !m_json && !trainingDone)
            showProgress(m_session.progress());
    }

    void showProgress(const run::TrainingProgress &p)
    {
        if (p.totalSteps <= 0)
            return;
        m_io.err << "\r\x1b[K"
                 << "epoch " << p.epoch << '/' << p.epochs << " ["
                 << bar(static_cast<double>(p.step) / static_cast<double>(p.totalSteps), 30) << "] "
                 << (100 * p.step / p.totalSteps) << "%  " << static_cast<qint64>(p.samplesPerSecond)
                 << " samples/s  ETA " << seconds(p.etaSeconds) << (p.paused ? "  (paused)" : "") << Qt::flush;
    }

    void clearLine()
    {
        if (m_tty)
            m_io.err << "\r\x1b[K" << Qt::flush;
    }

    RunContext &m_context;
    run::TrainingSession &m_session;
    const QString m_dataName;
    const int m_epochs;
    const bool m_json;
    const bool m_tty;
    Io &m_io;
    targets::EmbeddedTarget m_target;
    std::optional<run::RunFollower> m_follower;
    bool m_cancelling = false;
    std::atomic<int> m_loadedPercent{-1};
    std::mutex m_mutex;
    std::optional<Started> m_started; // under m_mutex
};

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
        // The training settings, their help and defaults from the one table (training/training.h).
        for (const run::TrainingSetting &setting : run::trainingSettings())
            parser.addOption(
                {setting.name, u"%1 (default %2)."_s.arg(setting.description, setting.defaultText), setting.valueName});
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
        auto request = readRequest(parser, *context, io);
        if (!request)
            return kExitUserError;
        return trainAndReport(*context, std::move(*request), parser.value(u"out"_s), io);
    }

    // The training of `request`, its result printed; the exit code.
    int trainAndReport(RunContext &context, run::TrainingSession::Request request, const QString &out, Io &io)
    {
        const auto outcome = train(context, std::move(request), io);
        if (!outcome) {
            io.err << "ferry train: " << outcome.error().toString() << Qt::endl;
            return kExitUserError;
        }
        if (!out.isEmpty() && outcome->result.epochsDone > 0)
            copyModel(outcome->modelDir, out, io);
        printResult(*outcome, io);
        switch (outcome->result.outcome) {
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

    // The settings: those of the run resumed (if any), then the options given.
    static std::optional<run::TrainingSession::Request> readRequest(const QCommandLineParser &parser,
                                                                    const RunContext &context, Io &io)
    {
        run::TrainingSession::Request request;
        request.dataPath = parser.value(u"data"_s);
        if (parser.isSet(u"resume"_s) && !readResume(parser.value(u"resume"_s), context, request, io))
            return std::nullopt;
        for (const QString &setting : run::trainingSettingNames()) {
            if (!parser.isSet(setting))
                continue;
            if (const auto done = request.config.set(setting, parser.value(setting)); !done) {
                io.err << "ferry train: --" << setting << ": " << done.error().toString() << Qt::endl;
                return std::nullopt;
            }
        }
        for (const QString &option : run::dataOptionNames()) {
            if (!parser.isSet(option))
                continue;
            if (const auto done = run::setDataOption(request.load, option, parser.value(option)); !done) {
                io.err << "ferry train: --" << option << ": " << done.error().toString() << Qt::endl;
                return std::nullopt;
            }
        }
        if (request.dataPath.isEmpty()) {
            io.err << "ferry train: give the dataset with --data PATH; see 'ferry help train'" << Qt::endl;
            return std::nullopt;
        }
        return request;
    }

    // --resume RUN|FILE: the checkpoint, and a run's settings and data.
    static bool readResume(const QString &resume, const RunContext &context, run::TrainingSession::Request &request,
                           Io &io)
    {
        QString resumeFile;
        if (QFileInfo(resume).isFile()) {
            resumeFile = QFileInfo(resume).absoluteFilePath();
        } else {
            const auto previous = findRun(*context.store, resume, io);
            if (!previous)
                return false;
            const auto spec = run::RunSpec::fromJson(previous->spec);
            if (!spec || spec->target.kind != run::TargetKind::Embedded) {
                io.err << "ferry train: run " << previous->id << " is not an embedded training" << Qt::endl;
                return false;
            }
            resumeFile = runDirOf(context, previous->id) + u"/checkpoints/checkpoint.pt"_s;
            run::TrainingSession::applyRunSettings(*spec, request);
        }
        if (!QFileInfo(resumeFile).isFile()) {
            io.err << "ferry train: no checkpoint to resume from at " << resumeFile
                   << " (a run writes one at the end of each epoch)" << Qt::endl;
            return false;
        }
        request.config.resumeFrom = resumeFile;
        return true;
    }

    // The session on a worker thread; this one shows it and relays Ctrl-C.
    Expected<run::TrainingSession::Outcome> train(RunContext &context, run::TrainingSession::Request request, Io &io)
    {
        run::TrainerLoader loader(run::TrainerLoader::defaultSearchDirs(QCoreApplication::applicationDirPath()));
        run::TrainingSession session(*context.store, context.workspace.runsDir(), context.workspace.root());
        TrainingWatch watch(context, session, request, json, io);
        const run::TrainingSession::Events events = watch.events();
        std::optional<Expected<run::TrainingSession::Outcome>> outcome;
        std::atomic<bool> done{false};
        {
            const StopSignals stop;
            std::thread worker([&] {
                outcome = session.run([&loader] { return loader.load(); }, std::move(request), events);
                done = true;
            });
            while (!done) {
                watch.poll(false);
                QThread::msleep(static_cast<unsigned long>(watch.pollMs()));
            }
            worker.join();
        }
        if (*outcome && !(*outcome)->recorded)
            io.err << "ferry train: " << (*outcome)->recorded.error().toString() << Qt::endl;
        watch.drain();
        context.store->flush();
        return std::move(*outcome);
    }

    static void copyModel(const QString &modelDir, const QString &out, Io &io)
    {
        QDir().mkpath(out);
        for (const QString &file : QDir(modelDir).entryList(QDir::Files)) {
            QFile::remove(QDir(out).filePath(file));
            if (!QFile::copy(QDir(modelDir).filePath(file), QDir(out).filePath(file)))
                io.err << "ferry train: cannot copy " << file << " to " << out << Qt::endl;
        }
    }

    void printResult(const run::TrainingSession::Outcome &outcome, Io &io) const
    {
        const run::TrainingResult &result = outcome.result;
        const QString archive = run::RunDirectory(outcome.runDir).modelArchive();
        if (json) {
            QJsonObject object{{u"run"_s, outcome.runId},         {u"outcome"_s, run::outcomeName(result.outcome)},
                               {u"epochs"_s, result.epochsDone},  {u"metrics"_s, result.finalMetrics},
                               {u"modelDir"_s, outcome.modelDir}, {u"modelArchive"_s, archive}};
            if (!result.error.message.isEmpty())
                object[u"error"_s] = result.error.toString();
            io.out << QJsonDocument(object).toJson(QJsonDocument::Indented);
            return;
        }
        io.err << "run " << outcome.runId << ": " << run::outcomeName(result.outcome);
        if (!result.error.message.isEmpty())
            io.err << ": " << result.error.toString();
        io.err << Qt::endl;
        if (result.epochsDone > 0)
            io.err << "model: " << QDir::current().relativeFilePath(archive) << " (predict with 'ferry predict "
                   << QDir::current().relativeFilePath(archive) << " --data FILE')" << Qt::endl;
    }
};

} // namespace

int rerunTraining(RunContext &context, const run::RunRecord &record, const run::RunSpec &spec, Io &io)
{
    run::TrainingSession::Request request;
    run::TrainingSession::applyRunSettings(spec, request);
    if (request.dataPath.isEmpty()) {
        io.err << "ferry runs rerun: run " << record.id << " names no data to train on" << Qt::endl;
        return kExitUserError;
    }
    request.rerunOf = record.id;
    io.err << "rerun of " << record.id << ": the embedded trainer with its settings (seed " << request.config.seed
           << ") on " << request.dataPath << Qt::endl;
    const auto data = run::fingerprintChannels(spec.channels);
    run::RunSpec now = spec;
    now.data = data;
    compareData(spec, now, io);
    TrainCommand command;
    return command.trainAndReport(context, std::move(request), {}, io);
}

std::unique_ptr<Command> makeTrainCommand()
{
    return std::make_unique<TrainCommand>();
}

} // namespace ferry::cli
