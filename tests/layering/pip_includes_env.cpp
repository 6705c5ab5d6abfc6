// Compiled as if it were in core/env/pip: pip's syntax knows nothing of the environment model.
#include "env/environment.h"
