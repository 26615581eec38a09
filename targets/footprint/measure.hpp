#pragma once
// The measurement window of the instruction-count probes (probe.cpp, contact_probe.cpp): one
// call of a measured function between two reads of the target's counter, its stack depth on
// Cortex-M, and the "win ..." line. Defines the exec-trace markers talus_fp_begin / _end
// (extern "C", found by name in QEMU's trace): include it in one translation unit per image.
// How each target counts is in probe.cpp's head comment.
#include <cstdint>

#include "footprint.hpp"

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <valgrind/callgrind.h>
#pragma GCC diagnostic pop
#define TALUS_FP_CALLGRIND 1
#endif
#endif

namespace footprint {

/// A measured call: one function per variant, called through a pointer with the state index.
using Fn = void (*)(int);

}  // namespace footprint

// Window markers for the QEMU exec trace (distinct bodies, so no identical-code folding).
volatile int g_fp_marker = 0;
extern "C" __attribute__((noinline, noipa)) void talus_fp_begin() { g_fp_marker = 1; }
extern "C" __attribute__((noinline, noipa)) void talus_fp_end() { g_fp_marker = 2; }

namespace footprint {

#if defined(__arm__)
constexpr const char* kCounter = "systick";
inline volatile std::uint32_t& syst_cvr() { return *reinterpret_cast<volatile std::uint32_t*>(0xE000E018u); }

std::uintptr_t g_call_sp = 0;  // stack pointer at the measured call

__attribute__((noinline)) std::uint32_t measure(Fn f, int s) {
  g_call_sp = footprint::stack_pointer();  // constant in this body after the prologue
  const talus::port::IrqState irq = talus::port::critical_enter();
  const std::uint32_t t0 = syst_cvr();
  f(s);
  const std::uint32_t t1 = syst_cvr();
  talus::port::critical_exit(irq);
  return (t0 - t1) & 0x00FFFFFFu;  // down-counter, reload 2^24 − 1 (port_cortex_m.cpp)
}
#elif defined(TALUS_PORT_X86)
// Bare-metal x86 under QEMU -icount shift=N: the TSC counts virtual ns (TALUS_X86_TSC_HZ is
// 1 GHz), 2^N per instruction, so instructions = ticks >> N (run at shift=0: ticks).
// Interrupts are off in port/x86.
constexpr const char* kCounter = "tsc";
__attribute__((noinline)) std::uint32_t measure(Fn f, int s) {
  const std::uint64_t t0 = talus::port::x86::rdtsc();
  f(s);
  const std::uint64_t t1 = talus::port::x86::rdtsc();
  return static_cast<std::uint32_t>(t1 - t0);
}
#elif defined(TALUS_FP_CALLGRIND)
constexpr const char* kCounter = "callgrind";
__attribute__((noinline)) std::uint32_t measure(Fn f, int s) {
  CALLGRIND_TOGGLE_COLLECT;
  f(s);
  CALLGRIND_TOGGLE_COLLECT;
  return 0;
}
#else
constexpr const char* kCounter = "trace";
__attribute__((noinline)) std::uint32_t measure(Fn f, int s) {
  talus_fp_begin();
  f(s);
  talus_fp_end();
  return 0;
}
#endif

int g_window = 0;
std::uint64_t g_stack_max = 0;  // deepest stack of one measured call, for the current label

/// One window; `field` is the state field printed (the state, or 1000·k + state for caps).
void window(const char* label, Fn f, int s, int field, bool cold = false) {
#if defined(__arm__)
  footprint::stack_paint();
  const std::uint32_t ticks = measure(f, s);
  const std::uint64_t depth = g_call_sp - footprint::stack_low_water();
  if (depth > g_stack_max) g_stack_max = depth;
#else
  const std::uint32_t ticks = measure(f, s);
#endif
  footprint::Out o;
#if defined(TALUS_FP_CALLGRIND)
  (void)ticks;
  o << "win " << g_window;
  CALLGRIND_DUMP_STATS_AT(o.c_str());
  o << " " << (cold ? "cold_" : "") << label << " " << field << " -";
#elif defined(__arm__) || defined(TALUS_PORT_X86)
  o << "win " << g_window << " " << (cold ? "cold_" : "") << label << " " << field << " " << ticks;
#else
  (void)ticks;
  o << "win " << g_window << " " << (cold ? "cold_" : "") << label << " " << field << " -";
#endif
  o.write();
  ++g_window;
}

}  // namespace footprint
