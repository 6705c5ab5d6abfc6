#include "env/diagnostic.h"

using namespace Qt::StringLiterals;

namespace ferry::env {

QString Diagnostic::toString() const
{
    Error labelled = where;
    labelled.message = (isError() ? u"error: "_s : u"warning: "_s) + where.message;
    return labelled.toString();
}

} // namespace ferry::env
