// Compiled as if it were in core/run: a run reads its metrics with the readers below it.
#include "metrics/metricparser.h"
#include "run/runspec.h"
