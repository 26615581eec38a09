#pragma once
/// \file quaternion.hpp
/// Unit quaternions as they are stored in a configuration vector q: 4 consecutive scalars
/// in the order (w, x, y, z) — scalar first, Hamilton convention, the same as MuJoCo.
/// A quaternion in q is the orientation of a child frame in its parent:
/// x_parent = R(quat) x_child.
///
/// Order. URDF (`<origin rpy>` aside), SRDF, ROS messages (geometry_msgs/Quaternion, tf2),
/// Eigen::Quaternion::coeffs() and most IMU drivers store (x, y, z, w), scalar last. Copying
/// such four numbers into q as they are does not fail: it is another unit quaternion, e.g.
/// ROS's yaw of 90° (0, 0, 0.7071, 0.7071) read as (w, x, y, z) is a 180° turn about
/// (0, 0.7071, 0.7071). Convert with quaternion_from_xyzw / quaternion_to_xyzw, or
/// quaternion_from_eigen / quaternion_to_eigen, never by hand.
///
/// Sensor inputs. Algorithms reject a quaternion in q whose norm is off by more than
/// quaternion_norm_tolerance<S>() (rounding of the scalar type; see below). A reading from a
/// sensor often is off by more: a quaternion normalised in float and stored in a double q
/// is off by ~1e-7. Renormalise it at the sensor boundary with renormalize_quaternion (one
/// quaternion) or renormalize_quaternions (configuration.hpp, every quaternion of q): they
/// accept a deviation up to a stated bound (default sensor_quaternion_tolerance<S>()), say how
/// many they changed, and refuse anything beyond.
#include <cmath>

#include <talus/math/transform.hpp>
#include <talus/status.hpp>

