#include "ui/env/environmentpreview.h"

#include "env/formats.h"
#include "env/spechash.h"
#include "ui/env/environmentdocument.h"

#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using namespace Qt::StringLiterals;

namespace ferry::ui {

PreviewTexts generatePreview(const env::Environment &environment, const QString &baseDir)
{
    PreviewTexts t;
    auto main = [&](env::Format format, QString &into, const QString &fileName) {
        const env::Export exported = env::exportEnvironment(environment, format, baseDir);
        for (const env::GeneratedFile &file : exported.files)
            if (file.name == fileName) {
                into = file.text;
                break;
            }
        QStringList notes;
        for (const env::Diagnostic &d : exported.diagnostics)
            notes << d.where.message;
        notes.removeDuplicates();
        t.notes << notes;
    };
    main(env::Format::Conda, t.conda, u"environment.yml"_s);
    main(env::Format::Pip, t.pip, u"requirements.txt"_s);
    main(env::Format::Dockerfile, t.dockerfile, u"Dockerfile"_s);
    main(env::Format::Devcontainer, t.devcontainer, u"devcontainer.json"_s);
    t.hash = env::specHash(environment);
    t.tag = env::imageTag(environment);
    t.image = env::imageReference(environment);
    return t;
}

namespace {

QPlainTextEdit *codeView(QWidget *parent, const QString &name)
{
    auto *view = new QPlainTextEdit(parent);
    view->setObjectName(name);
    view->setReadOnly(true);
    view->setLineWrapMode(QPlainTextEdit::NoWrap);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return view;
}

// Replaces the text, keeping where the user scrolled to.
void showText(QPlainTextEdit *view, const QString &text)
{
    if (view->toPlainText() == text)
        return;
    const int scroll = view->verticalScrollBar()->value();
    view->setPlainText(text);
    view->verticalScrollBar()->setValue(scroll);
}

} // namespace

EnvironmentPreview::EnvironmentPreview(EnvironmentDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_timer(new QTimer(this)), m_tag(new QLineEdit(this)),
      m_hash(new QLineEdit(this)), m_notes(new QLabel(this)), m_tabs(new QTabWidget(this)),
      m_conda(codeView(this, u"previewConda"_s)), m_pip(codeView(this, u"previewPip"_s)),
      m_dockerfile(codeView(this, u"previewDockerfile"_s)), m_devcontainer(codeView(this, u"previewDevcontainer"_s))
{
    setObjectName(u"environmentPreview"_s);
    m_timer->setSingleShot(true);
    m_timer->setInterval(150);
    connect(m_timer, &QTimer::timeout, this, &EnvironmentPreview::start);
    connect(&m_watcher, &QFutureWatcher<PreviewTexts>::finished, this, &EnvironmentPreview::finished);
    connect(document, &EnvironmentDocument::changed, this, &EnvironmentPreview::schedule);

    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    // Both selectable, and scrolled where the preview is narrower than they are: never holding
    // the editor wider than the window.
    for (QLineEdit *field : {m_tag, m_hash}) {
        field->setReadOnly(true);
        field->setFrame(false);
        field->setStyleSheet(u"background: transparent;"_s);
        field->setFont(fixed);
    }
    m_tag->setObjectName(u"imageTag"_s);
    QFont bold = fixed;
    bold.setBold(true);
    m_tag->setFont(bold);
    m_hash->setObjectName(u"specHash"_s);
    m_hash->setToolTip(tr("SHA-256 of the canonical spec: reordering lines never changes it"));
    m_notes->setObjectName(u"previewNotes"_s);
    m_notes->setWordWrap(true);
    m_notes->setStyleSheet(u"color: palette(dark);"_s);

    m_tabs->setObjectName(u"previewTabs"_s);
    m_tabs->addTab(m_conda, u"environment.yml"_s);
    m_tabs->addTab(m_pip, u"requirements.txt"_s);
    m_tabs->addTab(m_dockerfile, u"Dockerfile"_s);
    m_tabs->addTab(m_devcontainer, u"devcontainer.json"_s);
    connect(m_tabs, &QTabWidget::currentChanged, this, &EnvironmentPreview::showNotes);

    auto *header = new QFormLayout;
    header->addRow(tr("Image:"), m_tag);
    header->addRow(tr("Spec hash:"), m_hash);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_notes);
    start(); // the first preview at once
}

EnvironmentPreview::~EnvironmentPreview()
{
    m_watcher.waitForFinished(); // it only holds copies, but let it end before the watcher goes
}

void EnvironmentPreview::setDelay(int milliseconds)
{
    m_timer->setInterval(milliseconds);
}

bool EnvironmentPreview::isUpToDate() const
{
    return !m_timer->isActive() && m_watcher.isFinished() && !m_again && m_shown == m_started;
}

void EnvironmentPreview::schedule()
{
    m_timer->start();
}

void EnvironmentPreview::start()
{
    if (m_watcher.isRunning()) {
        m_again = true;
        return;
    }
    m_again = false;
    ++m_started;
    m_watcher.setFuture(QtConcurrent::run(generatePreview, m_document->environment(), m_document->baseDir()));
}

void EnvironmentPreview::finished()
{
    if (m_again) { // overtaken by an edit: that one counts
        start();
        return;
    }
    m_texts = m_watcher.result();
    m_shown = m_started;
    m_tag->setText(m_texts.image);
    m_tag->setCursorPosition(0);
    m_tag->setToolTip(m_texts.image);
    m_hash->setText(m_texts.hash);
    m_hash->setCursorPosition(0);
    showNotes();
    showText(m_conda, m_texts.conda);
    showText(m_pip, m_texts.pip);
    showText(m_dockerfile, m_texts.dockerfile);
    showText(m_devcontainer, m_texts.devcontainer);
    Q_EMIT updated();
}

void EnvironmentPreview::showNotes()
{
    const QStringList notes = m_texts.notes.value(m_tabs->currentIndex());
    QStringList lines;
    for (const QString &note : notes)
        lines << u"• "_s + note;
    m_notes->setText(lines.join(u'\n'));
    m_notes->setVisible(!notes.isEmpty());
}

} // namespace ferry::ui
