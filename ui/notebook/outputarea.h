// The outputs of a notebook cell as Jupyter shows them, from nbformat outputs: streams and
// tracebacks as text, images, HTML (never fetching anything), markdown, JSON as a tree, and
// plain text for what has no richer view. The whole bundle stays in the cell for saving.
#pragma once

#include <QJsonArray>
#include <QWidget>

class QVBoxLayout;

namespace ferry::ui {

class OutputArea : public QWidget {
    Q_OBJECT
public:
    explicit OutputArea(QWidget *parent = nullptr);

    // Shows `outputs` (nbformat 4 outputs), replacing what was shown.
    void setOutputs(const QJsonArray &outputs);
    const QJsonArray &outputs() const { return m_outputs; }

    // The MIME type an output bundle is shown as: the richest one Ferry draws.
    static QString shownType(const QJsonObject &data);
    // Text of a stream or traceback without its terminal escapes.
    static QString plainText(const QString &text);

private:
    QWidget *viewOf(const QJsonObject &output);

    QVBoxLayout *m_layout = nullptr;
    QJsonArray m_outputs;
};

} // namespace ferry::ui
