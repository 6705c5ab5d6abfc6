#pragma once

#include <optional>

namespace ferry {

// Milliseconds since the kernel started this process, so start-up costs paid before main()
// (dynamic loading, static initialisers) are counted. Resolution is one clock tick (10 ms
// on Linux). Empty where /proc is not available.
std::optional<double> millisecondsSinceProcessStart();

} // namespace ferry
