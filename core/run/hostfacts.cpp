#include "run/hostfacts.h"

#include "common/process.h"
#include "common/safefile.h"

#include <QDir>

using namespace Qt::StringLiterals;

namespace ferry::run {

// POSIX sh (a container's image may have no bash). Every value is one line: `tr` cuts what
// could end it early.
const char kHostFactsScript[] = R"SH(
ferry_host_facts() {
  f_one() { tr -d '\r\n' | head -c 200; }
  echo "hostname=$( (cat /proc/sys/kernel/hostname 2>/dev/null || hostname 2>/dev/null) | f_one)"
  echo "os=$( (. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") | f_one)"
  echo "cpu=$(awk -F': *' '/^(model name|Hardware|Processor)/ { print $2; exit }' /proc/cpuinfo 2>/dev/null | f_one)"
  echo "cores=$( (getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null) | f_one)"
  echo "memoryKiB=$(awk '/^MemTotal:/ { print $2; exit }' /proc/meminfo 2>/dev/null | f_one)"
  if command -v nvidia-smi >/dev/null 2>&1; then
    timeout 10 nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 64 | tr -d '\r' | sed 's/^/gpu=/'
  fi
}
)SH";

QString HostFacts::gpuText() const
{
    if (gpus.isEmpty())
        return u"none"_s;
    QStringList models = gpus;
    models.removeDuplicates();
    QStringList parts;
    for (const QString &model : models)
        parts << u"%1 × %2"_s.arg(gpus.count(model)).arg(model);
    return parts.join(u", "_s);
}

QList<std::pair<QString, QString>> HostFacts::fields() const
{
    const QString memory =
        memoryKiB > 0 ? u"%1 GiB"_s.arg(static_cast<double>(memoryKiB) / (1024.0 * 1024.0), 0, 'f', 1) : QString();
    return {{u"gpu"_s, gpuText()},
            {u"cpu"_s, cores > 0 ? u"%1 (%2 cores)"_s.arg(cpu.isEmpty() ? u"?"_s : cpu).arg(cores) : cpu},
            {u"memory"_s, memory},
            {u"os"_s, os},
            {u"hostname"_s, hostname}};
}

QString HostFacts::summary() const
{
    QStringList parts;
    for (const auto &[field, value] : fields()) {
        if (!value.isEmpty())
            parts << field + u' ' + value;
    }
    return parts.join(u"; "_s);
}

HostFacts HostFacts::parse(const QByteArray &text)
{
    HostFacts facts;
    for (const QByteArray &line : text.split('\n')) {
        const qsizetype eq = line.indexOf('=');
        if (eq <= 0)
            continue;
        const QByteArray key = line.left(eq);
        const QString value = QString::fromUtf8(line.mid(eq + 1)).trimmed().left(200);
        if (key == "hostname")
            facts.hostname = value;
        else if (key == "os")
            facts.os = value;
        else if (key == "cpu")
            facts.cpu = value;
        else if (key == "cores")
            facts.cores = value.toInt();
        else if (key == "memoryKiB")
            facts.memoryKiB = value.toLongLong();
        else if (key == "gpu" && !value.isEmpty() && facts.gpus.size() < 64)
            facts.gpus << value;
    }
    return facts;
}

QByteArray gatherLocalHostFacts()
{
    ProgramCall call;
    call.program = u"sh"_s;
    call.arguments = {u"-c"_s, QString::fromLatin1(kHostFactsScript) + u"ferry_host_facts"_s};
    call.timeoutMs = 20000;
    call.out = OutputCapture::tail(64 * 1024);
    call.err = OutputCapture::discard();
    const ProcessResult r = runProgram(call);
    return r.ok() ? r.out : QByteArray();
}

Expected<void> writeLocalHostFacts(const QString &runDir)
{
    const QByteArray facts = gatherLocalHostFacts();
    if (facts.isEmpty())
        return Error{u"cannot gather this host's facts"_s, runDir, 0, 0, u"check that /bin/sh runs"_s};
    return replaceFileSafely(QDir(runDir).filePath(kHostFactsFile), facts);
}

std::optional<HostFacts> readHostFacts(const QString &runDir)
{
    const auto head = readRegularFileHead(QDir(runDir).filePath(kHostFactsFile), 64 * 1024);
    if (!head || !head->has_value())
        return std::nullopt;
    const HostFacts facts = HostFacts::parse(**head);
    if (facts.empty())
        return std::nullopt;
    return facts;
}

} // namespace ferry::run
