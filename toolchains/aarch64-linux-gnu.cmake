# aarch64 (Cortex-A class) Linux, glibc, e.g. a PREEMPT_RT controller board.
# Compiler: Debian's g++-aarch64-linux-gnu. Executables run under QEMU user mode
# (qemu-user): binfmt_misc is not relied upon, ctest calls qemu-aarch64 explicitly.
#   cmake --preset aarch64   (or -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake)
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)   # Eigen3's (header-only) CMake config from the host

set(CMAKE_CROSSCOMPILING_EMULATOR "qemu-aarch64;-L;/usr/aarch64-linux-gnu")

set(TALUS_PORT posix CACHE STRING "talus port: posix or cortex-m")
set(TALUS_TARGET_SCALAR double CACHE STRING "scalar type of the on-target tests")
