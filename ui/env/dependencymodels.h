// The environment editor's tables of conda and pip dependencies, one column per part of a spec.
#pragma once

#include "ui/env/environmenttablemodel.h"

namespace ferry::ui {

// Conda dependencies, one column per part of the MatchSpec plus the text as written; editing a
// part rewrites the text, editing the text re-reads the parts. Text that does not parse is kept
// as typed and marked with the parser's message.
class CondaDependencyModel : public EnvironmentTableModel {
    Q_OBJECT
public:
    enum Column { Name, Version, Build, Channel, Text, ColumnCount };
    explicit CondaDependencyModel(EnvironmentDocument *document, QObject *parent = nullptr);
    int columnCount(const QModelIndex &parent = {}) const override;

protected:
    int count(const env::Environment &environment) const override;
    QVariant cell(const env::Environment &environment, int row, int column, int role) const override;
    bool setCell(env::Environment &environment, int row, int column, const QVariant &value) override;
    void insertIn(env::Environment &environment, int row) override;
    void removeIn(env::Environment &environment, int row) override;
    void moveIn(env::Environment &environment, int from, int to) override;
    QString rowName() const override;
    QStringList headers() const override;
};

// pip requirements (or constraints): name, version specifier, extras, markers, and the line as
// written. Editable installs, archives and verbatim lines have no parts: only their text edits.
class PipRequirementModel : public EnvironmentTableModel {
    Q_OBJECT
public:
    enum Column { Name, Version, Extras, Markers, Text, ColumnCount };
    enum class List { Requirements, Constraints };
    PipRequirementModel(EnvironmentDocument *document, List list, QObject *parent = nullptr);
    int columnCount(const QModelIndex &parent = {}) const override;

protected:
    int count(const env::Environment &environment) const override;
    QVariant cell(const env::Environment &environment, int row, int column, int role) const override;
    bool setCell(env::Environment &environment, int row, int column, const QVariant &value) override;
    bool isEditable(const env::Environment &environment, int row, int column) const override;
    void insertIn(env::Environment &environment, int row) override;
    void removeIn(env::Environment &environment, int row) override;
    void moveIn(env::Environment &environment, int from, int to) override;
    QString rowName() const override;
    QStringList headers() const override;

private:
    QList<env::PipRequirement> &rows(env::Environment &environment) const;
    const QList<env::PipRequirement> &rows(const env::Environment &environment) const;
    List m_list;
};

// A MatchSpec for `text`: parsed when it parses, else only the text (marked by validation).
env::MatchSpec matchSpecFromText(const QString &text);
// A pip entry for `text`: parsed when it parses, else a verbatim line with the text.
env::PipRequirement pipRequirementFromText(const QString &text);

} // namespace ferry::ui
