#pragma once

// What the screenshot tools share: a widget rendered to DIR/NAME once its events are through.
#include <QApplication>
#include <QDir>
#include <QTest>
#include <QWidget>

#include <cstdio>

namespace ferry::test {

inline bool saveScreenshot(QWidget &widget, const QString &dir, const QString &name, int settleMs = 0)
{
    if (settleMs > 0)
        QTest::qWait(settleMs);
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(name);
    const bool ok = widget.grab().save(path);
    std::fprintf(stderr, "%s %s\n", ok ? "wrote" : "could not write", qPrintable(path));
    return ok;
}

} // namespace ferry::test
