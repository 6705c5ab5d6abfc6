#include "common/diagnostic.h"

using namespace Qt::StringLiterals;

namespace ferry {

QString Diagnostic::toString() const
{
    Error labelled = where;
    labelled.message = (isError() ? u"error: "_s : u"warning: "_s) + where.message;
    return labelled.toString();
}

} // namespace ferry
