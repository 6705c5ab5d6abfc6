#include "ui/env/environmentchangeitem.h"

#include <QTreeWidgetItem>

namespace ferry::ui {

QTreeWidgetItem *environmentChangeItem(const env::EnvironmentChange &c)
{
    auto *item = new QTreeWidgetItem({c.section, c.key, env::changeKindName(c.kind), c.before, c.after});
    QColor colour;
    switch (c.kind) {
    case env::EnvironmentChange::Kind::Added:
        colour = QColor(214, 245, 214);
        break;
    case env::EnvironmentChange::Kind::Removed:
        colour = QColor(255, 220, 220);
        break;
    case env::EnvironmentChange::Kind::Changed:
        colour = QColor(255, 243, 205);
        break;
    }
    for (int column = 0; column < 5; ++column) {
        item->setBackground(column, colour);
        item->setToolTip(column, item->text(column));
    }
    return item;
}

} // namespace ferry::ui
