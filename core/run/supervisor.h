#pragma once

#include "common/error.h"
#include "run/contract.h"
#include "run/runspec.h"

#include <QString>

namespace ferry::run {

// The body of the hidden `ferry __supervise RUN_DIR`, the process that owns one local run.
// It reads spec.json, prepares the contract folders, leaves Ferry's session (so quitting or
// killing Ferry never reaches the run), starts `<interpreter> <script> <args>` in the source
// folder with the contract variables, in a process group of its own, its output appended to
// `log`; records supervisor.json, touches `heartbeat` every 2 s, forwards SIGTERM (a cancel)
// to the script's group, and when the script ends stops what it left behind in its group,
// writes exit.json and packs the archives (finalize). Returns the supervisor's exit code.
int superviseRun(const QString &runDir);

// Packs model/ into model.tar.gz and output/data/ into output.tar.gz once exit.json exists.
// Idempotent and safe to run concurrently: whoever notices a finished run without its
// archives (the supervisor, a probe after a crash, a cancel) calls it.
Expected<void> finalize(const QString &runDir);

// How often the supervisor touches the heartbeat file.
inline constexpr int kHeartbeatIntervalMs = 2000;

} // namespace ferry::run
