// A run's status by name (store/runstore.h): what the store keeps, `runs list` shows and a run
// query compares; apart from the store itself so that the query's parser builds without it (its
// fuzz target, tests/fuzz/).
#include "store/runstore.h"

#include "common/enumnames.h"

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr EnumNames<RunStatus, 7> kStatusNames{{
    {RunStatus::Created, u"created"},
    {RunStatus::Building, u"building"},
    {RunStatus::Running, u"running"},
    {RunStatus::Succeeded, u"succeeded"},
    {RunStatus::Failed, u"failed"},
    {RunStatus::Cancelled, u"cancelled"},
    {RunStatus::Lost, u"lost"},
}};

} // namespace

QString runStatusText(RunStatus status)
{
    const QString name = enumName(kStatusNames, status);
    return name.isEmpty() ? u"lost"_s : name;
}

std::optional<RunStatus> runStatusFromText(QStringView text)
{
    return enumValue(kStatusNames, text);
}

bool isFinished(RunStatus status)
{
    return status == RunStatus::Succeeded || status == RunStatus::Failed || status == RunStatus::Cancelled ||
           status == RunStatus::Lost;
}

bool isStoppedEarly(const RunRecord &record)
{
    return record.status == RunStatus::Cancelled && record.error.startsWith(kStoppedEarly);
}

QString runStatusLabel(const RunRecord &record)
{
    return isStoppedEarly(record) ? QString(kStoppedEarly) : runStatusText(record.status);
}

} // namespace ferry::run
