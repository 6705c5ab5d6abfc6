#include "targets/containersecrets.h"

#include "common/leftovers.h"
#include "common/safefile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

const QString kSecretsFile = u"variables.json"_s;

// The container's entry for a run with secrets (Python 3, standard library only: every
// environment image has the interpreter). argv: SECRETS_FILE LOG FAILURE_FILE COMMAND...
constexpr char kEntry[] =
    R"PY(# Ferry's container entry for a run with secret variables (written by Ferry; holds no secret).
# Reads the values from a private file and deletes it, starts the command with them in its
# environment only (never in a command line), and appends its output to the run's log (LOG "-":
# this program's standard output) with every value and encoding of one replaced by ***. Keeps lines whole;
# a secret split across reads, or printed line by line (a PEM key), is found: the algorithm is
# Ferry's StreamRedactor (secrets/streamredactor.h), ported; change both together.
# The script's failure message (the contract's failure file) is redacted too.
import base64, fcntl, json, os, select, signal, subprocess, sys, time

secrets_file, log_path, failure_path, command = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
log = os.fdopen(os.dup(1), 'wb', buffering=0) if log_path == '-' else open(log_path, 'ab', buffering=0)
try:
    with open(secrets_file, 'rb') as f:
        data = json.load(f)
except (OSError, ValueError) as e:
    log.write(b'ferry: cannot read the run\'s secret variables (%s): they are removed when the run does not '
              b'start in time or is cancelled; start the run again\n' % type(e).__name__.encode())
    sys.exit(2)
finally:
    try:
        os.unlink(secrets_file)
    except OSError:
        pass
env = dict(os.environ)
env.update(data['variables'])
patterns = sorted((base64.b64decode(p) for p in data['patterns']), key=len, reverse=True)
del data


def safe_cut(text, whole_lines):
    # How much of the held text may go out: StreamRedactor::safeCut (secrets/streamredactor.h),
    # ported. 1. the earliest suffix that is a proper prefix of a pattern (a secret still arriving,
    # across newlines); 2. back to a line boundary; 3. back to the start of a complete occurrence
    # that spans the cut; 2 and 3 until nothing moves.
    size = len(text)
    cut = size
    for p in patterns:
        i = text.find(p[:1], max(0, size - len(p) + 1))
        while 0 <= i < cut:
            if p.startswith(text[i:]):
                cut = i
                break
            i = text.find(p[:1], i + 1)
    moved = True
    while moved and cut > 0:
        moved = False
        if whole_lines:
            line = text.rfind(b'\n', 0, cut) + 1
            if line < cut:
                cut, moved = line, True
        for p in patterns:
            if cut == 0:
                break
            at = text.find(p, max(0, cut - len(p) + 1))
            if 0 <= at < cut:
                cut, moved = at, True
    return cut


def redact(text):
    for p in patterns:
        text = text.replace(p, b'***')
    return text


try:
    child = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
except OSError as e:
    log.write(redact(('ferry: cannot start %s: %s\n' % (command[0], e)).encode()))
    sys.exit(127)
del env


def forward(signum, frame):
    child.send_signal(signum)


for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(s, forward)
out = child.stdout.fileno()
try:  # a larger pipe lets a chatty script write on while its output is redacted
    fcntl.fcntl(out, getattr(fcntl, 'F_SETPIPE_SZ', 1031), 1 << 20)
except OSError:
    pass
held = b''
ended = 0  # reads since the script ended: what it left running may hold the pipe open


def release(whole_lines):
    global held
    cut = safe_cut(held, whole_lines)
    if whole_lines and len(held) - cut > 65536:  # a very long line goes out without its newline
        cut = safe_cut(held, False)
    if cut:
        log.write(redact(held[:cut]))
        held = held[cut:]


