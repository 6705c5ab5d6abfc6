#include "sweep/sweepwatch.h"

#include <QDir>

namespace ferry::sweep {

QList<SweepState> SweepWatch::poll()
{
    QList<SweepState> ended;
    // Whether the state could be read (a sweep being made has none yet: looked at again later).
    const auto look = [&](const QString &name, bool isNew) {
        const auto state = SweepDirectory(m_dir + u'/' + name).readState();
        if (!state)
            return false;
        if (state->status == SweepStatus::Running)
            m_running.insert(name);
        else if (m_running.remove(name) || (isNew && m_looked))
            ended << *state;
        return true;
    };
    for (const QString &name : QSet<QString>(m_running))
        look(name, false);
    for (const QString &name : QDir(m_dir).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (!m_known.contains(name) && look(name, true))
            m_known.insert(name);
    }
    m_looked = true;
    return ended;
}

} // namespace ferry::sweep
