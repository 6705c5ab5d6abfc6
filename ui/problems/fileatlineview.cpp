#include "ui/problems/fileatlineview.h"

#include "common/safefile.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
constexpr qint64 kShownBytes = 4 * 1024 * 1024;
}

FileAtLineView::FileAtLineView(QWidget *parent) : QDialog(parent), m_text(new QPlainTextEdit(this))
{
    setObjectName(u"fileAtLine"_s);
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_text, 1);
    layout->addWidget(buttons);
    resize(900, 600);
}

bool FileAtLineView::show(const QString &path, int line)
{
    setWindowTitle(line > 0 ? tr("%1, line %2").arg(QFileInfo(path).fileName()).arg(line) : QFileInfo(path).fileName());
    // Never through a link, never more than a few megabytes (the file may be anything).
    const auto read = readRegularFileHead(path, kShownBytes);
    if (!read || !read->has_value()) {
        m_text->setPlainText(read ? tr("%1 is not there any more").arg(path) : read.error().toString());
        QDialog::show();
        return false;
    }
    const QByteArray &bytes = **read;
    QString text = QString::fromUtf8(bytes);
    if (bytes.size() >= kShownBytes)
        text += tr("\n… (the file goes on; only its first %1 MB are shown)").arg(kShownBytes / (1024 * 1024));
    m_text->setPlainText(text);
    const QTextBlock block = m_text->document()->findBlockByNumber(qMax(0, line - 1));
    if (line > 0 && block.isValid()) {
        QTextCursor cursor(block);
        m_text->setTextCursor(cursor);
        QTextEdit::ExtraSelection marked;
        marked.cursor = cursor;
        marked.format.setBackground(palette().highlight().color().lighter(160));
        marked.format.setProperty(QTextFormat::FullWidthSelection, true);
        m_text->setExtraSelections({marked});
        m_text->centerCursor();
    }
    QDialog::show();
    return true;
}

int FileAtLineView::currentLine() const
{
    return m_text->textCursor().blockNumber() + 1;
}

QString FileAtLineView::text() const
{
    return m_text->toPlainText();
}

} // namespace ferry::ui
