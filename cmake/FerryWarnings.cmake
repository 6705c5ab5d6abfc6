# One place for the flags every Ferry target compiles with. Third-party headers (Qt, torch)
# come from imported targets and are included as system headers, so only our code is judged.
add_library(ferry_warnings INTERFACE)
target_compile_options(ferry_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wold-style-cast -Wnon-virtual-dtor
  -Wshadow -Wcast-qual -Woverloaded-virtual)
if(FERRY_WERROR)
  target_compile_options(ferry_warnings INTERFACE -Werror)
endif()
target_compile_definitions(ferry_warnings INTERFACE
  QT_NO_CAST_FROM_ASCII
  QT_NO_CONTEXTLESS_CONNECT
  # torch declares members named `slots`; Q_SIGNALS/Q_SLOTS/Q_EMIT everywhere instead.
  QT_NO_KEYWORDS
  QT_NO_FOREACH
  QT_USE_QSTRINGBUILDER)
