// Compiled as if it were in core/metrics: the metric readers know nothing of a run's spec.
#include "run/runspec.h"
