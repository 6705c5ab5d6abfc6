# core/kernels: the Jupyter messaging protocol, against Jupyter's own client library
# (python3-jupyter-client's Session signs and checks the same frames). Included by tests/CMakeLists.txt.
ferry_test(tst_jupytermessage SOURCES kernels/tst_jupytermessage.cpp)
