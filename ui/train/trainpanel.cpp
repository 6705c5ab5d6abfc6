#include "ui/train/trainpanel.h"

#include "data/dataset.h"
#include "store/runstore.h"
#include "training/embeddedrun.h"
#include "training/trainingsession.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QString duration(double seconds)
{
    if (seconds < 0)
        return u"…"_s;
    const qint64 s = std::llround(seconds);
    return s >= 60 ? u"%1 min %2 s"_s.arg(s / 60).arg(s % 60) : u"%1 s"_s.arg(s);
}

} // namespace

TrainPanel::TrainPanel(EngineProvider engine, QWidget *parent)
    : QWidget(parent), m_engine(std::move(engine)), m_dataset(new QLineEdit(this)), m_model(new QComboBox(this)),
      m_layers(new QLineEdit(this)), m_epochs(new QSpinBox(this)), m_batchSize(new QSpinBox(this)),
      m_learningRate(new QDoubleSpinBox(this)), m_optimizer(new QComboBox(this)), m_seed(new QSpinBox(this)),
      m_trainButton(new QPushButton(tr("Train"), this)), m_pauseButton(new QPushButton(tr("Pause"), this)),
      m_cancelButton(new QPushButton(tr("Cancel"), this)), m_progress(new QProgressBar(this)),
      m_status(new QLabel(this)), m_progressTimer(new QTimer(this))
{
    setObjectName(u"trainPanel"_s);
    m_dataset->setPlaceholderText(tr("drop a CSV, an image folder or MNIST files"));
    m_dataset->setObjectName(u"dataset"_s);
    auto *browse = new QToolButton(this);
    browse->setText(u"…"_s);
    browse->setToolTip(tr("Choose a dataset file"));
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(
            this, tr("Dataset"), m_root, tr("Datasets (*.csv *.tsv *.txt *-ubyte *.gz);;All files (*)"));
        if (!file.isEmpty())
            setDataset(file);
    });
    connect(m_dataset, &QLineEdit::textChanged, this, [this](const QString &path) {
        updateState();
        showHint();
        Q_EMIT datasetChanged(path);
    });
    auto *datasetRow = new QHBoxLayout;
    datasetRow->addWidget(m_dataset, 1);
    datasetRow->addWidget(browse);

    m_model->addItem(tr("MLP (tables, small images)"), u"mlp"_s);
    m_model->addItem(tr("CNN (images)"), u"cnn"_s);
    m_layers->setToolTip(tr("Hidden layer sizes, e.g. 256,128"));
    m_epochs->setRange(1, 100000);
    m_batchSize->setRange(1, 65536);
    m_learningRate->setDecimals(5);
    m_learningRate->setRange(0.00001, 10.0);
    m_learningRate->setSingleStep(0.0005);
    for (const QString &name : {u"adam"_s, u"adamw"_s, u"sgd"_s})
        m_optimizer->addItem(name, name);
    m_seed->setRange(0, 1 << 30);
    setConfig(run::TrainingConfig()); // the defaults: those of `ferry train`

    auto *form = new QFormLayout;
    form->addRow(tr("Dataset"), datasetRow);
    form->addRow(tr("Model"), m_model);
    form->addRow(tr("Layers"), m_layers);
    form->addRow(tr("Epochs"), m_epochs);
    form->addRow(tr("Batch size"), m_batchSize);
    form->addRow(tr("Learning rate"), m_learningRate);
    form->addRow(tr("Optimizer"), m_optimizer);
    form->addRow(tr("Seed"), m_seed);

    auto *buttons = new QHBoxLayout;
    m_trainButton->setObjectName(u"train"_s);
    m_pauseButton->setObjectName(u"pause"_s);
    m_cancelButton->setObjectName(u"cancel"_s);
    buttons->addWidget(m_trainButton);
    buttons->addWidget(m_pauseButton);
    buttons->addWidget(m_cancelButton);
    connect(m_trainButton, &QPushButton::clicked, this, &TrainPanel::train);
    connect(m_pauseButton, &QPushButton::clicked, this, &TrainPanel::togglePause);
    connect(m_cancelButton, &QPushButton::clicked, this, &TrainPanel::cancel);

    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_status->setWordWrap(true);
    m_status->setObjectName(u"trainStatus"_s);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addStretch(1);

    m_progressTimer->setInterval(100);
    connect(m_progressTimer, &QTimer::timeout, this, &TrainPanel::showProgress);
    updateState();
    showHint();
}

