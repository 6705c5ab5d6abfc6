#include "ui/problems/problemspanel.h"

#include "ui/problems/problemsmodel.h"

#include <QHBoxLayout>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

ProblemsPanel::ProblemsPanel(QWidget *parent)
    : QWidget(parent), m_model(new ProblemsModel(this)), m_list(new QListView(this))
{
    setObjectName(u"problemsPanel"_s);
    m_list->setObjectName(u"problemsList"_s);
    m_list->setModel(m_model);
    m_list->setWordWrap(true);
    m_list->setAlternatingRowColors(true);
    m_list->setUniformItemSizes(false);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(m_list, &QListView::activated, this, [this](const QModelIndex &index) { activated(index.row()); });
    auto *openButton = new QPushButton(tr("Open at Line"), this);
    openButton->setObjectName(u"openProblem"_s);
    openButton->setEnabled(false);
    connect(openButton, &QPushButton::clicked, this, [this] { activated(m_list->currentIndex().row()); });
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this, openButton](const QModelIndex &current) {
                openButton->setEnabled(current.isValid() &&
                                       !m_model->data(current, ProblemsModel::PathRole).toString().isEmpty());
            });
    auto *clearButton = new QPushButton(tr("Clear"), this);
    connect(clearButton, &QPushButton::clicked, this, &ProblemsPanel::clear);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(openButton);
    buttons->addWidget(clearButton);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);
    const auto changed = [this] { Q_EMIT countChanged(count()); };
    connect(m_model, &QAbstractItemModel::rowsInserted, this, changed);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, changed);
    connect(m_model, &QAbstractItemModel::modelReset, this, changed);
}

int ProblemsPanel::count() const
{
    return m_model->rowCount();
}

QString ProblemsPanel::text(int row) const
{
    return row >= 0 && row < count() ? problemLine(m_model->problem(row)) : QString();
}

void ProblemsPanel::report(const QString &source, const Error &error, Diagnostic::Severity severity)
{
    m_model->report(source, Diagnostic{severity, error});
}

void ProblemsPanel::add(const QString &message)
{
    m_model->report({}, Diagnostic{Diagnostic::Severity::Error, Error{message, {}, 0, 0, {}}});
}

void ProblemsPanel::setProblems(const QString &source, const Diagnostics &findings)
{
    m_model->setProblems(source, findings);
}

void ProblemsPanel::clear()
{
    m_model->clear();
}

void ProblemsPanel::activated(int row)
{
    if (row < 0 || row >= count())
        return;
    const Error &where = m_model->problem(row).finding.where;
    if (!where.path.isEmpty())
        Q_EMIT openRequested(where.path, where.line);
}

} // namespace ferry::ui
