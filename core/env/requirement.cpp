#include "env/requirement.h"

// Placeholder until the parser lands.
namespace ferry::env {
QString normalizePackageName(const QString &name)
{
    return name.toLower();
}
QString Requirement::normalizedName() const
{
    return normalizePackageName(name);
}
QString Requirement::canonical() const
{
    return text;
}
Expected<Requirement> parseRequirement(const QString &text)
{
    return Error{QStringLiteral("PEP 508 parsing is not implemented yet: ") + text, {}, 0, 1, {}};
}
} // namespace ferry::env
