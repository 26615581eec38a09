# Shared part of the bare-metal Arm Cortex-M toolchain files (cortex-m7.cmake, cortex-m4f.cmake).
# Those set TALUS_CPU_FLAGS, TALUS_QEMU_BOARD and TALUS_TARGET_SCALAR, then include this file.
#
# Compiler: arm-none-eabi-gcc (Debian: gcc-arm-none-eabi, libnewlib-arm-none-eabi,
# libstdc++-arm-none-eabi-newlib). C library: newlib-nano with semihosting (librdimon).
# Startup code, vector table and linker script come from port/cortex-m (the executable links
# the talus_port_cortex_m object library), hence -nostartfiles there, not here.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# No startup files nor linker script during CMake's compiler checks.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(CMAKE_C_FLAGS_INIT "${TALUS_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_CXX_FLAGS_INIT "${TALUS_CPU_FLAGS} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "${TALUS_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs --specs=rdimon.specs -Wl,--gc-sections")

# Search the newlib tree for libraries and headers, never the host's; packages (Eigen3's
# CMake config, architecture independent) may come from the host.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# Run executables (ctest, add_test) on the QEMU reference board through the semihosting runner.
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/qemu-mps2.sh;${TALUS_QEMU_BOARD}")

set(TALUS_PORT cortex-m CACHE STRING "talus port: posix or cortex-m")
set(TALUS_TARGET_SCALAR ${TALUS_TARGET_SCALAR} CACHE STRING "scalar type of the on-target tests")
set(TALUS_QEMU_BOARD ${TALUS_QEMU_BOARD} CACHE STRING "QEMU machine (-M) the tests run on")
