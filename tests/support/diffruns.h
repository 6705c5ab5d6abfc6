// Real runs to compare, made through the built `ferry`, shared by the run-diff and compare-view
// tests.
#pragma once

// Real runs to compare: a script whose loss scales with --lr (and a `scale` line a test edits to
// change the code), run to its end through the built `ferry`. Shared by tst_runsdiff and
// tst_compareview.
#include "support/cli.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace ferry::test {

inline constexpr const char *kDiffScript = R"(import argparse, json
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float)
p.add_argument("--epochs", type=int)
a = p.parse_args()
scale = 1.0
for step in range(1, 4):
    print(json.dumps({"step": step, "loss": scale * a.lr / step}))
print("done")
)";

// Runs train.py in `ws` with lr and 3 epochs, followed to its end; the new run's id.
inline QString startDiffRun(const QString &ws, const QString &lr)
{
    const auto r = runFerry(ws, {QStringLiteral("run"), QStringLiteral("train.py"), QStringLiteral("--hp"),
                                 QStringLiteral("lr=") + lr, QStringLiteral("--hp"), QStringLiteral("epochs=3"),
                                 QStringLiteral("--follow")});
    if (r.exitCode != 0)
        qWarning("ferry run: %s", qPrintable(r.err));
    // The newest run (runs list is newest first).
    const auto list = runFerry(ws, {QStringLiteral("runs"), QStringLiteral("list"), QStringLiteral("--json")});
    return QJsonDocument::fromJson(list.out.toUtf8()).array().first()[QStringLiteral("id")].toString();
}

} // namespace ferry::test
