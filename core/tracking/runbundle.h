// Exports a run as one tar.gz bundle (record, metrics, log, model, snapshot) and imports one safely
// into a workspace.
#pragma once

// A run as one file to hand to a colleague (`ferry runs export ID --bundle run.tar.gz`, `ferry
// runs import run.tar.gz`, docs/snapshots.md): its record and spec, every metric point, its log
// and model, and the objects of its snapshot, so that another workspace shows it as it was and
// can run it again from its code.
//
// The bundle is a gzip-compressed tar of regular files only:
//   ferry-bundle.json      the manifest (first): format, the run's record, its parameters and
//                          artifacts, the snapshot's tree and what was left out of it
//   spec.json              the run's spec (run/runspec.h)
//   metrics.csv            every point, as `ferry runs metrics --csv` writes it (store/metriccsv.h)
//   run/NAME               the run folder's files worth keeping (kBundledRunFiles)
//   objects/ab/cdef...     the snapshot's objects (snapshot/snapshot.h), each named by its SHA-256
//
// Importing is an archive extraction from elsewhere, held to docs/security.md: only those names,
// only regular files, sizes and entries capped, every object checked against its name, the
// snapshot's trees checked (names a single part, no duplicates), the spec validated; everything
// is staged in a private folder of the workspace and moved into place only once all of it
// passed, so a refused bundle leaves nothing behind.
#include "common/error.h"
#include "store/runstore.h"

#include <QString>
#include <QStringList>

namespace ferry::run {

inline constexpr int kBundleFormat = 1;
inline constexpr QLatin1String kBundleManifestName{"ferry-bundle.json"};

// The files of a run folder a bundle carries (the rest say where and how it ran on its machine:
// supervisor.json, heartbeat, container.json, ...).
QStringList bundledRunFiles();

struct BundleExportOptions {
    bool includeSecrets = false; // keep the snapshot's secret-like files (snapshot::looksSecret)
    // Keep the spec's variable values and this machine's paths (specForBundle), and the run's
    // environment file in its code.
    bool includeValues = false;
};

struct BundleExport {
    QStringList leftOut; // the snapshot's files left out as secret-like, by path
    // What was left out as this machine's (without includeValues): the spec's fields
    // (specForBundle), e.g. "variables.API_KEY", then "snapshot:PATH" for the run's environment
    // file in its code when that holds the variables' values. The manifest's valuesLeftOut.
    QStringList leftOutValues;
    qint64 objects = 0; // snapshot objects in the bundle
    qint64 points = 0;  // metric points
    QStringList runFiles;
};

// The spec as a bundle carries it unless asked for more (review N7): what it says of this machine
// is left out. The values of the environment's variables (the spec's and its recorded
// environment's: names are kept, values empty), the source folder's path (its name is kept: a
// rerun elsewhere uses only that), the environment file's path, the data channels (their paths
// are this machine's; each channel's name, size and fingerprint stay in `data`, its path
// emptied), an interpreter's folder (its file name is kept), the SSH key's path and a container
// engine's path (target options identityFile and engine). `leftOut` gets the name of each field
// left out, as the manifest lists it ("variables.API_KEY", "sourceDir", "channels.training", ...).
// Import and rerun take such a spec as they take any: a field left out is one they never had.
RunSpec specForBundle(RunSpec spec, QStringList &leftOut);

// Writes the bundle of the ended run `record` (its folder under `runsDir`) to `bundlePath`
// (complete or absent). Blocks: reads the whole run.
Expected<BundleExport> exportRunBundle(const RunStore &store, const QString &runsDir, const RunRecord &record,
                                       const QString &bundlePath, const BundleExportOptions &options = {});

struct BundleImport {
    RunRecord record;
    QStringList leftOut; // what the exporter said it left out
    QStringList notes;   // what of its spec was kept aside as the original's (tracking/foreignrun.h)
    qint64 points = 0;
    qint64 objects = 0;      // snapshot objects in the bundle
    qint64 addedObjects = 0; // of those, new to this workspace
};

// Imports the bundle at `bundlePath` into the workspace whose runs are in `runsDir` and whose
// store is `store`. A run whose id the workspace has already is refused (import it again after
// `ferry runs delete ID`). Blocks.
Expected<BundleImport> importRunBundle(RunStore &store, const QString &runsDir, const QString &bundlePath);

} // namespace ferry::run
