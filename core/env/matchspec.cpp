#include "env/matchspec.h"

// Placeholder until the parser lands.
namespace ferry::env {
QString MatchSpec::canonical() const
{
    return text;
}
Expected<MatchSpec> parseMatchSpec(const QString &text)
{
    return Error{QStringLiteral("MatchSpec parsing is not implemented yet: ") + text, {}, 0, 1, {}};
}
} // namespace ferry::env
