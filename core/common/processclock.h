// Identifies a process across pid reuse (start ticks, group, session from /proc) and measures time
// since it started.
#pragma once

#include <optional>

#include <QtGlobal>

namespace ferry {

// The identity of a process: pid plus what makes it unique across pid reuse and reboots.
struct ProcessState {
    quint64 startTicks = 0; // clock ticks after boot at which the process started
    qint64 processGroup = 0;
    qint64 session = 0;
    bool zombie = false;
};
// Parsed from /proc/<pid>/stat; empty if there is no such process.
std::optional<ProcessState> processState(qint64 pid);

// Milliseconds since the kernel started this process, so start-up costs paid before main()
// (dynamic loading, static initialisers) are counted. Resolution is one clock tick (10 ms
// on Linux). Empty where /proc is not available.
std::optional<double> millisecondsSinceProcessStart();

} // namespace ferry
