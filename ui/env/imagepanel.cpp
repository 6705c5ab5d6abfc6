#include "ui/env/imagepanel.h"

#include "ui/secrets/registrysecretquestion.h"

#include "env/spechash.h"
#include "targets/containerengine.h"
#include "targets/devcontainer.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/terminallauncher.h"

#include <QDir>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

ImageActionStates imageActionStates(const ImageActionInputs &in)
{
    ImageActionStates s;
    s.cancel = in.busy;
    s.build = in.engineFound && !in.busy;
    s.devcontainer = in.engineFound && !in.busy && in.hasFile;
    s.terminal = in.containerRunning && in.terminalFound && !in.busy;
    if (!in.engineFound)
        s.hint = QObject::tr("No container engine: install Docker or Podman to build images");
    else if (!in.hasFile)
        s.hint = QObject::tr("Save the environment to start its devcontainer");
    else if (in.containerRunning && !in.terminalFound)
        s.hint = QObject::tr("No terminal emulator found: set $TERMINAL");
    return s;
}

namespace {

// The program the settings' engine value names (ContainerEngine::open checks it), or the value as
// given when it is refused (shown, and every use of it fails with the reason).
QString engineProgramOf(const QString &setting)
{
    const auto engine = targets::ContainerEngine::open(setting);
    return engine ? engine->program() : setting.isEmpty() ? u"docker"_s : setting;
}

bool engineInstalled(const QString &program)
{
    return !program.isEmpty() && (QFileInfo(program).isAbsolute() ? QFileInfo(program).isExecutable()
                                                                  : !QStandardPaths::findExecutable(program).isEmpty());
}

} // namespace