TrainPanel::~TrainPanel()
{
    if (m_thread) { // closing the window cancels: the loading or the trainer stops within one step
        if (m_session)
            m_session->cancel();
        m_thread->wait();
    }
}

void TrainPanel::setWorkspace(run::RunStore *store, const QString &runsDir, const QString &root)
{
    m_store = store;
    m_runsDir = runsDir;
    m_root = root;
    updateState();
    showHint();
}

void TrainPanel::showHint()
{
    if (isTraining())
        return; // the progress is shown instead
    if (!m_store)
        m_status->setText(tr("Open a workspace to train in: each training is recorded there as a run."));
    else if (dataset().isEmpty())
        m_status->setText(tr("Drop a dataset on the window (or choose one with …), then press Train."));
    else
        m_status->setText(tr("Ready: press Train to fit the model on %1.").arg(QFileInfo(dataset()).fileName()));
}

void TrainPanel::setDataset(const QString &path)
{
    m_dataset->setText(path);
    // Images train best with the CNN; tables need the MLP.
    if (QFileInfo(path).isDir() && !QFileInfo(path).fileName().contains(u"mnist"_s, Qt::CaseInsensitive))
        m_model->setCurrentIndex(1);
    else if (QFileInfo(path).isFile() && (path.endsWith(u".csv"_s) || path.endsWith(u".tsv"_s)))
        m_model->setCurrentIndex(0);
}

QString TrainPanel::dataset() const
{
    return m_dataset->text().trimmed();
}

bool TrainPanel::isTraining() const
{
    return m_thread != nullptr;
}

run::TrainingConfig TrainPanel::config() const
{
    run::TrainingConfig c;
    (void)c.set(u"model"_s, m_model->currentData().toString());
    (void)c.set(u"layers"_s, m_layers->text());
    c.epochs = m_epochs->value();
    c.batchSize = m_batchSize->value();
    c.learningRate = m_learningRate->value();
    (void)c.set(u"optimizer"_s, m_optimizer->currentData().toString());
    c.seed = static_cast<std::uint64_t>(m_seed->value());
    c.threads = m_threads;
    return c;
}

void TrainPanel::setConfig(const run::TrainingConfig &c)
{
    m_model->setCurrentIndex(c.model == run::ModelKind::Cnn ? 1 : 0);
    QStringList layers;
    for (int size : c.layers)
        layers << QString::number(size);
    m_layers->setText(layers.join(u','));
    m_epochs->setValue(c.epochs);
    m_batchSize->setValue(c.batchSize);
    m_learningRate->setValue(c.learningRate);
    m_optimizer->setCurrentIndex(m_optimizer->findData(run::optimizerName(c.optimizer)));
    m_seed->setValue(static_cast<int>(c.seed));
}

void TrainPanel::updateState()
{
    const bool training = isTraining();
    m_trainButton->setEnabled(!training && m_store && !dataset().isEmpty());
    m_pauseButton->setEnabled(training && !m_runId.isEmpty());
    m_cancelButton->setEnabled(training);
    for (QWidget *w : std::initializer_list<QWidget *>{m_dataset, m_model, m_layers, m_epochs, m_batchSize,
                                                       m_learningRate, m_optimizer, m_seed})
        w->setEnabled(!training);
    m_pauseButton->setText(m_session && m_session->isPaused() ? tr("Resume") : tr("Pause"));
}

void TrainPanel::train()
{
    if (isTraining() || !m_store)
        return;
    run::TrainingSession::Request request;
    request.dataPath = dataset();
    request.config = config();
    if (const auto layers = request.config.set(u"layers"_s, m_layers->text()); !layers) {
        m_status->setText(layers.error().toString());
        Q_EMIT problem(withContext(tr("Train"), layers.error()));
        return;
    }
    start(request);
}

