# core/kernels: the Jupyter messaging protocol, against Jupyter's own client library
# (python3-jupyter-client's Session signs and checks the same frames). Included by tests/CMakeLists.txt.
ferry_test(tst_jupytermessage SOURCES kernels/tst_jupytermessage.cpp)
# The keeper's journal as Ferry reads it.
ferry_test(tst_journal SOURCES kernels/tst_journal.cpp)
# One execution's outputs as nbformat writes them.
ferry_test(tst_celloutputs SOURCES kernels/tst_celloutputs.cpp)
# A stream's text kept bounded: its first and last lines, the cut marked.
ferry_test(tst_streamtext SOURCES kernels/tst_streamtext.cpp)
# The kernel client against a real ipykernel (python3-ipykernel), and a fake kernel's bad signature.
ferry_test(tst_kernelclient SOURCES kernels/tst_kernelclient.cpp LIBS cppzmq)
# The kernel keeper (core/kernels/keeper.py, standard-library Python) against a real ipykernel and
# jupyter_client's own client (Debian's, under /usr/bin/python3): journal, signals, stop, follow.
add_test(NAME keeper_check COMMAND /usr/bin/python3 "${CMAKE_CURRENT_SOURCE_DIR}/kernels/keeper_check.py")
