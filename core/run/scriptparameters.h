// A training script's argparse arguments, read from its source as hyperparameters.
#pragma once

#include "common/error.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::run {

// One `parser.add_argument(...)` call of a training script, read from its source text (never
// run): what the launch dialog offers as a hyperparameter.
struct ScriptParameter {
    QString name;                // the first long option without its dashes ("learning-rate"), else the short one
    QStringList flags;           // as written: "--learning-rate", "-l"
    QString type;                // "int", "float", "str", "bool" (flags and bool-ish lambdas), "json", or "" (unknown)
    QString defaultValue;        // the default as Python source text ("0.1", "'sgd'", "[8]"); empty: none
    QString environmentVariable; // the default comes from os.environ / os.getenv: its name ("SM_MODEL_DIR")
    QString help;
    QStringList choices; // literal choices, as source text
    bool required = false;
    bool isFlag = false; // action="store_true" / "store_false": given without a value
    int line = 0;        // 1-based line of the call

    // A default from a SageMaker variable: a folder or a setting the contract fills in, not a
    // hyperparameter to tune (model dir, channels, hosts, ...).
    bool isContract() const { return environmentVariable.startsWith(QStringLiteral("SM_")); }
    // The default as a value to show and pass on: strings unquoted, numbers as they are.
    QString defaultText() const;
};

// Every optional argument (a flag starting with '-') of every add_argument call in `source`,
// in source order. Calls that cannot be read (unbalanced, truncated) are skipped; nothing throws.
QList<ScriptParameter> discoverScriptParameters(const QString &source);
Expected<QList<ScriptParameter>> discoverScriptParametersInFile(const QString &path);

} // namespace ferry::run
