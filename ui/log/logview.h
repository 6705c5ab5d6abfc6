// LogView: a run's log, opened on its tail and followed as it grows, safe against huge lines and
// escape codes.
#pragma once

#include "common/error.h"

#include <QFutureWatcher>
#include <QString>
#include <QTimer>
#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace ferry::ui {

// A stretch of a log, read off the GUI thread and ready to show.
struct LogSlice {
    qint64 begin = 0;    // where the first line starts in the file
    qint64 end = 0;      // just past the last complete line's newline
    qint64 fileSize = 0; // when it was read
    QString text;        // the complete lines, each ending in '\n'
    int lines = 0;
    QString partial;      // a last line still being written (no newline yet); shown, read again later
    Expected<void> read;  // failed: why the file could not be read
    bool missing = false; // the file does not exist (yet)
};

// A run's log. Opens on the last 256 KB only (whole lines), however big the log is; earlier
// chunks are prepended on request or when scrolled to the top. Follows the file as it grows.
// Lines longer than kMaxLineBytes are cut with a marker, invalid UTF-8 becomes U+FFFD and
// terminal colour codes are dropped, so no log can freeze the view.
class LogView : public QWidget {
    Q_OBJECT
public:
    static constexpr qint64 kChunkBytes = 256 * 1024;
    static constexpr qint64 kMaxLineBytes = 10'000;
    static constexpr qint64 kFollowBytes = 4 * 1024 * 1024; // per poll
    static constexpr int kPollMs = 250;

    explicit LogView(QWidget *parent = nullptr);
    ~LogView() override; // waits for a read in progress

    QString logFile() const { return m_path; }
    bool follows() const;
    bool hasEarlier() const { return m_shown && m_begin > 0; }
    bool isLoading() const { return m_watcher.isRunning(); }
    qint64 loadedBegin() const { return m_begin; } // byte offsets of what is shown
    qint64 loadedEnd() const { return m_end; }

    QPlainTextEdit *editor() const { return m_editor; }
    QLineEdit *searchEdit() const { return m_search; }
    QLabel *statusLabel() const { return m_status; }

    // The blocking reads, any thread.
    static LogSlice readTail(const QString &path, qint64 chunkBytes = kChunkBytes);
    static LogSlice readBefore(const QString &path, qint64 before, qint64 chunkBytes = kChunkBytes);
    static LogSlice readFrom(const QString &path, qint64 offset, qint64 maxBytes = kFollowBytes);
    static QString displayLine(QByteArrayView bytes, qint64 fullLength); // one line as shown

    QComboBox *rankBox() const { return m_rank; }
    int shownRank() const; // 0: the run's own log

    // A run's log: its folder (empty: nothing shown) and how many ranks it has; more than one
    // (a run across nodes) shows a rank selector, rank 0's log (the run's) first.
    void setRun(const QString &runDir, int ranks = 1);

public Q_SLOTS:
    void setLogFile(const QString &path); // empty: nothing shown
    void loadEarlier();
    void setFollow(bool follow);
    // Searches the text in the search box; when the loaded part has no (more) match and
    // earlier chunks exist, loads them and searches on. Answered by searchFinished.
    void findNext();
    void findPrevious();

Q_SIGNALS:
    void contentChanged();           // a read was shown (opened, prepended or appended)
    void searchFinished(bool found); // the match is selected when found
    void problem(const ferry::Error &error);
    void rankChosen(); // the rank selector shows another rank's log (shownRank)

private:
    enum class Request { Open, Earlier, Follow };
    void start(Request request, std::function<LogSlice()> read);
    void finished();
    void showOpened(const LogSlice &slice);
    void showEarlier(const LogSlice &slice);
    void showFollowed(const LogSlice &slice);
    void poll();
    void find(bool backward);
    bool findIn(bool backward, int from, bool wrap);
    void continueSearch(int prependedChars);
    void highlightMatches();
    void updateStatus();
    bool atBottom() const;

    QString m_path;
    QString m_runDir;         // setRun's
    quint64 m_generation = 0; // a read for an older file is dropped
    Request m_request = Request::Open;
    quint64 m_requestGeneration = 0;
    QFutureWatcher<LogSlice> m_watcher;
    bool m_earlierWanted = false;
    bool m_shown = false; // something was read for m_path
    qint64 m_begin = 0;
    qint64 m_end = 0;
    qint64 m_seenSize = -1;
    bool m_partialShown = false;
    bool m_updating = false;
    int m_searchChunksLeft = 0; // > 0: a search waits for earlier chunks

    QPlainTextEdit *m_editor;
    QPushButton *m_earlierButton;
    QCheckBox *m_follow;
    QLineEdit *m_search;
    QPushButton *m_next;
    QPushButton *m_previous;
    QLabel *m_status;
    QComboBox *m_rank; // a run across nodes: its ranks
    QTimer m_poll;
    QTimer m_highlight; // debounced: big documents
};

} // namespace ferry::ui
