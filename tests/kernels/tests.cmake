# core/kernels: the Jupyter messaging protocol, against Jupyter's own client library
# (python3-jupyter-client's Session signs and checks the same frames). Included by tests/CMakeLists.txt.
ferry_test(tst_jupytermessage SOURCES kernels/tst_jupytermessage.cpp)
# The kernel client against a real ipykernel (python3-ipykernel), and a fake kernel's bad signature.
find_package(cppzmq REQUIRED)
ferry_test(tst_kernelclient SOURCES kernels/tst_kernelclient.cpp LIBS cppzmq)
