// SweepWatch: which sweeps of a workspace ended since the last look, for the window's word when
// one finishes or fails.
#pragma once

#include "sweep/sweepstate.h"

#include <QList>
#include <QSet>
#include <QString>

namespace ferry::sweep {

// Looks at a workspace's sweeps folder now and then: the sweeps running at a look (or started
// since the first) that are over at the next are reported once. Sweeps over before the first
// look are history, never reported. Only the listing and the running sweeps' state.json are
// read at each look. Blocking: call it off the GUI thread (the run monitor's).
class SweepWatch {
public:
    explicit SweepWatch(QString sweepsDir) : m_dir(std::move(sweepsDir)) {}

    QList<SweepState> poll();

private:
    QString m_dir;
    bool m_looked = false;
    QSet<QString> m_known;   // every sweep folder seen
    QSet<QString> m_running; // those running at the last look
};

} // namespace ferry::sweep
