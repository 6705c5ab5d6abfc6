#include "ui/window/emptystatewidget.h"

#include "ui/resources/resources.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSvgWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

EmptyStateWidget::EmptyStateWidget(QWidget *parent)
    : QWidget(parent), m_heading(new QLabel(this)), m_body(new QLabel(this)),
      m_open(new QPushButton(tr("Open Workspace…"), this)), m_new(new QPushButton(tr("New Workspace…"), this)),
      m_example(new QPushButton(tr("Open the Example"), this))
{
    initResources();
    setObjectName(u"emptyState"_s);
    auto *icon = new QSvgWidget(u":/icons/ferry.svg"_s, this);
    icon->setFixedSize(96, 96);

    QFont headingFont = m_heading->font();
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.6);
    headingFont.setBold(true);
    m_heading->setFont(headingFont);
    m_heading->setAlignment(Qt::AlignCenter);
    m_body->setObjectName(u"emptyStateBody"_s);
    m_body->setAlignment(Qt::AlignCenter);
    m_body->setWordWrap(true);
    // A fixed width lets the wrapped label report its true height inside the layout.
    m_body->setFixedWidth(520);
    m_body->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch();
    buttons->addWidget(m_open);
    buttons->addWidget(m_new);
    buttons->addWidget(m_example);
    buttons->addStretch();
    m_example->setObjectName(u"openExample"_s);
    m_example->setToolTip(tr("A workspace with a dataset, a training script and an environment: "
                             "your first embedded run and first script run are one click each"));

    auto *layout = new QVBoxLayout(this);
    layout->addStretch();
    layout->addWidget(icon, 0, Qt::AlignHCenter);
    layout->addSpacing(12);
    layout->addWidget(m_heading);
    // Centred with stretches, not an alignment flag: an aligned layout item ignores the
    // label's height-for-width, and the wrapped text was cut after two lines.
    auto *bodyRow = new QHBoxLayout;
    bodyRow->addStretch();
    bodyRow->addWidget(m_body);
    bodyRow->addStretch();
    layout->addLayout(bodyRow);
    layout->addSpacing(12);
    layout->addLayout(buttons);
    layout->addStretch();

    connect(m_open, &QPushButton::clicked, this, &EmptyStateWidget::openWorkspaceRequested);
    connect(m_new, &QPushButton::clicked, this, &EmptyStateWidget::newWorkspaceRequested);
    connect(m_example, &QPushButton::clicked, this, &EmptyStateWidget::exampleRequested);
    setWorkspace({}, {});
}

void EmptyStateWidget::setWorkspace(const QString &name, const QString &path)
{
    if (name.isEmpty()) {
        m_heading->setText(tr("Start with a workspace"));
        m_body->setText(tr("A workspace is a folder for one project: your training scripts, "
                           "environments/ with the Python and Docker setup, and the runs Ferry keeps "
                           "in .ferry/. Open the folder where your training script lives, or create a "
                           "new one."));
        m_open->setVisible(true);
        m_new->setVisible(true);
        m_example->setVisible(true);
        return;
    }
    m_heading->setText(tr("Workspace “%1” is open").arg(name));
    m_body->setText(tr("%1\n\nIts files are listed in the Workspace panel. Put your training script "
                       "and data here, and environment files in environments/. Ferry keeps every "
                       "run, its log and its model in .ferry/runs/.")
                        .arg(path));
    m_open->setVisible(false);
    m_new->setVisible(false);
    m_example->setVisible(false);
}

QString EmptyStateWidget::heading() const
{
    return m_heading->text();
}

QString EmptyStateWidget::body() const
{
    return m_body->text();
}

} // namespace ferry::ui
