// The libm of talus's bare-metal x86 port: the functions talus and its programs call
// (std::sqrt, std::sin, std::cos, std::atan2, std::hypot; GCC may merge sin and cos of one
// angle into sincos). No C library is linked: glibc's 32-bit libm.a is LGPL and uses %gs
// (TLS errno, stack canary), so these are written here, in fdlibm's method (public domain
// algorithm and coefficients, Sun Microsystems 1993).
//
// Accuracy (double) and where the bits can differ from x86-64 glibc (the host reference):
//   sqrt      sqrtsd: correctly rounded, the same bits everywhere. With -fbuiltin
//             -fno-math-errno (toolchains/i686-baremetal.cmake) std::sqrt is inlined; this
//             definition only serves calls through a pointer.
//   sin, cos  talus::sincos (include/talus/math/sincos.hpp: fdlibm's kernels, Cody-Waite
//             reduction): within 1 ulp for |x| <= 1e5 rad, NaN beyond sincos_max_angle
//             (~1.6e6 rad; glibc returns a value there). glibc's sin/cos are correctly rounded
//             in practice; these gave glibc's bits on all of 2e6 random angles (|x| < 10 and < 1e4)
//             (sincos.hpp names a few percent of inputs 1 ulp apart for other libms).
//             talus's own joint code calls talus::sincos on every target anyway; std::sin and
//             std::cos are called directly only in rpy_rotation (model construction from URDF
//             angles), the contact cone's tangent directions and the balance controller's yaw.
//             The bit test (targets/target_test.cpp) checks kinematics, dynamics and
//             constrained solves of generated models, whose placements are constants the
//             generator computed on the host.
//   atan2     fdlibm's e_atan2 / s_atan: below 1 ulp (fdlibm's bound). glibc's is correctly
//             rounded; newlib's (the Cortex-M images) is fdlibm's, the same method and order of
//             operations as here. It differs from x86-64 glibc's by 1 ulp on 17 % of inputs (2e6
//             random pairs, |y|, |x| < 10 and scaled by 2^±30; never by more; the IEEE special
//             cases agree). talus calls it in rotation_log (6D and loop constraints' position
//             error), quaternion_log (difference() of free-flyer and spherical joints) and the
//             balance controller's yaw. The bit test (18480 values, 0 differ) links
//             rotation_log but never runs it: its constraint sets hold point contacts only,
//             and rotation_log is in the loop and 6D branches of constraint_quantities.hpp. A
//             bit test with a 6D or loop constraint, or with quaternion differences, could
//             see the 1-ulp difference, here as on the Cortex-M7 (newlib's atan2 is fdlibm's).
//   hypot     scaled a * sqrt(1 + (b/a)^2): within 2 ulp of glibc's (1 or 2 ulp apart on a
//             third of the same inputs), no spurious overflow or underflow. talus calls it
//             only in norm2 (cone solvers) for squares that under- or overflow, where 2 ulp is
//             far below the solvers' tolerance.
//   ilogb, ldexp   exact (Householder scaling in linalg/householder.hpp): the same bits as
//             glibc (0 differ of 3e6 random doubles and exponents, subnormals included); a
//             subnormal result is rounded once (the 2^53 step below, musl's scalbn method).
//             ilogb(0) and ilogb(NaN) are INT_MIN, ilogb(±∞) INT_MAX, as glibc on x86.
//   float     the double function rounded to float (within 1 ulp).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <talus/math/sincos.hpp>

