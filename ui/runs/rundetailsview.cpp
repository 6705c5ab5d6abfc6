#include "ui/runs/rundetailsview.h"

#include "metrics/terminaltext.h"
#include "run/contract.h"
#include "run/logtail.h"
#include "run/rundirectory.h"
#include "targets/containertarget.h"

#include <QDateTime>
#include <QDesktopServices>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QThread>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QTableWidget *twoColumnTable(const QString &first, const QString &second, QWidget *parent)
{
    auto *table = new QTableWidget(0, 2, parent);
    table->setHorizontalHeaderLabels({first, second});
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setWordWrap(false);
    table->setAlternatingRowColors(true);
    return table;
}

// Names and values as the log view and the command line show them: no control character of a
// run's (an imported one's) shows as a raw glyph or box (review 2026-12-06 L3).
void fill(QTableWidget *table, const QList<std::pair<QString, QString>> &rows)
{
    table->setRowCount(static_cast<int>(rows.size()));
    for (int i = 0; i < rows.size(); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(run::terminalLines(rows.at(i).first)));
        const QString shown = run::terminalLines(rows.at(i).second);
        auto *value = new QTableWidgetItem(shown);
        value->setToolTip(shown);
        table->setItem(i, 1, value);
    }
    table->resizeColumnToContents(0);
}

QString timeText(qint64 ms)
{
    if (ms <= 0)
        return u"—"_s;
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(ms).toLocalTime(), u"yyyy-MM-dd HH:mm:ss"_s);
}

} // namespace

