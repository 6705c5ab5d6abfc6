#include "ui/log/logview.h"

#include "run/ranklogs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QTextBlock>
#include <QTextDocument>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <functional>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kMaxHighlights = 5000;
constexpr int kSearchChunks = 16; // per search request: 4 MB of earlier log

} // namespace

LogView::LogView(QWidget *parent)
    : QWidget(parent), m_editor(new QPlainTextEdit(this)), m_earlierButton(new QPushButton(tr("Load earlier"), this)),
      m_follow(new QCheckBox(tr("Follow"), this)), m_search(new QLineEdit(this)),
      m_next(new QPushButton(tr("Next"), this)), m_previous(new QPushButton(tr("Previous"), this)),
      m_status(new QLabel(this)), m_rank(new QComboBox(this))
{
    // A run across nodes: which rank's log (rank 0's is the run's); hidden for one process.
    m_rank->setObjectName(u"logRank"_s);
    m_rank->setToolTip(tr("Which rank's log of this run across nodes"));
    m_rank->hide();
    connect(m_rank, &QComboBox::activated, this, [this] {
        setLogFile(run::rankLogFile(m_runDir, shownRank()));
        Q_EMIT rankChosen();
    });
    m_editor->setReadOnly(true);
    m_editor->setUndoRedoEnabled(false);
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap); // one block, one scroll step
    m_editor->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    QFont mono(u"monospace"_s);
    mono.setStyleHint(QFont::TypeWriter);
    m_editor->setFont(mono);

    m_earlierButton->setToolTip(tr("Show the previous %1 KB of the log").arg(kChunkBytes / 1024));
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Show new lines as the run writes them"));
    m_search->setPlaceholderText(tr("Search the log"));
    m_search->setClearButtonEnabled(true);
    m_status->setTextFormat(Qt::PlainText);

    connect(m_earlierButton, &QPushButton::clicked, this, &LogView::loadEarlier);
    connect(m_follow, &QCheckBox::toggled, this, &LogView::setFollow);
    connect(m_search, &QLineEdit::returnPressed, this, &LogView::findNext);
    connect(m_next, &QPushButton::clicked, this, &LogView::findNext);
    connect(m_previous, &QPushButton::clicked, this, &LogView::findPrevious);
    connect(m_search, &QLineEdit::textChanged, this, [this] {
        m_searchChunksLeft = 0;
        m_highlight.start();
    });
    auto *previousShortcut = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_Return), m_search);
    previousShortcut->setContext(Qt::WidgetShortcut);
    connect(previousShortcut, &QShortcut::activated, this, &LogView::findPrevious);
    connect(m_editor->verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (!m_updating && value == m_editor->verticalScrollBar()->minimum() && hasEarlier() && !isLoading() &&
            m_editor->verticalScrollBar()->maximum() > 0)
            loadEarlier();
    });
    connect(&m_watcher, &QFutureWatcher<LogSlice>::finished, this, &LogView::finished);

    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &LogView::poll);
    m_highlight.setSingleShot(true);
    m_highlight.setInterval(100);
    connect(&m_highlight, &QTimer::timeout, this, &LogView::highlightMatches);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_rank);
    bar->addWidget(m_earlierButton);
    bar->addWidget(m_follow);
    bar->addSpacing(12);
    bar->addWidget(m_search, 1);
    bar->addWidget(m_previous);
    bar->addWidget(m_next);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_editor, 1);
    layout->addWidget(m_status);
    updateStatus();
}

LogView::~LogView()
{
    m_watcher.waitForFinished();
}

bool LogView::follows() const
{
    return m_follow->isChecked();
}

int LogView::shownRank() const
{
    return m_rank->currentData().toInt();
}

void LogView::setRun(const QString &runDir, int ranks)
{
    m_runDir = runDir;
    m_rank->clear();
    for (int rank = 0; rank < ranks; ++rank)
        m_rank->addItem(rank == 0 ? tr("Rank 0 (the run's log)") : tr("Rank %1").arg(rank), rank);
    m_rank->setVisible(ranks > 1);
    setLogFile(runDir.isEmpty() ? QString() : run::rankLogFile(runDir, 0));
}

void LogView::setLogFile(const QString &path)
{
    ++m_generation;
    m_path = path;
    m_shown = false;
    m_begin = m_end = 0;
    m_seenSize = -1;
    m_partialShown = false;
    m_earlierWanted = false;
    m_searchChunksLeft = 0;
    m_updating = true;
    m_editor->clear();
    m_updating = false;
    m_poll.stop();
    updateStatus();
    if (path.isEmpty())
        return;
    start(Request::Open, [path] { return readTail(path); });
}