void TrainPanel::trainAgain(const run::RunSpec &spec, const QString &rerunOf)
{
    if (isTraining() || !m_store)
        return;
    run::TrainingSession::Request request;
    request.config.threads = m_threads; // this machine's, as for every training started here
    run::TrainingSession::applyRunSettings(spec, request);
    if (request.dataPath.isEmpty()) {
        Q_EMIT problem(Error{tr("Re-run %1: it names no data to train on").arg(rerunOf), {}, 0, 0, {}});
        return;
    }
    request.rerunOf = rerunOf;
    setConfig(request.config); // shown as it trains
    setDataset(request.dataPath);
    start(request);
}

void TrainPanel::start(const run::TrainingSession::Request &request)
{
    m_session = std::make_shared<run::TrainingSession>(*m_store, m_runsDir, m_root);
    m_runId.clear();
    m_progress->setValue(0);
    m_status->setText(tr("Loading %1 …").arg(QFileInfo(request.dataPath).fileName()));

    // Everything slow happens in the session, on this thread: libtorch, the data, the training.
    m_thread = QThread::create([self = QPointer<TrainPanel>(this), session = m_session, engine = m_engine, request] {
        const auto onPanel = [self](std::function<void(TrainPanel &)> apply) {
            QMetaObject::invokeMethod(qApp, [self, apply = std::move(apply)] {
                if (self)
                    apply(*self);
            });
        };
        run::TrainingSession::Events events;
        events.started = [&onPanel](const run::TrainingSession::Started &started) {
            onPanel([id = started.spec.id](TrainPanel &panel) { panel.started(id); });
        };
        const auto outcome = session->run(engine, request, events);
        if (!outcome)
            return onPanel([error = outcome.error()](TrainPanel &panel) { panel.failed(error); });
        if (!outcome->recorded)
            onPanel([error = outcome->recorded.error()](TrainPanel &panel) { panel.failed(error); });
        onPanel([result = outcome->result](TrainPanel &panel) { panel.finished(result); });
    });
    connect(m_thread, &QThread::finished, this, [this] {
        m_thread->deleteLater();
        m_thread = nullptr;
        m_progressTimer->stop();
        updateState();
    });
    m_thread->start();
    updateState();
}

void TrainPanel::started(const QString &runId)
{
    m_runId = runId;
    m_progressTimer->start();
    updateState();
    Q_EMIT runStarted(runId);
}

void TrainPanel::failed(const Error &error)
{
    m_status->setText(error.toString());
    Q_EMIT problem(withContext(tr("Train"), error));
}

void TrainPanel::togglePause()
{
    if (!m_session)
        return;
    if (m_session->isPaused())
        m_session->resume();
    else
        m_session->pause();
    updateState();
    showProgress();
}

void TrainPanel::cancel()
{
    if (m_session)
        m_session->cancel();
    m_status->setText(tr("Cancelling: the trainer stops within one step …"));
}

void TrainPanel::showProgress()
{
    if (!m_session || m_runId.isEmpty())
        return;
    const run::TrainingProgress p = m_session->progress();
    if (p.totalSteps > 0)
        m_progress->setValue(static_cast<int>(1000 * p.step / p.totalSteps));
    if (m_session->isPaused()) {
        m_status->setText(tr("Paused at epoch %1 of %2").arg(p.epoch).arg(p.epochs));
        return;
    }
    if (p.epoch > 0)
        m_status->setText(tr("Epoch %1 of %2 · %3 samples/s · %4 left")
                              .arg(p.epoch)
                              .arg(p.epochs)
                              .arg(static_cast<qint64>(p.samplesPerSecond))
                              .arg(duration(p.etaSeconds)));
}

void TrainPanel::finished(const run::TrainingResult &result)
{
    showProgress();
    if (result.outcome == run::TrainingResult::Outcome::Completed ||
        result.outcome == run::TrainingResult::Outcome::StoppedEarly)
        m_progress->setValue(1000);
    QString text = tr("Training %1 after %2 epoch(s)").arg(run::outcomeName(result.outcome)).arg(result.epochsDone);
    if (result.finalMetrics.contains(run::kValAccuracy))
        text += tr(" · validation accuracy %1").arg(result.finalMetrics[run::kValAccuracy].toDouble(), 0, 'f', 3);
    if (!result.error.message.isEmpty()) {
        text += u": "_s + result.error.message;
        Q_EMIT problem(withContext(tr("Train"), result.error));
    }
    m_status->setText(text);
    Q_EMIT runFinished(m_runId, run::outcomeName(result.outcome));
}

} // namespace ferry::ui
