# The talus ports (implementations of include/talus/rt/port.hpp, sources in port/) as the
# targets a firmware links:
#
#   talus::port_posix      Linux (x86-64, aarch64, ...): port/posix. Defined when
#                          CMAKE_SYSTEM_NAME is Linux.
#   talus::port_x86        bare-metal 32-bit x86 (Multiboot 1, QEMU pc): port/x86 (boot_x86.cpp, IDT
#                          faults, TSC time base, COM1/COM2 16550, isa-debug-exit, memcpy & co.,
#                          a small libm) and its linker script. Defined when CMAKE_SYSTEM_NAME is
#                          Generic and CMAKE_SYSTEM_PROCESSOR is i686 (toolchains/i686-baremetal.cmake).
#   talus::port_cortex_m   bare-metal Armv7-M: port/cortex-m (startup code, vector table,
#                          fault handlers, SysTick time base, semihosting, UART0) and its
#                          linker script. Defined when CMAKE_SYSTEM_NAME is Generic and
#                          CMAKE_SYSTEM_PROCESSOR is arm (toolchains/cortex-m7.cmake, ...).
#
# Both are OBJECT libraries compiled in the project that uses them, with that project's
# toolchain and flags: an installed talus ships the port sources (<prefix>/share/talus/port),
# not object files, so one installed package serves the host, aarch64 and every Cortex-M
# variant (see port/README.md, "Using a port"). OBJECT, so that the startup code and the
# vector table are always linked (a static library would let the linker drop them). Link a
# port directly into the executable: target_link_libraries(app PRIVATE talus::port_posix).
#
# Each port target defines, for its users, TALUS_PORT_POSIX=1, TALUS_PORT_CORTEX_M=1 or
# TALUS_PORT_X86=1.
#
# Linker script of talus::port_cortex_m: the cache variable TALUS_PORT_LINKER_SCRIPT
# (default: port/cortex-m/mps2.ld, the QEMU MPS2 boards), or per executable the target
# property TALUS_LINKER_SCRIPT (set_target_properties(app PROPERTIES TALUS_LINKER_SCRIPT
# ${CMAKE_CURRENT_SOURCE_DIR}/board.ld)), which wins.
#
# Used by port/CMakeLists.txt (talus built in the project: add_subdirectory) and by
# talusConfig.cmake (installed talus: find_package).
include_guard(GLOBAL)

# Own startup code (no crt0) and the board's memory map (TALUS_LINKER_SCRIPT of the executable,
# else TALUS_PORT_LINKER_SCRIPT), for the ports that bring port/cortex-m/startup.cpp.
function(_talus_port_cortex_m_link target)
  set(ld "$<IF:$<BOOL:$<TARGET_PROPERTY:TALUS_LINKER_SCRIPT>>,$<TARGET_PROPERTY:TALUS_LINKER_SCRIPT>,${TALUS_PORT_LINKER_SCRIPT}>")
  target_link_options(${target} INTERFACE -nostartfiles "-T${ld}")
  set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_DEPENDS "${ld}")
endfunction()

