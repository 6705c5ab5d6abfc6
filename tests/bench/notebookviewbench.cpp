// The notebook view's figures for tests/bench/notebookview.sh (run by hand, never by CI). Each
// mode prints "key value" lines, the script takes medians and sets them against the goals and
// the peer:
//   notebookviewbench open NB.ipynb           the notebook opened in a NotebookEditor (1200x900):
//        ms from NotebookEditor::open to the end of the window's first paint, the resident memory
//        then and its peak; then the column scrolled from top to bottom, one wheel notch (60 px)
//        a frame: each frame is the scroll bar moved and the events it causes processed (layout,
//        paint into the backing store, its flush), p50, p99, max
//   notebookviewbench open-peer NB.html       the peer: the same notebook as `jupyter nbconvert
//        --to html --template basic` writes it (make_notebook.py), in one QTextBrowser: setHtml
//        to the end of its first paint, then scrolled the same way (a rich-text view of the
//        whole notebook, no editors)
//   notebookviewbench stream NB.ipynb ENV.yml KERNELS LINES FLUSH AUTOSAVE_MS
//        a new last cell of the notebook running `for i in range(LINES): print(i)` in a real
//        ipykernel (ENV.yml's Python under Ferry's keeper), the view following its end: the
//        event loop's longest stall from the first output to the cell's end (a 5 ms timer's
//        lateness: what a frame waits; and the GUI thread's own CPU time in that gap, which the
//        machine's other load does not lengthen), p99, stalls over 50 ms, the resident memory
//        and the heap in use (mallinfo2: what the allocator keeps for later left out) at the
//        start, at each quarter of the run and their peaks, and whether the view ends on the last
//        line; FLUSH > 0: the cell flushes every FLUSH lines (that many a message), else
//        ipykernel sends what was printed every 0.2 s; AUTOSAVE_MS > 0: the notebook autosaves
//        that often from the cell's first output on (30 s in the window), 0: never
//   notebookviewbench stream-peer ENV.yml KERNELS LINES FLUSH
//        the peer: the same cell in the same kernel engine (NotebookKernel), its stream appended
//        to a QPlainTextEdit capped at 10,000 lines every 100 ms (qtconsole's way of showing a
//        console's output), no notebook
#include "kernelhost/notebookkernel.h"
#include "ui/notebook/cellwidget.h"
#include "ui/notebook/codeeditor.h"
#include "ui/notebook/notebookeditor.h"
#include "ui/notebook/outputarea.h"

#include "support/testenv.h"

#include <QApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include <malloc.h>
#include <time.h>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

constexpr int kWidth = 1200;
constexpr int kHeight = 900;
constexpr int kNotch = 60; // px: one wheel notch (three steps of 20 px)
constexpr int kTickMs = 5;

// VmRSS or VmHWM, MiB.
double memoryMiB(const char *field)
{
    QFile status(u"/proc/self/status"_s);
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field))).trimmed().split(' ').value(0).toDouble() / 1024;
    return -1;
}

void print(const char *key, double value)
{
    std::printf("%s %.3f\n", key, value);
    std::fflush(stdout);
}

void printTimes(const char *name, std::vector<double> ms)
{
    if (ms.empty())
        return;
    std::sort(ms.begin(), ms.end());
    const auto at = [&](double p) { return ms[std::min(ms.size() - 1, size_t(double(ms.size()) * p))]; };
    std::printf("%s_p50 %.3f\n%s_p99 %.3f\n%s_max %.3f\n%s_frames %zu\n", name, at(0.5), name, at(0.99), name,
                ms.back(), name, ms.size());
}

// When the first paint of `window` ends: the first paint event to it or a child arms a zero
// timer, which runs once the backing store's whole sync (every widget's paint, the flush) is done.
class FirstPaint : public QObject {
public:
    explicit FirstPaint(QWidget *window) : m_window(window) { qApp->installEventFilter(this); }
    std::function<void()> done;
    int paints = 0;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && watched->isWidgetType() &&
            (watched == m_window || m_window->isAncestorOf(static_cast<QWidget *>(watched)))) {
            if (paints++ == 0)
                QTimer::singleShot(0, this, [this] {
                    if (done)
                        done();
                });
        }
        return false;
    }

private:
    QWidget *m_window;
};

