#include "ui/env/newenvironmentdialog.h"

#include "env/environmentvalidator.h"
#include "env/formats.h"
#include "ui/env/environmenttemplates.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

NewEnvironmentDialog::NewEnvironmentDialog(const QString &folder, QWidget *parent)
    : QDialog(parent), m_folder(folder), m_name(new QLineEdit(this)), m_templates(new QListWidget(this)),
      m_message(new QLabel(this))
{
    setObjectName(u"newEnvironmentDialog"_s);
    setWindowTitle(tr("New Environment"));
    m_name->setObjectName(u"name"_s);
    m_name->setPlaceholderText(tr("letters, digits, . _ -"));
    m_templates->setObjectName(u"templates"_s);
    for (const EnvironmentTemplate &t : environmentTemplates()) {
        auto *item = new QListWidgetItem(t.title, m_templates);
        item->setData(Qt::UserRole, t.id);
    }
    m_templates->setCurrentRow(0);
    m_message->setObjectName(u"message"_s);
    m_message->setWordWrap(true);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    auto *fromFile = buttons->addButton(tr("From an Existing &File…"), QDialogButtonBox::ActionRole);
    fromFile->setObjectName(u"fromFile"_s);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(fromFile, &QPushButton::clicked, this, [this] {
        const QString file =
            QFileDialog::getOpenFileName(this, tr("Start from an Environment File"), QDir::homePath(),
                                         tr("Environment files (*.yml *.yaml *.txt *.json);;All files (*)"));
        if (file.isEmpty())
            return;
        m_sourceFile = file;
        if (m_name->text().isEmpty())
            m_name->setText(env::environmentNameFromPath(file));
        m_templates->clearSelection();
        m_templates->setCurrentItem(nullptr);
        validate();
        if (m_ok->isEnabled())
            accept();
    });
    connect(m_name, &QLineEdit::textChanged, this, &NewEnvironmentDialog::validate);
    connect(m_templates, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0)
            m_sourceFile.clear();
        validate();
    });

    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Template:"), m_templates);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_message);
    layout->addWidget(buttons);
    validate();
}

QString NewEnvironmentDialog::name() const
{
    return m_name->text().trimmed();
}

QString NewEnvironmentDialog::templateId() const
{
    const QListWidgetItem *item = m_templates->currentItem();
    return m_sourceFile.isEmpty() && item ? item->data(Qt::UserRole).toString() : QString();
}

QString NewEnvironmentDialog::sourceFile() const
{
    return m_sourceFile;
}

QString NewEnvironmentDialog::targetPath() const
{
    return QDir(m_folder).filePath(name() + u".yml"_s);
}

void NewEnvironmentDialog::validate()
{
    // The name rule is the environment's own (env::validateName), with its message.
    const env::Findings nameProblems = env::validateName(name());
    QString message;
    if (name().isEmpty())
        message = tr("Give the environment a name.");
    else if (!nameProblems.isEmpty())
        message = nameProblems.first().text();
    else if (QFileInfo::exists(targetPath()))
        message = tr("%1 exists already: choose another name.").arg(QDir::toNativeSeparators(targetPath()));
    else if (templateId().isEmpty() && m_sourceFile.isEmpty())
        message = tr("Choose a template or a file.");
    else if (!m_sourceFile.isEmpty())
        message = tr("Starting from %1").arg(QDir::toNativeSeparators(m_sourceFile));
    m_message->setText(message);
    m_ok->setEnabled(nameProblems.isEmpty() && !QFileInfo::exists(targetPath()) &&
                     (!templateId().isEmpty() || !m_sourceFile.isEmpty()));
}

} // namespace ferry::ui
