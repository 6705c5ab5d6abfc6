// Rich text from a notebook (an HTML or markdown output, a markdown cell): untrusted, so made safe
// first (core/notebook/safehtml.h) and drawn by a browser that loads nothing but the inline images
// it holds (data: PNG, JPEG, GIF): no file, no network, no link followed.
#pragma once

#include <QHash>
#include <QImage>
#include <QTextBrowser>

namespace ferry::ui {

class SafeBrowser : public QTextBrowser {
    Q_OBJECT
public:
    explicit SafeBrowser(QWidget *parent = nullptr);

    // Shows `text` (HTML, or markdown with the HTML in it) made safe; true when something was
    // left out (its tooltip then says so). The browser is as tall as what it shows at its width,
    // laid out once it is shown (a notebook's hidden or unshown browsers cost no layout) and again
    // when its width changes.
    bool showHtml(const QString &html);
    // `attachments`: images by name, drawn where the text names "attachment:NAME" (a markdown
    // cell's own, from the notebook).
    bool showMarkdown(const QString &markdown, const QHash<QString, QImage> &attachments = {});

    QVariant loadResource(int type, const QUrl &url) override;

protected:
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override; // as tall as the text at the new width

private:
    void fit();
    void sayRemoved(bool removed);
    void sayUnloadedImages(const QStringList &attachments);
};

} // namespace ferry::ui