void LogView::setFollow(bool follow)
{
    if (m_follow->isChecked() != follow)
        m_follow->setChecked(follow); // comes back here through toggled
    if (follow && m_shown)
        m_poll.start();
    else if (!follow)
        m_poll.stop();
}

void LogView::loadEarlier()
{
    if (!hasEarlier())
        return;
    if (isLoading()) {
        m_earlierWanted = true;
        return;
    }
    const QString path = m_path;
    const qint64 before = m_begin;
    start(Request::Earlier, [path, before] { return readBefore(path, before); });
}

void LogView::start(Request request, std::function<LogSlice()> read)
{
    m_request = request;
    m_requestGeneration = m_generation;
    if (request != Request::Follow)
        m_status->setText(tr("Reading the log…"));
    if (m_watcher.isRunning())
        m_watcher.waitForFinished(); // a read for a file no longer shown: quick, and dropped
    m_watcher.setFuture(QtConcurrent::run(std::move(read)));
}

void LogView::finished()
{
    const LogSlice slice = m_watcher.result();
    if (m_requestGeneration != m_generation) { // an older file's read
        if (!m_path.isEmpty() && !m_shown)
            start(Request::Open, [path = m_path] { return readTail(path); });
        return;
    }
    if (!slice.read) {
        Q_EMIT problem(slice.read.error());
        m_status->setText(slice.read.error().toString());
    } else {
        switch (m_request) {
        case Request::Open:
            showOpened(slice);
            break;
        case Request::Earlier:
            showEarlier(slice);
            break;
        case Request::Follow:
            showFollowed(slice);
            break;
        }
    }
    if (m_earlierWanted) {
        m_earlierWanted = false;
        loadEarlier();
    }
}

void LogView::showOpened(const LogSlice &slice)
{
    m_shown = true;
    m_begin = slice.begin;
    m_end = slice.end;
    m_seenSize = slice.fileSize;
    m_partialShown = !slice.partial.isEmpty();
    QString text = slice.text;
    if (text.endsWith(u'\n') && !m_partialShown)
        text.chop(1);
    text += slice.partial;
    m_updating = true;
    m_editor->setPlainText(text);
    m_editor->verticalScrollBar()->setValue(m_editor->verticalScrollBar()->maximum());
    m_updating = false;
    if (follows())
        m_poll.start();
    m_highlight.start();
    updateStatus();
    Q_EMIT contentChanged();
}

void LogView::showEarlier(const LogSlice &slice)
{
    if (slice.end != m_begin) { // the log was replaced meanwhile
        setLogFile(m_path);
        return;
    }
    QString text = slice.text;
    if (m_editor->document()->isEmpty() && text.endsWith(u'\n'))
        text.chop(1);
    QScrollBar *bar = m_editor->verticalScrollBar();
    const int value = bar->value();
    m_updating = true;
    QTextCursor cursor(m_editor->document());
    cursor.movePosition(QTextCursor::Start);
    cursor.insertText(text);
    // The lines in view stay in view.
    bar->setValue(value + slice.lines);
    m_updating = false;
    m_begin = slice.begin;
    updateStatus();
    m_highlight.start();
    Q_EMIT contentChanged();
    if (m_searchChunksLeft > 0)
        continueSearch(static_cast<int>(text.size()));
}

void LogView::showFollowed(const LogSlice &slice)
{
    m_seenSize = slice.fileSize;
    if (slice.fileSize < m_end) { // truncated or replaced: start over
        setLogFile(m_path);
        return;
    }
    if (slice.lines == 0 && !m_partialShown && slice.partial.isEmpty())
        return;
    const bool follow = atBottom();
    QScrollBar *bar = m_editor->verticalScrollBar();
    const int value = bar->value();
    m_updating = true;
    QTextCursor cursor(m_editor->document());
    cursor.movePosition(QTextCursor::End);
    if (m_partialShown) { // the unfinished line is read again, finished or longer
        cursor.movePosition(QTextCursor::StartOfBlock, QTextCursor::KeepAnchor);
        if (cursor.blockNumber() > 0)
            cursor.movePosition(QTextCursor::PreviousCharacter, QTextCursor::KeepAnchor);
        cursor.removeSelectedText();
    }
    QString text = slice.text;
    if (text.endsWith(u'\n') && slice.partial.isEmpty())
        text.chop(1);
    text += slice.partial;
    if (!text.isEmpty()) {
        cursor.movePosition(QTextCursor::End);
        if (!m_editor->document()->isEmpty())
            cursor.insertText(u"\n"_s);
        cursor.insertText(text);
    }
    m_partialShown = !slice.partial.isEmpty();
    m_end = slice.end;
    bar->setValue(follow ? bar->maximum() : value);
    m_updating = false;
    m_highlight.start();
    updateStatus();
    Q_EMIT contentChanged();
    if (slice.end < slice.fileSize && slice.partial.isEmpty())
        poll(); // more than one poll's worth came in
}

