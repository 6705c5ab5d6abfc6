#include "tracking/foreignrun.h"

#include "common/safefile.h"
#include "env/environmentfile.h"
#include "env/spechash.h"
#include "metrics/metricnames.h"

#include <QDir>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// A control character (common/error.h) but, in `multiline` text, line breaks and tabs.
bool controlChar(QChar c, bool multiline)
{
    return !(multiline && (c == u'\n' || c == u'\t' || c == u'\r')) && isControlCharacter(c);
}

Error refusedField(const QString &field, const QString &why)
{
    return Error{u"field '%1' %2"_s.arg(field, why),
                 {},
                 0,
                 0,
                 u"this bundle was not made by Ferry, or it was altered: do not use it"_s};
}

QJsonArray pairsJson(const QList<std::pair<QString, QString>> &pairs, const QString &second)
{
    QJsonArray list;
    for (const auto &[name, value] : pairs)
        list.append(QJsonObject{{u"name"_s, name}, {second, value}});
    return list;
}

// A value as a note quotes it: on one line, at most 200 characters (a note is read again, and
// checked like any field, when the run is exported and imported once more).
QString brief(const QString &text)
{
    const QString line = text.simplified();
    return line.size() > 200 ? line.left(200) + u"..."_s : line;
}

} // namespace

Expected<void> checkForeignText(const QJsonValue &value, const QString &field, const QStringList &multiline)
{
    if (value.isString()) {
        const QString text = value.toString();
        const bool lines = multiline.contains(field);
        const qsizetype most = lines ? kMostForeignTextChars : kMostForeignChars;
        if (text.size() > most)
            return refusedField(field, u"holds %1 characters, more than %2"_s.arg(text.size()).arg(most));
        for (const QChar c : text) {
            if (controlChar(c, lines))
                return refusedField(field, u"holds a control character (%1)"_s.arg(codePoint(c)));
        }
        return {};
    }
    if (value.isArray()) {
        const QJsonArray array = value.toArray();
        if (array.size() > kMostForeignItems)
            return refusedField(field, u"lists %1 items, more than %2"_s.arg(array.size()).arg(kMostForeignItems));
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (auto checked = checkForeignText(array[i], u"%1[%2]"_s.arg(field).arg(i), multiline); !checked)
                return checked;
        }
        return {};
    }
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        if (object.size() > kMostForeignItems)
            return refusedField(field, u"has %1 keys, more than %2"_s.arg(object.size()).arg(kMostForeignItems));
        for (auto it = object.begin(); it != object.end(); ++it) {
            const QString key = field.isEmpty() ? it.key() : field + u'.' + it.key();
            if (auto name = checkForeignText(QJsonValue(it.key()), key + u" (its name)"_s); !name)
                return name;
            if (auto checked = checkForeignText(it.value(), key, multiline); !checked)
                return checked;
        }
    }
    return {};
}

bool runsHiddenCode(const QString &variable)
{
    return variable.startsWith(u"LD_"_s) || variable.startsWith(u"PYTHON"_s) || variable == u"PATH"_s ||
           variable == u"BASH_ENV"_s || variable == u"ENV"_s || variable.startsWith(u"DYLD_"_s) ||
           variable == u"PERL5OPT"_s || variable == u"NODE_OPTIONS"_s;
}

