# Notebook import: the reader and the percent-format script against Jupyter's own tools
# (python3-nbformat, jupyter-nbconvert), and the converted script run by `ferry run`.
ferry_test(tst_notebook SOURCES notebook/tst_notebook.cpp)
ferry_test(tst_notebookcli SOURCES notebook/tst_notebookcli.cpp)
# The notebook the window edits: saved as nbformat writes it, the percent format, bad files.
ferry_test(tst_notebookdocument SOURCES notebook/tst_notebookdocument.cpp)
if(FERRY_GUI)
  ferry_test(tst_notebookimportdialog GUI SOURCES notebook/tst_notebookimportdialog.cpp LIBS ferry_ui)
endif()
# What a notebook's outputs look like without a widget: streams drawn as a terminal, HTML made
# safe (core/notebook/terminaltext.h, safehtml.h); a QTextDocument renders the safe HTML.
ferry_test(tst_terminaltext SOURCES notebook/tst_terminaltext.cpp)
ferry_test(tst_safehtml SOURCES notebook/tst_safehtml.cpp)
if(FERRY_GUI)
  ferry_test(tst_safehtmldocument GUI SOURCES notebook/tst_safehtmldocument.cpp LIBS Qt6::Gui)
endif()
# What a notebook asks its kernel, its Python run by Debian's python3 as IPython runs it: the names
# of tricky cells, a thousand variables; which cells those names make stale.
ferry_test(tst_kernelquery SOURCES notebook/tst_kernelquery.cpp)
ferry_test(tst_celldependencies SOURCES notebook/tst_celldependencies.cpp)
