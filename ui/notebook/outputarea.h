// The outputs of a notebook cell as Jupyter shows them, from nbformat outputs: streams and
// tracebacks as a terminal draws them (colours, '\r' redraws: core/notebook/terminaltext.h; the
// first and last lines of a long one, with "show all"; of one the kernel cut, every line printed
// counted: core/kernels/streamtext.h), images decoded when drawn (imageview.h), HTML made safe
// (core/notebook/safehtml.h: nothing fetched, nothing run), markdown, JSON as a tree, and plain
// text for what has no richer view. The whole bundle stays in the cell for saving.
#pragma once

#include <QJsonArray>
#include <QWidget>

#include <memory>

class QVBoxLayout;

namespace ferry::ui {

class OutputArea : public QWidget {
    Q_OBJECT
public:
    explicit OutputArea(QWidget *parent = nullptr);

    // Shows `outputs` (nbformat 4 outputs), replacing what was shown; a stream that only grew
    // since the last call is drawn on from where it was.
    void setOutputs(const QJsonArray &outputs);
    // Lines of a stream drawn before "… N lines hidden …" and after it ("show all" has them all).
    static constexpr qsizetype kShownHead = 200;
    static constexpr qsizetype kShownTail = 200;
    const QJsonArray &outputs() const { return m_outputs; }

    // The MIME type an output bundle is shown as: the richest one Ferry draws.
    static QString shownType(const QJsonObject &data);
    // Text of a stream or traceback without its terminal escapes.
    static QString plainText(const QString &text);

private:
    struct Shown;
    class StreamLabel;
    QWidget *viewOf(const QJsonObject &output, Shown &shown);
    void drawStream(Shown &shown);

    QVBoxLayout *m_layout = nullptr;
    QJsonArray m_outputs;
    QList<std::shared_ptr<Shown>> m_shown; // one per output, in order
};

} // namespace ferry::ui