RunDetailsView::RunDetailsView(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_id(new QLabel(this)), m_info(new QLabel(this)),
      m_live(new QLabel(this)), m_error(new QLabel(this)), m_failureLog(new QPlainTextEdit(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_reattach(new QPushButton(tr("Re-attach"), this)),
      m_rerun(new QPushButton(tr("Re-run with changes…"), this)), m_delete(new QPushButton(tr("Delete"), this)),
      m_export(new QPushButton(tr("Export for the Cloud…"), this)), m_tabs(new QTabWidget(this)),
      m_params(twoColumnTable(tr("Parameter"), tr("Value"), this)),
      m_contract(twoColumnTable(tr("Variable"), tr("Value"), this)), m_artifacts(new QTreeWidget(this)),
      m_openFolder(new QPushButton(tr("Open folder"), this)),
      m_revealModel(new QPushButton(tr("Reveal model.tar.gz"), this)), m_tags(new QLineEdit(this)),
      m_note(new QPlainTextEdit(this)), m_saveNotes(new QPushButton(tr("Save"), this)), m_notesError(new QLabel(this))
{
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    m_title->setFont(titleFont);
    // Every label wraps: a long line (an image tag, a path) would otherwise make the dock as wide
    // as itself, and squeeze the chart's controls beside it (review 2026-12-06, finding 8).
    m_live->setObjectName(u"runLive"_s);
    for (QLabel *label : {m_title, m_id, m_info, m_live, m_error}) {
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setMinimumWidth(1);
    }
    m_error->setObjectName(u"runError"_s);
    m_error->setStyleSheet(u"color: #c62828;"_s);
    m_failureLog->setObjectName(u"failureLog"_s);
    m_failureLog->setReadOnly(true);
    m_failureLog->setLineWrapMode(QPlainTextEdit::WidgetWidth); // the error's end in view, not beyond the edge
    m_failureLog->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_failureLog->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_failureLog->setFixedHeight(m_failureLog->fontMetrics().lineSpacing() * 7 + 12);
    m_failureLog->setToolTip(tr("The last lines of the run's log; the Log tab has all of it"));

    m_cancel->setObjectName(u"cancel"_s);
    m_reattach->setObjectName(u"reattach"_s);
    m_rerun->setObjectName(u"rerun"_s);
    m_delete->setObjectName(u"delete"_s);
    m_export->setObjectName(u"export"_s);
    m_export->setToolTip(tr("Write this run as an AzureML command job or a SageMaker launcher"));
    m_openFolder->setObjectName(u"openFolder"_s);
    m_revealModel->setObjectName(u"revealModel"_s);
    m_cancel->setToolTip(tr("Stop the script and everything it started"));
    m_reattach->setToolTip(tr("Follow the run again: its log and metrics, from where they were left"));
    m_rerun->setToolTip(tr("Start a new run from this run's settings, after changing them"));
    m_delete->setToolTip(tr("Remove the run from the run database"));

    connect(m_cancel, &QPushButton::clicked, this, [this] { Q_EMIT cancelRequested(runId()); });
    connect(m_reattach, &QPushButton::clicked, this, [this] { Q_EMIT reattachRequested(runId()); });
    connect(m_delete, &QPushButton::clicked, this, [this] { Q_EMIT deleteRequested(runId()); });
    m_rerunExactly = new QPushButton(tr("Re-run exactly"), this);
    m_rerunExactly->setObjectName(u"rerunExactly"_s);
    connect(m_rerunExactly, &QPushButton::clicked, this, [this] { Q_EMIT rerunExactlyRequested(runId()); });
    connect(m_rerun, &QPushButton::clicked, this, [this] {
        if (m_spec)
            Q_EMIT rerunRequested(*m_spec);
    });
    connect(m_export, &QPushButton::clicked, this, [this] {
        if (m_spec)
            Q_EMIT exportRequested(*m_spec);
    });
    connect(m_openFolder, &QPushButton::clicked, this, [this] {
        if (m_details)
            openUrl(QUrl::fromLocalFile(m_details->runDir), tr("the run folder"));
    });
    // Opening the folder that holds the archive; selecting the file would need each file
    // manager's own protocol.
    connect(m_revealModel, &QPushButton::clicked, this, [this] {
        if (m_details)
            openUrl(QUrl::fromLocalFile(QFileInfo(run::RunDirectory(m_details->runDir).modelArchive()).absolutePath()),
                    tr("the folder of model.tar.gz"));
    });
    connect(&m_watcher, &QFutureWatcher<std::optional<RunDetails>>::finished, this, &RunDetailsView::loaded);

    m_artifacts->setHeaderLabels({tr("Path"), tr("Kind"), tr("Size")});
    m_artifacts->setRootIsDecorated(false);
    m_artifacts->setAlternatingRowColors(true);

    // Three rows: in fewer, the buttons would make the side dock wider than its minimum, and
    // squeeze the chart beside it (review 2026-12-06, finding 8).
    auto *actions = new QVBoxLayout;
    for (const QList<QPushButton *> &row :
         QList<QList<QPushButton *>>{{m_cancel, m_reattach, m_delete}, {m_rerunExactly, m_rerun}, {m_export}}) {
        auto *line = new QHBoxLayout;
        for (QPushButton *button : row)
            line->addWidget(button);
        line->addStretch(1);
        actions->addLayout(line);
    }

    auto *artifactsPage = new QWidget(this);
    auto *artifactsLayout = new QVBoxLayout(artifactsPage);
    artifactsLayout->addWidget(m_artifacts, 1);
    auto *artifactButtons = new QHBoxLayout;
    artifactButtons->addWidget(m_openFolder);
    artifactButtons->addWidget(m_revealModel);
    artifactButtons->addStretch(1);
    artifactsLayout->addLayout(artifactButtons);

    auto *contractPage = new QWidget(this);
    auto *contractLayout = new QVBoxLayout(contractPage);
    auto *contractNote = new QLabel(tr("As given to a local process (no GPUs, this machine's CPUs); "
                                       "containers see the same names under /opt/ml."),
                                    contractPage);
    contractNote->setWordWrap(true);
    contractLayout->addWidget(contractNote);
    contractLayout->addWidget(m_contract, 1);

    m_tabs->addTab(m_params, tr("Parameters"));
    m_tabs->addTab(contractPage, tr("Contract variables"));
    m_tabs->addTab(artifactsPage, tr("Artifacts"));
    m_tabs->addTab(notesPage(), tr("Tags and note"));

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_id);
    layout->addWidget(m_info);
    layout->addWidget(m_live);
    layout->addWidget(m_error);
    layout->addWidget(m_failureLog);
    layout->addLayout(actions);
    layout->addWidget(m_tabs, 1);
    clear();
}

RunDetailsView::~RunDetailsView()
{
    m_watcher.waitForFinished();
}

void RunDetailsView::setStore(run::RunStore *store, const QString &workspaceDir)
{
    m_watcher.waitForFinished();
    m_store = store;
    m_workspace = workspaceDir;
    clear();
}

std::optional<RunDetails> RunDetailsView::load(const run::RunStore &store, const QString &workspaceDir,
                                               const QString &runId)
{
    std::optional<run::RunRecord> record = store.run(runId);
    if (!record)
        return std::nullopt;
    RunDetails d;
    d.record = std::move(*record);
    d.params = store.params(runId);
    d.artifacts = store.artifacts(runId);
    d.runDir = run::RunDirectory::pathFor(workspaceDir, runId);
    d.runDirExists = QFileInfo(d.runDir).isDir();
    d.modelArchiveExists = QFileInfo(run::RunDirectory(d.runDir).modelArchive()).isFile();
    d.host = run::readHostFacts(d.runDir);
    d.imageId = targets::ContainerTarget::readRecord(d.runDir).value(u"imageId"_s).toString();
    if (d.record.status == run::RunStatus::Failed || d.record.status == run::RunStatus::Lost)
        d.logTail = run::lastLogLines(run::RunDirectory(d.runDir).logFile(), kFailureLogLines);
    return d;
}

QList<std::pair<QString, QString>> RunDetailsView::localContract(const run::RunSpec &spec, const QString &runDir)
{
    run::Resources resources;
    resources.gpus = 0;
    resources.cpus = std::max(1, QThread::idealThreadCount());
    return run::contractEnvironment(spec, run::localContractPaths(runDir, spec), resources);
}

void RunDetailsView::showRun(const QString &id)
{
    if (id.isEmpty() || !m_store) {
        m_requested.clear();
        clear();
        return;
    }
    m_requested = id;
    if (m_watcher.isRunning()) {
        m_readAgain = true; // the newest request is read when this one is done
        return;
    }
    m_readAgain = false;
    run::RunStore *store = m_store;
    const QString workspace = m_workspace;
    m_watcher.setFuture(QtConcurrent::run([store, workspace, id] { return load(*store, workspace, id); }));
}

void RunDetailsView::loaded()
{
    std::optional<RunDetails> details = m_watcher.result();
    if (m_readAgain || !details || details->record.id != m_requested) {
        if (m_readAgain) {
            showRun(m_requested);
            return;
        }
        if (!details && !m_requested.isEmpty()) {
            m_requested.clear();
            clear();
        }
        return;
    }
    setDetails(*details);
}

void RunDetailsView::showTitle()
{
    if (!m_details)
        return;
    const run::RunRecord &r = m_details->record;
    // The name the runs table and the legends give it ("train lr=0.03 seed=2").
    const QString name = m_names.value(r.id, r.name.isEmpty() ? r.id : r.name);
    m_title->setText(run::terminalLines(u"%1 — %2"_s.arg(name, run::runStatusLabel(r))));
}

void RunDetailsView::setRunsModel(const RunsModel *model)
{
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    if (model) {
        connect(model, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex &from, const QModelIndex &to) {
            if (!m_details || !m_model)
                return;
            const int row = m_model->rowOf(m_details->record.id);
            if (row >= from.row() && row <= to.row())
                showLive();
        });
    }
    showLive();
}

// "Progress: 25.0 % (50/200 steps), ETA 41s" and, on a line of its own (a narrow panel would break it
// mid-phrase), "Cost so far: 0.0123 USD (3.60 USD/h at local: set by you)".
void RunDetailsView::showLive()
{
    QStringList parts;
    if (m_details && m_model) {
        const int row = m_model->rowOf(m_details->record.id);
        const run::RunRecord &r = row >= 0 ? m_model->rows().at(row).record : m_details->record;
        if (const auto p = m_model->progress(r.id)) {
            QString text = tr("Progress: %1").arg(p->text());
            if (p->etaSeconds)
                text += tr(", ETA %1").arg(RunsModel::durationText(qint64(*p->etaSeconds * 1000)));
            parts << text;
        }
        if (const QString cost = m_model->costText(r); !cost.isEmpty()) {
            const QString rate =
                m_model->index(std::max(row, 0), RunsModel::CostColumn).data(Qt::ToolTipRole).toString();
            parts << (run::isFinished(r.status) ? tr("Cost: %1") : tr("Cost so far: %1")).arg(cost) +
                         (row >= 0 && !rate.isEmpty() ? u" ("_s + rate + u')' : QString());
        }
    }
    m_live->setText(parts.join(u'\n'));
    m_live->setVisible(!parts.isEmpty());
}

void RunDetailsView::runsUpdated(const QList<RunRow> &rows)
{
    m_names.clear();
    for (const RunRow &row : rows)
        m_names.insert(row.record.id, row.shownName());
    if (!m_details)
        return;
    showTitle();
    for (const RunRow &row : rows) {
        if (row.record.id == m_details->record.id) {
            if (!(row.record == m_details->record) && !m_watcher.isRunning())
                showRun(row.record.id);
            return;
        }
    }
    clear(); // the run left the store
}

void RunDetailsView::clear()
{
    m_details.reset();
    m_spec.reset();
    m_title->setText(tr("No run selected"));
    m_id->clear();
    m_info->clear();
    m_live->clear();
    m_live->hide();
    m_error->clear();
    m_error->hide();
    m_failureLog->clear();
    m_failureLog->hide();
    m_params->setRowCount(0);
    m_contract->setRowCount(0);
    m_artifacts->clear();
    m_notesOf.clear();
    m_tags->clear();
    m_note->clear();
    m_notesError->hide();
    updateActions();
    Q_EMIT detailsShown(QString());
}

void RunDetailsView::setDetails(const RunDetails &details)
{
    m_details = details;
    m_requested = details.record.id;
    const run::RunRecord &r = details.record;
    auto spec = run::RunSpec::fromJson(r.spec);
    m_spec.reset();
    if (spec)
        m_spec = *spec;

    showTitle();
    m_id->setText(r.id);

    QStringList info;
    info << tr("Target: %1").arg(r.target.isEmpty() ? u"—"_s : r.target);
    if (!r.environmentTag.isEmpty())
        info << tr("Environment: %1").arg(r.environmentTag);
    if (m_spec) {
        if (m_spec->target.kind == run::TargetKind::Embedded)
            info << tr("Data: %1").arg(m_spec->channels.isEmpty() ? u"—"_s : m_spec->channels.constFirst().path);
        else
            info << tr("Script: %1").arg(m_spec->script);
        // What it ran (docs/snapshots.md): the code kept, where it stood in git, what it reproduces.
        if (const auto &s = m_spec->snapshot; s && !s->error.isEmpty())
            info << tr("Code: no snapshot (%1)").arg(s->error);
        else if (s)
            info << (s->files == 1 ? tr("Code: snapshot %1, 1 file").arg(s->tree.left(12))
                                   : tr("Code: snapshot %1, %2 files").arg(s->tree.left(12)).arg(s->files));
        if (const auto &s = m_spec->snapshot; s && s->git.repository)
            info << tr("Git: %1%2%3")
                        .arg(s->git.commit.left(12),
                             s->git.branch.isEmpty() ? QString() : tr(" on %1").arg(s->git.branch),
                             s->git.dirty ? tr(", with uncommitted changes") : QString());
        if (!m_spec->rerunOf.isEmpty())
            info << tr("Rerun of: %1").arg(m_spec->rerunOf);
        // What it read and where (docs/snapshots.md): each channel's data, the host, the image.
        for (const snapshot::DataFingerprint &d : m_spec->data)
            info << (d.error.isEmpty() ? tr("Data %1: %2, %3, %4")
                                             .arg(d.channel, d.files == 1 ? tr("1 file") : tr("%1 files").arg(d.files),
                                                  QLocale().formattedDataSize(d.bytes), d.fingerprint.left(16))
                                       : tr("Data %1: %2").arg(d.channel, d.error));
    }
    if (details.host)
        info << tr("Host: %1").arg(details.host->summary());
    if (!details.imageId.isEmpty())
        info << tr("Image: %1").arg(details.imageId.left(19));
    if (m_spec) {
        if (m_spec->sweep.size())
            info << tr("Sweep: %1, trial %2").arg(m_spec->sweep).arg(m_spec->trial);
    }
    info << tr("Started: %1    Finished: %2").arg(timeText(r.startedMs), timeText(r.finishedMs));
    if (r.exitCode)
        info << tr("Exit code: %1").arg(*r.exitCode);
    // What the run says of itself (an imported run's came from elsewhere), shown as the log is.
    m_info->setText(run::terminalLines(info.join(u'\n')));
    showLive();
    // A failed run says why: its error, else its exit code, and the last lines it wrote (argparse's
    // complaint, the traceback), not only "Exit code: 2" (review 2026-12-06, finding 8).
    QString error = run::terminalLines(r.error);
    if (error.isEmpty() && r.status == run::RunStatus::Failed)
        error = r.exitCode ? tr("The script ended with exit code %1.").arg(*r.exitCode) : tr("The run failed.");
    if (!details.logTail.isEmpty())
        error += (error.isEmpty() ? QString() : u" "_s) + tr("The last lines of its log:");
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    m_failureLog->setPlainText(details.logTail);
    m_failureLog->setVisible(!details.logTail.isEmpty());
    if (!details.logTail.isEmpty())
        m_failureLog->verticalScrollBar()->setValue(m_failureLog->verticalScrollBar()->maximum());

    // The stored parameters are what the run was given; older records only have them in the spec.
    QList<std::pair<QString, QString>> params;
    const QList<run::Hyperparameter> &source =
        details.params.isEmpty() && m_spec ? m_spec->hyperparameters : details.params;
    for (const run::Hyperparameter &hp : source)
        params.append({hp.name, hp.value});
    fill(m_params, params);
    fill(m_contract, m_spec ? localContract(*m_spec, details.runDir) : QList<std::pair<QString, QString>>{});

    m_artifacts->clear();
    for (const run::Artifact &a : details.artifacts) {
        auto *item = new QTreeWidgetItem(m_artifacts, {a.path, a.kind, QLocale().formattedDataSize(a.size)});
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
    }
    m_artifacts->resizeColumnToContents(0);
    showNotes(r);
    updateActions();
    Q_EMIT detailsShown(r.id);
}

void RunDetailsView::updateActions()
{
    const bool shown = m_details.has_value();
    const run::RunStatus status = shown ? m_details->record.status : run::RunStatus::Created;
    const bool embedded = shown && m_details->record.target == u"embedded"_s;
    const bool active = shown && !run::isFinished(status);
    m_cancel->setEnabled(active);
    // An embedded run lives in the process that started it: nothing to re-attach to.
    m_reattach->setEnabled(shown && !embedded && (active || status == run::RunStatus::Lost));
    m_rerun->setEnabled(m_spec.has_value());
    m_rerun->setToolTip(shown && !m_spec ? tr("This run's stored settings cannot be read")
                                         : tr("Start a new run from this run's settings, after changing them"));
    const bool kept = m_spec && m_spec->snapshot && !m_spec->snapshot->tree.isEmpty();
    m_rerunExactly->setEnabled(kept || (m_spec && embedded));
    m_rerunExactly->setToolTip(embedded ? tr("Train again with this run's settings, seed and data")
                               : kept   ? tr("Start this run again with the code of its snapshot, its parameters, "
                                               "target and environment")
                                        : tr("This run kept no snapshot of its code"));
    m_delete->setEnabled(shown && run::isFinished(status));
    // A script run can be handed to the cloud; the embedded trainer's runs have no script.
    m_export->setEnabled(m_spec.has_value() && !embedded);
    m_openFolder->setEnabled(shown && m_details->runDirExists);
    m_revealModel->setEnabled(shown && m_details->modelArchiveExists);
    m_tags->setEnabled(shown && m_store);
    m_note->setEnabled(shown && m_store);
}

QWidget *RunDetailsView::notesPage()
{
    m_tags->setObjectName(u"tags"_s);
    m_tags->setPlaceholderText(tr("baseline paper/fig3"));
    m_tags->setToolTip(tr("Words to find the run by (tag = baseline in the runs filter), separated by spaces"));
    m_note->setObjectName(u"note"_s);
    m_note->setPlaceholderText(tr("What this run was for, what came of it"));
    m_saveNotes->setObjectName(u"saveNotes"_s);
    m_saveNotes->setEnabled(false);
    m_notesError->setStyleSheet(u"color: #c62828;"_s);
    m_notesError->setWordWrap(true);
    m_notesError->hide();
    const auto edited = [this] { m_saveNotes->setEnabled(m_details && m_store); };
    connect(m_tags, &QLineEdit::textEdited, this, edited);
    connect(m_note, &QPlainTextEdit::textChanged, this, [this, edited] {
        if (m_note->document()->isModified()) // typed, not set by showNotes
            edited();
    });
    connect(m_tags, &QLineEdit::returnPressed, this, &RunDetailsView::saveNotes);
    connect(m_saveNotes, &QPushButton::clicked, this, &RunDetailsView::saveNotes);

    auto *page = new QWidget(this);
    auto *form = new QFormLayout(page);
    form->addRow(tr("Tags:"), m_tags);
    form->addRow(tr("Note:"), m_note);
    form->addRow(m_notesError);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_saveNotes);
    form->addRow(buttons);
    return page;
}

