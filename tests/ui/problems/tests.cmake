# The Problems panel: one row per problem, counted; a row with a file opens it at its line.
# Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_problemspanel GUI SOURCES ui/problems/tst_problemspanel.cpp LIBS ferry_ui)
endif()
