#include "ui/env/dockersectionform.h"

#include "secrets/secretbinding.h"
#include "targets/containerengine.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/environmenttablemodel.h"
#include "ui/env/formbinder.h"
#include "ui/env/tableeditor.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSettings>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using ferry::env::Environment;

namespace ferry::ui {

DockerSectionForm::DockerSectionForm(EnvironmentDocument *document, QWidget *parent)
    : QWidget(parent), m_binder(new FormBinder(document, this)), m_credential(new QComboBox(this))
{
    setObjectName(u"dockerSection"_s);
    auto *baseImage = formLineEdit(this, u"baseImage"_s, tr("e.g. python:3.11-slim"));
    auto *registry = formLineEdit(this, u"registryAddress"_s, tr("the base image's own registry"));
    auto *user = formLineEdit(this, u"registryUser"_s, tr("none"));
    m_credential->setObjectName(u"registryCredential"_s);
    m_credential->setToolTip(tr("The keychain secret holding the registry password (ferry secret set NAME)"));
    auto *shm = formLineEdit(this, u"shmSize"_s, tr("Docker's default (64m)"));
    auto *gpu = new QComboBox(this);
    gpu->setObjectName(u"gpu"_s);
    gpu->addItem(tr("Auto: use GPUs when the machine has them"), u"auto"_s);
    gpu->addItem(tr("On: require GPUs"), u"on"_s);
    gpu->addItem(tr("Off: never"), u"off"_s);
    // Its longest item would hold the form (and the editor) wide; the list shows them whole.
    gpu->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    gpu->setMinimumContentsLength(10);
    auto *packages = formLineEdit(this, u"systemPackages"_s, tr("apt packages, separated by spaces"));
    auto *remoteUser = formLineEdit(this, u"remoteUser"_s, tr("root"));
    auto *steps = new QPlainTextEdit(this);
    steps->setObjectName(u"dockerfileSteps"_s);
    steps->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    steps->setPlaceholderText(u"RUN echo \"extra Dockerfile lines, after the system packages\""_s);
    steps->setTabChangesFocus(true);
    steps->setLineWrapMode(QPlainTextEdit::NoWrap);

    auto *runArguments =
        new TableEditor(new StringListModel(
                            document, env::Field::RunArguments, tr("docker run argument"), tr("run argument"),
                            [](Environment &e) -> QStringList & { return e.docker.runArguments; }, this),
                        u"runArguments"_s, this);

    FormBinder &b = *m_binder;
    b.text(
        baseImage, env::Field::BaseImage, tr("base image"), [](const Environment &e) { return e.docker.baseImage; },
        [](Environment &e, const QString &v) { e.docker.baseImage = v.trimmed(); });
    b.text(
        registry, env::Field::Registry, tr("registry"), [](const Environment &e) { return e.docker.registry.address; },
        [](Environment &e, const QString &v) { e.docker.registry.address = v.trimmed(); });
    b.text(
        user, env::Field::RegistryUser, tr("registry user"),
        [](const Environment &e) { return e.docker.registry.username; },
        [](Environment &e, const QString &v) { e.docker.registry.username = v.trimmed(); });
    setSecretNames({});
    b.choice(
        m_credential, env::Field::RegistrySecret, tr("registry credential"),
        [](const Environment &e) { return e.docker.registry.passwordSecret; },
        [](Environment &e, const QString &v) { e.docker.registry.passwordSecret = v; });
    // The user choosing a credential for a registry here (or typing the registry of a credential
    // chosen) sends that secret there: the binding a build needs (secrets/secretbinding.h). A
    // file opened and saved binds nothing: only these two user actions do.
    const auto bindChosen = [document] {
        const env::DockerSection &docker = document->environment().docker;
        if (docker.registry.passwordSecret.trimmed().isEmpty())
            return;
        QSettings settings;
        secrets::bindSecret(settings, docker.registry.passwordSecret.trimmed(),
                            secrets::registryDestination(targets::registryAddress(docker)));
    };
    connect(m_credential, &QComboBox::activated, this, bindChosen);
    connect(registry, &QLineEdit::textEdited, this, [registry, bindChosen] {
        connect(registry, &QLineEdit::editingFinished, registry, bindChosen, Qt::SingleShotConnection);
    });
    b.text(
        shm, env::Field::ShmSize, tr("shm size"), [](const Environment &e) { return e.docker.shmSize; },
        [](Environment &e, const QString &v) { e.docker.shmSize = v.trimmed(); });
    b.choice(
        gpu, env::Field::Gpu, tr("GPU"), [](const Environment &e) { return env::gpuModeName(e.docker.gpu); },
        [](Environment &e, const QString &v) {
            e.docker.gpu = v == "on"_L1 ? env::GpuMode::On : v == "off"_L1 ? env::GpuMode::Off : env::GpuMode::Auto;
        });
    b.words(
        packages, env::Field::SystemPackages, tr("system packages"),
        [](const Environment &e) { return e.docker.systemPackages; },
        [](Environment &e, const QStringList &v) { e.docker.systemPackages = v; });
    b.text(
        remoteUser, env::Field::RemoteUser, tr("remote user"), [](const Environment &e) { return e.docker.remoteUser; },
        [](Environment &e, const QString &v) { e.docker.remoteUser = v.trimmed(); });
    b.plainText(
        steps, env::Field::DockerfileSteps, tr("Dockerfile steps"),
        [](const Environment &e) { return e.docker.dockerfileSteps; },
        [](Environment &e, const QString &v) { e.docker.dockerfileSteps = v; });

    auto *image = new QGroupBox(tr("Image"), this);
    auto *imageForm = new QFormLayout(image);
    imageForm->addRow(tr("&Base image:"), baseImage);
    imageForm->addRow(tr("Re&gistry:"), registry);
    imageForm->addRow(tr("Registry &user:"), user);
    imageForm->addRow(tr("&Credential:"), m_credential);
    imageForm->addRow(tr("S&ystem packages:"), packages);

    auto *run = new QGroupBox(tr("Running"), this);
    auto *runForm = new QFormLayout(run);
    runForm->addRow(tr("&GPU:"), gpu);
    runForm->addRow(tr("&Shared memory:"), shm);
    runForm->addRow(tr("Devcontainer &user:"), remoteUser);
    runForm->addRow(tr("Run &arguments:"), runArguments);
    runArguments->setMinimumHeight(90);

    auto *stepsBox = new QGroupBox(tr("Extra Dockerfile steps"), this);
    auto *stepsLayout = new QVBoxLayout(stepsBox);
    stepsLayout->addWidget(steps);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(image);
    layout->addWidget(run);
    layout->addWidget(stepsBox, 1);
}

void DockerSectionForm::setSecretNames(const QStringList &names)
{
    const QSignalBlocker block(m_credential);
    m_credential->clear();
    m_credential->addItem(tr("(none)"), QString());
    for (const QString &name : names)
        m_credential->addItem(name, name);
    m_binder->refresh(); // selects the environment's credential again
}

} // namespace ferry::ui
