#pragma once
/// \file quaternion.hpp
/// Unit quaternions as they are stored in a configuration vector q: 4 consecutive scalars
/// in the order (w, x, y, z) — scalar first, Hamilton convention, the same as MuJoCo.
/// A quaternion in q is the orientation of a child frame in its parent:
/// x_parent = R(quat) x_child.
#include <cmath>

#include <talus/math/transform.hpp>

namespace talus {

/// |‖quat‖ − 1| above which a quaternion in q is rejected as unnormalised.
template <class S>
constexpr S quaternion_norm_tolerance() { return S(1e3) * Eigen::NumTraits<S>::epsilon(); }

/// Rotation matrix of the unit quaternion (w, x, y, z).
template <class S>
inline Matrix3<S> quaternion_to_rotation(S w, S x, S y, S z) {
  Matrix3<S> R;
  const S xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
  const S wx = w * x, wy = w * y, wz = w * z;
  R << S(1) - S(2) * (yy + zz), S(2) * (xy - wz), S(2) * (xz + wy),
       S(2) * (xy + wz), S(1) - S(2) * (xx + zz), S(2) * (yz - wx),
       S(2) * (xz - wy), S(2) * (yz + wx), S(1) - S(2) * (xx + yy);
  return R;
}

/// Hamilton product a ⊗ b, both (w, x, y, z).
template <class S>
inline Eigen::Matrix<S, 4, 1> quaternion_multiply(const Eigen::Matrix<S, 4, 1>& a,
                                                  const Eigen::Matrix<S, 4, 1>& b) {
  Eigen::Matrix<S, 4, 1> r;
  r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  return r;
}

/// exp map: quaternion (w, x, y, z) of the rotation by the rotation vector ω (rad).
/// Taylor series near zero keeps it exact to rounding for tiny angles.
template <class S>
inline Eigen::Matrix<S, 4, 1> quaternion_exp(const Vector3<S>& omega) {
  using std::cos;
  using std::sin;
  using std::sqrt;
  const S t2 = omega.squaredNorm();
  const S t = sqrt(t2);
  S c, k;  // cos(t/2), sin(t/2)/t
  if (t < S(1e-4)) {
    c = S(1) - t2 / S(8);
    k = S(0.5) - t2 / S(48);
  } else {
    S sh;
    sincos(t / S(2), sh, c);
    k = sh / t;
  }
  Eigen::Matrix<S, 4, 1> q;
  q << c, k * omega.x(), k * omega.y(), k * omega.z();
  return q;
}

/// log map: rotation vector (rad, angle in [0, π]) of the unit quaternion (w, x, y, z).
template <class S>
inline Vector3<S> quaternion_log(const Eigen::Matrix<S, 4, 1>& q) {
  using std::atan2;
  using std::sqrt;
  Eigen::Matrix<S, 4, 1> u = q;
  if (u[0] < S(0)) u = -u;  // shortest rotation
  const Vector3<S> xyz(u[1], u[2], u[3]);
  const S s = xyz.norm();
  if (s < S(1e-6)) {
    // angle = 2 atan2(s, w) ≈ 2 s / w (1 − s²/(3w²)); ω = angle / s · xyz
    const S w = u[0];
    return (S(2) / w) * (S(1) - s * s / (S(3) * w * w)) * xyz;
  }
  const S angle = S(2) * atan2(s, u[0]);
  return (angle / s) * xyz;
}

}  // namespace talus
