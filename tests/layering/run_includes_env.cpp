// Compiled as if it were in core/run: a run may use the environment below it.
#include "env/environment.h"
#include "run/runspec.h"
