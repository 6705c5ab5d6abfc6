# The workbench window's parts (issue 6), offscreen.
if(FERRY_GUI)
  ferry_test(tst_workbenchparts GUI LIBS ferry_ui)
  add_dependencies(tst_workbenchparts ferry)
  if(FERRY_TRAINER)
    add_dependencies(tst_workbenchparts ferry_trainer)
  endif()
endif()
