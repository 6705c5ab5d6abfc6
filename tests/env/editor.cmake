# The environment editor (issue 7): its core (version diff, versioned saves, secret variables)
# and, in the GUI build, the editor's widgets offscreen.
ferry_test(tst_environmentdiff SOURCES env/tst_environmentdiff.cpp)
if(FERRY_GUI)
  ferry_test(tst_environmenteditor GUI SOURCES env/tst_environmenteditor.cpp LIBS ferry_ui)
endif()
