// Loads and detects CSV/TSV tables for the trainer, parsing unquoted files on several threads.
#pragma once

#include "data/dataset.h"

namespace ferry::data {

// CSV/TSV tables (RFC 4180 quoting, CRLF, a UTF-8 byte-order mark), behind loadDataset and
// detectDataset. A file without any quote character is parsed by `threads` threads, split at
// line boundaries; 0 picks one per core (at most 8, at least 1 MB each). Tests pin 1 or 2.
Expected<Dataset> loadTable(const QString &path, const LoadOptions &options, int threads = 0);

// The table's dialect, columns, first rows and row count, from its first 64 KB and a memchr
// count of its lines.
Expected<DatasetInfo> detectTable(const QString &path);

} // namespace ferry::data
