#pragma once

// What the remote security tests share (tests/security/tst_remote*.cpp): a start() held at one
// of its progress messages while the test acts (a cancel from another target, as another Ferry
// process would), and a script that leaves a marker file the moment it runs.
#include "targets/remotetarget.h"

#include <QFile>
#include <QString>
#include <QThread>

#include <atomic>
#include <optional>
#include <thread>

namespace ferry::test {

// Runs `target.start(runDir, spec)` on a thread of its own; the first progress message that
// starts with `when` holds it (an upload's progress: rsync waits on its full pipe meanwhile)
// until release().
class HeldStart {
public:
    HeldStart(targets::RemoteTarget &target, const QString &runDir, const run::RunSpec &spec, const QString &when)
    {
        target.setProgress([this, when](const QString &text) {
            if (!text.startsWith(when) || m_reached.exchange(true))
                return;
            while (!m_released)
                QThread::msleep(20);
        });
        m_thread = std::thread([this, &target, runDir, spec] { m_result = target.start(runDir, spec); });
    }
    ~HeldStart()
    {
        release();
        if (m_thread.joinable())
            m_thread.join();
    }
    HeldStart(const HeldStart &) = delete;
    HeldStart &operator=(const HeldStart &) = delete;

    bool reached() const { return m_reached; }
    void release() { m_released = true; }
    // release(), then start()'s outcome.
    const Expected<void> &result()
    {
        release();
        if (m_thread.joinable())
            m_thread.join();
        return *m_result;
    }

private:
    std::atomic<bool> m_reached{false};
    std::atomic<bool> m_released{false};
    std::optional<Expected<void>> m_result;
    std::thread m_thread;
};

// A source folder with marker.py: it writes --marker at once, then waits a while.
inline void writeMarkerScript(const QString &sourceDir)
{
    QFile script(sourceDir + QStringLiteral("/marker.py"));
    if (script.open(QIODevice::WriteOnly))
        script.write("import argparse, time\n"
                     "p = argparse.ArgumentParser()\n"
                     "p.add_argument('--marker', required=True)\n"
                     "a, _ = p.parse_known_args()\n"
                     "open(a.marker, 'w').write('the script ran\\n')\n"
                     "time.sleep(60)\n");
}

// A data file of `bytes` (sparse here, sent whole): an upload that takes a while.
inline bool writeBigFile(const QString &path, qint64 bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.resize(bytes);
}

} // namespace ferry::test
