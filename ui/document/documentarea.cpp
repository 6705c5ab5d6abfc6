#include "ui/document/documentarea.h"

#include <QFileInfo>
#include <QTabBar>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

DocumentArea::DocumentArea(QWidget *parent) : QTabWidget(parent)
{
    setObjectName(u"documentArea"_s);
    setDocumentMode(true);
    setTabsClosable(true);
    setMovable(true);
    setTabBarAutoHide(true); // the runs alone: no tab bar over them
    tabBar()->setExpanding(false);
    connect(this, &QTabWidget::tabCloseRequested, this, [this](int index) {
        if (auto *document = qobject_cast<Document *>(widget(index)))
            closeDocument(document);
    });
    connect(this, &QTabWidget::currentChanged, this, [this] { Q_EMIT currentDocumentChanged(currentDocument()); });
}

void DocumentArea::setHome(QWidget *home, const QString &title)
{
    m_home = home;
    insertTab(0, home, title);
    for (const auto side : {QTabBar::LeftSide, QTabBar::RightSide})
        tabBar()->setTabButton(0, side, nullptr); // never closed
    setCurrentIndex(0);
}

Document *DocumentArea::currentDocument() const
{
    return qobject_cast<Document *>(currentWidget());
}

QList<Document *> DocumentArea::documents() const
{
    QList<Document *> list;
    for (int i = 0; i < count(); ++i)
        if (auto *document = qobject_cast<Document *>(widget(i)))
            list << document;
    return list;
}

Document *DocumentArea::documentFor(const QString &path) const
{
    if (path.isEmpty())
        return nullptr;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (Document *document : documents())
        if (document->isOpenAt(absolute))
            return document;
    return nullptr;
}

Document *DocumentArea::open(const QString &path, const std::function<Document *()> &make)
{
    Document *document = documentFor(path);
    if (!document)
        document = make();
    if (document)
        add(document);
    return document;
}

void DocumentArea::add(Document *document)
{
    if (indexOf(document) < 0) {
        addTab(document, QString());
        connect(document, &Document::titleChanged, this, [this, document] { showState(document); });
        connect(document, &Document::modifiedChanged, this, [this, document] { showState(document); });
        showState(document);
    }
    setCurrentWidget(document);
}

void DocumentArea::showState(Document *document)
{
    const int index = indexOf(document);
    if (index < 0)
        return;
    setTabText(index, document->isModified() ? document->title() + u'*' : document->title());
    setTabToolTip(index, document->path());
    Q_EMIT documentChanged(document);
}

bool DocumentArea::closeDocument(Document *document)
{
    if (indexOf(document) < 0 || !document->maybeClose())
        return false;
    remove(document);
    return true;
}

bool DocumentArea::mayCloseAll()
{
    const QList<Document *> open = documents();
    return std::all_of(open.cbegin(), open.cend(), [this](Document *document) {
        if (document->isModified())
            setCurrentWidget(document); // the question is about the one in view
        return document->maybeClose();
    });
}

bool DocumentArea::closeAll()
{
    if (!mayCloseAll())
        return false;
    for (Document *document : documents())
        remove(document);
    return true;
}

void DocumentArea::remove(Document *document)
{
    removeTab(indexOf(document));
    document->disconnect(this);
    Q_EMIT documentClosed(document);
    // Later: a document may ask to be closed from one of its own slots.
    document->hide();
    document->deleteLater();
}

void DocumentArea::saveCurrent()
{
    if (Document *document = currentDocument())
        document->save();
}

void DocumentArea::closeCurrent()
{
    if (Document *document = currentDocument())
        closeDocument(document);
}

void DocumentArea::showNext()
{
    step(1);
}

void DocumentArea::showPrevious()
{
    step(-1);
}

void DocumentArea::step(int by)
{
    if (count() > 1)
        setCurrentIndex((currentIndex() + by + count()) % count());
}

} // namespace ferry::ui
