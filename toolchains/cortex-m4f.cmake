# Arm Cortex-M4F: single-precision FPU (FPv4-SP-D16), hard-float ABI, Thumb-2.
# Multilib thumb/v7e-m+fp/hard. Scalar: float (double would be software floating point,
# about 15x the instructions). Tests run on QEMU's mps2-an386 board.
#   cmake --preset cortex-m4f   (or -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m4f.cmake)
set(TALUS_CPU_FLAGS "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb")
set(TALUS_QEMU_BOARD mps2-an386)
set(TALUS_TARGET_SCALAR float)
include(${CMAKE_CURRENT_LIST_DIR}/cortex-m-common.cmake)
