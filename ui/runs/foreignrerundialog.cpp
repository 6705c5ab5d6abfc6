#include "ui/runs/foreignrerundialog.h"

#include "env/formats.h"
#include "env/runarguments.h"
#include "metrics/terminaltext.h"
#include "run/runsecrets.h"
#include "tracking/foreignrun.h"
#include "ui/launch/remotetargetfields.h"
#include "ui/launch/secretvariablesbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// A bundle's text as the window shows it: control characters dropped (import refused them
// already; a run imported by an earlier Ferry may hold some).
QString shown(const QString &text)
{
    return run::terminalText(text.toUtf8(), false);
}

// The kind the target box names ("ssh" and "slurm" take their host from the remote fields).
run::TargetKind kindOf(const QComboBox *box)
{
    const QString kind = box->currentData().toString();
    const bool remote = kind == u"ssh"_s || kind == u"slurm"_s;
    const auto parsed = run::TargetSpec::parse(remote ? kind + u":x"_s : kind);
    return parsed ? parsed->kind : run::TargetKind::Local;
}

} // namespace

ForeignRerunDialog::ForeignRerunDialog(const run::RunSpec &prepared, const run::RunSpec &original,
                                       const QStringList &notes, const QStringList &secretNames, QWidget *parent)
    : QDialog(parent), m_prepared(prepared), m_target(new QComboBox(this)), m_remote(new RemoteTargetFields(this)),
      m_channels(new QTableWidget(this)), m_allowRunArguments(new QCheckBox(this)),
      m_secrets(new SecretVariablesBox(this)), m_summary(new QPlainTextEdit(this)), m_problem(new QLabel(this))
{
    setWindowTitle(tr("Re-run a run from elsewhere"));
    setObjectName(u"foreignRerunDialog"_s);
    resize(820, 760);
    auto *layout = new QVBoxLayout(this);
    addWhereItCameFrom(layout, original, notes);
    setUpTarget(original);
    setUpChannels(original);
    setUpEnvironmentQuestions(secretNames);

    m_summary->setObjectName(u"summary"_s);
    m_summary->setReadOnly(true);
    m_summary->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_problem->setObjectName(u"problem"_s);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(u"color: #c62828;"_s);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Run Its Code Here"));
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (const QString why = problem(); !why.isEmpty())
            m_problem->setText(why);
        else
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *form = new QFormLayout;
    form->addRow(tr("Target"), m_target);
    form->addRow(m_remote);
    form->addRow(QString(), m_allowRunArguments);
    auto *addChannel = new QPushButton(tr("Add channel"), this);
    connect(addChannel, &QPushButton::clicked, this, [this] { m_channels->insertRow(m_channels->rowCount()); });
    layout->addLayout(form);
    layout->addWidget(new QLabel(tr("Data channels"), this));
    layout->addWidget(m_channels);
    layout->addWidget(addChannel, 0, Qt::AlignLeft);
    layout->addWidget(m_secrets);
    layout->addWidget(new QLabel(tr("It will run:"), this));
    layout->addWidget(m_summary, 1);
    // The tables hold a few rows; what it will run gets the room.
    m_channels->setMaximumHeight(110);
    m_secrets->setMaximumHeight(170);
    m_summary->setMinimumHeight(180);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    update();
}

// Where the run came from and what was kept aside of it (the import's notes and the rerun's).
void ForeignRerunDialog::addWhereItCameFrom(QVBoxLayout *layout, const run::RunSpec &original, const QStringList &notes)
{
    const QJsonObject imported = original.imported;
    QStringList kept;
    for (const QJsonValue &note : imported[u"notes"_s].toArray())
        kept << u"• "_s + shown(note.toString());
    for (const QString &note : notes)
        kept << u"• "_s + shown(note);
    auto *header = new QLabel(
        tr("<b>Run %1 came from elsewhere</b> (bundle %2, imported %3). Its code runs on this machine, with "
           "only what you give it here: the host, data, keychain secrets and consents it had are never used. "
           "Read its code first (the run's Code tab, or <tt>ferry runs show %1</tt>).")
            .arg(original.id.toHtmlEscaped(), shown(imported[u"bundle"_s].toString()).toHtmlEscaped(),
                 QDateTime::fromMSecsSinceEpoch(imported[u"importedMs"_s].toInteger()).toString(Qt::ISODate)),
        this);
    header->setWordWrap(true);
    header->setTextFormat(Qt::RichText);
    auto *keptLabel =
        new QLabel(kept.isEmpty() ? tr("Nothing was kept aside.")
                                  : tr("Kept aside as the original's, not applied:\n%1").arg(kept.join(u'\n')),
                   this);
    keptLabel->setWordWrap(true);
    keptLabel->setObjectName(u"keptAside"_s);
    keptLabel->setTextFormat(Qt::PlainText);
    layout->addWidget(header);
    layout->addWidget(keptLabel);
}

