# Native x86-64 Linux (glibc, g++), e.g. a PREEMPT_RT industrial PC. Not a cross build:
# executables run directly. Exists so that every target, the host included, is named by a
# toolchain file and takes the same path through targets/.
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(TALUS_PORT posix CACHE STRING "talus port: posix or cortex-m")
set(TALUS_TARGET_SCALAR double CACHE STRING "scalar type of the on-target tests")
