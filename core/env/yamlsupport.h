// yaml-cpp glue the YAML formats share: positioned load errors, scalars as QString, unknown keys
// kept, safe emitting.
#pragma once

// yaml-cpp glue shared by the YAML formats: loading with positioned errors, scalars as
// QString, unknown subtrees to and from JSON, and emitting strings that PyYAML and every
// other YAML 1.1 reader load back as strings.
#include "common/diagnostic.h"
#include "env/environment.h"

#include <yaml-cpp/yaml.h>

#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::env::yaml {

// Parses YAML text; syntax errors and over-deep nesting become an Error at line:column.
Expected<YAML::Node> load(const QString &text, const QString &path);

QString scalar(const YAML::Node &node);
// 1-based position of a node, for diagnostics.
int line(const YAML::Node &node);
int column(const YAML::Node &node);

// Collects diagnostics while reading one file.
class Reader {
public:
    explicit Reader(QString path) : m_path(std::move(path)) {}

    void error(const YAML::Node &at, const QString &message, const QString &hint = {});
    void warning(const YAML::Node &at, const QString &message, const QString &hint = {});
    void add(Diagnostic diagnostic) { m_diagnostics << std::move(diagnostic); }

    // The value as a string; reports an error (and returns empty) when it is a list or a map.
    QString string(const YAML::Node &node, const QString &key);
    // A list of strings; a single string is accepted as a one-element list.
    QStringList strings(const YAML::Node &node, const QString &key);
    bool boolean(const YAML::Node &node, const QString &key, bool fallback);
    // A file's format version under `key` (`ferry: 1`, `ferry-sweep: 1`): an error unless it is a
    // whole number from 1 to `supported` (a newer one: "update Ferry").
    void formatVersion(const YAML::Node &node, const QString &key, int supported);
    bool isMap(const YAML::Node &node, const QString &key);

    const QString &path() const { return m_path; }
    const Diagnostics &diagnostics() const { return m_diagnostics; }
    Diagnostics takeDiagnostics() { return std::move(m_diagnostics); }

private:
    QString m_path;
    Diagnostics m_diagnostics;
};

// Loads a file whose top level must be a mapping. On failure `r` holds the reason (syntax,
// empty file: `emptyHint`, not a mapping: `notMapMessage`) and the result is empty.
std::optional<YAML::Node> loadMapping(const QString &text, Reader &r, const QString &emptyHint,
                                      const QString &notMapMessage);

// A YAML subtree as JSON: plain scalars resolved like YAML's core schema (int, float, bool,
// null), quoted scalars kept as strings.
ExtraKeys toJson(const YAML::Node &node);
// The keys of `map` not in `known`, as a JSON object (null when there are none).
ExtraKeys unknownKeys(const YAML::Node &map, const QStringList &known);

// True when a key anywhere in `value` holds a control character: such keys cannot be written
// back faithfully, so readers refuse them.
bool hasControlCharacterKeys(const ExtraKeys &value);

// Emitting.
void emitString(YAML::Emitter &out, const QString &value);
// A mapping key, in the explicit `? key` form when it is too long for an implicit one.
void emitKey(YAML::Emitter &out, const QString &key);
void emitStrings(YAML::Emitter &out, const QStringList &values, bool flow = true);
void emitJson(YAML::Emitter &out, const ExtraKeys &value);
// `variables:` as a mapping, in order; nothing when there are none.
// `secret` names variables whose value is a keychain secret's name: written as `NAME: {secret: VALUE}`.
void emitVariables(YAML::Emitter &out, const QList<std::pair<QString, QString>> &variables,
                   const QStringList &secret = {});
// Writes each key of `extra` (an object) into the map being emitted.
void emitExtraKeys(YAML::Emitter &out, const ExtraKeys &extra);
QString toText(const YAML::Emitter &out);

} // namespace ferry::env::yaml
