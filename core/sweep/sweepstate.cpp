#include "sweep/sweepstate.h"

#include "common/enumnames.h"
#include "common/filelock.h"
#include "common/safefile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::sweep {

namespace {

constexpr int kStateFormat = 1;
constexpr qint64 kMaxStateBytes = 256LL * 1024 * 1024;

constexpr EnumNames<TrialStatus, 7> kTrialStatusNames{{
    {TrialStatus::Starting, u"starting"},
    {TrialStatus::Running, u"running"},
    {TrialStatus::Succeeded, u"succeeded"},
    {TrialStatus::Failed, u"failed"},
    {TrialStatus::StoppedEarly, u"stopped early"},
    {TrialStatus::Cancelled, u"cancelled"},
    {TrialStatus::Lost, u"lost"},
}};

constexpr EnumNames<SweepStatus, 4> kSweepStatusNames{{
    {SweepStatus::Running, u"running"},
    {SweepStatus::Finished, u"finished"},
    {SweepStatus::Cancelled, u"cancelled"},
    {SweepStatus::Failed, u"failed"},
}};

QJsonObject trialToJson(const Trial &t)
{
    QJsonArray point;
    for (const double c : t.point)
        point.append(c);
    QJsonArray order; // the script's order of options
    for (const run::Hyperparameter &h : t.hyperparameters)
        order.append(QJsonObject{{u"name"_s, h.name}, {u"value"_s, h.value}});
    QJsonObject json{
        {u"trial"_s, t.number},       {u"run"_s, t.runId},           {u"status"_s, trialStatusText(t.status)},
        {u"point"_s, point},          {u"hyperparameters"_s, order}, {u"started"_s, t.startedMs},
        {u"finished"_s, t.finishedMs}};
    if (t.objective && std::isfinite(*t.objective))
        json[u"objective"_s] = *t.objective;
    if (!t.gpu.isEmpty())
        json[u"gpu"_s] = t.gpu;
    if (!t.detail.isEmpty())
        json[u"detail"_s] = t.detail;
    return json;
}

Expected<Trial> trialFromJson(const QJsonObject &json, int expectedNumber)
{
    Trial t;
    t.number = json[u"trial"_s].toInt(-1);
    if (t.number != expectedNumber)
        return Error{u"trial %1 is listed as trial %2"_s.arg(expectedNumber).arg(t.number), {}, 0, 0, {}};
    t.runId = json[u"run"_s].toString();
    const auto status = trialStatusFromText(json[u"status"_s].toString());
    if (!status || t.runId.isEmpty())
        return Error{u"trial %1 has no run or no known status"_s.arg(t.number), {}, 0, 0, {}};
    t.status = *status;
    for (const QJsonValue &c : json[u"point"_s].toArray())
        t.point.push_back(c.toDouble());
    for (const QJsonValue &h : json[u"hyperparameters"_s].toArray())
        t.hyperparameters << run::Hyperparameter{h[u"name"_s].toString(), h[u"value"_s].toString()};
    if (json[u"objective"_s].isDouble())
        t.objective = json[u"objective"_s].toDouble();
    t.gpu = json[u"gpu"_s].toString();
    t.startedMs = json[u"started"_s].toInteger();
    t.finishedMs = json[u"finished"_s].toInteger();
    t.detail = json[u"detail"_s].toString();
    return t;
}

} // namespace

QString trialStatusText(TrialStatus status)
{
    return enumName(kTrialStatusNames, status);
}

std::optional<TrialStatus> trialStatusFromText(QStringView text)
{
    return enumValue(kTrialStatusNames, text);
}

bool isOver(TrialStatus status)
{
    return status != TrialStatus::Starting && status != TrialStatus::Running;
}

QString sweepStatusText(SweepStatus status)
{
    return enumName(kSweepStatusNames, status);
}

QJsonObject SweepState::toJson() const
{
    QJsonArray list;
    for (const Trial &t : trials)
        list.append(trialToJson(t));
    QJsonObject json{{u"format"_s, kStateFormat},
                     {u"id"_s, id},
                     {u"name"_s, name},
                     {u"sourceFile"_s, sourceFile},
                     {u"status"_s, sweepStatusText(status)},
                     {u"error"_s, error},
                     {u"created"_s, createdMs},
                     {u"finished"_s, finishedMs},
                     {u"trials"_s, list}};
    if (!stopReason.isEmpty())
        json.insert(u"stopReason"_s, stopReason);
    if (!arrayDir.isEmpty())
        json.insert(u"slurmArray"_s, QJsonObject{{u"job"_s, arrayJob}, {u"dir"_s, arrayDir}});
    return json;
}

