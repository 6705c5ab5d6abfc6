# Security (issue 14, docs/security.md): one test per finding of the security review, each doing
# the attack against the real component and asserting it failed and nothing was lost.
ferry_test(tst_safefile SOURCES security/tst_safefile.cpp)
# Crafted archives, environment files, notebooks and datasets (issue 14, items 2, 6, 7, 8):
# libarchive writes the archives and the idx.gz files exactly as an attacker would.
find_package(LibArchive 3.3 REQUIRED)
ferry_test(tst_predictarchive SOURCES security/tst_predictarchive.cpp LIBS LibArchive::LibArchive)
add_dependencies(tst_predictarchive ferry)
ferry_test(tst_yamlbomb SOURCES security/tst_yamlbomb.cpp)
add_dependencies(tst_yamlbomb ferry)
if(FERRY_GUI)
  ferry_test(tst_yamlbombview GUI SOURCES security/tst_yamlbombview.cpp LIBS ferry_ui)
endif()
ferry_test(tst_notebookinjection SOURCES security/tst_notebookinjection.cpp)
add_dependencies(tst_notebookinjection ferry)
ferry_test(tst_importname SOURCES security/tst_importname.cpp)
add_dependencies(tst_importname ferry)
ferry_test(tst_memorybombs SOURCES security/tst_memorybombs.cpp LIBS LibArchive::LibArchive)
