#pragma once
/// \file cortex_m.hpp
/// Bare-metal Armv7-M specifics of port/cortex-m (reference boards: QEMU mps2-an500,
/// Cortex-M7; mps2-an386, Cortex-M4F). Everything a control program needs is in
/// <talus/rt/port.hpp>; this header is for board bring-up code and tests.
#include <cstddef>
#include <cstdint>

/// Core clock that SysTick counts (CLKSOURCE = processor clock). The MPS2 boards run at
/// 25 MHz; a real board sets this to its core clock (e.g. -DTALUS_CORTEX_M_CORE_HZ=480000000).
#ifndef TALUS_CORTEX_M_CORE_HZ
#define TALUS_CORTEX_M_CORE_HZ 25000000u
#endif
/// CMSDK APB UART0 of the MPS2 boards.
#ifndef TALUS_CORTEX_M_UART_BASE
#define TALUS_CORTEX_M_UART_BASE 0x40004000u
#endif
#ifndef TALUS_CORTEX_M_UART_BAUD
#define TALUS_CORTEX_M_UART_BAUD 115200u
#endif

namespace talus::port::cortex_m {

inline constexpr std::uint32_t core_hz = TALUS_CORTEX_M_CORE_HZ;

/// True if DWT CYCCNT was found running at init() (real silicon); false under QEMU, where
/// cycles() falls back to SysTick ticks.
bool has_cycle_counter();

/// DWT CYCCNT extended to 64 bits (call at least once per 2^32 cycles); only meaningful
/// when has_cycle_counter().
std::uint64_t cycle_count();

/// SysTick ticks at the core clock since the time base started, 64 bits. Bare metal
/// (clock_cortex_m.cpp): SysTick free-running over 2^24, its interrupt counts the wraps.
/// FreeRTOS (port/freertos): the kernel's tick count times the ticks per kernel tick, plus
/// SysTick's count within the current kernel tick.
std::uint64_t systick_ticks();

/// Starts the time base; init() calls it. Implemented by the clock linked with the port:
/// bare metal programs SysTick; FreeRTOS leaves it to the scheduler (nothing to do).
void clock_init();

/// CMSDK UART0 (polled, no interrupts).
void uart_init(std::uint32_t baud);
void uart_put(std::uint8_t byte);   ///< blocks while the TX buffer is full
bool uart_get(std::uint8_t& byte);  ///< false if no byte is waiting

/// Stack painting. An image that defines the symbol talus_stack_paint, e.g.
///   extern "C" __attribute__((used)) const char talus_stack_paint = 1;
/// gets its whole stack filled with stack_paint_word at reset (startup.cpp, before .data's
/// users and static constructors run); stack_high_water() then tells the deepest the stack
/// has been since reset, in bytes from its top. Without the symbol the stack is not painted
/// and stack_high_water() means nothing.
inline constexpr std::uint32_t stack_paint_word = 0xC5A5C5A5u;
std::size_t stack_high_water();
/// Size of the stack region (linker script: __stack_size).
std::size_t stack_size();

/// ARM semihosting (bkpt 0xAB), for QEMU or a debug probe. Without a debugger attached a
/// real chip faults on bkpt: do not call these on a stand-alone board.
int semihost_call(int op, const void* arg);
void semihost_write(const char* data, std::size_t n);  ///< to the debugger's console
[[noreturn]] void semihost_exit(int code);             ///< SYS_EXIT_EXTENDED

}  // namespace talus::port::cortex_m