Expected<SweepState> SweepState::fromJson(const QJsonObject &json)
{
    if (json[u"format"_s].toInt() != kStateFormat)
        return Error{u"unknown sweep state format"_s, {}, 0, 0, u"this sweep was made by another Ferry version"_s};
    SweepState s;
    s.id = json[u"id"_s].toString();
    s.name = json[u"name"_s].toString();
    s.sourceFile = json[u"sourceFile"_s].toString();
    s.error = json[u"error"_s].toString();
    s.stopReason = json[u"stopReason"_s].toString();
    s.createdMs = json[u"created"_s].toInteger();
    s.finishedMs = json[u"finished"_s].toInteger();
    s.arrayJob = json[u"slurmArray"_s][u"job"_s].toString();
    s.arrayDir = json[u"slurmArray"_s][u"dir"_s].toString();
    const auto status = enumValue(kSweepStatusNames, json[u"status"_s].toString());
    if (!status || s.id.isEmpty())
        return Error{u"sweep state without id or known status"_s, {}, 0, 0, {}};
    s.status = *status;
    const QJsonArray list = json[u"trials"_s].toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        auto trial = trialFromJson(list[i].toObject(), static_cast<int>(i));
        if (!trial)
            return trial.error();
        s.trials << *trial;
    }
    return s;
}

std::optional<int> SweepState::best(Goal goal) const
{
    std::optional<int> best;
    for (const Trial &t : trials) {
        if (!t.objective || !std::isfinite(*t.objective))
            continue;
        const double v = *t.objective;
        const double b = best ? *trials[*best].objective : 0;
        if (!best || (goal == Goal::Minimize ? v < b : v > b))
            best = t.number;
    }
    return best;
}

qsizetype SweepState::count(TrialStatus of) const
{
    return std::count_if(trials.begin(), trials.end(), [of](const Trial &t) { return t.status == of; });
}

Expected<void> SweepDirectory::create(const QByteArray &sweepFile, const SweepState &state) const
{
    if (QFileInfo::exists(m_path))
        return Error{u"a sweep folder of this id exists already"_s, m_path, 0, 0, u"start the sweep again"_s};
    if (!QDir().mkpath(m_path))
        return Error{u"cannot create the sweep's folder"_s, m_path, 0, 0, u"check the workspace's permissions"_s};
    if (const auto written = createNewFile(specFile(), sweepFile, 0644); !written)
        return written;
    return writeState(state);
}

Expected<SweepState> SweepDirectory::readState() const
{
    const auto bytes = readRegularFile(stateFile(), kMaxStateBytes);
    if (!bytes)
        return bytes.error();
    if (!bytes->has_value())
        return Error{u"no sweep here (state.json is missing)"_s, m_path, 0, 0, u"see 'ferry sweep list'"_s};
    QJsonParseError parse{};
    const QJsonDocument doc = QJsonDocument::fromJson(**bytes, &parse);
    if (!doc.isObject())
        return Error{u"the sweep's state is damaged: %1"_s.arg(parse.errorString()), stateFile(), 0, 0, {}};
    auto state = SweepState::fromJson(doc.object());
    if (!state)
        return withContext(stateFile(), state.error());
    return state;
}

Expected<void> SweepDirectory::writeState(const SweepState &state) const
{
    return replaceFileSafely(stateFile(), QJsonDocument(state.toJson()).toJson(QJsonDocument::Indented), 0644);
}

SweepRead SweepDirectory::readSpec() const
{
    return readSweepFile(specFile());
}

bool SweepDirectory::controllerRunning() const
{
    return FileLock::isHeld(lockFile());
}

Expected<void> SweepDirectory::requestCancel() const
{
    return replaceFileSafely(cancelFile(), QByteArray::number(QDateTime::currentMSecsSinceEpoch()), 0644);
}

bool SweepDirectory::cancelRequested() const
{
    return entryKind(cancelFile()) == EntryKind::RegularFile;
}

void SweepDirectory::log(const QString &line) const
{
    const QString stamp = QDateTime::currentDateTime().toString(u"yyyy-MM-dd HH:mm:ss"_s);
    (void)appendToFileSafely(logFile(), (stamp + u' ' + line + u'\n').toUtf8());
}

QList<SweepState> listSweeps(const QString &sweepsDir, QStringList *problems)
{
    QList<SweepState> sweeps;
    for (const QString &name : QDir(sweepsDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        auto state = SweepDirectory(sweepsDir + u'/' + name).readState();
        if (state)
            sweeps << *state;
        else if (problems)
            *problems << state.error().toString();
    }
    std::sort(sweeps.begin(), sweeps.end(), [](const SweepState &a, const SweepState &b) {
        return a.createdMs != b.createdMs ? a.createdMs > b.createdMs : a.id > b.id;
    });
    return sweeps;
}

} // namespace ferry::sweep
