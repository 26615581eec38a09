#pragma once
// Shared by the footprint and instruction-count probes (targets/footprint/*.cpp): text output
// without printf (talus::rt::LogLine), random solo12 states, and (bare metal) stack painting.
#include <talus/rt/log.hpp>
#include <talus/rt/port.hpp>
#if defined(__arm__)
#include <talus/port/cortex_m.hpp>
#elif defined(TALUS_PORT_X86)
#include <talus/port/x86.hpp>
#endif

#include <cstddef>
#include <cstdint>

// The probes' scalar and the target's name, set by targets/footprint/CMakeLists.txt per build.
#ifndef TALUS_FP_SCALAR
#define TALUS_FP_SCALAR double
#endif
#ifndef TALUS_FP_TARGET
#define TALUS_FP_TARGET "unknown"
#endif

namespace footprint {

/// One line of text through talus::port::log_write (semihosting on Cortex-M, stderr on POSIX):
/// talus's own printf-free line (rt/log.hpp); write() ends it.
using Out = talus::rt::LogLine<160>;

/// SplitMix64 (as talus::Random), uniform doubles in [lo, hi).
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(next() >> 11) * 0x1p-53); }
};

/// A random solo12 state without libm's sin/cos (the footprint image must not link them):
/// base position in [−1, 1]³, base orientation a normalized quaternion of four uniforms,
/// joint angles uniform in [−π, π], v, a, τ uniform in [−1, 1]. q = (base position, base
/// quaternion, 12 joint angles), talus's free-flyer layout.
template <class Q, class V>
void random_state(Rng& rng, Q& q, V& v, V& a, V& tau) {
  using S = typename Q::Scalar;
  const double pi = 3.14159265358979323846;
  for (int k = 0; k < 3; ++k) q[k] = S(rng.uniform(-1, 1));
  double quat[4], n2 = 0;
  do {
    n2 = 0;
    for (double& x : quat) {
      x = rng.uniform(-1, 1);
      n2 += x * x;
    }
  } while (n2 < 0.01 || n2 > 1);
  double inv = 1;  // 1/sqrt(n2) by Newton's method (libm-free), converges from 1 for n2 in (0, 3)
  for (int it = 0; it < 40; ++it) inv = inv * (1.5 - 0.5 * n2 * inv * inv);
  for (int k = 0; k < 4; ++k) q[3 + k] = S(quat[k] * inv);
  for (int k = 7; k < q.size(); ++k) q[k] = S(rng.uniform(-pi, pi));
  for (int k = 0; k < v.size(); ++k) {
    v[k] = S(rng.uniform(-1, 1));
    a[k] = S(rng.uniform(-1, 1));
    tau[k] = S(rng.uniform(-1, 1));
  }
}

#if defined(__arm__)
// --- stack painting (bare metal). The port paints the whole stack at reset when the image
// defines talus_stack_paint (aba_image.cpp does); stack_paint() repaints below the live stack
// pointer between measurements (probe.cpp). Linker script symbols of port/cortex-m/mps2.ld.
extern "C" std::uint32_t _sstack, _estack;

inline std::uintptr_t stack_pointer() {
  std::uintptr_t sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  return sp;
}

/// Paints from the stack's lowest address up to 256 bytes below the live stack pointer
/// (this function's own frame and its callers' stay untouched).
__attribute__((noinline)) inline void stack_paint() {
  volatile std::uint32_t* p = &_sstack;
  volatile std::uint32_t* const end = reinterpret_cast<volatile std::uint32_t*>(stack_pointer() - 256);
  while (p < end) *p++ = talus::port::cortex_m::stack_paint_word;
}

/// Lowest stack address written since the last painting.
inline std::uintptr_t stack_low_water() {
  const volatile std::uint32_t* p = &_sstack;
  while (p < &_estack && *p == talus::port::cortex_m::stack_paint_word) ++p;
  return reinterpret_cast<std::uintptr_t>(p);
}
#endif

}  // namespace footprint