// The target's kind preset to the original's; its host and options are the user's alone.
void ForeignRerunDialog::setUpTarget(const run::RunSpec &original)
{
    m_target->setObjectName(u"target"_s);
    m_target->addItem(tr("local (this machine)"), u"local"_s);
    m_target->addItem(tr("container (the environment's image)"), u"container"_s);
    m_target->addItem(tr("SSH host"), u"ssh"_s);
    m_target->addItem(tr("Slurm cluster"), u"slurm"_s);
    const QString kind = original.target.toString().section(u':', 0, 0);
    m_target->setCurrentIndex(std::max(0, m_target->findData(kind)));
    m_remote->setKind(original.target.kind); // its host field stays empty: the original's is never used
    connect(m_target, &QComboBox::currentIndexChanged, this, [this] {
        m_remote->setKind(kindOf(m_target));
        update();
    });
    for (QLineEdit *edit : m_remote->findChildren<QLineEdit *>())
        connect(edit, &QLineEdit::textChanged, this, &ForeignRerunDialog::update);
}

// Data: the original's channel names, paths given here.
void ForeignRerunDialog::setUpChannels(const run::RunSpec &original)
{
    m_channels->setObjectName(u"channels"_s);
    m_channels->setColumnCount(2);
    m_channels->setHorizontalHeaderLabels({tr("Channel"), tr("Path on this machine (empty: none)")});
    m_channels->horizontalHeader()->setStretchLastSection(true);
    m_channels->verticalHeader()->setVisible(false);
    for (const QJsonValue &c : original.imported[u"original"_s][u"channels"_s].toArray()) {
        const int row = m_channels->rowCount();
        m_channels->insertRow(row);
        auto *name = new QTableWidgetItem(shown(c[u"name"_s].toString()));
        name->setToolTip(tr("The original read %1 on its machine").arg(shown(c[u"path"_s].toString())));
        m_channels->setItem(row, 0, name);
        m_channels->setItem(row, 1, new QTableWidgetItem);
    }
    connect(m_channels, &QTableWidget::itemChanged, this, &ForeignRerunDialog::update);
}

// Its environment's consent and secrets: asked, never taken.
void ForeignRerunDialog::setUpEnvironmentQuestions(const QStringList &secretNames)
{
    const env::Environment environment = m_prepared.environmentFile.isEmpty()
                                             ? env::Environment{}
                                             : env::readEnvironment(m_prepared.environmentFile).environment;
    const QList<env::IsolationBreak> breaks = env::isolationBreakingArguments(environment.docker.runArguments);
    QStringList arguments;
    for (const env::IsolationBreak &b : breaks)
        arguments << b.argument;
    m_allowRunArguments->setObjectName(u"allowRunArguments"_s);
    m_allowRunArguments->setVisible(!breaks.isEmpty());
    m_allowRunArguments->setText(
        tr("Allow its run arguments, which undo the container's isolation:\n%1").arg(arguments.join(u"   "_s)));
    m_allowRunArguments->setToolTip(env::describeIsolationBreaks(breaks));
    connect(m_allowRunArguments, &QCheckBox::toggled, this, &ForeignRerunDialog::update);
    m_secrets->setSecretNames(secretNames);
    // Its environment's secret variables are rows to pick a secret for, not the environment's own.
    m_secrets->environmentLabel()->setText(
        tr("None is given unless you pick a keychain secret for it: the original's names are never used."));
    for (const auto &[variable, secret] : run::secretVariablesOf(environment))
        m_secrets->addVariable(variable, QString()); // the variable it names; the secret is picked here
    connect(m_secrets->table(), &QTableWidget::itemChanged, this, &ForeignRerunDialog::update);
}

QString ForeignRerunDialog::applyTarget(run::TargetSpec &target) const
{
    target.kind = kindOf(m_target);
    return m_remote->apply(target);
}

run::RerunChanges ForeignRerunDialog::changes() const
{
    run::RerunChanges changes;
    run::TargetSpec target;
    (void)applyTarget(target);
    if (m_allowRunArguments->isVisible() && m_allowRunArguments->isChecked())
        target.options[run::kAllowRunArgumentsOption] = true;
    changes.target = target;
    QList<run::DataChannel> channels;
    for (int row = 0; row < m_channels->rowCount(); ++row) {
        const QString name = m_channels->item(row, 0) ? m_channels->item(row, 0)->text().trimmed() : QString();
        const QString path = m_channels->item(row, 1) ? m_channels->item(row, 1)->text().trimmed() : QString();
        if (!name.isEmpty() && !path.isEmpty())
            channels << run::DataChannel{name, QFileInfo(path).absoluteFilePath()};
    }
    changes.channels = channels;
    changes.secretVariables = m_secrets->launchSecrets();
    return changes;
}

run::RunSpec ForeignRerunDialog::rerun() const
{
    run::RunSpec spec = m_prepared;
    run::applyGrants(spec, changes());
    return spec;
}

QString ForeignRerunDialog::problem() const
{
    run::TargetSpec target;
    return applyTarget(target);
}

void ForeignRerunDialog::update()
{
    m_summary->setPlainText(run::launchSummary(rerun()).join(u'\n'));
    m_problem->setText(problem());
}

} // namespace ferry::ui
