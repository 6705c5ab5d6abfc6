#include "run/supervisor.h"

#include "common/safefile.h"
#include "metrics/systemsamples.h"
#include "run/archive.h"
#include "run/budgetclock.h"
#include "run/logtimes.h"
#include "run/rundirectory.h"
#include "run/runsecrets.h"
#include "run/workfolder.h"
#include "secrets/streamredactor.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QProcessEnvironment>
#include <QSettings>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr int kLeftoverGraceMs = 2000; // what the script left running gets this long after TERM
constexpr int kLeftoverKillWaitMs = 10000;
constexpr int kPipeBytes = 1024 * 1024;
constexpr int kBatchMs = 5;
constexpr int kPartialLineMs = 100;   // how long a line without its newline waits before it is written
constexpr int kLogStampMs = 200;      // how often the log's growth is stamped in log.times (run/logtimes.h)
constexpr int kSystemSampleMs = 5000; // how often the script's CPU, memory and GPUs are sampled

// The supervisor's own stderr is the run's log: its messages sit beside the script's.
void note(const QString &text)
{
    const QByteArray line = "ferry: " + text.toUtf8() + '\n';
    qsizetype done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(STDERR_FILENO, line.constData() + done, static_cast<size_t>(line.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += n;
    }
}

// Signals the script's process group; a group that has gone meanwhile is not an error.
void signalGroup(qint64 group, int signal)
{
    if (::kill(static_cast<pid_t>(-group), signal) != 0 && errno != ESRCH)
        note(u"cannot signal the script's process group %1: %2"_s.arg(group).arg(errnoText(errno)));
}

qint64 monotonicMs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<qint64>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void sleepMs(int ms)
{
    timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

// stdin from /dev/null, stdout and stderr appended to the log: the supervisor outlives the
// terminal or pipe it was started from. Descriptors inherited from the starter are not
// passed on to the script.
Expected<void> redirectStandardStreams(const QString &logFile)
{
    const QByteArray log = QFile::encodeName(logFile);
    const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    // O_NOFOLLOW: a link planted at `log` never redirects the run's output (review H1).
    const int out = ::open(log.constData(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (in < 0 || out < 0)
        return Error{u"cannot open the log: "_s + errnoText(errno), logFile, 0, 0, u"check permissions"_s};
    if (::dup2(in, STDIN_FILENO) < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(out, STDERR_FILENO) < 0)
        return Error{u"cannot redirect output: "_s + errnoText(errno), logFile, 0, 0, {}};
    if (::close(in) != 0 || ::close(out) != 0)
        return Error{u"cannot close a descriptor: "_s + errnoText(errno), logFile, 0, 0, {}};
    const QStringList fds = QDir(u"/proc/self/fd"_s).entryList(QDir::AllEntries | QDir::NoDotAndDotDot);
    for (const QString &name : fds) {
        const int fd = name.toInt();
        if (fd > STDERR_FILENO)
            ::fcntl(fd, F_SETFD, FD_CLOEXEC); // best effort: a descriptor that closed meanwhile is fine
    }
    return {};
}

// Writes all of `bytes` to `fd` (the log).
void writeAll(int fd, const QByteArray &bytes)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + done, static_cast<size_t>(bytes.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += n;
    }
}

// The script's failure message (the contract's failure file) goes to exit.json and the run store:
// redacted in place, like the log.
void redactFailure(const ContractPaths &paths, const secrets::Redactor &redactor)
{
    // Only a regular file is read, and the redacted text replaces the name (never a link's target).
    // One too large to read whole is cut to its redacted beginning: it is packed into output.tar.gz.
    const qint64 limit = 16 * RunDirectory::kMaxFailureBytes;
    const auto head = readRegularFileHead(paths.failureFile(), limit + 1);
    if (!head || !head->has_value())
        return;
    QByteArray text = **head;
    if (text.size() > limit) {
        text.truncate(limit);
        text += "\n[Ferry cut the failure file here: it was larger than " + QByteArray::number(limit) + " bytes]\n";
        (void)replaceFileSafely(paths.failureFile(), redactor.redact(text));
        return;
    }
    const QByteArray redacted = redactor.redact(text);
    if (redacted != text)
        (void)replaceFileSafely(paths.failureFile(), redacted);
}

class Supervision {
public:
    Supervision(const QString &runDir, SupervisorHooks hooks) : m_dir(runDir), m_hooks(std::move(hooks)) {}
    ~Supervision()
    {
        for (const int fd : {m_output, m_signalFd})
            if (fd >= 0)
                ::close(fd);
    }
    int run();

private:
    Expected<pid_t> spawnScript(const RunSpec &spec, const ContractPaths &paths,
                                const QList<std::pair<QString, QString>> &secretValues, int outputFd);
    Expected<void> openOutputPipe(int &writeEnd);
    bool pumpOutput(); // false at the end of the output (or with no pipe)
    void drainOutput();
    int waitForScript();
    void stopLeftovers();
    void stampLog();
    void sampleSystem();
    void checkBudget(qint64 now);
    int end(ExitRecord record);
    int fail(int exitCode, const Error &error);

    RunDirectory m_dir;
    SupervisorHooks m_hooks;
    QString m_runId;
    std::optional<BudgetClock> m_budget;
    qint64 m_startedAt = 0; // monotonic ms when the script started
    pid_t m_child = 0;
    bool m_cancelled = false;
    // A run with secrets: the script writes into a pipe, the supervisor redacts into the log.
    int m_output = -1;
    int m_signalFd = -1;
    std::optional<secrets::StreamRedactor> m_redactor;
    QByteArray m_buffer;
    qint64 m_stampedSize = 0; // the log's size in the last log.times line
    qint64 m_samples = 0;     // blocks written to system.samples
    QString m_error;
    sigset_t m_signals{};
};

// A cancel that came while the archives are packed (the supervisor blocks TERM and INT: they wait,
// pending, until taken).
bool cancelPending()
{
    sigset_t pending;
    return sigpending(&pending) == 0 && (sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1);
}

int Supervision::end(ExitRecord record)
{
    record.finishedMs = nowMs();
    const auto written = m_dir.writeExit(record);
    if (!written)
        note(written.error().toString());
    const auto packed = finalize(m_dir.path(), cancelPending);
    if (!packed)
        note(packed.error().toString());
    return written && packed ? 0 : 2;
}

// The script never ran: the reason goes to the log and to exit.json.
int Supervision::fail(int exitCode, const Error &error)
{
    note(error.toString());
    return end(ExitRecord{exitCode, 0, 0, false, error.toString()});
}

int Supervision::run()
{
    const auto redirected = redirectStandardStreams(m_dir.logFile());
    if (!redirected)
        return fail(-1, redirected.error());
    // Signals are taken synchronously (sigtimedwait), never by a handler.
    sigemptyset(&m_signals);
    for (const int s : {SIGTERM, SIGINT, SIGHUP, SIGCHLD})
        sigaddset(&m_signals, s);
    if (sigprocmask(SIG_BLOCK, &m_signals, nullptr) != 0 || std::signal(SIGPIPE, SIG_IGN) == SIG_ERR)
        return fail(-1, Error{u"cannot set up signals: "_s + errnoText(errno), {}, 0, 0, {}});
    const auto leader = leaveStartersSession();
    if (!leader)
        return fail(-1, leader.error());
    // Orphans of the script become our children, so they are reaped and never linger as zombies.
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        note(u"cannot become a subreaper: "_s + errnoText(errno));

    const auto spec = m_dir.readSpec();
    if (!spec)
        return fail(-1, spec.error());
    const QFileInfo script(QDir(spec->sourceDir).filePath(spec->script));
    if (!spec->isKernel() && !script.isFile())
        return fail(-1, Error{u"no such script"_s, script.filePath(), 0, 0,
                              u"check the path; it is relative to the source folder"_s});
    const Resources resources = localResources(*spec);
    const auto prepared = prepareContractFolders(m_dir.path(), *spec, resources);
    if (!prepared)
        return fail(-1, prepared.error());
    const ContractPaths paths = localContractPaths(m_dir.path(), *spec);
    const QString source = QDir(spec->sourceDir).absolutePath();
    const auto work = prepareWorkFolder(paths.codeDir, source,
                                        [&source](const QString &name) -> QString { return source + u'/' + name; });
    if (!work)
        return fail(-1, work.error());

    if (QFileInfo::exists(m_dir.exitFile())) // cancelled before it started
        return 0;
    // Secrets are read from the keychain now, into the script's environment only: never into the
    // spec, the store, the log or a command line. Its output reaches the log redacted.
    const auto secretValues = readRunSecrets(*spec);
    if (!secretValues)
        return fail(127, secretValues.error());
    int outputFd = STDOUT_FILENO;
    if (const secrets::Redactor redactor = redactorOf(*secretValues); !redactor.isEmpty()) {
        if (const auto opened = openOutputPipe(outputFd); !opened)
            return fail(-1, opened.error());
        m_redactor.emplace(redactor);
    }
    m_signalFd = ::signalfd(-1, &m_signals, SFD_CLOEXEC | SFD_NONBLOCK);
    if (m_signalFd < 0)
        return fail(-1, Error{u"cannot set up signals: "_s + errnoText(errno), {}, 0, 0, {}});
    const auto child = spawnScript(*spec, paths, *secretValues, outputFd);
    if (outputFd != STDOUT_FILENO)
        ::close(outputFd); // the script holds the write end now
    if (!child)
        return fail(127, child.error());
    m_child = *child;
    m_startedAt = monotonicMs();
    m_runId = spec->id;
    m_budget.emplace(spec->budget, spec->id, m_dir.path());
    SupervisorRecord record;
    record.supervisorPid = ::getpid();
    record.supervisorStartTicks = processState(record.supervisorPid).value_or(ProcessState{}).startTicks;
    record.childPid = m_child;
    record.processGroup = m_child;
    record.childStartTicks = processState(m_child).value_or(ProcessState{}).startTicks;
    record.bootId = currentBootId();
    if (const auto written = m_dir.writeSupervisor(record); !written) {
        // Without the record nobody could follow or cancel the run: stop it now.
        note(written.error().toString());
        m_error = written.error().toString();
        signalGroup(m_child, SIGKILL);
    }

    const int status = waitForScript();
    // A cancel signals the supervisor before the script's group, so its TERM is pending by
    // the time the script has died of the group's.
    if (cancelPending())
        m_cancelled = true;
    // Taken now: that TERM cancelled the script, and its model (saved on TERM) is still packed;
    // only a TERM that comes while the archives are packed stops packing.
    for (signalfd_siginfo info{}; ::read(m_signalFd, &info, sizeof info) == static_cast<ssize_t>(sizeof info);) {
    }
    drainOutput();
    stopLeftovers();
    drainOutput();
    if (m_redactor)
        writeAll(STDOUT_FILENO, m_redactor->finish());
    stampLog();
    ExitRecord exit;
    exit.cancelled = m_cancelled;
    if (WIFEXITED(status))
        exit.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        exit.signal = WTERMSIG(status);
    if (m_redactor)
        redactFailure(paths, m_redactor->redactor());
    exit.error = m_error.isEmpty() ? m_dir.failureText() : m_error;
    return end(exit);
}

Expected<void> Supervision::openOutputPipe(int &writeEnd)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return Error{u"cannot make a pipe for the script's output: "_s + errnoText(errno), {}, 0, 0, {}};
    ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    // A larger pipe lets a chatty script write on while the supervisor redacts (best effort).
    (void)::fcntl(fds[1], F_SETPIPE_SZ, kPipeBytes);
    m_output = fds[0];
    writeEnd = fds[1];
    return {};
}

// Moves what the script wrote into the log, redacted; false once the output has ended.
bool Supervision::pumpOutput()
{
    if (m_output < 0)
        return false;
    static constexpr qsizetype kChunk = kPipeBytes;
    if (m_buffer.size() != kChunk)
        m_buffer.resize(kChunk);
    for (;;) {
        const ssize_t n = ::read(m_output, m_buffer.data(), kChunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        if (n <= 0) {
            ::close(m_output);
            m_output = -1;
            return false;
        }
        writeAll(STDOUT_FILENO, m_redactor->feed(QByteArray::fromRawData(m_buffer.constData(), n)));
        if (n < kChunk)
            return true;
    }
}

// What is in the pipe now (the script has ended; what it left may still write until stopped, so
// a bounded number of reads).
void Supervision::drainOutput()
{
    for (int round = 0; round < 64 && m_output >= 0; ++round) {
        pollfd fd{m_output, POLLIN, 0};
        if (::poll(&fd, 1, 0) <= 0 || !pumpOutput())
            return;
    }
}

Expected<pid_t> Supervision::spawnScript(const RunSpec &spec, const ContractPaths &paths,
                                         const QList<std::pair<QString, QString>> &secretValues, int outputFd)
{
    const QString interpreter = spec.interpreter.isEmpty() ? u"python3"_s : spec.interpreter;
    QList<QByteArray> argStore;
    for (const QString &arg : runCommand(spec, interpreter, m_dir.path() + u'/' + kKeeperFolder))
        argStore << QFile::encodeName(arg);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // The environment's variables first: the contract's names always win.
    for (const auto &[name, value] : spec.variables)
        env.insert(name, value);
    for (const auto &[name, value] : secretValues)
        env.insert(name, value);
    for (const auto &[name, value] : contractEnvironment(spec, paths, localResources(spec)))
        env.insert(name, value);
    QList<QByteArray> envStore;
    for (const QString &entry : env.toStringList())
        envStore << entry.toUtf8();
    std::vector<char *> argv;
    std::vector<char *> envp;
    for (QByteArray &a : argStore)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    for (QByteArray &e : envStore)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    if (posix_spawn_file_actions_init(&actions) != 0 || posix_spawnattr_init(&attr) != 0)
        return Error{u"cannot prepare to start the script"_s, {}, 0, 0, {}};
    sigset_t none;
    sigset_t defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (const int s : {SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGPIPE})
        sigaddset(&defaults, s);
    const QByteArray cwd = QFile::encodeName(paths.codeDir); // the run's working folder (run/workfolder.h)
    int rc = posix_spawn_file_actions_addchdir_np(&actions, cwd.constData());
    if (rc == 0 && outputFd != STDOUT_FILENO)
        rc = posix_spawn_file_actions_adddup2(&actions, outputFd, STDOUT_FILENO);
    if (rc == 0 && outputFd != STDOUT_FILENO)
        rc = posix_spawn_file_actions_adddup2(&actions, outputFd, STDERR_FILENO);
    if (rc == 0)
        rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (rc == 0)
        rc = posix_spawnattr_setpgroup(&attr, 0); // a group of its own, led by the script
    if (rc == 0)
        rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0)
        rc = posix_spawnattr_setsigdefault(&attr, &defaults);
    pid_t pid = 0;
    if (rc == 0)
        rc = posix_spawnp(&pid, argv.front(), &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc == ENOENT && !QFileInfo(spec.sourceDir).isDir())
        return Error{u"the source folder does not exist"_s, spec.sourceDir, 0, 0, {}};
    if (rc == ENOENT)
        return Error{u"cannot start the interpreter '%1': not found"_s.arg(interpreter),
                     {},
                     0,
                     0,
                     u"install it, or set the run's interpreter to its full path"_s};
    if (rc != 0)
        return Error{u"cannot start the interpreter '%1': %2"_s.arg(interpreter, errnoText(rc)),
                     {},
                     0,
                     0,
                     u"check that it is an executable program"_s};
    return pid;
}

// Runs until the script has ended; reaps every other child (orphans) on the way.
int Supervision::waitForScript()
{
    qint64 nextBeat = 0;
    qint64 nextSample = 0;
    for (;;) {
        for (;;) {
            int status = 0;
            const pid_t r = ::waitpid(-1, &status, WNOHANG);
            if (r == m_child)
                return status;
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
        }
        const qint64 now = monotonicMs();
        if (now >= nextBeat) {
            if (const auto beat = m_dir.touchHeartbeat(nowMs()); !beat)
                note(beat.error().toString());
            nextBeat = now + kHeartbeatIntervalMs;
        }
        stampLog();
        if (now >= nextSample) {
            sampleSystem();
            nextSample = now + kSystemSampleMs;
        }
        checkBudget(now);
        qint64 wait = std::clamp<qint64>(nextBeat - monotonicMs(), 1, kLogStampMs);
        if (m_redactor && m_redactor->held() > 0)
            wait = std::min<qint64>(wait, kPartialLineMs); // a partial line (progress bar) is not held long
        pollfd fds[2] = {{m_signalFd, POLLIN, 0}, {m_output, POLLIN, 0}};
        const int ready = ::poll(fds, m_output >= 0 ? 2 : 1, static_cast<int>(wait));
        if (ready == 0 && m_redactor)
            writeAll(STDOUT_FILENO, m_redactor->flushPartial());
        // A chatty script's output is taken in batches (the pipe holds it meanwhile): a wake-up per
        // write of the script would cost more than the redaction itself.
        if (ready > 0 && m_output >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0 && pumpOutput())
            sleepMs(kBatchMs);
        if (ready > 0 && (fds[0].revents & POLLIN) != 0) {
            signalfd_siginfo info{};
            while (::read(m_signalFd, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
                if (info.ssi_signo == SIGTERM || info.ssi_signo == SIGINT) {
                    m_cancelled = true;
                    signalGroup(m_child, SIGTERM);
                }
            }
        }
    }
}

// The run's budget (RunSpec::budget, run/budgetclock.h): a word at kBudgetWarningShare of its first
// cap, and at the cap the stop a cancel makes (SIGTERM to the script's group, SIGKILL after the grace).
void Supervision::checkBudget(qint64 now)
{
    if (!m_budget || !m_budget->holds())
        return;
    for (auto step = m_budget->next(now - m_startedAt); step != BudgetClock::Step::None;
         step = m_budget->next(now - m_startedAt)) {
        note(m_budget->logLine(step));
        if (step == BudgetClock::Step::Stop) {
            m_cancelled = true;
            m_error = m_budget->budget().reachedText();
            signalGroup(m_child, SIGTERM);
        } else if (step == BudgetClock::Step::Kill) {
            signalGroup(m_child, SIGKILL);
        }
        if (const QString title = m_budget->title(step); !title.isEmpty() && m_hooks.notify)
            m_hooks.notify(title, m_budget->body(step));
    }
}

// A line "SIZE MS" in log.times when the log (our stdout) has grown since the last one: the
// follower dates each log line by it (run/logtimes.h).
void Supervision::stampLog()
{
    struct stat st {};
    if (::fstat(STDOUT_FILENO, &st) != 0 || st.st_size <= m_stampedSize)
        return;
    if (appendToFileSafely(m_dir.logTimesFile(), LogTimes::line(st.st_size, nowMs())))
        m_stampedSize = st.st_size;
}

// A block of system.samples (metrics/systemsamples.h): what the script's process group uses, and
// the GPUs' load when nvidia-smi is there.
void Supervision::sampleSystem()
{
    const ProcessGroupUsage usage = processGroupUsage(m_child);
    const QByteArray block = systemSampleBlock(m_samples, nowMs(), usage.cpuSeconds, usage.rssBytes, sampleGpus());
    if (appendToFileSafely(m_dir.systemSamplesFile(), block))
        ++m_samples;
}

// The run ends with its script: whatever it left running in its group is stopped, TERM
// first, then KILL.
void Supervision::stopLeftovers()
{
    const qint64 group = m_child;
    const qint64 session = ::getsid(0);
    const auto waitUntilGone = [&](int timeoutMs) {
        const qint64 deadline = monotonicMs() + timeoutMs;
        for (;;) {
            int status = 0;
            while (::waitpid(-1, &status, WNOHANG) > 0) {
            }
            if (liveGroupMembers(group, session).isEmpty())
                return true;
            if (monotonicMs() >= deadline)
                return false;
            sleepMs(20);
        }
    };
    if (liveGroupMembers(group, session).isEmpty())
        return;
    signalGroup(group, SIGTERM);
    if (waitUntilGone(kLeftoverGraceMs))
        return;
    signalGroup(group, SIGKILL);
    if (!waitUntilGone(kLeftoverKillWaitMs))
        note(u"processes of the script's group survived SIGKILL"_s);
}

} // namespace

Expected<void> leaveStartersSession()
{
    if (::getsid(0) == ::getpid())
        return {};
    if (::setsid() >= 0)
        return {};
    if (errno != EPERM)
        return Error{u"cannot start a session: "_s + errnoText(errno), {}, 0, 0, {}};
    const pid_t pid = ::fork();
    if (pid < 0)
        return Error{u"cannot fork: "_s + errnoText(errno), {}, 0, 0, {}};
    if (pid > 0)
        ::_exit(0);
    if (::setsid() < 0)
        return Error{u"cannot start a session: "_s + errnoText(errno), {}, 0, 0, {}};
    return {};
}

int superviseRun(const QString &runDir, const SupervisorHooks &hooks)
{
    if (!QFileInfo(runDir).isDir())
        return 2; // nowhere to record anything
    return Supervision(runDir, hooks).run();
}

qint64 maxPackedFileBytes(const QSettings &settings)
{
    const qint64 gib = kMaxPackedFileGiBSetting.get(settings);
    if (gib <= 0)
        return PackLimits::kDefaultMaxFileBytes;
    return std::min<qint64>(gib, qint64(1) << 32) << 30;
}

namespace {

QString sizeText(qint64 bytes)
{
    return u"%1 (%2 bytes)"_s.arg(QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat)).arg(bytes);
}

// Packs `folder` into `archivePath`; what was left out, or a cancel, is said in the run's log.
Expected<void> packRunFolder(const RunDirectory &dir, const QString &folder, const QString &archivePath,
                             const PackLimits &limits)
{
    const QByteArray name = QDir(dir.path()).relativeFilePath(folder).toUtf8();
    const QByteArray archive = QFileInfo(archivePath).fileName().toUtf8();
    const auto packed = packDirectory(folder, archivePath, limits);
    if (!packed)
        return packed.error();
    for (const PackResult::LeftOut &file : packed->tooLarge)
        (void)dir.appendToLog("ferry: " + name + '/' + file.name.toUtf8() + " is not in " + archive + ": it is " +
                              sizeText(file.bytes).toUtf8() + ", more than the " +
                              sizeText(limits.maxFileBytes).toUtf8() + " a packed file may have (setting " +
                              kMaxPackedFileGiBSetting.key().toUtf8() + "); it stays in the run's folder\n");
    if (!packed->cancelled)
        return {};
    (void)dir.appendToLog("ferry: packing " + name + "/ was cancelled: " + archive +
                          " holds nothing; the files are still in the run's folder\n");
    return packEmptyArchive(archivePath);
}

} // namespace

Expected<void> finalize(const QString &runDir, const std::function<bool()> &cancelled)
{
    const RunDirectory dir(runDir);
    const auto exit = dir.readExit();
    if (!exit)
        return exit.error();
    if (!exit->has_value())
        return Error{u"the run has not ended yet"_s, dir.path(), 0, 0, u"wait for exit.json"_s};
    PackLimits limits;
    limits.maxFileBytes = maxPackedFileBytes(QSettings());
    limits.cancelled = cancelled;
    const ContractPaths paths = localContractPaths(dir.path(), RunSpec{});
    for (const auto &[folder, archivePath] :
         {std::pair{paths.modelDir, dir.modelArchive()}, std::pair{paths.outputDataDir, dir.outputArchive()}}) {
        if (entryKind(archivePath) != EntryKind::Missing)
            continue;
        // lstat, not stat: a run that replaced model/ (or output/, output/data/) with a link
        // gets an empty archive and a note, never the files the link points at (review H1).
        QString refused;
        for (const QString &level : {folder == paths.modelDir ? folder : paths.outputDir, folder}) {
            const EntryKind kind = entryKind(level);
            if (refused.isEmpty() && kind != EntryKind::Directory && kind != EntryKind::Missing)
                refused = QDir(dir.path()).relativeFilePath(level);
        }
        if (!refused.isEmpty()) {
            (void)dir.appendToLog("ferry: " + refused.toUtf8() +
                                  " is not a folder of the run (a symbolic link or another file); nothing was packed "
                                  "from it\n");
            if (const auto packed = packEmptyArchive(archivePath); !packed)
                return packed;
            continue;
        }
        if (!QDir().mkpath(folder)) // a run that never started still gets (empty) archives
            return Error{u"cannot create the folder"_s, folder, 0, 0, u"check permissions"_s};
        if (const auto packed = packRunFolder(dir, folder, archivePath, limits); !packed)
            return packed;
    }
    return {};
}

} // namespace ferry::run
