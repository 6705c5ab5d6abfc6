#include "ui/document/document.h"

namespace ferry::ui {

bool Document::isOpenAt(const QString &absolutePath) const
{
    return !absolutePath.isEmpty() && path() == absolutePath;
}

} // namespace ferry::ui
