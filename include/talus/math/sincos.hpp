#pragma once
/// \file sincos.hpp
/// sin and cos of one angle in one call, the same code on every target.
///
/// Why not `std::sin`/`std::cos`: glibc's and newlib's differ by an ulp on a few percent of
/// inputs (so targets would not give the same bits), and the libm call costs about as much
/// as a whole revolute joint in RNEA. This is fdlibm's method: Cody–Waite reduction by π/2
/// with a three-part constant, then the fdlibm minimax kernels on [−π/4, π/4].
/// Accuracy (double): within 1 ulp of the correctly rounded result for |x| ≤ 1e5 rad
/// (checked in tests/math_test.cpp against glibc). Domain: |x| ≤ sincos_max_angle ≈ 1.647e6
/// rad, where the reduction is exact (k·π/2 with k < 2^20); beyond it, and for NaN/Inf,
/// both results are NaN — never a wrong finite value (algorithms reject such angles first:
/// input_limits::position = 1e6, model/check.hpp). float uses `std::sin`/`std::cos` for now.
#include <cmath>
#include <cstdint>
#include <limits>

#include <talus/math/spatial.hpp>

namespace talus {

namespace detail {
// x + y: the reduced argument as head + tail (fdlibm __kernel_sin / __kernel_cos).
TALUS_INLINE double sin_kernel(double x, double y, double z) {  // |x| ≤ π/4, z = x²
  constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03, S3 = -1.98412698298579493134e-04,
                   S4 = 2.75573137070700676789e-06, S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
  const double r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  const double v = z * x;
  return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}
TALUS_INLINE double cos_kernel(double x, double y, double z) {  // z = x², |x| ≤ π/4
  constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03, C3 = 2.48015872894767294178e-05,
                   C4 = -2.75573143513906633035e-07, C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
  const double r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  const double hz = 0.5 * z;
  const double w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * r - x * y));  // fdlibm: keeps the last bit of 1 − z/2
}
}  // namespace detail

/// Largest |x| sincos reduces exactly: 2^20 · π/2 (rad).
constexpr double sincos_max_angle = 1048576.0 * 1.57079632679489661923;

/// s = sin(x), c = cos(x), x in radians; both NaN for |x| > sincos_max_angle or NaN/Inf.
TALUS_INLINE void sincos(double x, double& s, double& c) {
  if (!(x <= sincos_max_angle && x >= -sincos_max_angle)) {  // also NaN; keeps the int cast defined
    s = c = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  constexpr double two_over_pi = 6.36619772367581382433e-01;
  constexpr double pio2_1 = 1.57079632673412561417e+00;   // first 33 bits of π/2
  constexpr double pio2_2 = 6.07710050630396597660e-11;   // next 33 bits
  constexpr double pio2_3 = 2.02226624871116645580e-21;   // next 33 bits
  constexpr double pio2_3t = 8.47842766036889956997e-32;  // π/2 − pio2_1 − pio2_2 − pio2_3
  constexpr double round_magic = 6755399441055744.0;      // 1.5 · 2^52: adding it rounds to an integer
  const double k = (x * two_over_pi + round_magic) - round_magic;
  // x − k π/2 as head r + tail y; each k·pio2_i is exact for |k| ≤ 2^20.
  const double r1 = x - k * pio2_1;
  const double w1 = k * pio2_2;
  const double r2 = r1 - w1;
  const double t2 = (r1 - r2) - w1;
  const double w2 = k * pio2_3;
  const double r3 = r2 - w2;
  const double t3 = ((r2 - r3) - w2) + t2 - k * pio2_3t;  // rounding errors, and π/2 beyond 99 bits
  const double r = r3 + t3;
  const double y = (r3 - r) + t3;
  const double z = r * r;
  const double sr = detail::sin_kernel(r, y, z), cr = detail::cos_kernel(r, y, z);
  const auto n = static_cast<std::int64_t>(k) & 3;
  // quadrant n: (sin, cos) = (sr, cr), (cr, −sr), (−sr, −cr), (−cr, sr)
  const double a = (n & 1) ? cr : sr;
  const double b = (n & 1) ? sr : cr;
  s = (n & 2) ? -a : a;
  c = ((n + 1) & 2) ? -b : b;
}

TALUS_INLINE void sincos(float x, float& s, float& c) {
  s = std::sin(x);
  c = std::cos(x);
}

}  // namespace talus
