#include "ui/resources/resources.h"

#include <QtGlobal>

// Q_INIT_RESOURCE must be called outside any namespace.
static void initFerryResources()
{
    Q_INIT_RESOURCE(ferry);
}

namespace ferry::ui {

void initResources()
{
    static const bool done = (initFerryResources(), true);
    Q_UNUSED(done);
}

} // namespace ferry::ui
