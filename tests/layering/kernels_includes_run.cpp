// Compiled as if it were in core/kernels: the Jupyter protocol knows nothing of a run.
#include "run/runspec.h"
