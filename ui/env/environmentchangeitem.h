// One environment change as a coloured row of a tree, shared by the versions and compare views.
#pragma once

// One environment change as a row of a tree (section, what, change, before, after), coloured by
// its kind: the versions view and the compare view show changes alike.
#include "env/environmentdiff.h"

class QTreeWidgetItem;

namespace ferry::ui {

// A new item (its parent takes it) with the change's five columns, coloured and with tooltips.
QTreeWidgetItem *environmentChangeItem(const env::EnvironmentChange &change);

} // namespace ferry::ui
