// How an imported run from elsewhere is held: what a rerun may reuse, and what grants or trusts
// kept aside, never applied.
#pragma once

// A run from elsewhere (`ferry runs import`) is a description of what ran there, never a launch
// request (docs/security.md, "Handing a run to a colleague"; second review H1-H3, N6). At import
// Ferry keeps what a rerun may reuse: the script, its arguments and hyperparameters, the snapshot,
// the environment's content (validated again, its image tag computed here) and metric definitions
// within limits. Whatever grants or trusts (the container engine, host keys, identity files, the
// run-arguments consent, secret names, data paths, the source folder, the interpreter, variables'
// values, the target's options) is kept aside in RunSpec::imported as the original's: shown,
// never applied. A rerun of such a run asks for those again (rerun.h).
#include "metrics/metricregex.h"
#include "run/runspec.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QStringList>

namespace ferry::run {

// The limits every text of an imported spec or manifest is held to.
inline constexpr qsizetype kMostForeignChars = 4096;           // a name, a path, a value
inline constexpr qsizetype kMostForeignTextChars = 256 * 1024; // the environment's YAML, a note, an error
inline constexpr qsizetype kMostForeignItems = 10000;          // items of a list, keys of an object

// Why `value` (a bundle's spec.json or manifest, or a part of it at `field`) cannot be read as
// data: the first string holding a control character or longer than the limit, a list or object
// too long. `multiline`: the fields (as "environmentSpec", "run.error") that may hold newlines
// and tabs, and up to kMostForeignTextChars. The Error's message names the field.
Expected<void> checkForeignText(const QJsonValue &value, const QString &field, const QStringList &multiline = {});

// A spec read from a bundle, as this workspace keeps it.
struct ForeignSpec {
    RunSpec spec;      // what is kept; `imported` records the rest
    QStringList notes; // what was left aside or dropped, one line each, for the person importing
};

// `spec` (from the bundle `bundleName`, already checked by checkForeignText) as kept here: the
// rest moved into RunSpec::imported {"bundle", "importedMs", "original": {...}, "notes": [...]}.
// An Error (naming the field) for what no rerun could use safely: a script path that climbs out.
Expected<ForeignSpec> keepForeignSpec(const RunSpec &spec, const QString &bundleName, qint64 importedMs);

// Variables a rerun of a run from elsewhere never takes from it: they run code that reading the
// script does not show (LD_PRELOAD, PYTHONPATH, PATH, BASH_ENV; review N6).
bool runsHiddenCode(const QString &variable);

// What a rerun will run, one line each, for a person to read before it starts (the command line
// prints it, the window shows it): the interpreter, script, arguments, hyperparameters,
// variables, target and its options, data channels, secrets, and the consents it holds.
QStringList launchSummary(const RunSpec &spec);

} // namespace ferry::run