// Runs the event loop until the cell finished and the kernel is idle after it (its last outputs
// come on another channel than its reply), or finished and no message came for 2 s
// (`lastMessageMs`, since the epoch: a kernel state left busy ends it so, and says so); false
// after 10 minutes.
bool untilIdle(const kernels::NotebookKernel &kernel, const bool &finished, const qint64 &lastMessageMs)
{
    QElapsedTimer clock;
    clock.start();
    for (;;) {
        if (finished && kernel.state() == kernels::NotebookKernel::State::Idle)
            return true;
        if (finished && QDateTime::currentMSecsSinceEpoch() - lastMessageMs > 2000) {
            print("ended_quiet_not_idle", 1);
            return true;
        }
        if (clock.elapsed() > 600000) {
            std::fprintf(stderr, "the cell did not end: %s\n", qPrintable(kernel.stateText()));
            return false;
        }
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
}

void settle(int ms)
{
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < ms)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
}

// Opens with `open` (the clock running), waits for the first paint, then scrolls `bar` end to end.
int openAndScroll(QWidget &window, QScrollBar *bar, const std::function<void()> &open)
{
    window.resize(kWidth, kHeight);
    print("rss_before_mib", memoryMiB("VmRSS:"));
    FirstPaint painted(&window);
    QElapsedTimer clock;
    double firstPaintMs = -1;
    painted.done = [&] { firstPaintMs = double(clock.nsecsElapsed()) / 1e6; };
    clock.start();
    open();
    print("open_call_ms", double(clock.nsecsElapsed()) / 1e6);
    window.show();
    while (firstPaintMs < 0 && clock.elapsed() < 60000)
        QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    print("first_paint_ms", firstPaintMs);
    print("rss_first_paint_mib", memoryMiB("VmRSS:"));
    print("peak_rss_open_mib", memoryMiB("VmHWM:"));
    // What a view defers to after its first paint (a timer, a thread) settles before the scroll.
    settle(1000);
    print("rss_settled_mib", memoryMiB("VmRSS:"));
    bar->setSingleStep(kNotch);
    std::vector<double> frames;
    const int before = painted.paints;
    for (int value = bar->minimum() + kNotch; value < bar->maximum() + kNotch; value += kNotch) {
        clock.start();
        bar->setValue(std::min(value, bar->maximum()));
        QApplication::processEvents();
        frames.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    printTimes("scroll", frames);
    print("scroll_height_px", bar->maximum() + bar->pageStep());
    print("scroll_paints", painted.paints - before);
    print("peak_rss_mib", memoryMiB("VmHWM:"));
    return 0;
}

// The heap in use (allocated, not yet freed: what the resident memory holds besides what the
// allocator keeps for later), MiB.
double heapMiB()
{
    const struct mallinfo2 info = mallinfo2();
    return double(info.uordblks + info.hblkhd) / (1 << 20);
}

// This thread's CPU time, ms.
double threadCpuMs()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

// The event loop's lateness while a cell streams: a 5 ms timer's gaps, RSS every 100 ms.
class Stalls : public QObject {
public:
    Stalls()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(kTickMs);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const double now = double(m_clock.nsecsElapsed()) / 1e6;
            const double cpu = threadCpuMs();
            if (m_last >= 0 && m_measuring) {
                m_gaps.push_back(std::max(0.0, now - m_last - kTickMs));
                m_cpuGaps.push_back(cpu - m_lastCpu);
            }
            m_last = now;
            m_lastCpu = cpu;
            if (++m_ticks % (100 / kTickMs) == 0) {
                if (m_measuring)
                    m_memory.push_back({now, memoryMiB("VmRSS:"), heapMiB()});
                if (everyTenth)
                    everyTenth();
            }
        });
        m_clock.start();
        m_timer.start();
    }
    std::function<void()> everyTenth; // every 100 ms
    void begin()
    {
        if (m_measuring)
            return;
        m_measuring = true;
        m_begin = double(m_clock.nsecsElapsed()) / 1e6;
        m_memory.push_back({m_begin, memoryMiB("VmRSS:"), heapMiB()});
    }
    void end()
    {
        m_measuring = false;
        m_end = double(m_clock.nsecsElapsed()) / 1e6;
    }
    void report() const
    {
        printTimes("stall", m_gaps);
        printTimes("stall_cpu", m_cpuGaps);
        print("stalls_over_50ms", double(std::count_if(m_gaps.begin(), m_gaps.end(), [](double g) { return g > 50; })));
        print("stream_seconds", (m_end - m_begin) / 1000);
        series("rss", &Sample::rss);
        series("heap", &Sample::heap);
    }

