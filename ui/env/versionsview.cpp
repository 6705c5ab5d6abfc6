#include "ui/env/versionsview.h"

#include "env/environmentdiff.h"
#include "env/environmentversions.h"
#include "env/formats.h"
#include "ui/env/environmentchangeitem.h"
#include "ui/env/environmentdocument.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
constexpr int kPathRole = Qt::UserRole;
}

VersionsView::VersionsView(EnvironmentDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_left(new QComboBox(this)), m_right(new QComboBox(this)),
      m_summary(new QLabel(this)), m_diff(new QTreeWidget(this))
{
    setObjectName(u"versionsView"_s);
    m_left->setObjectName(u"leftVersion"_s);
    m_right->setObjectName(u"rightVersion"_s);
    m_summary->setObjectName(u"versionsSummary"_s);
    m_diff->setObjectName(u"versionsDiff"_s);
    m_diff->setRootIsDecorated(false);
    m_diff->setAlternatingRowColors(false);
    m_diff->setHeaderLabels({tr("Section"), tr("What"), tr("Change"), tr("Left"), tr("Right")});
    m_diff->header()->setStretchLastSection(true);
    m_diff->setColumnWidth(0, 90);
    m_diff->setColumnWidth(1, 140);
    m_diff->setColumnWidth(2, 70);
    m_diff->setColumnWidth(3, 220);
    m_diff->setWordWrap(true);

    connect(m_left, &QComboBox::currentIndexChanged, this, &VersionsView::showDiff);
    connect(m_right, &QComboBox::currentIndexChanged, this, &VersionsView::showDiff);
    // The edit is always the right-hand side's last entry: follow it (after a pause).
    auto *later = new QTimer(this);
    later->setSingleShot(true);
    later->setInterval(200);
    connect(later, &QTimer::timeout, this, &VersionsView::showDiff);
    connect(document, &EnvironmentDocument::changed, later, qOverload<>(&QTimer::start));
    connect(document, &EnvironmentDocument::pathChanged, this, &VersionsView::refresh);

    auto *choose = new QHBoxLayout;
    choose->addWidget(new QLabel(tr("Compare"), this));
    choose->addWidget(m_left, 1);
    choose->addWidget(new QLabel(tr("with"), this));
    choose->addWidget(m_right, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(choose);
    layout->addWidget(m_summary);
    layout->addWidget(m_diff, 1);
    refresh();
}

void VersionsView::refresh()
{
    const QSignalBlocker blockLeft(m_left);
    const QSignalBlocker blockRight(m_right);
    m_left->clear();
    m_right->clear();
    const QString file = m_document->path();
    if (!file.isEmpty()) {
        for (const env::StoredVersion &v : env::storedVersions(file)) {
            m_left->addItem(tr("version %1").arg(v.version), v.path);
            m_right->addItem(tr("version %1").arg(v.version), v.path);
        }
        if (m_document->existsOnDisk()) {
            m_left->addItem(tr("saved (version %1)").arg(m_document->environment().version), file);
            m_right->addItem(tr("saved (version %1)").arg(m_document->environment().version), file);
        }
    }
    m_left->addItem(tr("being edited"), QString());
    m_right->addItem(tr("being edited"), QString());
    // Newest change first: the last stored version against the edit (or the saved file).
    m_right->setCurrentIndex(m_right->count() - 1);
    m_left->setCurrentIndex(std::max(0, m_left->count() - (m_document->isDirty() ? 2 : 3)));
    showDiff();
}

void VersionsView::compare(int left, int right)
{
    m_left->setCurrentIndex(left);
    m_right->setCurrentIndex(right);
    showDiff();
}

env::Environment VersionsView::environmentAt(int index) const
{
    const QString path = m_left->itemData(index, kPathRole).toString();
    if (path.isEmpty())
        return m_document->environment();
    return env::readEnvironment(path).environment;
}

void VersionsView::showDiff()
{
    m_diff->clear();
    if (m_left->currentIndex() < 0 || m_right->currentIndex() < 0)
        return;
    const QList<env::EnvironmentChange> changes =
        env::diffEnvironments(environmentAt(m_left->currentIndex()), environmentAt(m_right->currentIndex()));
    m_diff->setHeaderLabels({tr("Section"), tr("What"), tr("Change"), m_left->currentText(), m_right->currentText()});
    int added = 0;
    int removed = 0;
    int changed = 0;
    for (const env::EnvironmentChange &c : changes) {
        m_diff->addTopLevelItem(environmentChangeItem(c));
        added += c.kind == env::EnvironmentChange::Kind::Added ? 1 : 0;
        removed += c.kind == env::EnvironmentChange::Kind::Removed ? 1 : 0;
        changed += c.kind == env::EnvironmentChange::Kind::Changed ? 1 : 0;
    }
    m_summary->setText(changes.isEmpty() ? tr("No differences.")
                                         : tr("%1 added, %2 removed, %3 changed").arg(added).arg(removed).arg(changed));
}

} // namespace ferry::ui
