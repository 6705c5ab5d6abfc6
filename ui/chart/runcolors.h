// Decides each run's colour, the one place every view (chart, legends, runs table, sweep, compare)
// asks: 32 colours a person tells apart, kept per run across views and restarts.
#pragma once

#include "common/error.h"

#include <QColor>
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

namespace ferry::ui {

// How many colours runs are drawn in; runs shown together get different ones up to this many.
inline constexpr int kRunColorCount = 32;

// Colour `slot` (0..kRunColorCount-1) of the run palette: Glasbey's method (farthest new colour
// in CIEDE2000 from all chosen so far), computed offline by tests/ui/chart/make_run_palette.py.
QColor runPaletteColor(int slot);

// The slot a run's id points at before any other run is considered: a stable hash of the id
// (FNV-1a over its UTF-16, independent of Qt's seeded qHash).
int preferredColorSlot(const QString &runId);

// The colours of groups of runs drawn together (the chart's groups), from the same palette: the
// i-th group (groups come in the order of their keys, run::groupRuns) the i-th colour, the palette
// being ordered most distinct first, so a few groups are told apart at a glance and the same
// groups have the same colours in every panel and from one start to the next.
QList<QColor> groupColors(qsizetype count);

// The colour of every run, decided in one place, and kept. A run gets its slot once: the lowest
// (the palette is ordered most distinct first) that none of the 31 runs created just before it
// has, so any 32 runs created one after another differ. Runs shown together (assign()) never share
// one while there are no more than kRunColorCount of them: of two that would (runs created far
// apart), the one created later (the larger id: ids begin with their creation time) takes the
// lowest slot none of the others shown has, and keeps it from then on. The slots are kept in a
// file (setFile: the workspace's .ferry/run-colors.json), so a run has its colour from one start
// to the next; without it the same runs, seen in the same order, get the same colours.
class RunColors : public QObject {
    Q_OBJECT
public:
    explicit RunColors(QObject *parent = nullptr);

    // The run's colour: its slot's, or its preferred slot's while it has none.
    QColor color(const QString &runId) const;
    // Its slot; -1 while it has none.
    int slot(const QString &runId) const { return m_slots.value(runId, -1); }

    // Runs that exist (the workspace's): those without a slot get one, as above. Emits changed()
    // when one did (and writes the file).
    void know(const QStringList &runIds);
    // Runs shown together: each gets a slot none of the others has (past kRunColorCount runs,
    // the slots used least among them), keeping its own where no earlier run of these has it.
    // Emits changed() when a slot was given or moved (and writes the file).
    void assign(const QStringList &runIds);
    // Forgets the slots of runs not among these (deleted runs), but for runs newer than all of
    // them (created since the list was read).
    void retain(const QStringList &runIds);

    // Where the slots are kept: read now (a missing file: none yet), written on each change.
    // Empty: nowhere (and every slot forgotten). An unreadable or damaged file is an Error, and
    // the colours start afresh.
    Expected<void> setFile(const QString &path);
    QString file() const { return m_file; }

Q_SIGNALS:
    void changed();

private:
    void save();
    bool giveSlots(const QStringList &runIds); // know(), without the signal

    QHash<QString, int> m_slots;
    QString m_file;
};

} // namespace ferry::ui