private:
    struct Sample {
        double at = 0, rss = 0, heap = 0;
    };
    // NAME_stream_start_mib, _q1.._q4 (at each quarter of the stream), _peak.
    void series(const char *name, double Sample::*value) const
    {
        if (m_memory.empty())
            return;
        std::printf("%s_stream_start_mib %.1f\n", name, m_memory.front().*value);
        double peak = 0;
        for (const Sample &sample : m_memory)
            peak = std::max(peak, sample.*value);
        for (int quarter = 1; quarter <= 4; ++quarter) {
            const double t = m_begin + (m_end - m_begin) * quarter / 4;
            double mib = m_memory.back().*value;
            for (const Sample &sample : m_memory)
                if (sample.at <= t)
                    mib = sample.*value;
            std::printf("%s_stream_q%d_mib %.1f\n", name, quarter, mib);
        }
        std::printf("%s_stream_peak_mib %.1f\n", name, peak);
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    double m_last = -1, m_lastCpu = 0, m_begin = 0, m_end = 0;
    bool m_measuring = false;
    int m_ticks = 0;
    std::vector<double> m_gaps;
    std::vector<double> m_cpuGaps; // the GUI thread's CPU time in each gap: its own work, not the machine's load
    std::vector<Sample> m_memory;
};

// `flushEvery` > 0: the cell flushes its output every so many lines (that many lines a message);
// else ipykernel sends what was printed every 0.2 s (a few large messages).
QString streamCode(qint64 lines, int flushEvery)
{
    if (flushEvery <= 0)
        return u"for i in range(%1):\n    print(i)"_s.arg(lines);
    return u"import sys\nfor i in range(%1):\n    print(i)\n    if i % %2 == %3:\n        sys.stdout.flush()"_s
        .arg(lines)
        .arg(flushEvery)
        .arg(flushEvery - 1);
}

kernels::KernelRequest requestFor(const QString &env)
{
    kernels::KernelRequest request;
    request.target = *run::TargetSpec::parse(u"local"_s);
    request.environmentFile = env;
    request.workingFolder = QFileInfo(env).absolutePath();
    return request;
}

// The last line of a cell's outputs' stream text.
QString lastLine(const QJsonArray &outputs)
{
    for (qsizetype i = outputs.size() - 1; i >= 0; --i) {
        const QJsonObject o = outputs.at(i).toObject();
        if (o.value(u"output_type"_s).toString() == u"stream"_s)
            return o.value(u"text"_s).toString().trimmed().split(u'\n').last();
    }
    return {};
}

int stream(const QString &book, const QString &env, const QString &kernels, qint64 lines, int flushEvery,
           int autosaveMs)
{
    ui::NotebookEditor editor(kernels, test::ferryBinary());
    editor.askRestore = [](const QDateTime &) { return false; };
    editor.resize(kWidth, kHeight);
    if (const auto opened = editor.open(book); !opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().toString()));
        return 1;
    }
    editor.show();
    editor.setAutosaveInterval(3600000); // from the first output on: every AUTOSAVE_MS
    editor.setKernelChoice(env, u"local"_s);
    editor.setCurrentIndex(int(editor.cells().size()) - 1);
    editor.insertCell(true);
    ui::CellWidget *cell = editor.cells().last();
    cell->editor()->setPlainText(streamCode(lines, flushEvery));
    auto *bar = editor.findChild<QScrollArea *>()->verticalScrollBar();
    Stalls stalls;
    stalls.everyTenth = [&] { bar->setValue(bar->maximum()); }; // the view follows the output's end
    bool finished = false;
    QString status;
    qint64 messages = 0;
    qint64 lastMessageMs = 0;
    QDateTime firstOutput;
    QObject::connect(&editor.kernel(), &kernels::NotebookKernel::cellMessage, &editor,
                     [&](const QString &, const kernels::JupyterMessage &m) {
                         lastMessageMs = QDateTime::currentMSecsSinceEpoch();
                         if (m.type() != u"stream"_s)
                             return;
                         if (messages++ == 0) {
                             firstOutput = QDateTime::currentDateTime();
                             if (autosaveMs > 0)
                                 editor.setAutosaveInterval(autosaveMs);
                         }
                         stalls.begin();
                     });
    QObject::connect(&editor.kernel(), &kernels::NotebookKernel::cellFinished, &editor,
                     [&](const QString &, const QString &s, int) {
                         status = s;
                         finished = true;
                     });
    print("rss_before_run_mib", memoryMiB("VmRSS:"));
    editor.runCurrent();
    if (!untilIdle(editor.kernel(), finished, lastMessageMs))
        return 1;
    stalls.end();
    const QDateTime lastOutput = QDateTime::currentDateTime();
    settle(300); // the last outputs drawn (the view's 100 ms timer)
    stalls.report();
    print("stream_messages", double(messages));
    // Whether an autosave was written while the cell printed (its file's time within the stream).
    const QDateTime saved = QFileInfo(ui::NotebookEditor::autosavePath(book)).lastModified();
    print("autosaved_while_printing", saved >= firstOutput && saved <= lastOutput.addMSecs(1000) ? 1 : 0);
    print("ok", status == u"ok"_s ? 1 : 0);
    if (status != u"ok"_s)
        std::fprintf(stderr, "the cell ended '%s', the kernel %s\n", qPrintable(status),
                     qPrintable(editor.kernel().stateText()));
    print("last_line_shown", lastLine(cell->outputArea()->outputs()) == QString::number(lines - 1) ? 1 : 0);
    qsizetype kept = 0;
    for (const QJsonValue &o : cell->outputArea()->outputs())
        kept += o.toObject().value(u"text"_s).toString().size();
    print("chars_kept", double(kept));
    editor.kernel().stop();
    settle(2000);
    return 0;
}

