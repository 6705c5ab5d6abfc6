#include "env/requirementsfile.h"

// Placeholder until the parser lands.
namespace ferry::env {
QString PipRequirement::canonical() const
{
    return text;
}
QString PipRequirement::toLine() const
{
    return text;
}
QStringList PipOptions::toLines() const
{
    return other;
}
RequirementsFile readRequirementsFile(const QString &path)
{
    RequirementsFile file;
    file.diagnostics << Diagnostic{Diagnostic::Severity::Error, Error{QStringLiteral("not implemented"), path, 0, 0, {}}};
    return file;
}
RequirementsFile parseRequirementsText(const QString &, const QString &path)
{
    return readRequirementsFile(path);
}
Expected<PipRequirement> parsePipLine(const QString &line)
{
    PipRequirement r;
    r.kind = PipRequirement::Kind::Verbatim;
    r.text = line;
    return r;
}
QString writeRequirementsText(const QList<PipRequirement> &requirements, const PipOptions &options)
{
    QStringList lines = options.toLines();
    for (const PipRequirement &r : requirements)
        lines << r.toLine();
    return lines.join(u'\n') + u'\n';
}
} // namespace ferry::env
