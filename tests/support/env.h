// Small helpers the environment tests share: test data paths and diagnostics as text.
#pragma once

// Small helpers shared by the environment tests.
#include "common/diagnostic.h"
#include "support/corpus.h"

#include <QJsonDocument>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace ferry::test {

inline QString dataPath(const QString &relative)
{
    return QStringLiteral(FERRY_TEST_DATA "/env/") + relative;
}

using ::corpusPath;

inline QString describe(const env::Diagnostics &diagnostics)
{
    QStringList lines;
    for (const env::Diagnostic &d : diagnostics)
        lines << d.toString();
    return lines.join(u'\n');
}

inline int count(const env::Diagnostics &diagnostics, env::Diagnostic::Severity severity)
{
    return static_cast<int>(std::count_if(diagnostics.cbegin(), diagnostics.cend(),
                                          [&](const env::Diagnostic &d) { return d.severity == severity; }));
}

// Loads YAML with PyYAML (the reference reader) and returns it as JSON; null on failure.
inline QJsonDocument loadWithPyYaml(const QString &yamlText, QString *error = nullptr)
{
    QProcess python;
    python.start(QStringLiteral("/usr/bin/python3"),
                 {QStringLiteral("-c"), QStringLiteral("import sys, json, yaml; "
                                                       "print(json.dumps(yaml.safe_load(sys.stdin.read())))")});
    python.write(yamlText.toUtf8());
    python.closeWriteChannel();
    python.waitForFinished(60000);
    if (python.exitCode() != 0 && error)
        *error = QString::fromUtf8(python.readAllStandardError());
    return QJsonDocument::fromJson(python.readAllStandardOutput());
}

} // namespace ferry::test
