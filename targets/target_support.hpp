#pragma once
// Shared by the on-target test's translation units (target_test.cpp, contact_check.cpp,
// estimation_check.cpp):
// text output without printf (Line: talus::rt::LogLine) and, on bare-metal Cortex-M, stack
// painting. The image that links them defines talus_stack_paint (target_test.cpp), so the
// startup code paints the whole stack at reset.
#include <talus/rt/log.hpp>
#include <talus/rt/port.hpp>

#include <cstddef>
#include <cstdint>

#if defined(__arm__) && !defined(TALUS_TARGET_POSIX) && !defined(TALUS_TARGET_BITS)
#include <talus/port/cortex_m.hpp>
#define TALUS_TARGET_STACK_PAINT 1  // bare metal: measure the stack (not in the bit test)
#endif
#ifndef TALUS_TARGET_STACK_BUDGET
// Bytes of stack one constrained or contact solve or one estimator update may use on Cortex-M
// (checked by stack painting); the solvers keep their matrices in static storage (ConstraintSet,
// ContactProblem, LeggedEstimator), so this is frames and small temporaries only. The whole
// program must stay within the linker script's stack as well.
#define TALUS_TARGET_STACK_BUDGET 8192
#endif

namespace talus_target {

/// One line of text through talus::port::log_write, without printf: talus's own LogLine
/// (rt/log.hpp; `l << talus::rt::sci(x)`, `l << talus::rt::hex(bits)`, then `l.write()`).
using Line = talus::rt::LogLine<200>;

/// How many checks ran and how many of them failed (each check program's result).
struct Tally {
  int checks = 0;
  int failures = 0;
  Tally& operator+=(const Tally& other) {
    checks += other.checks;
    failures += other.failures;
    return *this;
  }
};

#if defined(TALUS_TARGET_STACK_PAINT)
extern "C" std::uint32_t _sstack, _estack;  // port/cortex-m/mps2.ld

/// The stack pointer of the calling function (always inlined: the caller's own value).
__attribute__((always_inline)) inline std::uintptr_t stack_pointer() {
  std::uintptr_t sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  return sp;
}
/// The stack being measured: the main stack (linker script) on bare metal; a FreeRTOS test
/// program points it at its task's stack, with the kernel's fill word (0xa5a5a5a5: its stack
/// overflow check reads that word at the stack's end, so painting must use it there).
struct StackRegion {
  volatile std::uint32_t* lo;
  volatile std::uint32_t* hi;
  std::uint32_t word;
};
inline StackRegion& stack_region() {
  static StackRegion r{&_sstack, &_estack, talus::port::cortex_m::stack_paint_word};
  return r;
}
/// Repaints the stack below the live stack pointer (256 bytes of slack for this call).
__attribute__((noinline)) inline void paint_below_sp() {
  const StackRegion& r = stack_region();
  volatile std::uint32_t* p = r.lo;
  volatile std::uint32_t* const end = reinterpret_cast<volatile std::uint32_t*>(stack_pointer() - 256);
  while (p < end) *p++ = r.word;
}
/// The lowest stack word written since the last painting.
inline std::uintptr_t stack_low_water() {
  const StackRegion& r = stack_region();
  const volatile std::uint32_t* p = r.lo;
  while (p < r.hi && *p == r.word) ++p;
  return reinterpret_cast<std::uintptr_t>(p);
}
#endif

}  // namespace talus_target
