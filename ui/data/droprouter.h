// Decides from names alone where each path dropped on the window goes (dataset, environment,
// notebook) or why not.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

class QMimeData;

namespace ferry::ui {

// What a drop on the window is: each local path goes to the importer for its kind; anything
// else is refused with the reason. Decided from names alone (no file is read), so it can run
// in dragEnterEvent.
struct DropPlan {
    enum class Kind { Dataset, Environment, Notebook };
    struct Item {
        Kind kind;
        QString path;
    };
    QList<Item> items;
    QStringList refused; // one message per thing not taken ("https://…: only local files can be dropped")

    bool acceptable() const { return !items.isEmpty(); }
};

DropPlan planDrop(const QMimeData &mime);
DropPlan planDrop(const QStringList &localPaths, const QStringList &otherUrls = {});

} // namespace ferry::ui
