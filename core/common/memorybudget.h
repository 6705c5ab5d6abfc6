// Checks a loader's allocation against the memory available before it is made, instead of letting
// the process be killed.
#pragma once

#include "common/error.h"

#include <QString>

#include <initializer_list>
#include <new>

namespace ferry {

// Loaders allocate what a file's header says it holds (a table's lines × columns, an idx header's
// sizes, images × their size) before reading the rest. Linux overcommits: an allocation far
// beyond the machine's memory is granted and the process is killed later, and a std::bad_alloc
// would end it too. So the size is checked first (security review L3): a load may take at most
// half of MemAvailable (/proc/meminfo), less when FERRY_MEMORY_LIMIT (bytes) says so.
qint64 memoryBudget();

// The product of `factors`, saturating at the largest qint64 instead of overflowing (a header's
// sizes multiplied together); negative factors count as 0.
qint64 saturatingProduct(std::initializer_list<qint64> factors);

// Refuses `bytes` over the budget with an Error naming `path`, what loading it means ("3 images
// of 3×4096×4096") and both sizes.
Expected<void> checkMemoryBudget(qint64 bytes, const QString &path, const QString &what);

// The Error for a std::bad_alloc caught while loading `path`: the last resort behind the check.
Error outOfMemoryError(const QString &path);

} // namespace ferry
