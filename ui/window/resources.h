#pragma once

namespace ferry::ui {

// Registers the icons compiled into ferry_ui (a static library, so the linker would
// otherwise drop them). Safe to call more than once.
void initResources();

} // namespace ferry::ui
