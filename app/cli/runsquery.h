// `ferry runs tag`, `ferry runs note` and `ferry runs list --where`: annotating runs and finding
// them by tags, parameters and metrics.
#pragma once

// `ferry runs tag`, `ferry runs note` and `ferry runs list --where`: what a person says of a run,
// and finding runs by it, their parameters and their metrics (tracking/runquery.h).
#include "cli/command.h"
#include "cli/runsupport.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace ferry::cli {

// `ferry runs tag ID [+]TAG... [-TAG...]` and `ferry runs note ID [TEXT | -]`.
int tagOrNoteRun(const QCommandLineParser &parser, Io &io);

// The runs `--where` selects (all for an empty text), newest first; prints why not, as
// `ferry runs ACTION` says it.
std::optional<QList<run::RunRecord>> runsWhere(const run::RunStore &store, const QString &where, Io &io,
                                               const QString &action = QStringLiteral("list"));

// `ferry runs tag ID -old`: the words of `ferry runs` with a tag's `-TAG` put after `--`, where
// the parser takes it as an argument, not as an option.
QStringList tagArgumentsToParse(const QStringList &words);

} // namespace ferry::cli