while ended < 64:
    if ended or child.poll() is not None:
        ended += 1
    ready, _, _ = select.select([out], [], [], 0 if ended else 0.1)
    if not ready and ended:
        break
    if not ready:  # quiet: a partial line (a progress bar) is written, all but a possible secret's start
        release(False)
        continue
    chunk = os.read(out, 1 << 20)
    if not chunk:
        break
    if not ended:
        time.sleep(0.005)  # output taken in batches: a wake-up per write costs more than the redaction
    held += chunk
    release(True)
log.write(redact(held))
code = child.wait()
try:
    with open(failure_path, 'rb') as f:
        failure = f.read()
    if redact(failure) != failure:
        with open(failure_path, 'wb') as f:
            f.write(redact(failure))
except OSError:
    pass
sys.exit(128 - code if code < 0 else code)
)PY";

} // namespace

QByteArray secretEntryProgram()
{
    return QByteArray(kEntry, sizeof kEntry - 1);
}

QByteArray secretEntryPayload(const QList<std::pair<QString, QString>> &values, const secrets::Redactor &redactor)
{
    QJsonObject variables;
    for (const auto &[name, value] : values)
        variables.insert(name, value);
    QJsonArray patterns;
    for (const QByteArray &pattern : redactor.patterns())
        patterns.append(QString::fromLatin1(pattern.toBase64()));
    return QJsonDocument(QJsonObject{{u"variables"_s, variables}, {u"patterns"_s, patterns}})
        .toJson(QJsonDocument::Compact);
}

ContainerSecrets::~ContainerSecrets()
{
    remove();
}

Expected<void> ContainerSecrets::prepare(const QList<std::pair<QString, QString>> &values,
                                         const secrets::Redactor &redactor, const QString &runDir)
{
    // Named after this process (common/leftovers.h): a crash's leftover is swept at the next start.
    QByteArray folder = QFile::encodeName(ownedTempTemplate(kSecretsTempPrefix));
    if (::mkdtemp(folder.data()) == nullptr) // 0700
        return Error{u"cannot make a private folder for the run's secrets: "_s + errnoText(), QDir::tempPath(), 0, 0,
                     u"check that the temporary folder is writable"_s};
    m_folder = QFile::decodeName(folder);

    const QByteArray json = secretEntryPayload(values, redactor);
    const QByteArray file = QFile::encodeName(QDir(m_folder).filePath(kSecretsFile));
    const int fd = ::open(file.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return Error{u"cannot write the run's secrets: "_s + errnoText(), m_folder, 0, 0, {}};
    const bool written = ::write(fd, json.constData(), static_cast<size_t>(json.size())) == json.size();
    ::close(fd);
    if (!written)
        return Error{u"cannot write the run's secrets: "_s + errnoText(), m_folder, 0, 0, u"check free space"_s};

    // In the run folder, which no container mounts: the container gets this one file, read-only.
    const QString entry = QDir(runDir).filePath(kEntryFile);
    if (const auto saved = replaceFileSafely(entry, secretEntryProgram(), 0644); !saved)
        return Error{u"cannot write the container's entry: "_s + saved.error().message, entry, 0, 0,
                     u"check permissions"_s};
    return {};
}

QString ContainerSecrets::mount() const
{
    // Writable, so that the entry can delete the file as soon as it has read it.
    return u"type=bind,source=%1,target=%2"_s.arg(m_folder, kMountPoint);
}

QStringList ContainerSecrets::entryCommand(const QString &interpreter, const QString &ferryMount,
                                           const QString &failureFile) const
{
    return {interpreter, ferryMount + u'/' + kEntryFile, kMountPoint + u'/' + kSecretsFile, ferryMount + u"/log"_s,
            failureFile};
}

bool ContainerSecrets::waitUntilTaken(int timeoutMs)
{
    const QString file = QDir(m_folder).filePath(kSecretsFile);
    bool taken = false;
    for (int waited = 0; !(taken = !QFileInfo::exists(file)) && waited < timeoutMs; waited += 50)
        QThread::msleep(50);
    remove();
    return taken;
}

void ContainerSecrets::remove()
{
    if (!m_folder.isEmpty())
        QDir(m_folder).removeRecursively();
    m_folder.clear();
}

} // namespace ferry::targets