int streamPeer(const QString &env, const QString &kernels, qint64 lines, int flushEvery)
{
    QPlainTextEdit view;
    view.setReadOnly(true);
    view.setMaximumBlockCount(10000);
    view.resize(kWidth, kHeight);
    view.show();
    kernels::NotebookKernel kernel(kernels, test::ferryBinary());
    Stalls stalls;
    QString pending;
    stalls.everyTenth = [&] {
        if (pending.isEmpty())
            return;
        QTextCursor end(view.document());
        end.movePosition(QTextCursor::End);
        end.insertText(std::exchange(pending, {}));
        view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum());
    };
    bool finished = false;
    QString status;
    qint64 lastMessageMs = 0;
    QObject::connect(&kernel, &kernels::NotebookKernel::cellMessage, &view,
                     [&](const QString &, const kernels::JupyterMessage &m) {
                         lastMessageMs = QDateTime::currentMSecsSinceEpoch();
                         if (m.type() != u"stream"_s)
                             return;
                         stalls.begin();
                         pending += m.content.value(u"text"_s).toString();
                     });
    QObject::connect(&kernel, &kernels::NotebookKernel::cellFinished, &view,
                     [&](const QString &, const QString &s, int) {
                         status = s;
                         finished = true;
                     });
    print("rss_before_run_mib", memoryMiB("VmRSS:"));
    kernel.start(requestFor(env));
    kernel.execute(u"cell"_s, streamCode(lines, flushEvery));
    if (!untilIdle(kernel, finished, lastMessageMs))
        return 1;
    stalls.everyTenth();
    stalls.end();
    stalls.report();
    print("ok", status == u"ok"_s ? 1 : 0);
    print("last_line_shown", view.document()->lastBlock().previous().text() == QString::number(lines - 1) ? 1 : 0);
    kernel.stop();
    settle(2000);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    const QString mode = args.value(1);
    if (mode == u"open"_s && args.size() == 3) {
        ui::NotebookEditor editor(u"/nonexistent-kernels"_s);
        editor.askRestore = [](const QDateTime &) { return false; };
        return openAndScroll(editor, editor.findChild<QScrollArea *>()->verticalScrollBar(), [&] {
            if (const auto opened = editor.open(args[2]); !opened) {
                std::fprintf(stderr, "%s\n", qPrintable(opened.error().toString()));
                std::exit(1);
            }
        });
    }
    if (mode == u"open-peer"_s && args.size() == 3) {
        QTextBrowser browser;
        return openAndScroll(browser, browser.verticalScrollBar(), [&] {
            QFile file(args[2]);
            if (!file.open(QIODevice::ReadOnly))
                std::exit(1);
            browser.setHtml(QString::fromUtf8(file.readAll()));
        });
    }
    if (mode == u"stream"_s && args.size() == 8)
        return stream(args[2], QFileInfo(args[3]).absoluteFilePath(), args[4], args[5].toLongLong(), args[6].toInt(),
                      args[7].toInt());
    if (mode == u"stream-peer"_s && args.size() == 6)
        return streamPeer(QFileInfo(args[2]).absoluteFilePath(), args[3], args[4].toLongLong(), args[5].toInt());
    std::fprintf(stderr, "usage: notebookviewbench open NB.ipynb | open-peer NB.html | stream NB.ipynb ENV.yml "
                         "KERNELS LINES FLUSH AUTOSAVE_MS | stream-peer ENV.yml KERNELS LINES FLUSH\n");
    return 2;
}
