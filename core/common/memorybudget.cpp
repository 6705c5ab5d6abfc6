#include "common/memorybudget.h"

#include <QFile>
#include <QLocale>

#include <limits>

#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

constexpr qint64 kUnlimited = std::numeric_limits<qint64>::max();

// MemAvailable in bytes; the physical memory when /proc/meminfo does not say (not Linux).
qint64 availableMemory()
{
    QFile meminfo(u"/proc/meminfo"_s);
    if (meminfo.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> lines = meminfo.readAll().split('\n');
        for (const QByteArray &line : lines) {
            if (!line.startsWith("MemAvailable:"))
                continue;
            bool ok = false;
            const qint64 kib = line.mid(13).trimmed().split(' ').value(0).toLongLong(&ok);
            if (ok && kib >= 0)
                return saturatingProduct({kib, 1024});
        }
    }
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && pageSize > 0 ? saturatingProduct({pages, pageSize}) : kUnlimited;
}

QString size(qint64 bytes)
{
    return QLocale::c().formattedDataSize(bytes, 1);
}

} // namespace

qint64 saturatingProduct(std::initializer_list<qint64> factors)
{
    qint64 product = 1;
    for (const qint64 f : factors) {
        if (f <= 0)
            return 0;
        if (product > kUnlimited / f)
            product = kUnlimited;
        else
            product *= f;
    }
    return product;
}

namespace {

struct Budget {
    qint64 bytes = kUnlimited;
    bool limited = false; // FERRY_MEMORY_LIMIT set it
};

Budget budgetNow()
{
    const qint64 available = availableMemory();
    Budget budget{available == kUnlimited ? kUnlimited : available / 2, false};
    bool ok = false;
    const qint64 limit = qEnvironmentVariable("FERRY_MEMORY_LIMIT").toLongLong(&ok);
    if (ok && limit >= 0 && limit < budget.bytes)
        budget = {limit, true};
    return budget;
}

} // namespace

qint64 memoryBudget()
{
    return budgetNow().bytes;
}

Expected<void> checkMemoryBudget(qint64 bytes, const QString &path, const QString &what)
{
    const Budget budget = budgetNow();
    if (bytes <= budget.bytes)
        return {};
    return Error{u"loading %1 needs %2 of memory; at most %3 may be used (%4)"_s.arg(
                     what, bytes == kUnlimited ? u"more than %1"_s.arg(size(budget.bytes)) : size(bytes),
                     size(budget.bytes),
                     budget.limited ? u"FERRY_MEMORY_LIMIT"_s : u"half of the memory available now"_s),
                 path, 0, 0, u"is this the right file? What its header describes does not fit in memory"_s};
}

Error outOfMemoryError(const QString &path)
{
    return Error{u"not enough memory to load it"_s, path, 0, 0,
                 u"close other programs, or load a smaller part of the data"_s};
}

} // namespace ferry
