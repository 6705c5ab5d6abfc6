#include "ui/window/aboutdialog.h"

#include "ferry/version.h"

#include <QClipboard>
#include <QDialogButtonBox>
#include <QGuiApplication>
#include <QLabel>
#include <QPushButton>
#include <QSysInfo>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

QString AboutDialog::versions()
{
    const QString torch = QString::fromLatin1(kLibtorchVersion);
    return QStringList{
        u"Ferry %1"_s.arg(QString::fromLatin1(kVersion)),
        u"Qt %1 (built with %2)"_s.arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)),
        torch.isEmpty() ? u"libtorch: none (built without the embedded trainer)"_s
                        : u"libtorch %1 (loaded on the first training)"_s.arg(torch),
        u"%1, %2"_s.arg(QSysInfo::prettyProductName(), QSysInfo::currentCpuArchitecture()),
    }
        .join(u'\n');
}

AboutDialog::AboutDialog(QWidget *parent) : QDialog(parent)
{
    setWindowTitle(tr("About Ferry"));
    auto *layout = new QVBoxLayout(this);
    auto *text = new QLabel(tr("<h3>Ferry</h3>"
                               "<p>A desktop ML workbench: environments edited visually, training runs on "
                               "this machine, in a container, over SSH or on Slurm, and live loss charts.</p>"),
                            this);
    text->setWordWrap(true);
    layout->addWidget(text);
    auto *versionList = new QLabel(versions(), this);
    versionList->setObjectName(u"versions"_s);
    versionList->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(versionList);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *copy = buttons->addButton(tr("Copy Versions"), QDialogButtonBox::ActionRole);
    copy->setObjectName(u"copyVersions"_s);
    connect(copy, &QPushButton::clicked, this, [] { QGuiApplication::clipboard()->setText(versions()); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

} // namespace ferry::ui
