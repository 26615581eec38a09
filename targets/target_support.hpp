#pragma once
// Shared by the on-target test's translation units (target_test.cpp, contact_check.cpp):
// text output without printf (Line) and, on bare-metal Cortex-M, stack painting. The image
// that links them defines talus_stack_paint (target_test.cpp), so the startup code paints the
// whole stack at reset.
#include <talus/rt/port.hpp>

#include <cstddef>
#include <cstdint>

#if defined(__arm__) && !defined(TALUS_TARGET_POSIX) && !defined(TALUS_TARGET_BITS)
#include <talus/port/cortex_m.hpp>
#define TALUS_TARGET_STACK_PAINT 1  // bare metal: measure the stack (not in the bit test)
#endif
#ifndef TALUS_TARGET_STACK_BUDGET
// Bytes of stack one constrained or contact solve may use on Cortex-M (checked by stack
// painting); the solvers keep their matrices in static storage (ConstraintSet,
// ContactProblem), so this is frames and small temporaries only. The whole program must stay
// within the linker script's stack as well.
#define TALUS_TARGET_STACK_BUDGET 8192
#endif

namespace talus_target {

class Line {
 public:
  Line& operator<<(const char* s) {
    while (*s && n_ < sizeof(buf_) - 1) buf_[n_++] = *s++;
    return *this;
  }
  Line& operator<<(std::uint64_t v) {
    char tmp[21];
    int k = 0;
    do {
      tmp[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v && k < 20);
    while (k > 0 && n_ < sizeof(buf_) - 1) buf_[n_++] = tmp[--k];
    return *this;
  }
  Line& hex(std::uint64_t v) {
    char tmp[19] = {'0', 'x'};
    for (int i = 0; i < 16; ++i) {
      const unsigned d = static_cast<unsigned>(v >> (60 - 4 * i)) & 0xFu;
      tmp[2 + i] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
    }
    tmp[18] = 0;
    return *this << tmp;
  }
  Line& operator<<(int v) {
    if (v < 0) {
      *this << "-";
      return *this << static_cast<std::uint64_t>(-static_cast<long long>(v));
    }
    return *this << static_cast<std::uint64_t>(v);
  }
  /// Scientific notation, 3 significant digits ("1.23e-07").
  Line& sci(double x) {
    if (x != x) return *this << "nan";
    if (x < 0) {
      *this << "-";
      x = -x;
    }
    if (x > 1.7e308) return *this << "inf";
    if (x == 0) return *this << "0";
    int e = 0;
    while (x >= 10) {
      x /= 10;
      ++e;
    }
    while (x < 1) {
      x *= 10;
      --e;
    }
    std::uint64_t d = static_cast<std::uint64_t>(x * 100 + 0.5);  // 3 digits
    if (d >= 1000) {
      d /= 10;
      ++e;
    }
    char m[5] = {static_cast<char>('0' + d / 100), '.', static_cast<char>('0' + d / 10 % 10),
                 static_cast<char>('0' + d % 10), 0};
    *this << m << "e" << (e < 0 ? "-" : "+");
    if (e < 0) e = -e;
    if (e < 10) *this << "0";
    return *this << e;
  }
  void end() {
    buf_[n_++] = '\n';
    talus::port::log_write(buf_, n_);
    n_ = 0;
  }

 private:
  char buf_[200];
  std::size_t n_ = 0;
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