Expected<ForeignSpec> keepForeignSpec(const RunSpec &spec, const QString &bundleName, qint64 importedMs)
{
    if (spec.target.kind != TargetKind::Embedded && !isPathOfNames(spec.script))
        return refusedField(u"script"_s, u"'%1' is not a path inside the run's source folder"_s.arg(spec.script));
    ForeignSpec kept;
    RunSpec &k = kept.spec;
    QStringList &notes = kept.notes;
    QJsonObject original;
    // Kept: what ran, as data.
    k.id = spec.id;
    k.script = spec.script;
    k.arguments = spec.arguments;
    k.hyperparameters = spec.hyperparameters;
    k.snapshot = spec.snapshot;
    k.ferryVersion = spec.ferryVersion;
    k.data = spec.data; // fingerprints: compared with the data a rerun reads, never opened
    k.target.kind = spec.target.kind;
    k.target.host = spec.target.host; // shown; a rerun on a host names it again (rerun.h)
    k.interpreter = u"python3"_s;
    // Kept aside: the original's, shown, never applied.
    if (!spec.sourceDir.isEmpty())
        original[u"sourceDir"_s] = spec.sourceDir;
    if (!spec.environmentFile.isEmpty())
        original[u"environmentFile"_s] = spec.environmentFile;
    if (spec.interpreter != k.interpreter) {
        original[u"interpreter"_s] = spec.interpreter;
        notes << u"its interpreter %1 is the original's: a rerun uses python3 or its environment's"_s.arg(
            brief(spec.interpreter));
    }
    if (!spec.target.options.isEmpty()) {
        original[u"targetOptions"_s] = spec.target.options;
        notes << u"its target options (%1) are the original's: a rerun takes them from you"_s.arg(
            brief(spec.target.options.keys().join(u", "_s)));
    }
    if (!spec.channels.isEmpty()) {
        QJsonArray channels;
        QStringList names;
        for (const DataChannel &c : spec.channels) {
            channels.append(QJsonObject{{u"name"_s, c.name}, {u"path"_s, c.path}});
            names << c.name;
        }
        original[u"channels"_s] = channels;
        notes << u"its data channels (%1) are the original's paths: a rerun takes its data from you"_s.arg(
            brief(names.join(u", "_s)));
    }
    if (!spec.variables.isEmpty()) {
        original[u"variables"_s] = pairsJson(spec.variables, u"value"_s);
        notes << u"its %1 variables are the original's: a rerun takes those of its environment, shown before it "
                 u"starts"_s.arg(spec.variables.size());
    }
    if (!spec.secretVariables.isEmpty()) {
        original[u"secretVariables"_s] = pairsJson(spec.secretVariables, u"secret"_s);
        QStringList names;
        for (const auto &[variable, secret] : spec.secretVariables)
            names << variable + u'=' + secret;
        notes << u"its keychain secrets (%1) are never read for it: a rerun names its secrets again"_s.arg(
            brief(names.join(u", "_s)));
    }
    if (!spec.sweep.isEmpty()) {
        original[u"sweep"_s] = QJsonObject{{u"id"_s, spec.sweep}, {u"trial"_s, spec.trial}};
    }
    if (!spec.rerunOf.isEmpty())
        original[u"rerunOf"_s] = spec.rerunOf;
    // The environment's content, validated here; its tag computed here.
    if (!spec.environmentSpec.isEmpty()) {
        const env::EnvironmentRead read = env::parseEnvironmentYaml(spec.environmentSpec, u"environmentSpec"_s);
        if (env::hasErrors(read.diagnostics)) {
            for (const env::Diagnostic &d : read.diagnostics) {
                if (d.isError()) {
                    notes << u"its environment does not validate here (%1): left out, a rerun cannot rebuild "
                             u"its image"_s.arg(brief(d.toString()));
                    break;
                }
            }
        } else {
            k.environmentSpec = spec.environmentSpec;
            k.environmentTag = env::imageTag(read.environment);
        }
    }
    if (!spec.environmentTag.isEmpty() && spec.environmentTag != k.environmentTag) {
        original[u"environmentTag"_s] = spec.environmentTag;
        notes << u"its image tag '%1' is not the one its environment has here ('%2'): the bundle's is not used"_s.arg(
            brief(spec.environmentTag), k.environmentTag);
    }
    // Metric definitions within limits (metrics/metricregex.h, metrics/metricnames.h); the others said.
    for (const MetricDefinition &m : spec.metricDefinitions) {
        QString problem = metricNameProblem(m.name);
        if (problem.isEmpty() && k.metricDefinitions.size() >= kMostMetricDefinitions)
            problem = u"a run keeps at most %1"_s.arg(kMostMetricDefinitions);
        if (problem.isEmpty()) {
            if (const auto compiled = MetricRegex::compile(m.regex); !compiled)
                problem = compiled.error().message;
        }
        if (problem.isEmpty())
            k.metricDefinitions << m;
        else
            notes << u"metric definition '%1' left out: %2"_s.arg(brief(m.name), brief(problem));
    }
    k.imported = QJsonObject{{u"bundle"_s, bundleName}, {u"importedMs"_s, importedMs}, {u"original"_s, original}};
    if (!notes.isEmpty())
        k.imported[u"notes"_s] = QJsonArray::fromStringList(notes);
    return kept;
}

QStringList launchSummary(const RunSpec &spec)
{
    QStringList lines;
    const auto joined = [](const QList<std::pair<QString, QString>> &pairs, const QString &between) {
        QStringList items;
        for (const auto &[name, value] : pairs)
            items << name + between + value;
        return items.join(u", "_s);
    };
    lines << u"interpreter: "_s + spec.interpreter;
    lines << u"script: %1 (in %2)"_s.arg(spec.script, spec.sourceDir);
    if (!spec.arguments.isEmpty())
        lines << u"arguments: "_s + spec.arguments.join(u' ');
    if (!spec.hyperparameters.isEmpty()) {
        QList<std::pair<QString, QString>> hps;
        for (const Hyperparameter &h : spec.hyperparameters)
            hps.append({h.name, h.value});
        lines << u"hyperparameters: "_s + joined(hps, u"="_s);
    }
    lines << u"variables: "_s + (spec.variables.isEmpty() ? u"none"_s : joined(spec.variables, u"="_s));
    lines << u"keychain secrets: "_s +
                 (spec.secretVariables.isEmpty() ? u"none"_s : joined(spec.secretVariables, u" from "_s));
    lines << u"target: "_s + spec.target.toString();
    if (!spec.environmentFile.isEmpty())
        lines << u"environment: %1 (image tag %2)"_s.arg(spec.environmentFile, spec.environmentTag);
    for (const DataChannel &c : spec.channels)
        lines << u"data: channel %1 reads %2"_s.arg(c.name, c.path);
    const QJsonObject &o = spec.target.options;
    if (o.value(kAllowRunArgumentsOption).toBool())
        lines << u"consent: the environment's run arguments may undo the container's isolation"_s;
    if (o.contains(u"acceptHostKey"_s))
        lines << u"consent: trust the host key %1"_s.arg(o.value(u"acceptHostKey"_s).toString());
    if (o.contains(u"identityFile"_s))
        lines << u"consent: log in with the key %1"_s.arg(o.value(u"identityFile"_s).toString());
    const QJsonObject remote = o.value(u"remoteChannels"_s).toObject();
    for (auto it = remote.begin(); it != remote.end(); ++it)
        lines << u"data: channel %1 reads %2 on the host"_s.arg(it.key(), it.value().toString());
    return lines;
}

} // namespace ferry::run
