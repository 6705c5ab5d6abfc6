// The table models over the lists of an environment being edited (ui/env), each edit an undoable edit of its document.
#pragma once

#include "env/environment.h"
#include "env/environmentvalidator.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <functional>

namespace ferry::ui {

class EnvironmentDocument;

// A table over one list of the environment (dependencies, channels, variables, ...). Every
// change (a cell, a row added, removed or moved) is an edit of the document, so it can be
// undone; the rows follow the document when it changes otherwise (undo, reload). Rows with a
// problem are marked: a red background and the parser's message as the tooltip.
class EnvironmentTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    EnvironmentTableModel(EnvironmentDocument *document, env::Field field, QObject *parent = nullptr);

    EnvironmentDocument *document() const { return m_document; }
    env::Field field() const { return m_field; } // the list it shows, for its problems and merge keys
    // What env::validate finds in the list it shows (the document's findings for its field).
    env::Findings problems() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool insertRows(int row, int count, const QModelIndex &parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex &parent = {}) override;
    bool moveRows(const QModelIndex &sourceParent, int sourceRow, int count, const QModelIndex &destinationParent,
                  int destinationChild) override;

    // The column a new row is edited in first.
    virtual int firstEditableColumn() const { return 0; }

Q_SIGNALS:
    // The document's findings changed (problems() may differ): also during the model's own edits.
    void problemsChanged();

protected:
    void initRows(); // derived constructors call it: the rows of the document as it is
    virtual int count(const env::Environment &environment) const = 0;
    virtual QVariant cell(const env::Environment &environment, int row, int column, int role) const = 0;
    // Changes the cell in `environment`; false when the value is refused.
    virtual bool setCell(env::Environment &environment, int row, int column, const QVariant &value) = 0;
    virtual bool isEditable(const env::Environment &, int /*row*/, int /*column*/) const { return true; }
    virtual bool isCheckable(int /*column*/) const { return false; }
    virtual void insertIn(env::Environment &environment, int row) = 0;
    virtual void removeIn(env::Environment &environment, int row) = 0;
    virtual void moveIn(env::Environment &environment, int from, int to) = 0;
    virtual QString rowName() const = 0; // "conda dependency", for the undo history
    virtual QStringList headers() const = 0;

private:
    void documentChanged();
    void documentProblemsChanged();

    EnvironmentDocument *m_document;
    env::Field m_field;
    int m_rows = 0;
    bool m_applying = false;
};

// A list of strings (channels, run arguments): one column, rows numbered (for channels the
// number is the priority).
class StringListModel : public EnvironmentTableModel {
    Q_OBJECT
public:
    using Accessor = std::function<QStringList &(env::Environment &)>;
    StringListModel(EnvironmentDocument *document, env::Field field, const QString &header, const QString &rowName,
                    Accessor accessor, QObject *parent = nullptr);
    int columnCount(const QModelIndex &parent = {}) const override;

protected:
    int count(const env::Environment &environment) const override;
    QVariant cell(const env::Environment &environment, int row, int column, int role) const override;
    bool setCell(env::Environment &environment, int row, int column, const QVariant &value) override;
    void insertIn(env::Environment &environment, int row) override;
    void removeIn(env::Environment &environment, int row) override;
    void moveIn(env::Environment &environment, int from, int to) override;
    QString rowName() const override { return m_rowName; }
    QStringList headers() const override { return {m_header}; }

private:
    QString m_header;
    QString m_rowName;
    Accessor m_list;
};

} // namespace ferry::ui