// A run read again (its status changed) keeps what is being typed; another run shows its own.
void RunDetailsView::showNotes(const run::RunRecord &record)
{
    if (record.id == m_notesOf && m_saveNotes->isEnabled())
        return;
    m_notesOf = record.id;
    m_tags->setText(record.tags.join(u' '));
    m_note->setPlainText(record.note);
    m_note->document()->setModified(false);
    m_notesError->hide();
    m_saveNotes->setEnabled(false);
}

void RunDetailsView::saveNotes()
{
    if (!m_details || !m_store || m_notesOf != m_details->record.id)
        return;
    const QStringList tags = m_tags->text().split(u' ', Qt::SkipEmptyParts);
    for (const QString &tag : tags) {
        if (const auto valid = run::RunStore::checkTag(tag); !valid) {
            m_notesError->setText(valid.error().message + u" ("_s + valid.error().hint + u')');
            m_notesError->show();
            return;
        }
    }
    m_notesError->hide();
    m_store->setTags(m_notesOf, tags);
    m_store->setNote(m_notesOf, m_note->toPlainText());
    m_note->document()->setModified(false);
    m_saveNotes->setEnabled(false);
}

void RunDetailsView::openUrl(const QUrl &url, const QString &what)
{
    if (!QDesktopServices::openUrl(url))
        Q_EMIT problem(Error{
            tr("Cannot open %1 (%2): no application to open it with").arg(what, url.toLocalFile()), {}, 0, 0, {}});
}

} // namespace ferry::ui
