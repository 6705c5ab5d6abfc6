// Compiled as if it were in core/common: the lowest layer must not reach a run's spec.
#include "run/runspec.h"
