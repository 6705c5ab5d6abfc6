// The environment editor's Docker section: base image, registry, run arguments, GPU and steps.
#pragma once

#include <QStringList>
#include <QWidget>

class QComboBox;

namespace ferry::ui {

class EnvironmentDocument;
class FormBinder;

// The Docker section: base image and registry (the credential is chosen by the name of a
// keychain secret, never typed), run arguments, shm size, GPU, system packages, extra
// Dockerfile steps and the devcontainer's user.
class DockerSectionForm : public QWidget {
    Q_OBJECT
public:
    explicit DockerSectionForm(EnvironmentDocument *document, QWidget *parent = nullptr);

    // The names of the keychain secrets the credential can be chosen from.
    void setSecretNames(const QStringList &names);

private:
    FormBinder *m_binder;
    QComboBox *m_credential;
};

} // namespace ferry::ui
