// Compiled as if it were in core/run: the include that made run and targets a cycle.
#include "targets/target.h"
