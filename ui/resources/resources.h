// The icons and templates compiled into ferry_ui, registered for the parts that read them.
#pragma once

namespace ferry::ui {

// Registers the icons compiled into ferry_ui (a static library, so the linker would
// otherwise drop them). Safe to call more than once. In a folder of its own below every other
// part of ui/: the environment templates, the example workspace and the window all read them.
void initResources();

} // namespace ferry::ui
