# Environment tests. The test sources live in tests/env/; data in tests/data/env/.
# Each area includes its own list so that work on one does not touch another's lines.
include(${CMAKE_CURRENT_LIST_DIR}/pep508.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/matchspec.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/formats.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/devcontainer.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/editor.cmake)
