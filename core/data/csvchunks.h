// The CSV reader's middle stage: a mapped file's data rows split into chunks and parsed into floats
// on several threads.
#pragma once

#include "common/error.h"
#include "data/csvreader.h"

#include <QByteArray>

#include <vector>

// The table reader's middle (csvreader.cpp reads the dialect before and builds the dataset
// after): the data rows of a mapped file parsed into floats, on several threads when no quoted
// field can hold a line break. Only csvreader.cpp includes this.

namespace ferry::data {
class FileBytes;
}

namespace ferry::data::csv {

struct Layout {
    char delimiter = ',';
    int columns = 0;
    int target = 0;
    int features = 0;
    MissingPolicy missing = MissingPolicy::DropRow;
};

struct Problem {
    enum Kind { None, Ragged, NotNumber, Unclosed, Cancelled, OutOfMemory } kind = None;
    qint64 offset = 0; // where, in the file
    int column = 0;    // 0-based
    int found = 0;     // a ragged row's field count
    QByteArray value;
};

// The records of one stretch of the file, parsed into its own buffers.
struct Chunk {
    const char *begin = nullptr;
    const char *end = nullptr;
    std::vector<float> features;
    std::vector<float> targets; // NaN where the target is text
    std::vector<qint64> targetOffsets;
    qsizetype rows = 0;
    qsizetype droppedMissing = 0;
    qsizetype droppedTarget = 0;
    qsizetype imputed = 0;
    qint64 firstTextTarget = -1;
    Problem problem;
};

// The parsed rows of every chunk, in file order, and what was dropped or imputed on the way.
struct Rows {
    qsizetype count = 0;
    qsizetype droppedMissing = 0;
    qsizetype droppedTarget = 0;
    qsizetype imputed = 0;
    qint64 firstTextTarget = -1; // the offset of the first target that is text
    std::vector<float> features;
    std::vector<float> targets;
    std::vector<qint64> targetOffsets;
};

// The stretches of [dataBegin, end) the threads parse, each ending after a line break.
std::vector<Chunk> splitIntoChunks(const char *dataBegin, const char *end, int threads);

// Every line may be a row: the chunks' buffers hold that many rows of floats, the targets and
// their offsets, and several chunks are copied into one matrix at the end. A 10k-column header
// over a file of blank lines would ask for terabytes (security review L3).
Expected<void> checkChunkMemory(const char *dataBegin, const char *end, const Layout &layout, int chunkCount,
                                const QString &path);

// Parses every chunk: the first on the calling thread, each other on a thread of its own. Only
// the calling thread calls the caller's functions (progress, cancelled); workers poll a flag, and
// stop once an earlier chunk has failed.
void parseChunks(const FileBytes &bytes, const char *dataBegin, const Layout &layout, std::vector<Chunk> &chunks,
                 const LoadOptions &options);

// The chunks' rows in file order, in one set of buffers (moved, not copied, from a single chunk).
Rows joinChunks(std::vector<Chunk> &chunks, const Layout &layout);

} // namespace ferry::data::csv
