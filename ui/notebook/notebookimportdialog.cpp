#include "ui/notebook/notebookimportdialog.h"

#include "common/textfile.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

enum Column { kName, kType, kDefault, kWhere };

} // namespace

NotebookImportDialog::NotebookImportDialog(const QString &notebookPath, const QString &outputPath, QWidget *parent)
    : QDialog(parent), m_path(notebookPath), m_summary(new QLabel(tr("Reading %1…").arg(notebookPath), this)),
      m_hyperparameters(new QTableWidget(0, 4, this)), m_ipython(new QListWidget(this)),
      m_preview(new QPlainTextEdit(this)), m_output(new QLineEdit(outputPath, this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Import Notebook %1").arg(QFileInfo(notebookPath).fileName()));
    m_summary->setWordWrap(true);
    m_hyperparameters->setHorizontalHeaderLabels({tr("Hyperparameter"), tr("Type"), tr("Default"), tr("Cell:line")});
    m_hyperparameters->horizontalHeader()->setStretchLastSection(true);
    m_hyperparameters->verticalHeader()->hide();
    m_hyperparameters->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_hyperparameters->setToolTip(tr("Checked constants become --NAME options with the notebook's value as default"));
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setFont(QFont(u"monospace"_s));
    QPushButton *convert = m_buttons->addButton(tr("Convert"), QDialogButtonBox::AcceptRole);
    convert->setEnabled(false);

    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(new QLabel(tr("Hyperparameters (constants of the first code cells):"), top));
    topLayout->addWidget(m_hyperparameters);
    topLayout->addWidget(new QLabel(tr("IPython syntax commented out:"), top));
    topLayout->addWidget(m_ipython);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(m_preview);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(splitter, 1);
    auto *outputRow = new QHBoxLayout;
    outputRow->addWidget(new QLabel(tr("Write to:"), this));
    outputRow->addWidget(m_output, 1);
    layout->addLayout(outputRow);
    layout->addWidget(m_buttons);
    resize(820, 720);

    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (QFileInfo::exists(m_output->text()) &&
            QMessageBox::question(this, tr("Replace File"), tr("%1 exists. Replace it?").arg(m_output->text())) !=
                QMessageBox::Yes)
            return;
        const auto written = write();
        if (!written) {
            QMessageBox::warning(this, tr("Cannot Write the Script"), written.error().toString());
            return;
        }
        accept();
    });
    connect(m_hyperparameters, &QTableWidget::itemChanged, this, [this](QTableWidgetItem *item) {
        if (item->column() == kName)
            refresh();
    });

    // Notebooks with outputs can be large: read and parse them on a worker thread.
    using Result = std::shared_ptr<Expected<notebook::Notebook>>;
    auto *watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher] {
        notebookRead(*watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run([path = notebookPath] {
        return std::make_shared<Expected<notebook::Notebook>>(notebook::readNotebook(path));
    }));
}

NotebookImportDialog::~NotebookImportDialog() = default;

QString NotebookImportDialog::defaultOutputPath(const QString &notebookPath, const QString &workspaceRoot)
{
    const QFileInfo info(notebookPath);
    const QString folder = workspaceRoot.isEmpty() ? info.absolutePath() : workspaceRoot;
    return QDir(folder).filePath(info.completeBaseName() + u".py"_s);
}

void NotebookImportDialog::notebookRead(const Expected<notebook::Notebook> &result)
{
    const Expected<void> usable = result ? notebook::checkPythonNotebook(*result) : Expected<void>(result.error());
    if (!usable) {
        m_summary->setText(usable.error().toString());
        Q_EMIT failed(usable.error());
        return;
    }
    m_notebook = std::make_unique<notebook::Notebook>(*result);
    const notebook::Conversion conversion = notebook::convertNotebook(*m_notebook, options());
    const QSignalBlocker blocker(m_hyperparameters);
    m_hyperparameters->setRowCount(static_cast<int>(conversion.hyperparameters.size()));
    for (int row = 0; row < conversion.hyperparameters.size(); ++row) {
        const notebook::Hyperparameter &hp = conversion.hyperparameters[row];
        auto *name = new QTableWidgetItem(hp.name);
        name->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
        name->setCheckState(Qt::Checked);
        m_hyperparameters->setItem(row, kName, name);
        m_hyperparameters->setItem(row, kType, new QTableWidgetItem(hp.type));
        m_hyperparameters->setItem(row, kDefault, new QTableWidgetItem(hp.value));
        m_hyperparameters->setItem(row, kWhere, new QTableWidgetItem(u"%1:%2"_s.arg(hp.cell + 1).arg(hp.line + 1)));
    }
    m_hyperparameters->resizeColumnsToContents();
    for (const notebook::IPythonLine &line : conversion.ipython)
        m_ipython->addItem(tr("cell %1, line %2: %3 (%4)")
                               .arg(line.cell + 1)
                               .arg(line.line + 1)
                               .arg(line.text.section(u'\n', 0, 0), line.kind));
    if (conversion.ipython.isEmpty())
        m_ipython->addItem(tr("none"));
    m_summary->setText(tr("%1: %2 code cells and %3 markdown cells become a percent-format script (# %% cells); "
                          "checked constants become --NAME options, plus --model-dir and the data channels.")
                           .arg(QFileInfo(m_path).fileName())
                           .arg(conversion.codeCells)
                           .arg(conversion.markdownCells));
    m_preview->setPlainText(conversion.script);
    for (QAbstractButton *button : m_buttons->buttons()) {
        if (m_buttons->buttonRole(button) == QDialogButtonBox::AcceptRole)
            button->setEnabled(true);
    }
    Q_EMIT ready();
}

notebook::ConversionOptions NotebookImportDialog::options() const
{
    notebook::ConversionOptions result;
    result.sourceName = QFileInfo(m_path).fileName();
    for (int row = 0; row < m_hyperparameters->rowCount(); ++row) {
        const QTableWidgetItem *item = m_hyperparameters->item(row, kName);
        if (item && item->checkState() != Qt::Checked)
            result.skipped << item->text();
    }
    return result;
}

void NotebookImportDialog::refresh()
{
    if (m_notebook)
        m_preview->setPlainText(notebook::convertNotebook(*m_notebook, options()).script);
}

QString NotebookImportDialog::outputPath() const
{
    return m_output->text().trimmed();
}

QString NotebookImportDialog::scriptText() const
{
    return m_notebook ? notebook::convertNotebook(*m_notebook, options()).script : QString();
}

Expected<QString> NotebookImportDialog::write()
{
    if (!m_notebook) {
        Error error;
        error.path = m_path;
        error.message = u"the notebook has not been read"_s;
        return error;
    }
    const QString path = outputPath();
    const auto written = writeTextFileAtomically(path, scriptText());
    if (!written)
        return written.error();
    return path;
}

} // namespace ferry::ui