void LogView::poll()
{
    if (m_path.isEmpty() || isLoading())
        return;
    const QFileInfo info(m_path);
    if (!info.exists())
        return;
    const qint64 size = info.size();
    if (!m_shown) {
        start(Request::Open, [path = m_path] { return readTail(path); });
        return;
    }
    if (size == m_seenSize)
        return;
    if (size < m_end) {
        setLogFile(m_path);
        return;
    }
    start(Request::Follow, [path = m_path, from = m_end] { return readFrom(path, from); });
}

bool LogView::atBottom() const
{
    const QScrollBar *bar = m_editor->verticalScrollBar();
    return bar->value() >= bar->maximum() - 1;
}

void LogView::findNext()
{
    find(false);
}

void LogView::findPrevious()
{
    find(true);
}

// Searches from `from` (a character position), selecting the match; wraps around when asked.
bool LogView::findIn(bool backward, int from, bool wrap)
{
    const QString text = m_search->text();
    const QTextDocument::FindFlags flags = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    QTextDocument *doc = m_editor->document();
    QTextCursor found = doc->find(text, from, flags);
    if (found.isNull() && wrap) {
        QTextCursor edge(doc);
        edge.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
        found = doc->find(text, edge, flags);
    }
    if (found.isNull())
        return false;
    m_editor->setTextCursor(found);
    m_editor->centerCursor();
    highlightMatches();
    return true;
}

void LogView::find(bool backward)
{
    m_searchChunksLeft = 0;
    if (m_search->text().isEmpty())
        return;
    const QTextCursor cursor = m_editor->textCursor();
    const int from = backward ? cursor.selectionStart() : cursor.selectionEnd();
    // Upwards, the log goes on into earlier chunks before wrapping round to the end.
    if (findIn(backward, from, !(backward && hasEarlier()))) {
        Q_EMIT searchFinished(true);
        return;
    }
    if (hasEarlier()) {
        m_searchChunksLeft = kSearchChunks;
        m_status->setText(tr("Searching earlier parts of the log…"));
        loadEarlier();
        return;
    }
    m_status->setText(tr("“%1” not found").arg(m_search->text()));
    Q_EMIT searchFinished(false);
}

void LogView::continueSearch(int prependedChars)
{
    // Search the part just prepended, from its end upwards.
    if (findIn(true, prependedChars, false)) {
        m_searchChunksLeft = 0;
        Q_EMIT searchFinished(true);
        return;
    }
    if (--m_searchChunksLeft > 0 && hasEarlier()) {
        loadEarlier();
        return;
    }
    m_searchChunksLeft = 0;
    m_status->setText(
        hasEarlier() ? tr("“%1” not found in what is loaded; search again to look further back").arg(m_search->text())
                     : tr("“%1” not found").arg(m_search->text()));
    Q_EMIT searchFinished(false);
}

void LogView::highlightMatches()
{
    QList<QTextEdit::ExtraSelection> selections;
    const QString text = m_search->text();
    int count = 0;
    if (!text.isEmpty()) {
        QTextCharFormat all;
        all.setBackground(QColor(0xff, 0xeb, 0x3b, 0x90));
        QTextDocument *doc = m_editor->document();
        for (QTextCursor c = doc->find(text, 0); !c.isNull() && count < kMaxHighlights; c = doc->find(text, c)) {
            selections.append({c, all});
            ++count;
        }
        const QTextCursor current = m_editor->textCursor();
        if (current.hasSelection() && current.selectedText().compare(text, Qt::CaseInsensitive) == 0) {
            QTextCharFormat currentFormat;
            currentFormat.setBackground(QColor(0xff, 0x98, 0x00));
            selections.append({current, currentFormat});
        }
    }
    m_editor->setExtraSelections(selections);
    if (!text.isEmpty() && m_searchChunksLeft == 0)
        m_status->setText(count >= kMaxHighlights ? tr("%1+ matches in the loaded part").arg(kMaxHighlights)
                                                  : tr("%n match(es) in the loaded part", nullptr, count));
}

void LogView::updateStatus()
{
    m_earlierButton->setEnabled(hasEarlier());
    if (m_path.isEmpty()) {
        m_status->setText(tr("No log"));
        return;
    }
    if (!m_shown)
        return;
    const qint64 loaded = m_end - m_begin;
    m_status->setText(hasEarlier()
                          ? tr("Showing the last %1 of %2")
                                .arg(QLocale().formattedDataSize(loaded), QLocale().formattedDataSize(m_seenSize))
                          : tr("Showing all %1").arg(QLocale().formattedDataSize(std::max(m_seenSize, loaded))));
}

} // namespace ferry::ui