namespace talus {

/// |‖quat‖ − 1| above which an algorithm rejects a quaternion in q (invalid_input): 1e3·ε,
/// room for the rounding of any computation that produced a unit quaternion in that type.
///   double: 2.2e-13     float: 1.2e-4
/// A float-normalised quaternion copied into a double q is off by up to a few 1e-7 and is
/// rejected: renormalise it (renormalize_quaternion / renormalize_quaternions).
template <class S>
constexpr S quaternion_norm_tolerance() {
  return S(1e3) * Eigen::NumTraits<S>::epsilon();
}

/// Default bound of renormalize_quaternion(s): the largest |‖quat‖ − 1| a sensor reading may
/// have and still be renormalised silently (reported in the count):
///   double: 1e-5        float: 1.2e-4 (= quaternion_norm_tolerance<float>(): never below it)
/// 1e-5 is ~80 float ε: it covers a quaternion normalised in float (off by a few ε_f ≈ 1e-7)
/// or computed in float by a filter that renormalises every step, with a wide margin, and
/// still refuses the drift of a filter that stopped normalising or a corrupted reading.
/// A 16-bit fixed-point quaternion (e.g. 2^-14 per unit, BNO055) is off by up to ~6e-5:
/// pass max_deviation = 1.2e-4 (2^-13) for such a sensor.
template <class S>
constexpr S sensor_quaternion_tolerance() {
  return S(1e-5) > quaternion_norm_tolerance<S>() ? S(1e-5) : quaternion_norm_tolerance<S>();
}

/// (w, x, y, z) from the scalar-last order (x, y, z, w) of URDF/SRDF/ROS/Eigen's coeffs().
template <class S>
inline Eigen::Matrix<S, 4, 1> quaternion_from_xyzw(S x, S y, S z, S w) {
  return Eigen::Matrix<S, 4, 1>(w, x, y, z);
}
/// (w, x, y, z) from a 4-vector in the order (x, y, z, w).
template <class S>
inline Eigen::Matrix<S, 4, 1> quaternion_from_xyzw(const Eigen::Matrix<S, 4, 1>& xyzw) {
  return Eigen::Matrix<S, 4, 1>(xyzw[3], xyzw[0], xyzw[1], xyzw[2]);
}
/// (x, y, z, w), scalar last (URDF/SRDF/ROS), from talus's (w, x, y, z).
template <class S>
inline Eigen::Matrix<S, 4, 1> quaternion_to_xyzw(const Eigen::Matrix<S, 4, 1>& wxyz) {
  return Eigen::Matrix<S, 4, 1>(wxyz[1], wxyz[2], wxyz[3], wxyz[0]);
}
/// (w, x, y, z) from an Eigen::Quaternion (whose coeffs() are stored (x, y, z, w)).
template <class S>
inline Eigen::Matrix<S, 4, 1> quaternion_from_eigen(const Eigen::Quaternion<S>& e) {
  return Eigen::Matrix<S, 4, 1>(e.w(), e.x(), e.y(), e.z());
}
/// Eigen::Quaternion of talus's (w, x, y, z) (the constructor Quaternion(w, x, y, z) is
/// scalar first, its storage coeffs() scalar last).
template <class S>
inline Eigen::Quaternion<S> quaternion_to_eigen(const Eigen::Matrix<S, 4, 1>& wxyz) {
  return Eigen::Quaternion<S>(wxyz[0], wxyz[1], wxyz[2], wxyz[3]);
}

/// Sensor boundary: renormalise one quaternion (w, x, y, z) — an IMU reading, or a segment of
/// q — in place if its norm is off by at most max_deviation.
///   - |‖quat‖ − 1| ≤ quaternion_norm_tolerance<S>(): already valid, left bit for bit as it
///     is; ok, *renormalised = false.
///   - otherwise, up to max_deviation: quat /= ‖quat‖; ok, *renormalised = true (log it: a
///     sensor that needs it every cycle is worth knowing about).
///   - beyond max_deviation, NaN/Inf, or max_deviation not in [0, 1): invalid_input, quat
///     unchanged (the raw reading stays for the log; algorithms reject it as it is),
///     *renormalised = false.
/// renormalised may be null. Algorithms themselves never renormalise (README, conventions).
template <class Q>
Status renormalize_quaternion(Eigen::MatrixBase<Q>& quat,
                              typename Q::Scalar max_deviation = sensor_quaternion_tolerance<typename Q::Scalar>(),
                              bool* renormalised = nullptr) {
  using S = typename Q::Scalar;
  using std::abs;
  using std::sqrt;
  static_assert((Q::RowsAtCompileTime == 4 || Q::RowsAtCompileTime == Eigen::Dynamic) && Q::ColsAtCompileTime == 1,
                "talus: a quaternion is a 4-vector (w, x, y, z)");
  if (renormalised) *renormalised = false;
  if (quat.rows() != 4) return Status::invalid_input;
  if (!(max_deviation >= S(0) && max_deviation < S(1))) return Status::invalid_input;
  // |entries| ≤ 2 (false for NaN): no square overflows; a larger entry is far beyond any bound.
  for (int k = 0; k < 4; ++k)
    if (!(abs(quat[k]) <= S(2))) return Status::invalid_input;
  const S n = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
  const S dev = abs(n - S(1));
  if (dev <= quaternion_norm_tolerance<S>()) return Status::ok;
  if (!(dev <= max_deviation)) return Status::invalid_input;  // also catches a zero quaternion
  for (int k = 0; k < 4; ++k) quat[k] /= n;
  if (renormalised) *renormalised = true;
  return Status::ok;
}

/// Rotation matrix of the unit quaternion (w, x, y, z).
template <class S>
inline Matrix3<S> quaternion_to_rotation(S w, S x, S y, S z) {
  Matrix3<S> R;
  const S xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z;
  const S wx = w * x, wy = w * y, wz = w * z;
  // clang-format off
  R << S(1) - S(2) * (yy + zz), S(2) * (xy - wz), S(2) * (xz + wy),
       S(2) * (xy + wz), S(1) - S(2) * (xx + zz), S(2) * (yz - wx),
       S(2) * (xz - wy), S(2) * (yz + wx), S(1) - S(2) * (xx + yy);
  // clang-format on
  return R;
}

/// Hamilton product a ⊗ b, both (w, x, y, z).
template <class S>
inline Eigen::Matrix<S, 4, 1> quaternion_multiply(const Eigen::Matrix<S, 4, 1>& a, const Eigen::Matrix<S, 4, 1>& b) {
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
