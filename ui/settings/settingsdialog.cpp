#include "ui/settings/settingsdialog.h"

#include "targets/containerengine.h"
#include "training/training.h"
#include "ui/env/terminallauncher.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QThread>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

SettingsDialog::SettingsDialog(QSettings &settings, QWidget *parent)
    : QDialog(parent), m_settings(settings), m_pages(new QListWidget(this)), m_stack(new QStackedWidget(this)),
      m_engine(new QComboBox(this)), m_engineStatus(new QLabel(this)), m_terminal(new QLineEdit(this)),
      m_threads(new QSpinBox(this))
{
    setWindowTitle(tr("Settings"));
    m_pages->setObjectName(u"pages"_s);
    m_pages->setMaximumWidth(160);

    auto *general = new QWidget(this);
    auto *form = new QFormLayout(general);
    m_engine->setEditable(true);
    m_engine->addItem(tr("automatic (docker, else podman)"), QString());
    m_engine->addItem(u"docker"_s, u"docker"_s);
    m_engine->addItem(u"podman"_s, u"podman"_s);
    m_engine->setObjectName(u"engine"_s);
    const QString engine = targets::kContainerEngineSetting.get(settings);
    if (const int at = m_engine->findData(engine); at >= 0)
        m_engine->setCurrentIndex(at);
    else
        m_engine->setEditText(engine);
    m_engineStatus->setObjectName(u"engineStatus"_s);
    m_engineStatus->setWordWrap(true);
    form->addRow(tr("Container engine"), m_engine);
    form->addRow(QString(), m_engineStatus);
    m_terminal->setPlaceholderText(tr("$TERMINAL, else the first terminal found"));
    m_terminal->setText(kTerminalSetting.get(settings));
    m_terminal->setObjectName(u"terminal"_s);
    form->addRow(tr("Terminal"), m_terminal);
    m_threads->setRange(0, std::max(1, QThread::idealThreadCount()));
    m_threads->setSpecialValueText(tr("automatic"));
    m_threads->setValue(run::kTrainerThreadsSetting.get(settings));
    m_threads->setObjectName(u"threads"_s);
    form->addRow(tr("Trainer threads"), m_threads);
    addPage(tr("General"), general);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto *body = new QHBoxLayout;
    body->addWidget(m_pages);
    body->addWidget(m_stack, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(body, 1);
    layout->addWidget(buttons);
    resize(720, 460);

    connect(m_pages, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    connect(m_engine, &QComboBox::currentTextChanged, this, &SettingsDialog::checkEngine);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        apply();
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_pages->setCurrentRow(0);
    checkEngine();
}

void SettingsDialog::addPage(const QString &title, QWidget *page)
{
    page->setParent(m_stack);
    m_stack->addWidget(page);
    m_pages->addItem(title);
}

QStringList SettingsDialog::pageTitles() const
{
    QStringList titles;
    for (int i = 0; i < m_pages->count(); ++i)
        titles << m_pages->item(i)->text();
    return titles;
}

void SettingsDialog::showPage(const QString &title)
{
    const int at = int(pageTitles().indexOf(title));
    if (at >= 0)
        m_pages->setCurrentRow(at);
}

void SettingsDialog::checkEngine()
{
    const QString chosen =
        m_engine->currentIndex() >= 0 && m_engine->currentText() == m_engine->itemText(m_engine->currentIndex())
            ? m_engine->currentData().toString()
            : m_engine->currentText().trimmed();
    const auto engine = targets::ContainerEngine::open(chosen);
    const bool found = engine.hasValue();
    m_engineStatus->setText(found ? tr("Uses %1").arg(engine->program())
                                  : tr("%1: container runs and image builds will fail").arg(engine.error().message));
    m_engineStatus->setStyleSheet(found ? QString() : u"color: #c62828;"_s);
}

void SettingsDialog::apply()
{
    const bool listed =
        m_engine->currentIndex() >= 0 && m_engine->currentText() == m_engine->itemText(m_engine->currentIndex());
    targets::kContainerEngineSetting.set(m_settings, listed ? m_engine->currentData().toString()
                                                            : m_engine->currentText().trimmed());
    kTerminalSetting.set(m_settings, m_terminal->text().trimmed());
    run::kTrainerThreadsSetting.set(m_settings, m_threads->value());
}

} // namespace ferry::ui
