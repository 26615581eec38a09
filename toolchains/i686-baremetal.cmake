# Bare-metal 32-bit x86 (i686 with SSE2 for double), booted by QEMU's Multiboot 1 loader:
#   cmake --preset x86-baremetal   (or -DCMAKE_TOOLCHAIN_FILE=toolchains/i686-baremetal.cmake)
# Scalar: double. Tests run on qemu-system-i386 (machine pc) through toolchains/qemu-x86.sh.
#
# Compiler: Debian's i686 cross g++ (g++-i686-linux-gnu, and its 32-bit libgcc.a for 64-bit
# division). Not the host g++ with -m32: Debian's gcc-multilib conflicts with the aarch64 cross
# compiler (g++-aarch64-linux-gnu), and apt removes one to install the other. No C library: start-up code, linker script, memcpy & co., the C++ runtime
# stubs, COM1 and a small libm (sin, cos, atan2, hypot) come from port/x86 (talus::port_x86),
# which adds -T<script> to the link. -nostdlib: no crt*.o, no glibc, no libstdc++ library
# (headers only), so a program that needs malloc or operator new fails to link.
#
#   -march=i686 -msse2 -mfpmath=sse   double arithmetic in SSE2 registers, rounded to double
#                       at every operation like x86-64 and the Cortex-M7 (x87's 80-bit
#                       intermediates would break the bit test). Doubles are still returned
#                       in x87 st(0) by the i386 ABI (an exact load/store) and int64 <-> double
#                       conversions use x87 (fildll/fistpll): the start-up code enables both.
#   -ffreestanding -fbuiltin   no hosted assumptions, but keep GCC's builtins (-ffreestanding
#                       implies -fno-builtin: std::sqrt would become a call).
#   -fno-math-errno     std::sqrt inlines to sqrtsd (no errno, no libm call).
#   -fno-pie -fno-stack-protector   absolute addresses, no %gs canary (no TLS here).
#   -fno-use-cxa-atexit static destructors register with atexit (a stub: firmware never
#                       exits), not __cxa_atexit (the no-heap check rejects __cxa_*).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR i686)
set(CMAKE_C_COMPILER i686-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER i686-linux-gnu-g++)
set(CMAKE_ASM_COMPILER i686-linux-gnu-gcc)
# No start-up files nor linker script during CMake's compiler checks.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(TALUS_CPU_FLAGS "-m32 -march=i686 -msse2 -mfpmath=sse")
set(talus_x86_common "${TALUS_CPU_FLAGS} -ffreestanding -fbuiltin -fno-math-errno -fno-pie -fno-stack-protector -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${talus_x86_common}")
set(CMAKE_CXX_FLAGS_INIT "${talus_x86_common} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit")
set(CMAKE_ASM_FLAGS_INIT "${TALUS_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-m32 -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-z,noexecstack -Wl,--no-warn-rwx-segments -Wl,--gc-sections")
# libgcc (64-bit division: __udivdi3, __umoddi3, __divdi3, ...) last on the link line.
set(CMAKE_C_STANDARD_LIBRARIES "-lgcc" CACHE STRING "")
set(CMAKE_CXX_STANDARD_LIBRARIES "-lgcc" CACHE STRING "")

# Run executables (ctest, add_test) on qemu-system-i386 through the Multiboot/COM1 runner.
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/qemu-x86.sh")

set(TALUS_PORT x86 CACHE STRING "talus port: posix, cortex-m or x86")
set(TALUS_TARGET_SCALAR double CACHE STRING "scalar type of the on-target tests")