ImagePanel::ImagePanel(EnvironmentDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_checkLater(new QTimer(this)),
      m_build(new QPushButton(tr("&Build Image"), this)), m_cancelButton(new QPushButton(tr("Cancel"), this)),
      m_devcontainer(new QPushButton(tr("Start &Devcontainer"), this)),
      m_terminal(new QPushButton(tr("Open &Terminal"), this)), m_progress(new QProgressBar(this)),
      m_status(new QLabel(this)), m_log(new QPlainTextEdit(this))
{
    setObjectName(u"imagePanel"_s);
    m_build->setObjectName(u"buildImage"_s);
    m_cancelButton->setObjectName(u"cancelBuild"_s);
    m_devcontainer->setObjectName(u"startDevcontainer"_s);
    m_terminal->setObjectName(u"openTerminal"_s);
    m_status->setObjectName(u"imageStatus"_s);
    m_status->setWordWrap(true);
    m_log->setObjectName(u"buildLog"_s);
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(20000);
    m_log->setPlaceholderText(tr("The image build and devcontainer log appears here."));
    m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_progress->setTextVisible(false); // until there is something to say
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_engine = engineProgramOf({});

    connect(m_build, &QPushButton::clicked, this, &ImagePanel::build);
    connect(m_cancelButton, &QPushButton::clicked, this, &ImagePanel::cancel);
    connect(m_devcontainer, &QPushButton::clicked, this, &ImagePanel::startDevcontainer);
    connect(m_terminal, &QPushButton::clicked, this, &ImagePanel::openTerminal);
    connect(&m_work, &QFutureWatcher<Expected<void>>::finished, this, [this] {
        const Expected<void> done = m_work.result();
        const QString error = done ? QString() : done.error().toString();
        const bool cancelled = m_cancel.load();
        setBusy(false, {});
        if (!done) {
            appendLog(u"\n"_s + error + u'\n');
            m_progress->setFormat(cancelled ? tr("Cancelled") : tr("Failed"));
        } else {
            m_progress->setRange(0, 1);
            m_progress->setValue(1);
            m_progress->setFormat(tr("Done"));
        }
        checkImage();
        if (!done && !cancelled)
            Q_EMIT problem(withContext(tr("Image"), done.error()));
        Q_EMIT finished(bool(done), error);
    });
    connect(&m_check, &QFutureWatcher<int>::finished, this, [this] {
        const int exists = m_check.result();
        const QString current = env::imageReference(m_document->environment());
        if (m_checkedImage != current) {
            // The spec changed meanwhile (a file opened while the empty editor's image, ferry:x-1-…,
            // was checked): that answer is not this image's.
            m_status->setText(tr("%1: checking whether it is built …").arg(current));
            m_checkLater->start();
        } else if (exists < 0) {
            m_status->setText(tr("%1: no container engine found (docker or podman)").arg(m_checkedImage));
        } else {
            m_status->setText(exists ? tr("%1: built, ready to run").arg(m_checkedImage)
                                     : tr("%1: not built yet").arg(m_checkedImage));
        }
        updateButtons();
        Q_EMIT imageChecked(exists > 0);
    });
    m_checkLater->setSingleShot(true);
    m_checkLater->setInterval(600);
    connect(m_checkLater, &QTimer::timeout, this, &ImagePanel::checkImage);
    connect(document, &EnvironmentDocument::changed, this, [this] {
        const QString image = env::imageReference(m_document->environment());
        if (image != m_checkedImage && !m_check.isRunning())
            m_status->setText(tr("%1: checking whether it is built …").arg(image));
        m_checkLater->start();
    });
    connect(document, &EnvironmentDocument::pathChanged, this, &ImagePanel::updateButtons);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_build);
    buttons->addWidget(m_cancelButton);
    buttons->addSpacing(12);
    buttons->addWidget(m_devcontainer);
    buttons->addWidget(m_terminal);
    buttons->addWidget(m_progress, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(m_log, 1);
    updateButtons();
    m_checkLater->start();
}

ImagePanel::~ImagePanel()
{
    // The worker reports to this panel: stop it and let it end first.
    m_cancel = true;
    m_work.waitForFinished();
    m_check.waitForFinished();
}

void ImagePanel::setWorkspaceRoot(const QString &root)
{
    m_workspaceRoot = root;
}

void ImagePanel::setTerminalProgram(const QString &program)
{
    m_terminalProgram = program;
    updateButtons();
}

void ImagePanel::setEngineProgram(const QString &program)
{
    m_engine = engineProgramOf(program);
    updateButtons();
    checkImage();
}

ImageActionStates ImagePanel::states() const
{
    ImageActionInputs in;
    in.engineFound = engineInstalled(m_engine);
    in.busy = m_busy;
    in.hasFile = !m_document->path().isEmpty();
    in.containerRunning = !m_containerId.isEmpty();
    in.terminalFound = !terminalCommand({}, m_terminalProgram).program.isEmpty();
    return imageActionStates(in);
}

QString ImagePanel::imageStatus() const
{
    return m_status->text();
}

QString ImagePanel::log() const
{
    return m_log->toPlainText();
}

void ImagePanel::updateButtons()
{
    const ImageActionStates s = states();
    m_build->setEnabled(s.build);
    m_cancelButton->setEnabled(s.cancel);
    m_devcontainer->setEnabled(s.devcontainer);
    m_terminal->setEnabled(s.terminal);
    m_build->setToolTip(s.hint);
    m_devcontainer->setToolTip(s.hint);
}

void ImagePanel::appendLog(const QString &text)
{
    m_log->moveCursor(QTextCursor::End);
    m_log->insertPlainText(text);
    m_log->moveCursor(QTextCursor::End);
    // Docker's classic builder says "Step 3/9": that is the progress.
    static const QRegularExpression step(u"Step (\\d+)/(\\d+)"_s);
    QRegularExpressionMatchIterator it = step.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        m_progress->setRange(0, m.captured(2).toInt());
        m_progress->setValue(m.captured(1).toInt());
        m_progress->setFormat(tr("Step %v of %m"));
    }
}

void ImagePanel::setBusy(bool busy, const QString &what)
{
    m_busy = busy;
    if (busy) {
        m_cancel = false;
        m_progress->setRange(0, 0); // busy until the first step
        m_progress->setFormat(what);
        m_progress->setTextVisible(true);
    }
    updateButtons();
}

QString ImagePanel::environmentFile() const
{
    if (!m_document->path().isEmpty())
        return m_document->path();
    return QDir(m_document->baseDir()).filePath(m_document->environment().name + u".yml"_s);
}

