// RunStore: a run's tags and note (what a person says of it), and the reads a query over every
// run makes (tracking/runquery.h): one parameter, or one metric's last value, of all runs at once.
#include "store/runstore.h"

#include "store/runstoreschema.h"
#include "store/runstorewriter.h"

#include <QSqlQuery>
#include <QVariant>

#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qsizetype kLongestTag = 100;

bool tagCharacter(QChar c)
{
    return c.isLetterOrNumber() || u"_.-/:@"_s.contains(c);
}

} // namespace

Expected<void> RunStore::checkTag(const QString &tag)
{
    const QString hint = u"a tag is one word of letters, digits and _ . - / : @, e.g. baseline or paper/fig3"_s;
    if (tag.isEmpty())
        return Error{u"a tag cannot be empty"_s, {}, 0, 0, hint};
    if (tag.size() > kLongestTag)
        return Error{u"tag '%1…' is longer than %2 characters"_s.arg(tag.left(20)).arg(kLongestTag), {}, 0, 0, {}};
    if (tag.front() == u'-')
        return Error{u"tag '%1' starts with '-'"_s.arg(tag), {}, 0, 0, hint};
    for (const QChar c : tag) {
        if (!tagCharacter(c))
            return Error{u"tag '%1' has a character a tag cannot have ('%2')"_s.arg(tag, c), {}, 0, 0, hint};
    }
    return {};
}

void RunStore::setTags(const QString &runId, const QStringList &tags)
{
    if (!m_writer->post(runstorecommand::EditTags{runId, tags, {}, true}))
        Q_EMIT writeFailed(Error{u"run %1: cannot store its tags: the run store is closed"_s.arg(runId), {}, 0, 0, {}});
}

void RunStore::addTags(const QString &runId, const QStringList &tags)
{
    if (!m_writer->post(runstorecommand::EditTags{runId, tags, {}, false}))
        Q_EMIT writeFailed(Error{u"run %1: cannot store its tags: the run store is closed"_s.arg(runId), {}, 0, 0, {}});
}

void RunStore::removeTags(const QString &runId, const QStringList &tags)
{
    if (!m_writer->post(runstorecommand::EditTags{runId, {}, tags, false}))
        Q_EMIT writeFailed(Error{u"run %1: cannot store its tags: the run store is closed"_s.arg(runId), {}, 0, 0, {}});
}

void RunStore::setNote(const QString &runId, const QString &note)
{
    if (!m_writer->post(runstorecommand::SetNote{runId, note}))
        Q_EMIT writeFailed(Error{u"run %1: cannot store its note: the run store is closed"_s.arg(runId), {}, 0, 0, {}});
}

QHash<QString, QString> RunStore::paramOfRuns(const QString &name) const
{
    QHash<QString, QString> result;
    QSqlQuery q = runstoreschema::select(readConnection(), u"SELECT run, value FROM params WHERE name = ?"_s, {name});
    while (q.next())
        result.insert(q.value(0).toString(), q.value(1).toString());
    return result;
}

QHash<QString, QList<Hyperparameter>> RunStore::paramsOfRuns() const
{
    QHash<QString, QList<Hyperparameter>> result;
    QSqlQuery q = runstoreschema::select(readConnection(), u"SELECT run, name, value FROM params ORDER BY rowid"_s, {});
    while (q.next())
        result[q.value(0).toString()].append(Hyperparameter{q.value(1).toString(), q.value(2).toString()});
    return result;
}

QHash<QString, double> RunStore::lastValueOfRuns(const QString &name) const
{
    QHash<QString, double> result;
    QSqlQuery q = runstoreschema::select(readConnection(),
                                         u"SELECT run, last_value FROM series WHERE name = ? AND points > 0"_s, {name});
    while (q.next())
        result.insert(q.value(0).toString(),
                      q.value(1).isNull() ? std::numeric_limits<double>::quiet_NaN() : q.value(1).toDouble());
    return result;
}

} // namespace ferry::run
