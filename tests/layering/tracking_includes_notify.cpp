// Compiled as if it were in core/tracking: the desktop's D-Bus is notify's, above; what fires is
// tracking's own (alertwatch.h), with no bus.
#include "notify/desktopnotifier.h"