void ImagePanel::build()
{
    if (m_busy)
        return;
    if (m_document->hasErrors() && m_confirm &&
        !m_confirm(tr("The environment has problems (see the Problems list). Build the image anyway?")))
        return;
    const env::Environment environment = m_document->environment();
    if (QSettings settings; !allowRegistrySecret(environment, settings, m_confirm))
        return appendLog(tr("Not built: its registry password stays in the keychain.\n"));
    const QString file = environmentFile();
    const QString engine = m_engine;
    m_log->clear();
    appendLog(tr("Building %1 with %2 …\n").arg(env::imageReference(environment), engine));
    setBusy(true, tr("Building"));
    auto sink = [this](const QByteArray &lines) {
        QMetaObject::invokeMethod(
            this, [this, text = QString::fromUtf8(lines)] { appendLog(text); }, Qt::QueuedConnection);
    };
    m_work.setFuture(QtConcurrent::run([this, environment, file, engine, sink]() -> Expected<void> {
        QTemporaryDir context;
        if (!context.isValid())
            return Error{tr("Cannot create a temporary build folder: %1").arg(context.errorString()),
                         {},
                         0,
                         0,
                         tr("check that the temporary folder ($TMPDIR) exists and has space")};
        const auto engineCli = targets::ContainerEngine::open(engine);
        if (!engineCli)
            return engineCli.error();
        const auto image =
            engineCli->ensureImage(environment, file, context.filePath(u"image"_s), targets::ImageStage::Runtime, sink,
                                   60 * 60 * 1000, [this] { return m_cancel.load(); });
        if (!image)
            return image.error();
        QMetaObject::invokeMethod(
            this,
            [this, reference = image->reference, built = image->built] {
                appendLog(built ? tr("\nBuilt %1\n").arg(reference)
                                : tr("%1 exists already: nothing to build\n").arg(reference));
            },
            Qt::QueuedConnection);
        return {};
    }));
}

void ImagePanel::cancel()
{
    if (!m_busy)
        return;
    m_cancel = true;
    appendLog(tr("\nCancelling …\n"));
}

void ImagePanel::startDevcontainer()
{
    if (m_busy)
        return;
    if (m_document->hasErrors() && m_confirm &&
        !m_confirm(tr("The environment has problems (see the Problems list). Start its devcontainer anyway?")))
        return;
    if (QSettings settings; !allowRegistrySecret(m_document->environment(), settings, m_confirm))
        return appendLog(tr("Not started: its registry password stays in the keychain.\n"));
    if (m_ensureSaved && !m_ensureSaved())
        return;
    if (m_document->path().isEmpty())
        return;
    targets::DevcontainerRequest request;
    request.environmentFile = m_document->path();
    request.workspaceFolder =
        m_workspaceRoot.isEmpty() ? QFileInfo(m_document->path()).absolutePath() : m_workspaceRoot;
    const QString engine = m_engine;
    m_log->clear();
    appendLog(tr("Starting the devcontainer of %1 …\n").arg(QFileInfo(request.environmentFile).fileName()));
    setBusy(true, tr("Starting devcontainer"));
    auto sink = [this](const QByteArray &lines) {
        QMetaObject::invokeMethod(
            this, [this, text = QString::fromUtf8(lines)] { appendLog(text); }, Qt::QueuedConnection);
    };
    m_work.setFuture(QtConcurrent::run([this, request, engine, sink]() -> Expected<void> {
        const auto engineCli = targets::ContainerEngine::open(engine);
        if (!engineCli)
            return engineCli.error();
        const auto up = targets::devcontainerUp(*engineCli, request, sink);
        if (!up)
            return up.error();
        const targets::Devcontainer &dc = *up;
        QMetaObject::invokeMethod(
            this,
            [this, dc] {
                m_containerId = dc.containerId;
                m_containerUser = dc.remoteUser;
                m_containerFolder = dc.remoteWorkspaceFolder;
                appendLog(tr("\nDevcontainer %1 %2 (%3, image %4)\nVS Code: %5\n")
                              .arg(dc.containerId.left(12), dc.reused ? tr("running again") : tr("started"), dc.method,
                                   dc.image, dc.configFile));
            },
            Qt::QueuedConnection);
        return {};
    }));
}

void ImagePanel::openTerminal()
{
    if (m_containerId.isEmpty())
        return;
    const TerminalCommand terminal = terminalCommand(
        containerShellCommand(m_engine, m_containerId, m_containerUser, m_containerFolder), m_terminalProgram);
    if (terminal.program.isEmpty()) {
        appendLog(tr("No terminal emulator found: set $TERMINAL to yours (e.g. export TERMINAL=konsole)\n"));
        return;
    }
    if (!QProcess::startDetached(terminal.program, terminal.arguments))
        appendLog(tr("Cannot start %1: check $TERMINAL\n").arg(terminal.program));
}

void ImagePanel::checkImage()
{
    if (m_check.isRunning()) {
        m_checkLater->start();
        return;
    }
    m_checkedImage = env::imageReference(m_document->environment());
    const QString engine = m_engine;
    const QString image = m_checkedImage;
    m_check.setFuture(QtConcurrent::run([engine, image]() -> int {
        if (!engineInstalled(engine))
            return -1;
        const auto engineCli = targets::ContainerEngine::open(engine);
        return engineCli && engineCli->imageExists(image) ? 1 : 0;
    }));
}

} // namespace ferry::ui
