// Compiled as if it were in core/tracking: the analysis of runs sits above tracking, never below it.
#include "analysis/curves.h"
