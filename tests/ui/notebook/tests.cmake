# The notebook in the window (ui/notebook/), offscreen, with a real ipykernel (Debian's) under its
# keeper. Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_notebookeditor GUI SOURCES ui/notebook/tst_notebookeditor.cpp LIBS ferry_ui)
endif()
