// A notebook's HTML made safe (core/notebook/safehtml.h): what runs, loads or submits is gone,
// remote and local images become a note, links keep only http(s) and mailto targets, a pandas
// DataFrame keeps its table, and HTML bombs cost one bounded pass. tst_safehtmldocument renders
// the results in a QTextDocument and records what it asks to load.
#include "notebook/safehtml.h"
#include "support/cost.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::notebook;

namespace {

QString outputFixture(const QString &name)
{
    return QString::fromUtf8(ferry::test::readFile(ferry::test::testData(u"notebooks/outputs/"_s + name)));
}

} // namespace

class TestSafeHtml : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sanitizes_data()
    {
        QTest::addColumn<QString>("html");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("removed"); // something the user would have seen or used
        const auto row = [](const char *name, const QString &html, const QString &expected, bool removed) {
            QTest::newRow(name) << html << expected << removed;
        };
        row("script", u"<p>a<script>alert(\"</p>\")</script>b</p>"_s, u"<p>ab</p>"_s, true);
        row("script, upper case", u"<SCRIPT type=\"text/javascript\">x()</SCRIPT >ok"_s, u"ok"_s, true);
        row("script never closed", u"ok<script>x()"_s, u"ok"_s, true);
        row("remote image", u"<img src=http://evil.example/x.png>"_s, u"[remote image not loaded: evil.example]"_s,
            true);
        row("protocol-relative image", u"<img src=\"//evil.example/x.png\">"_s,
            u"[remote image not loaded: evil.example]"_s, true);
        row("file image", u"<img src=\"file:///etc/passwd\">"_s, u"[local image not loaded: passwd]"_s, true);
        row("relative image", u"<img src=\"plots/loss.png\" alt=\"loss\">"_s, u"[local image not loaded: loss.png]"_s,
            true);
        row("javascript image", u"<img src=\"javascript:alert(1)\">"_s, u"[image not loaded]"_s, true);
        row("svg data image", u"<img src=\"data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=\">"_s, u"[image not loaded]"_s,
            true);
        row("png data image", u"<img SRC=\"DATA:image/PNG;base64,iVBOR\nw0KGgo=\" alt=\"a &amp; b\" onerror=\"x()\">"_s,
            u"<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"a &amp; b\">"_s, false);
        row("image without source", u"<img alt=x>"_s, QString(), false);
        row("javascript link", u"<a href=\"javascript:alert(1)\">x</a>"_s, u"<a>x</a>"_s, true);
        row("javascript link behind a reference", u"<a href=\"&#106;avascript:alert(1)\">x</a>"_s, u"<a>x</a>"_s, true);
        row("javascript link with a tab", u"<a href=\"java&#x09;script:alert(1)\">x</a>"_s, u"<a>x</a>"_s, true);
        row("javascript link, mixed case and spaces", u"<a href=\"  JaVaScRiPt:alert(1)\">x</a>"_s, u"<a>x</a>"_s,
            true);
        row("vbscript link", u"<a href=\"vbscript:msgbox(1)\">x</a>"_s, u"<a>x</a>"_s, true);
        row("file link", u"<a href=\"file:///etc/passwd\">x</a>"_s, u"<a>x</a>"_s, true);
        row("https link", u"<a href=\"https://example.com/?a=1&amp;b=2\" target=\"_blank\">x</a>"_s,
            u"<a href=\"https://example.com/?a=1&amp;b=2\">x</a>"_s, false);
        // A target is kept by its scheme, whatever follows (fuzz_safe_html: link-with-one-slash).
        row("https link with one slash", u"<a href=\"https:/ok/x\">ok</a>"_s, u"<a href=\"https:/ok/x\">ok</a>"_s,
            false);
        row("mailto link", u"<a href='mailto:me@example.com'>me</a>"_s, u"<a href=\"mailto:me@example.com\">me</a>"_s,
            false);
        row("event attributes", u"<div onclick=\"alert(1)\" ONMOUSEOVER=alert(2) class=\"box\">t</div>"_s,
            u"<div class=\"box\">t</div>"_s, false);
        row("style with url()",
            u"<div style=\"background-image: url(http://evil.example/b.png); color: red\">t</div>"_s,
            u"<div style=\"color: red\">t</div>"_s, false);
        row("style with expression()", u"<span style=\"width: expression(alert(1))\">t</span>"_s, u"<span>t</span>"_s,
            false);
        // (fuzz_safe_html: style-word-expression)
        row("style with the word expression", u"<span style=\"width: expression; color: blue\">t</span>"_s,
            u"<span style=\"color: blue\">t</span>"_s, false);
        row("style with url() behind a reference",
            u"<span style=\"background-color: u&#114;l(http://evil.example/c.png)\">t</span>"_s, u"<span>t</span>"_s,
            false);
        row("style with @import", u"<span style=\"@import 'http://x/s.css'; font-weight: bold\">t</span>"_s,
            u"<span style=\"font-weight: bold\">t</span>"_s, false);
        row("style element", u"<style>@import url(http://evil.example/s.css); p { background: url(x.png) }</style>t"_s,
            u"t"_s, false);
        row("iframe", u"<iframe src=\"http://evil.example/\">fallback</iframe>after"_s, u"after"_s, true);
        row("object and embed",
            u"<object data=\"x.swf\"><param name=a value=b><embed src=\"x.swf\">inside</object>after"_s, u"after"_s,
            true);
        row("embed alone", u"<embed src=\"http://evil.example/x.swf\">after"_s, u"after"_s, true);
        row("form", u"<form action=\"http://evil.example/\"><input name=q><button>Go</button>inside</form>after"_s,
            u"after"_s, true);
        row("nested forms", u"<form><form>a</form>b</form>after"_s, u"after"_s, true);
        row("svg with a script", u"<svg><script>alert(\"</svg>\")</script><image href=\"http://x/\"/></svg>after"_s,
            u"after"_s, true);
        row("self-closed svg", u"<svg/>after"_s, u"after"_s, true);
        row("template", u"<template><img src=\"http://evil.example/t.png\"></template>after"_s, u"after"_s, true);
        row("noscript and textarea", u"<noscript><img src=http://x/></noscript><textarea></p>x</textarea>after"_s,
            u"after"_s, true);
        row("link, meta and base",
            u"<link rel=\"stylesheet\" href=\"http://x/s.css\"><meta http-equiv=\"refresh\" "
            u"content=\"0;url=http://x/\"><base href=\"http://x/\">text"_s,
            u"text"_s, false);
        row("comments and doctype", u"<!DOCTYPE html><!-- <script>x()</script> -->t<!---->u<![CDATA[x]]>v<?php ?>w"_s,
            u"tuvw"_s, false);
        row("unknown elements unwrapped", u"<html><body><font color=red><center>t</center></font></body></html>"_s,
            u"t"_s, false);
        row("text that is no tag", u"1 < 2 & 3 > 2 <3 a<"_s, u"1 &lt; 2 &amp; 3 &gt; 2 &lt;3 a&lt;"_s, false);
        row("references kept", u"&lt;b&gt; &amp; &nbsp; &#169; &#x1F600; &bogus &#0; &#xD800;"_s,
            u"&lt;b&gt; &amp; &nbsp; &#169; &#x1F600; &amp;bogus &amp;#0; &amp;#xD800;"_s, false);
        row("control characters dropped", u"a\u0001b\u007fc\td"_s, u"abc\td"_s, false);
        row("unclosed elements closed", u"<b><i>x"_s, u"<b><i>x</i></b>"_s, false);
        row("stray end tags", u"</div>x</b><b>y</i></b>"_s, u"x<b>y</b>"_s, false);
        row("end tag closes what it contains", u"<div><b>x</div>y"_s, u"<div><b>x</b></div>y"_s, false);
        row("attribute quoting", u"<td title='a \"b\" <c>'>x"_s, u"<td title=\"a &quot;b&quot; &lt;c&gt;\">x</td>"_s,
            false);
        // Bounded as written out, escaped: kept once, kept again (fuzz_safe_html: attribute-grown-by-escaping).
        row("attribute grown past the bound by escaping", u"<span title=\""_s + QString(2000, u'<') + u"\">x</span>"_s,
            u"<span>x</span>"_s, false);
        row("first attribute wins", u"<span class=a class=b>x</span>"_s, u"<span class=\"a\">x</span>"_s, false);
        row("spans and sizes checked",
            u"<table border=\"1000\" cellpadding=5><tr><td colspan=\"1000000000\" rowspan=\"0\">x</td>"
            u"<td colspan=3 width=\"50%\" height=\"99999px\" align=LEFT valign=\"top\" bgcolor=\"#ff0000\">y"_s,
            u"<table border=\"100\" cellpadding=\"5\"><tr><td rowspan=\"1\">x</td>"
            u"<td colspan=\"3\" width=\"50%\" align=\"left\" valign=\"top\" bgcolor=\"#ff0000\">y</td></tr></table>"_s,
            false);
        row("implied ends", u"<ul><li>a<li>b</ul><p>c<p>d<div>e</div>"_s,
            u"<ul><li>a</li><li>b</li></ul><p>c</p><p>d</p><div>e</div>"_s, false);
        row("table rows and cells", u"<table><tr><td>a<td>b<tr><th>c</table>"_s,
            u"<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>"_s, false);
        row("markdown's HTML", u"Some *text* with <kbd>Ctrl</kbd>+<kbd>C</kbd> and <sub>2</sub><br/>"_s,
            u"Some *text* with <kbd>Ctrl</kbd>+<kbd>C</kbd> and <sub>2</sub><br>"_s, false);
        row("tag cut at the end", u"ok<a href=\"https://x"_s, u"ok"_s, false);
    }
    void sanitizes()
    {
        QFETCH(QString, html);
        QFETCH(QString, expected);
        QFETCH(bool, removed);
        const SafeHtml safe = sanitizeHtml(html);
        QCOMPARE(safe.html, expected);
        QCOMPARE(safe.removed, removed);
        QVERIFY(!safe.truncated);
        // Safe HTML is its own sanitized form.
        QCOMPARE(sanitizeHtml(safe.html).html, safe.html);
    }

    void hostileDocument()
    {
        const SafeHtml safe = sanitizeHtml(outputFixture(u"hostile.html"_s));
        QVERIFY(safe.removed);
        const QString lower = safe.html.toLower();
        for (const char *word :
             {"<script",     "<style",      "<iframe",     "<object",     "<embed", "<form", "<input",     "<button",
              "<svg",        "<math",       "<template",   "<link",       "<meta",  "<base", "<audio",     "<video",
              "javascript:", "vbscript:",   "file:",       "http://evil", "//evil", "url(",  "expression", "onclick",
              "onload",      "onmouseover", "background=", "inside form", "secret"}) {
            QVERIFY2(!lower.contains(QLatin1StringView(word)), word);
        }
        QVERIFY(safe.html.contains(u"<p>before</p>"_s));
        QVERIFY(safe.html.contains(u"<p>after</p>"_s));
        QVERIFY(safe.html.contains(u"[remote image not loaded: evil.example]"_s));
        QVERIFY(safe.html.contains(u"<img src=\"data:image/png;base64,"_s));
        QVERIFY(safe.html.contains(u"<a href=\"https://example.com/?a=1&amp;b=2\">ok</a>"_s));
        QVERIFY(safe.html.contains(u"<div style=\"color: red\">styled</div>"_s));
        QVERIFY(safe.html.contains(u"<td>cell</td>"_s));
    }

    // pandas' DataFrame._repr_html_(): the table whole, its <style scoped> dropped unnoticed.
    void pandasDataFrame()
    {
        const SafeHtml frame = sanitizeHtml(outputFixture(u"dataframe.html"_s));
        QVERIFY(!frame.removed);
        QVERIFY(!frame.html.contains(u"style scoped"_s));
        QVERIFY(!frame.html.contains(u".dataframe"_s));
        for (const QString &part :
             {u"<div>"_s, u"<table border=\"1\" class=\"dataframe\">"_s, u"<thead>"_s,
              u"<tr style=\"text-align: right\">"_s, u"<th></th>"_s, u"<th>loss</th>"_s, u"<tbody>"_s,
              u"<td>0.693147</td>"_s, u"<td>a &lt;b&gt;</td>"_s, u"<td>x &amp; y</td>"_s, u"</table>"_s}) {
            QVERIFY2(frame.html.contains(part), qPrintable(part));
        }
        QCOMPARE(frame.html.count(u"<tr"_s), 4);
        QCOMPARE(frame.html.count(u"<td>"_s), 9);
        const SafeHtml multi = sanitizeHtml(outputFixture(u"dataframe_multiindex.html"_s));
        QVERIFY(!multi.removed);
        QVERIFY(multi.html.contains(u"<th colspan=\"2\">metrics</th>"_s)); // halign is no attribute of ours
        QVERIFY(multi.html.contains(u"<th rowspan=\"2\" valign=\"top\">a</th>"_s));
        QVERIFY(multi.html.contains(u"<p>200 rows × 2 columns</p>"_s));
    }

    void inlineImages()
    {
        QVERIFY(isInlineImage(u"data:image/png;base64,iVBORw0KGgo="_s));
        QVERIFY(isInlineImage(u" data:image/jpeg;base64,/9j/4AAQ "_s));
        QVERIFY(isInlineImage(u"data:image/gif;base64,R0lGODlh"_s));
        QVERIFY(!isInlineImage(u"data:image/svg+xml;base64,PHN2Zz4="_s));
        QVERIFY(!isInlineImage(u"data:image/png,rawbytes"_s));
        QVERIFY(!isInlineImage(u"data:image/png;base64,<script>"_s));
        QVERIFY(!isInlineImage(u"http://example.com/x.png"_s));
        QCOMPARE(imageNotLoadedText(u"https://cdn.example.org:8443/a.png?x=1"_s),
                 u"[remote image not loaded: cdn.example.org]"_s);
        QCOMPARE(imageNotLoadedText(u"/home/me/secret.png"_s), u"[local image not loaded: secret.png]"_s);
        QCOMPARE(imageNotLoadedText(u"attachment:plot.png"_s), u"[image not loaded]"_s);
        // A markdown cell's attachments, resolved by the view from the notebook, when asked.
        const QString html = u"<img src=\"attachment:plot.png\" alt=\"plot\">"_s;
        QCOMPARE(sanitizeHtml(html).html, u"[image not loaded]"_s);
        SafeHtmlOptions options;
        options.keepAttachments = true;
        options.attachments = {u"plot.png"_s};
        QCOMPARE(sanitizeHtml(html, options).html, u"<img src=\"attachment:plot.png\" alt=\"plot\">"_s);
        // One the notebook does not have (lost on a copy, or a name mistyped) is said to be missing.
        const auto missing = sanitizeHtml(u"<img src=\"attachment:lost.png\" alt=\"plot\">"_s, options);
        QCOMPARE(missing.html, u"[attachment missing: lost.png]"_s);
        QVERIFY(!missing.removed);
    }

    // HTML bombs: one linear pass whatever they hold, the output bounded and closed, a clear mark
    // where it was cut.
    void bombsBounded_data()
    {
        QTest::addColumn<QString>("html");
        QTest::addColumn<bool>("truncated");
        QTest::addColumn<qsizetype>("maxOutput");
        const auto repeated = [](const QString &piece, qsizetype count) { return piece.repeated(count); };
        QTest::newRow("100,000 nested divs")
            << repeated(u"<div>"_s, 100000) + u"x"_s + repeated(u"</div>"_s, 100000) << false << qsizetype(2000);
        QTest::newRow("100,000 nested tables")
            << repeated(u"<table><tr><td>"_s, 100000) + u"x"_s << false << qsizetype(10000);
        QTest::newRow("a million elements") << repeated(u"<b>x</b>"_s, 1000000) << true << qsizetype(600000);
        QTest::newRow("100,000 unclosed spans, then 100,000 foreign ends")
            << repeated(u"<span>"_s, 100000) + repeated(u"</div>"_s, 100000) << false << qsizetype(2000);
        QTest::newRow("100,000 list items") << u"<ul>"_s + repeated(u"<li>a"_s, 100000) << true << qsizetype(600000);
        QTest::newRow("10 MB attribute values")
            << u"<div title=\""_s + QString(5 << 20, u'x') + u"\" class=\""_s + QString(5 << 20, u'y') + u"\">t</div>"_s
            << false << qsizetype(100);
        QTest::newRow("a million attributes")
            << u"<div"_s + repeated(u" a=\"v\""_s, 1000000) + u">t</div>"_s << false << qsizetype(100);
        QTest::newRow("a 10 MB data image")
            << u"<img src=\"data:image/png;base64,"_s + QString(10 << 20, u'A') + u"\">"_s << false
            << qsizetype(11 << 20);
        QTest::newRow("an unclosed comment") << u"a<!--"_s + QString(10 << 20, u'-') << false << qsizetype(10);
        QTest::newRow("an unclosed tag") << u"a<b"_s + repeated(u"<a"_s, 1 << 20) << false << qsizetype(10);
        QTest::newRow("entity expansion")
            << u"<!DOCTYPE b [<!ENTITY l0 \"ha\"><!ENTITY l1 \"&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;&l0;\">"
               u"<!ENTITY l2 \"&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;&l1;\">]><p>&l2;&l2;&l2;</p>"_s
            << false << qsizetype(100);
        QTest::newRow("a script never closed")
            << u"<script>"_s + repeated(u"</scrip"_s, 1 << 20) << false << qsizetype(0);
        QTest::newRow("40 MB of text") << QString(40 << 20, u'<') << true << qsizetype(80 << 20);
    }
    void bombsBounded()
    {
        QFETCH(QString, html);
        QFETCH(bool, truncated);
        QFETCH(qsizetype, maxOutput);
        SafeHtml safe;
        const ferry::test::Cost cost = ferry::test::measure(
            QTest::currentDataTag(), u"%1 characters"_s.arg(html.size()), [&] { safe = sanitizeHtml(html); });
        QVERIFY2(ferry::test::secondsWithin(cost.seconds, 2), qPrintable(QString::number(cost.seconds)));
        QCOMPARE(safe.truncated, truncated);
        QVERIFY2(safe.html.size() <= maxOutput + 200, qPrintable(QString::number(safe.html.size())));
        if (truncated)
            QVERIFY(safe.html.endsWith(u"<p><i>"_s + truncationMark().toHtmlEscaped() + u"</i></p>"_s));
        // Closed: as many ends as starts of each element kept.
        for (const QString &name : {u"div"_s, u"table"_s, u"td"_s, u"b"_s, u"li"_s, u"ul"_s, u"p"_s}) {
            QCOMPARE(safe.html.count(u"<"_s + name + u">"_s) + safe.html.count(u"<"_s + name + u" "_s),
                     safe.html.count(u"</"_s + name + u">"_s));
        }
        QVERIFY(safe.html.count(u"<div>"_s) <= SafeHtmlLimits{}.depth);
    }

    void entityExpansionNotExpanded()
    {
        const SafeHtml safe = sanitizeHtml(u"<!DOCTYPE b [<!ENTITY l0 \"ha\">]><p>&l0;</p>"_s);
        QCOMPARE(safe.html, u"]&gt;<p>&l0;</p>"_s); // the DOCTYPE ends at its first '>', as HTML reads it
    }
};

FERRY_TEST_APPLESS_MAIN(TestSafeHtml)
#include "tst_safehtml.moc"
