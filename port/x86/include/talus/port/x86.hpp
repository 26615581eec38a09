#pragma once
/// \file x86.hpp
/// Bare-metal 32-bit x86 specifics of port/x86 (reference board: QEMU's pc machine,
/// qemu-system-i386, booted by Multiboot 1). Everything a control program needs is in
/// <talus/rt/port.hpp>; this header is for board bring-up code and tests.
#include <cstddef>
#include <cstdint>

/// TSC frequency (Hz) behind now_ns() and counter_hz(). Under QEMU with -icount (the
/// runner toolchains/qemu-x86.sh) the TSC counts virtual nanoseconds: 1 GHz exactly.
/// 0: measure it at init() against the PIT (channel 2, 10 ms): what a real board needs,
/// unless its firmware knows the invariant TSC's frequency (CPUID leaf 0x15).
#ifndef TALUS_X86_TSC_HZ
#define TALUS_X86_TSC_HZ 1000000000ull
#endif
/// 16550 UARTs: COM1 carries the log (log_write), COM2 the link (link_write/read).
#ifndef TALUS_X86_LOG_UART
#define TALUS_X86_LOG_UART 0x3F8u
#endif
#ifndef TALUS_X86_LINK_UART
#define TALUS_X86_LINK_UART 0x2F8u
#endif
/// I/O port of QEMU's isa-debug-exit device (-device isa-debug-exit,iobase=0xf4,iosize=0x04).
#ifndef TALUS_X86_DEBUG_EXIT_PORT
#define TALUS_X86_DEBUG_EXIT_PORT 0xF4u
#endif

namespace talus::port::x86 {

/// Writes a byte to an I/O port.
inline void outb(std::uint16_t port, std::uint8_t v) { asm volatile("outb %0, %1" ::"a"(v), "Nd"(port)); }
/// Writes a 32-bit word to an I/O port.
inline void outl(std::uint16_t port, std::uint32_t v) { asm volatile("outl %0, %1" ::"a"(v), "Nd"(port)); }
/// Reads a byte from an I/O port.
inline std::uint8_t inb(std::uint16_t port) {
  std::uint8_t v;
  asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}

/// Time-stamp counter (64 bits).
inline std::uint64_t rdtsc() {
  std::uint32_t lo, hi;
  asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
}

/// TSC ticks per second in use (TALUS_X86_TSC_HZ, or measured at init() when that is 0).
std::uint64_t tsc_hz();

/// Starts the time base; init() calls it (measures the TSC when TALUS_X86_TSC_HZ is 0).
void clock_init();

/// 16550 UART at I/O base `base`, polled, no interrupts, 8N1. uart_init returns false when
/// no UART answers there (scratch register test): then put/get do nothing.
bool uart_init(std::uint16_t base, std::uint32_t baud);
void uart_put(std::uint16_t base, std::uint8_t byte);   ///< blocks while the transmitter is full
bool uart_get(std::uint16_t base, std::uint8_t& byte);  ///< false if no byte is waiting

}  // namespace talus::port::x86