# talus_define_ports(<port source dir> [STRICT]): STRICT adds -Werror (talus's own build).
function(talus_define_ports port_dir)
  cmake_parse_arguments(PARSE_ARGV 1 arg "STRICT" "" "")
  set(flags -fno-exceptions -fno-rtti -Wall -Wextra -Wshadow)
  if(arg_STRICT)
    list(APPEND flags -Werror)
  endif()

  if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT TARGET talus_port_posix)
    find_package(Threads REQUIRED)
    add_library(talus_port_posix OBJECT EXCLUDE_FROM_ALL "${port_dir}/posix/port_posix.cpp" "${port_dir}/posix/clock_posix.cpp"
                "${port_dir}/common/fault_hook.cpp")
    add_library(talus::port_posix ALIAS talus_port_posix)
    target_include_directories(talus_port_posix PUBLIC "${port_dir}/posix/include")
    target_link_libraries(talus_port_posix PUBLIC talus::talus Threads::Threads)
    target_compile_definitions(talus_port_posix INTERFACE TALUS_PORT_POSIX=1)
    target_compile_options(talus_port_posix PRIVATE ${flags})
  endif()

  if(CMAKE_SYSTEM_NAME STREQUAL "Generic" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^([Aa][Rr][Mm].*|cortex-m.*)$"
     AND NOT TARGET talus_port_cortex_m)
    set(TALUS_PORT_LINKER_SCRIPT "${port_dir}/cortex-m/mps2.ld" CACHE FILEPATH
        "linker script of the board for talus::port_cortex_m (default: the QEMU MPS2 boards); an executable's TALUS_LINKER_SCRIPT property overrides it")
    add_library(talus_port_cortex_m OBJECT EXCLUDE_FROM_ALL
                "${port_dir}/cortex-m/startup.cpp" "${port_dir}/cortex-m/port_cortex_m.cpp"
                "${port_dir}/cortex-m/clock_cortex_m.cpp" "${port_dir}/common/fault_hook.cpp")
    add_library(talus::port_cortex_m ALIAS talus_port_cortex_m)
    target_include_directories(talus_port_cortex_m PUBLIC "${port_dir}/cortex-m/include")
    target_link_libraries(talus_port_cortex_m PUBLIC talus::talus)
    target_compile_definitions(talus_port_cortex_m INTERFACE TALUS_PORT_CORTEX_M=1)
    target_compile_options(talus_port_cortex_m PRIVATE ${flags})
    _talus_port_cortex_m_link(talus_port_cortex_m)
  endif()

  if(CMAKE_SYSTEM_NAME STREQUAL "Generic" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(i[3-6]86|x86)$"
     AND NOT TARGET talus_port_x86)
    set(TALUS_PORT_X86_LINKER_SCRIPT "${port_dir}/x86/multiboot.ld" CACHE FILEPATH
        "linker script of talus::port_x86 (default: Multiboot 1 at 1 MiB, QEMU pc); an executable's TALUS_LINKER_SCRIPT property overrides it")
    add_library(talus_port_x86 OBJECT EXCLUDE_FROM_ALL
                "${port_dir}/x86/boot_x86.cpp" "${port_dir}/x86/port_x86.cpp" "${port_dir}/x86/clock_x86.cpp"
                "${port_dir}/x86/runtime_x86.cpp" "${port_dir}/x86/libm_x86.cpp" "${port_dir}/common/fault_hook.cpp")
    add_library(talus::port_x86 ALIAS talus_port_x86)
    target_include_directories(talus_port_x86 PUBLIC "${port_dir}/x86/include")
    target_link_libraries(talus_port_x86 PUBLIC talus::talus)
    target_compile_definitions(talus_port_x86 INTERFACE TALUS_PORT_X86=1)
    target_compile_options(talus_port_x86 PRIVATE ${flags})
    set(ld "$<IF:$<BOOL:$<TARGET_PROPERTY:TALUS_LINKER_SCRIPT>>,$<TARGET_PROPERTY:TALUS_LINKER_SCRIPT>,${TALUS_PORT_X86_LINKER_SCRIPT}>")
    target_link_options(talus_port_x86 INTERFACE "-T${ld}")
    set_property(TARGET talus_port_x86 APPEND PROPERTY INTERFACE_LINK_DEPENDS "${ld}")
  endif()
endfunction()

