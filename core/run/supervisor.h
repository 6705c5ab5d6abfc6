// The supervisor that owns one local run: starts the script, records it, packs its archives.
#pragma once

#include "common/error.h"
#include "common/setting.h"
#include "run/archive.h"
#include "run/contract.h"
#include "run/runspec.h"

#include <QString>

#include <functional>

namespace ferry::run {

// The body of the hidden `ferry __supervise RUN_DIR`, the process that owns one local run.
// It reads spec.json, prepares the contract folders, leaves Ferry's session (so quitting or
// killing Ferry never reaches the run), starts `<interpreter> <script> <args>` in the source
// folder with the contract variables, in a process group of its own, its output appended to
// `log`; records supervisor.json, touches `heartbeat` every 2 s, forwards SIGTERM (a cancel)
// to the script's group, and when the script ends stops what it left behind in its group,
// writes exit.json and packs the archives (finalize; a SIGTERM while it packs, a cancel of a run
// that has ended, stops packing at once). Returns the supervisor's exit code.
// A run with a budget (RunSpec::budget) is stopped by its supervisor too, as a cancel stops it:
// at kBudgetWarningShare of its first cap it says so in the log and through `hooks.notify`, once;
// at the cap it records the reason (the run ends cancelled, its error "budget: ..."), sends the
// script's group SIGTERM, and SIGKILL once the budget's grace has passed. Its clock is the script's
// time since the supervisor started it, so closing Ferry changes nothing.
struct SupervisorHooks {
    // A word to the person who started the run (the command wires a desktop notification); may
    // block briefly.
    std::function<void(const QString &title, const QString &body)> notify;
};
int superviseRun(const QString &runDir, const SupervisorHooks &hooks = {});
// Leaves the starter's session, so that quitting or killing Ferry never reaches the process (a
// process that leads its group cannot: it forks once, and the child goes on).
Expected<void> leaveStartersSession();

// The largest file packed into a run's model.tar.gz and output.tar.gz, in GiB (its apparent
// size: a sparse file counts whole). A larger one stays in the run's folder, and the run's log
// says so (review L1). Read by every finalize, so a change holds for the next run that ends.
inline const Setting<qint64> kMaxPackedFileGiBSetting{"runs/maxPackedFileGiB", PackLimits::kDefaultMaxFileBytes >> 30};
// kMaxPackedFileGiBSetting in bytes; the default for a value that is not a positive number.
qint64 maxPackedFileBytes(const QSettings &settings);

// Packs model/ into model.tar.gz and output/data/ into output.tar.gz once exit.json exists.
// Idempotent and safe to run concurrently: whoever notices a finished run without its
// archives (the supervisor, a probe after a crash, a cancel) calls it. Files over
// kMaxPackedFileGiBSetting are left out, with a note in the run's log. `cancelled`, when set, is
// asked while packing: true stops it at once, and the folder's archive is left empty, with a note
// (the files stay in the run's folder).
Expected<void> finalize(const QString &runDir, const std::function<bool()> &cancelled = {});

// How often the supervisor touches the heartbeat file.
inline constexpr int kHeartbeatIntervalMs = 2000;

} // namespace ferry::run
