# The Media tab's views (ui/media/: images by step, distributions) over real runs with media,
# offscreen. Included by tests/CMakeLists.txt.
if(FERRY_GUI)
  ferry_test(tst_mediaviews GUI SOURCES ui/media/tst_mediaviews.cpp LIBS ferry_ui)
endif()
