# Arm Cortex-M7 with the double-precision FPU (FPv5-D16), hard-float ABI, Thumb-2.
# Multilib thumb/v7e-m+dp/hard. Scalar: double. Tests run on QEMU's mps2-an500 board.
#   cmake --preset cortex-m7   (or -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m7.cmake)
set(TALUS_CPU_FLAGS "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard -mthumb")
set(TALUS_QEMU_BOARD mps2-an500)
set(TALUS_TARGET_SCALAR double)
include(${CMAKE_CURRENT_LIST_DIR}/cortex-m-common.cmake)
