#include "ui/env/pythonsectionform.h"

#include "ui/env/dependencymodels.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/formbinder.h"
#include "ui/env/tableeditor.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using ferry::env::Environment;

namespace ferry::ui {

namespace {

QWidget *titled(const QString &title, QWidget *content, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *label = new QLabel(title, box);
    label->setBuddy(content);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    return box;
}

void sizeColumns(TableEditor *editor, std::initializer_list<int> widths)
{
    int column = 0;
    for (int w : widths)
        editor->view()->setColumnWidth(column++, w);
}

} // namespace

PythonSectionForm::PythonSectionForm(EnvironmentDocument *document, QWidget *parent)
    : QWidget(parent),
      m_channels(new TableEditor(new StringListModel(
                                     document, env::Field::Channels, tr("Channel"), tr("channel"),
                                     [](Environment &e) -> QStringList & { return e.python.channels; }, this),
                                 u"channels"_s, this)),
      m_conda(new TableEditor(new CondaDependencyModel(document, this), u"conda"_s, this)),
      m_pip(new TableEditor(new PipRequirementModel(document, PipRequirementModel::List::Requirements, this), u"pip"_s,
                            this)),
      m_constraints(new TableEditor(new PipRequirementModel(document, PipRequirementModel::List::Constraints, this),
                                    u"pipConstraints"_s, this)),
      m_tabs(new QTabWidget(this))
{
    setObjectName(u"pythonSection"_s);
    auto *binder = new FormBinder(document, this);
    auto *version = formLineEdit(this, u"pythonVersion"_s, tr("the base image's"));
    auto *interpreter = formLineEdit(this, u"interpreter"_s, u"python"_s);
    auto *userManaged = new QCheckBox(tr("&User-managed: Ferry installs nothing"), this);
    userManaged->setObjectName(u"userManaged"_s);
    userManaged->setToolTip(tr("The image has everything the scripts need: Ferry installs no packages into it"));
    auto *devTools = formLineEdit(this, u"devTools"_s, tr("pip packages for the devcontainer, e.g. black pytest"));
    binder->text(
        version, env::Field::PythonVersion, tr("Python version"), [](const Environment &e) { return e.python.version; },
        [](Environment &e, const QString &v) { e.python.version = v.trimmed(); });
    binder->text(
        interpreter, env::Field::Interpreter, tr("interpreter"),
        [](const Environment &e) { return e.python.interpreterPath; },
        [](Environment &e, const QString &v) { e.python.interpreterPath = v.trimmed(); });
    binder->check(
        userManaged, env::Field::UserManaged, tr("user-managed"),
        [](const Environment &e) { return e.python.userManaged; },
        [](Environment &e, bool v) { e.python.userManaged = v; });
    binder->words(
        devTools, env::Field::DevTools, tr("dev tools"), [](const Environment &e) { return e.python.devTools; },
        [](Environment &e, const QStringList &v) { e.python.devTools = v; });

    // pip options.
    auto *indexUrl = formLineEdit(this, u"indexUrl"_s, u"https://pypi.org/simple"_s);
    auto *extraIndex = formLineEdit(this, u"extraIndexUrls"_s, tr("URLs separated by spaces"));
    auto *findLinks = formLineEdit(this, u"findLinks"_s, tr("folders or URLs of wheels, separated by spaces"));
    auto *trusted = formLineEdit(this, u"trustedHosts"_s, tr("host names separated by spaces"));
    auto *pre = new QCheckBox(tr("Allow &pre-releases (--pre)"), this);
    pre->setObjectName(u"pre"_s);
    auto *noIndex = new QCheckBox(tr("&No index (--no-index)"), this);
    noIndex->setObjectName(u"noIndex"_s);
    noIndex->setToolTip(tr("Only the local wheels (find links): pip asks no package index"));
    binder->text(
        indexUrl, env::Field::IndexUrl, tr("index URL"),
        [](const Environment &e) { return e.python.pipOptions.indexUrl; },
        [](Environment &e, const QString &v) { e.python.pipOptions.indexUrl = v.trimmed(); });
    binder->words(
        extraIndex, env::Field::ExtraIndexUrls, tr("extra index URLs"),
        [](const Environment &e) { return e.python.pipOptions.extraIndexUrls; },
        [](Environment &e, const QStringList &v) { e.python.pipOptions.extraIndexUrls = v; });
    binder->words(
        findLinks, env::Field::FindLinks, tr("find links"),
        [](const Environment &e) { return e.python.pipOptions.findLinks; },
        [](Environment &e, const QStringList &v) { e.python.pipOptions.findLinks = v; });
    binder->words(
        trusted, env::Field::TrustedHosts, tr("trusted hosts"),
        [](const Environment &e) { return e.python.pipOptions.trustedHosts; },
        [](Environment &e, const QStringList &v) { e.python.pipOptions.trustedHosts = v; });
    binder->check(
        pre, env::Field::Pre, tr("pre-releases"), [](const Environment &e) { return e.python.pipOptions.pre; },
        [](Environment &e, bool v) { e.python.pipOptions.pre = v; });
    binder->check(
        noIndex, env::Field::NoIndex, tr("no index"), [](const Environment &e) { return e.python.pipOptions.noIndex; },
        [](Environment &e, bool v) { e.python.pipOptions.noIndex = v; });

    sizeColumns(m_conda, {150, 110, 80, 110});
    sizeColumns(m_pip, {150, 110, 80, 160});
    sizeColumns(m_constraints, {150, 110, 80, 160});

    auto *top = new QFormLayout;
    auto *versionRow = new QHBoxLayout;
    versionRow->addWidget(version);
    versionRow->addSpacing(12);
    versionRow->addWidget(new QLabel(tr("Interpreter:"), this));
    versionRow->addWidget(interpreter, 1);
    auto *versionLabel = new QLabel(tr("P&ython:"), this);
    versionLabel->setBuddy(version);
    top->addRow(versionLabel, versionRow);
    top->addRow(QString(), userManaged);

    // Conda: channels beside the dependencies, so priority and packages are seen together.
    auto *conda = new QSplitter(Qt::Horizontal, this);
    conda->setObjectName(u"condaSplitter"_s);
    conda->addWidget(titled(tr("C&hannels, highest priority first"), m_channels, conda));
    conda->addWidget(titled(tr("Con&da dependencies"), m_conda, conda));
    conda->setStretchFactor(0, 1);
    conda->setStretchFactor(1, 3);
    conda->setSizes({200, 600});

    auto *pipPage = new QWidget(this);
    auto *pipLayout = new QVBoxLayout(pipPage);
    pipLayout->addWidget(m_pip, 1);

    auto *optionsPage = new QWidget(this);
    auto *options = new QFormLayout;
    options->addRow(tr("&Index URL:"), indexUrl);
    options->addRow(tr("E&xtra index URLs:"), extraIndex);
    options->addRow(tr("&Find links:"), findLinks);
    options->addRow(tr("&Trusted hosts:"), trusted);
    options->addRow(QString(), pre);
    options->addRow(QString(), noIndex);
    options->addRow(tr("De&v tools:"), devTools);
    auto *optionsLayout = new QVBoxLayout(optionsPage);
    optionsLayout->addLayout(options);
    optionsLayout->addWidget(titled(tr("Constraints (-c): versions pinned if installed at all"), m_constraints, this),
                             1);

    m_tabs->setObjectName(u"pythonTabs"_s);
    m_tabs->addTab(conda, tr("Conda"));
    m_tabs->addTab(pipPage, tr("Pip"));
    m_tabs->addTab(optionsPage, tr("Pip options"));

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_tabs, 1);
}

} // namespace ferry::ui
