#pragma once
/// \file spatial.hpp
/// Spatial (6D) motion and force vectors, Featherstone's notation.
///
/// Ordering: every spatial vector is [angular; linear] (Featherstone, RBDL):
///   motion m = [ω; v]  ω angular velocity (rad/s), v linear velocity (m/s) of the point of the
///                       body that coincides with the origin of the frame the vector is
///                       expressed in;
///   force  f = [n; f]  n moment about that origin (N·m), f force (N).
/// A spatial vector is always expressed in one named frame; the function that produces it
/// says which. Motion and Force are the same Eigen type; the name tells the reader which
/// transformation rule (motion or force) applies.
// GCC 12 reports -Wmaybe-uninitialized inside its own AVX-512 intrinsics (the self-initialised
// `__m256d __Y = __Y;` of avxintrin.h, GCC bug 105593, fixed in GCC 13) wherever Eigen's
// vectorised reductions are inlined, so -march=native -Werror would fail on any Eigen user.
// On AVX2-only machines it also reports -Warray-bounds inside avxintrin.h's unaligned 256-bit
// load when Eigen packs a 3-vector into a 6-vector block (the load is guarded at run time;
// a known false positive of GCC 12's array-bounds pass). The intrinsics headers are first
// included here, through Eigen/Core: both warnings are silenced for their lines only.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
#include <Eigen/Core>
#include <Eigen/Geometry>  // cross products
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic pop
#endif

/// Forces inlining of the small spatial-algebra operations: the algorithms unroll over the
/// bodies at compile time into one large function, where GCC's inliner would otherwise give up
/// and leave a call (with 6-vectors passed through memory) for every cross product.
/// The compact profile (TALUS_COMPACT, cmake/TalusCompact.cmake) leaves the choice to the
/// compiler: much smaller code on Cortex-M (what it costs per call: bench/RESULTS.md, footprint).
#if defined(TALUS_COMPACT)
#define TALUS_INLINE inline
#elif defined(__GNUC__) || defined(__clang__)
#define TALUS_INLINE __attribute__((always_inline)) inline
#else
#define TALUS_INLINE inline
#endif

namespace talus {

template <class S>
using Vector3 = Eigen::Matrix<S, 3, 1>;
template <class S>
using Matrix3 = Eigen::Matrix<S, 3, 3>;
template <class S>
using Vector6 = Eigen::Matrix<S, 6, 1>;
template <class S>
using Matrix6 = Eigen::Matrix<S, 6, 6>;
template <class S>
using Motion = Vector6<S>;  ///< [ω; v]
template <class S>
using Force = Vector6<S>;  ///< [n; f]

/// [a]×: the 3x3 matrix with [a]× b = a × b.
template <class S>
TALUS_INLINE Matrix3<S> skew(const Vector3<S>& a) {
  Matrix3<S> m;
  m << S(0), -a.z(), a.y(), a.z(), S(0), -a.x(), -a.y(), a.x(), S(0);
  return m;
}

/// R x, written out: Eigen's 3x3 products do not always inline inside the unrolled algorithms.
template <class S>
TALUS_INLINE Vector3<S> mul(const Matrix3<S>& R, const Vector3<S>& x) {
  // clang-format off
  return Vector3<S>(R(0, 0) * x[0] + R(0, 1) * x[1] + R(0, 2) * x[2],
                    R(1, 0) * x[0] + R(1, 1) * x[1] + R(1, 2) * x[2],
                    R(2, 0) * x[0] + R(2, 1) * x[1] + R(2, 2) * x[2]);
  // clang-format on
}
/// Rᵀ x, written out.
template <class S>
TALUS_INLINE Vector3<S> mul_transpose(const Matrix3<S>& R, const Vector3<S>& x) {
  // clang-format off
  return Vector3<S>(R(0, 0) * x[0] + R(1, 0) * x[1] + R(2, 0) * x[2],
                    R(0, 1) * x[0] + R(1, 1) * x[1] + R(2, 1) * x[2],
                    R(0, 2) * x[0] + R(1, 2) * x[1] + R(2, 2) * x[2]);
  // clang-format on
}
/// The halves of a spatial vector ([ω; v] or [n; f]) and the vector from its halves, entry by
/// entry: at -O2 on the Cortex-M GCC leaves Eigen's block copies (`Vector3(m.head<3>())`,
/// `r.tail<3>() = x`) as out-of-line calls with their operands through memory.
template <class S>
TALUS_INLINE Vector3<S> head3(const Vector6<S>& m) {
  return Vector3<S>(m[0], m[1], m[2]);
}
template <class S>
TALUS_INLINE Vector3<S> tail3(const Vector6<S>& m) {
  return Vector3<S>(m[3], m[4], m[5]);
}
template <class S>
TALUS_INLINE Vector6<S> from_halves(const Vector3<S>& top, const Vector3<S>& bottom) {
  Vector6<S> r;
  r[0] = top[0];
  r[1] = top[1];
  r[2] = top[2];
  r[3] = bottom[0];
  r[4] = bottom[1];
  r[5] = bottom[2];
  return r;
}

/// a × b, written out.
template <class S>
TALUS_INLINE Vector3<S> cross(const Vector3<S>& a, const Vector3<S>& b) {
  return Vector3<S>(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
}

/// v ×  m  (motion cross product, Featherstone crm(v) m).
template <class S>
TALUS_INLINE Motion<S> cross_motion(const Motion<S>& v, const Motion<S>& m) {
  const Vector3<S> w = head3(v), vl = tail3(v);
  const Vector3<S> mw = head3(m), mv = tail3(m);
  return from_halves<S>(cross<S>(w, mw), cross<S>(w, mv) + cross<S>(vl, mw));
}

/// v ×* f  (force cross product, Featherstone crf(v) f).
template <class S>
TALUS_INLINE Force<S> cross_force(const Motion<S>& v, const Force<S>& f) {
  const Vector3<S> w = head3(v), vl = tail3(v);
  const Vector3<S> n = head3(f), fl = tail3(f);
  return from_halves<S>(cross<S>(w, n) + cross<S>(vl, fl), cross<S>(w, fl));
}

/// Featherstone's crm(v) as a 6x6 matrix.
template <class S>
inline Matrix6<S> cross_motion_matrix(const Motion<S>& v) {
  Matrix6<S> m = Matrix6<S>::Zero();
  const Matrix3<S> w = skew<S>(v.template head<3>());
  m.template topLeftCorner<3, 3>() = w;
  m.template bottomRightCorner<3, 3>() = w;
  m.template bottomLeftCorner<3, 3>() = skew<S>(v.template tail<3>());
  return m;
}

/// Featherstone's crf(v) = -crm(v)ᵀ as a 6x6 matrix.
template <class S>
inline Matrix6<S> cross_force_matrix(const Motion<S>& v) {
  return -cross_motion_matrix<S>(v).transpose();
}

}  // namespace talus