namespace {

std::uint32_t high_word(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return static_cast<std::uint32_t>(u >> 32);
}
std::uint32_t low_word(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return static_cast<std::uint32_t>(u);
}

// atan(x) (fdlibm s_atan.c's method): argument reduction to |x| < 7/16 through
// atan(x) = atan(c) + atan((x - c) / (1 + x c)) for c = 1/2, 1, 3/2, ∞, then an odd
// polynomial of degree 23 (11 coefficients, split in even and odd parts for speed).
double atan_fdlibm(double x) {
  static const double atanhi[] = {4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01,
                                  1.57079632679489655800e+00};
  static const double atanlo[] = {2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17,
                                  6.12323399573676603587e-17};
  static const double aT[] = {3.33333333333329318027e-01,  -1.99999999998764832476e-01, 1.42857142725034663711e-01,
                              -1.11111104054623557880e-01, 9.09088713343650656196e-02,  -7.69187620504482999495e-02,
                              6.66107313738753120669e-02,  -5.83357013379057348645e-02, 4.97687799461593236017e-02,
                              -3.65315727442169155270e-02, 1.62858201153657823623e-02};
  const std::uint32_t hx = high_word(x), ix = hx & 0x7fffffffu;
  const bool negative = (hx >> 31) != 0;
  int id;
  if (ix >= 0x44100000u) {  // |x| >= 2^66, or NaN
    if (x != x) return x + x;
    return negative ? -atanhi[3] - atanlo[3] : atanhi[3] + atanlo[3];
  }
  if (ix < 0x3fdc0000u) {            // |x| < 7/16
    if (ix < 0x3e400000u) return x;  // |x| < 2^-27: atan(x) = x to rounding
    id = -1;
  } else {
    x = std::fabs(x);
    if (ix < 0x3ff30000u) {    // |x| < 19/16
      if (ix < 0x3fe60000u) {  // 7/16 <= |x| < 11/16
        id = 0;
        x = (2.0 * x - 1.0) / (2.0 + x);
      } else {  // 11/16 <= |x| < 19/16
        id = 1;
        x = (x - 1.0) / (x + 1.0);
      }
    } else if (ix < 0x40038000u) {  // |x| < 39/16
      id = 2;
      x = (x - 1.5) / (1.0 + 1.5 * x);
    } else {  // 39/16 <= |x| < 2^66
      id = 3;
      x = -1.0 / x;
    }
  }
  const double z = x * x, w = z * z;
  const double s1 = z * (aT[0] + w * (aT[2] + w * (aT[4] + w * (aT[6] + w * (aT[8] + w * aT[10])))));
  const double s2 = w * (aT[1] + w * (aT[3] + w * (aT[5] + w * (aT[7] + w * aT[9]))));
  if (id < 0) return x - x * (s1 + s2);
  const double r = atanhi[id] - ((x * (s1 + s2) - atanlo[id]) - x);
  return negative ? -r : r;
}

// atan2(y, x) (fdlibm e_atan2.c's method): special cases, then atan(|y/x|) moved to the
// quadrant, with π's tail (pi_lo) added back.
double atan2_fdlibm(double y, double x) {
  constexpr double tiny = 1.0e-300;
  constexpr double pi_o_4 = 7.8539816339744827900e-01, pi_o_2 = 1.5707963267948965580e+00;
  constexpr double pi = 3.1415926535897931160e+00, pi_lo = 1.2246467991473531772e-16;
  if (x != x || y != y) return x + y;  // NaN
  const std::uint32_t hx = high_word(x), lx = low_word(x), hy = high_word(y), ly = low_word(y);
  const std::uint32_t ix = hx & 0x7fffffffu, iy = hy & 0x7fffffffu;
  if (hx == 0x3ff00000u && lx == 0) return atan_fdlibm(y);                // x = 1
  const int m = static_cast<int>(((hy >> 31) & 1u) | ((hx >> 30) & 2u));  // 2·sign(x) + sign(y)
  if ((iy | ly) == 0) {                                                   // y = ±0
    switch (m) {
      case 0:
      case 1: return y;  // atan(±0, +anything) = ±0
      case 2: return pi + tiny;
      default: return -pi - tiny;
    }
  }
  if ((ix | lx) == 0) return (hy >> 31) ? -pi_o_2 - tiny : pi_o_2 + tiny;  // x = ±0
  if (ix == 0x7ff00000u) {                                                 // x = ±∞
    if (iy == 0x7ff00000u) {
      switch (m) {
        case 0: return pi_o_4 + tiny;
        case 1: return -pi_o_4 - tiny;
        case 2: return 3.0 * pi_o_4 + tiny;
        default: return -3.0 * pi_o_4 - tiny;
      }
    }
    switch (m) {
      case 0: return 0.0;
      case 1: return -0.0;
      case 2: return pi + tiny;
      default: return -pi - tiny;
    }
  }
  if (iy == 0x7ff00000u) return (hy >> 31) ? -pi_o_2 - tiny : pi_o_2 + tiny;  // y = ±∞
  const int k = (static_cast<int>(iy) - static_cast<int>(ix)) >> 20;          // exponent difference
  double z;
  if (k > 60) z = pi_o_2 + 0.5 * pi_lo;     // |y/x| > 2^60
  else if ((hx >> 31) && k < -60) z = 0.0;  // |y|/x < -2^-60, x < 0
  else z = atan_fdlibm(std::fabs(y / x));   // safe to do y/x
  switch (m) {
    case 0: return z;                  // atan(+, +)
    case 1: return -z;                 // atan(-, +)
    case 2: return pi - (z - pi_lo);   // atan(+, -)
    default: return (z - pi_lo) - pi;  // atan(-, -)
  }
}

double from_bits(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

int ilogb_exact(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  const int e = static_cast<int>((u >> 52) & 0x7ffu);
  const std::uint64_t m = u & ((std::uint64_t(1) << 52) - 1);
  if (e == 0x7ff) return m ? std::numeric_limits<int>::min() : std::numeric_limits<int>::max();  // NaN, ±∞
  if (e != 0) return e - 1023;
  if (m == 0) return std::numeric_limits<int>::min();  // ±0
  return (63 - __builtin_clzll(m)) - 1074;             // subnormal: m · 2^-1074
}

// x · 2^n: at most three multiplications by powers of two, so that only the last can round
// (a subnormal result is reached from 2^53 above the normal range, and rounds once).
double ldexp_exact(double x, int n) {
  double y = x;
  if (n > 1023) {
    y *= 0x1p1023;
    n -= 1023;
    if (n > 1023) {
      y *= 0x1p1023;
      n -= 1023;
      if (n > 1023) n = 1023;
    }
  } else if (n < -1022) {
    y *= 0x1p-1022 * 0x1p53;
    n += 1022 - 53;
    if (n < -1022) {
      y *= 0x1p-1022 * 0x1p53;
      n += 1022 - 53;
      if (n < -1022) n = -1022;
    }
  }
  return y * from_bits(static_cast<std::uint64_t>(0x3ff + n) << 52);
}

double hypot_scaled(double x, double y) {
  double a = std::fabs(x), b = std::fabs(y);
  if (a == std::numeric_limits<double>::infinity() || b == std::numeric_limits<double>::infinity())
    return std::numeric_limits<double>::infinity();  // even if the other is NaN (C99)
  if (a != a || b != b) return a + b;
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (b == 0.0) return a;
  const double r = b / a;
  return a * __builtin_sqrt(1.0 + r * r);
}

}  // namespace

extern "C" {

double sqrt(double x) noexcept { return __builtin_sqrt(x); }
double sin(double x) noexcept {
  double s, c;
  talus::sincos(x, s, c);
  return s;
}
double cos(double x) noexcept {
  double s, c;
  talus::sincos(x, s, c);
  return c;
}
void sincos(double x, double* s, double* c) noexcept { talus::sincos(x, *s, *c); }
double atan(double x) noexcept { return atan_fdlibm(x); }
double atan2(double y, double x) noexcept { return atan2_fdlibm(y, x); }
double hypot(double x, double y) noexcept { return hypot_scaled(x, y); }
int ilogb(double x) noexcept { return ilogb_exact(x); }
double ldexp(double x, int n) noexcept { return ldexp_exact(x, n); }
double scalbn(double x, int n) noexcept { return ldexp_exact(x, n); }

float sqrtf(float x) noexcept { return __builtin_sqrtf(x); }
float sinf(float x) noexcept { return static_cast<float>(sin(static_cast<double>(x))); }
float cosf(float x) noexcept { return static_cast<float>(cos(static_cast<double>(x))); }
void sincosf(float x, float* s, float* c) noexcept {
  double sd, cd;
  talus::sincos(static_cast<double>(x), sd, cd);
  *s = static_cast<float>(sd);
  *c = static_cast<float>(cd);
}
float atan2f(float y, float x) noexcept { return static_cast<float>(atan2_fdlibm(y, x)); }
float hypotf(float x, float y) noexcept { return static_cast<float>(hypot_scaled(x, y)); }
int ilogbf(float x) noexcept { return ilogb_exact(x); }
float ldexpf(float x, int n) noexcept {  // exact in double for float's range, then one rounding
  return static_cast<float>(ldexp_exact(x, n < -400 ? -400 : (n > 400 ? 400 : n)));
}

}  // extern "C"
