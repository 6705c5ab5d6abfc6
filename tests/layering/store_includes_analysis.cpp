// Compiled as if it were in core/store: the store knows nothing of the analysis of its runs.
#include "analysis/rungroups.h"