# talus_define_freertos_port(<port source dir> [STRICT]): talus::port_freertos, talus's port
# over FreeRTOS (port/freertos: clock, wait_until, critical sections, kernel hooks) together
# with the family's shared start-up, fault and I/O code (port/cortex-m, port/x86 or port/posix). Needs
# the project's FreeRTOS kernel target `freertos_kernel` (FreeRTOS-Kernel's own CMake, with
# FREERTOS_PORT and a freertos_config target; port/freertos/config/FreeRTOSConfig.h is the
# reference configuration). Defines TALUS_PORT_FREERTOS=1 for its users.
function(talus_define_freertos_port port_dir)
  cmake_parse_arguments(PARSE_ARGV 1 arg "STRICT" "" "")
  if(TARGET talus_port_freertos OR NOT TARGET freertos_kernel)
    return()
  endif()
  set(flags -fno-exceptions -fno-rtti -Wall -Wextra -Wshadow)
  if(arg_STRICT)
    list(APPEND flags -Werror)
  endif()
  if(CMAKE_SYSTEM_NAME STREQUAL "Generic" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(i[3-6]86|x86)$")
    # Bare-metal x86 (kernel port GCC_IA32_FLAT): port/x86's start-up, faults, COM1/COM2,
    # runtime and libm, with clock_freertos.cpp instead of clock_x86.cpp (the APIC timer is
    # the kernel's tick). The kernel's C code is compiled -mgeneral-regs-only (see
    # port/freertos/config/FreeRTOSConfig.h: the FPU / SSE state across context switches).
    add_library(talus_port_freertos OBJECT EXCLUDE_FROM_ALL "${port_dir}/x86/boot_x86.cpp"
                "${port_dir}/x86/port_x86.cpp" "${port_dir}/x86/runtime_x86.cpp" "${port_dir}/x86/libm_x86.cpp"
                "${port_dir}/freertos/clock_freertos.cpp" "${port_dir}/common/fault_hook.cpp")
    target_include_directories(talus_port_freertos PUBLIC "${port_dir}/x86/include")
    target_compile_definitions(talus_port_freertos PRIVATE TALUS_FREERTOS_X86=1)
    set(ld "$<IF:$<BOOL:$<TARGET_PROPERTY:TALUS_LINKER_SCRIPT>>,$<TARGET_PROPERTY:TALUS_LINKER_SCRIPT>,${TALUS_PORT_X86_LINKER_SCRIPT}>")
    target_link_options(talus_port_freertos INTERFACE "-T${ld}")
    set_property(TARGET talus_port_freertos APPEND PROPERTY INTERFACE_LINK_DEPENDS "${ld}")
    foreach(kernel_target freertos_kernel freertos_kernel_port)
      if(TARGET ${kernel_target})
        target_compile_options(${kernel_target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-mgeneral-regs-only>)
      endif()
    endforeach()
  elseif(CMAKE_SYSTEM_NAME STREQUAL "Generic")
    add_library(talus_port_freertos OBJECT EXCLUDE_FROM_ALL "${port_dir}/cortex-m/startup.cpp"
                "${port_dir}/cortex-m/port_cortex_m.cpp" "${port_dir}/freertos/clock_freertos.cpp"
                "${port_dir}/common/fault_hook.cpp")
    target_include_directories(talus_port_freertos PUBLIC "${port_dir}/cortex-m/include")
    target_compile_definitions(talus_port_freertos PRIVATE TALUS_FREERTOS_CORTEX_M=1)
    _talus_port_cortex_m_link(talus_port_freertos)
  else()
    find_package(Threads REQUIRED)
    add_library(talus_port_freertos OBJECT EXCLUDE_FROM_ALL "${port_dir}/posix/port_posix.cpp"
                "${port_dir}/freertos/clock_freertos.cpp" "${port_dir}/common/fault_hook.cpp")
    target_include_directories(talus_port_freertos PUBLIC "${port_dir}/posix/include")
    target_link_libraries(talus_port_freertos PUBLIC Threads::Threads)
  endif()
  add_library(talus::port_freertos ALIAS talus_port_freertos)
  target_include_directories(talus_port_freertos PUBLIC "${port_dir}/freertos/include")
  target_link_libraries(talus_port_freertos PUBLIC talus::talus freertos_kernel)
  target_compile_definitions(talus_port_freertos INTERFACE TALUS_PORT_FREERTOS=1)
  target_compile_options(talus_port_freertos PRIVATE ${flags})
endfunction()
