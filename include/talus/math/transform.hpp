#pragma once
/// \file transform.hpp
/// Rigid transforms held as rotation + translation (never a 6x6 matrix).
///
/// A `Transform` aMb is the placement of frame b in frame a:
///   R (3x3) has b's axes as columns, expressed in a;   p (3) is b's origin expressed in a.
/// It maps coordinates of a point from b to a:  x_a = R x_b + p.
/// In Featherstone's notation aMb.act_motion is the Plücker transform  ᵃX_b  and
/// aMb.inverse_act_motion is  ᵇX_a ;  act_force is  ᵃX_b*  (forces, b → a).
#include <talus/math/sincos.hpp>
#include <talus/math/spatial.hpp>

namespace talus {

template <class S>
struct Transform {
  Matrix3<S> R = Matrix3<S>::Identity();
  Vector3<S> p = Vector3<S>::Zero();

  Transform() = default;
  Transform(const Matrix3<S>& rotation, const Vector3<S>& translation) : R(rotation), p(translation) {}
  static Transform Identity() { return Transform(); }

  /// aMb * bMc = aMc
  TALUS_INLINE Transform operator*(const Transform& bMc) const {
    Transform r;
    r.R.col(0) = mul<S>(R, bMc.R.col(0));
    r.R.col(1) = mul<S>(R, bMc.R.col(1));
    r.R.col(2) = mul<S>(R, bMc.R.col(2));
    r.p = mul<S>(R, bMc.p) + p;
    return r;
  }
  /// aMb⁻¹ = bMa
  TALUS_INLINE Transform inverse() const { return Transform(R.transpose(), -(R.transpose() * p)); }

  /// point: b coordinates → a coordinates
  TALUS_INLINE Vector3<S> act_point(const Vector3<S>& x) const { return mul<S>(R, x) + p; }
  /// point: a coordinates → b coordinates
  TALUS_INLINE Vector3<S> inverse_act_point(const Vector3<S>& x) const { return mul_transpose<S>(R, x - p); }

  /// motion vector: b → a  (ᵃX_b m)
  TALUS_INLINE Motion<S> act_motion(const Motion<S>& m) const {
    const Vector3<S> w = mul<S>(R, head3(m));
    return from_halves<S>(w, mul<S>(R, tail3(m)) + cross<S>(p, w));
  }
  /// motion vector: a → b  (ᵇX_a m)
  TALUS_INLINE Motion<S> inverse_act_motion(const Motion<S>& m) const {
    const Vector3<S> w = head3(m);
    return from_halves<S>(mul_transpose<S>(R, w), mul_transpose<S>(R, Vector3<S>(tail3(m) - cross<S>(p, w))));
  }
  /// force vector: b → a  (ᵃX_b* f)
  TALUS_INLINE Force<S> act_force(const Force<S>& f) const {
    const Vector3<S> fl = mul<S>(R, tail3(f));
    return from_halves<S>(mul<S>(R, head3(f)) + cross<S>(p, fl), fl);
  }
  /// force vector: a → b  (ᵇX_a* f)
  TALUS_INLINE Force<S> inverse_act_force(const Force<S>& f) const {
    const Vector3<S> fl = tail3(f);
    return from_halves<S>(mul_transpose<S>(R, Vector3<S>(head3(f) - cross<S>(p, fl))), mul_transpose<S>(R, fl));
  }

  /// Apply act_motion to each column of a 6xN matrix (Jacobian columns), b → a.
  template <class Mat>
  Eigen::Matrix<S, 6, Mat::ColsAtCompileTime> act_motion_cols(const Mat& m) const {
    Eigen::Matrix<S, 6, Mat::ColsAtCompileTime> r(6, m.cols());
    r.template topRows<3>().noalias() = R * m.template topRows<3>();
    r.template bottomRows<3>().noalias() = R * m.template bottomRows<3>();
    r.template bottomRows<3>() += skew<S>(p) * r.template topRows<3>();
    return r;
  }
  /// Apply act_force to each column of a 6xN matrix, b → a.
  template <class Mat>
  Eigen::Matrix<S, 6, Mat::ColsAtCompileTime> act_force_cols(const Mat& f) const {
    Eigen::Matrix<S, 6, Mat::ColsAtCompileTime> r(6, f.cols());
    r.template bottomRows<3>().noalias() = R * f.template bottomRows<3>();
    r.template topRows<3>().noalias() = R * f.template topRows<3>();
    r.template topRows<3>() += skew<S>(p) * r.template bottomRows<3>();
    return r;
  }

  /// 6x6 Plücker matrix of act_motion (for tests and dense code paths).
  Matrix6<S> motion_matrix() const {
    Matrix6<S> X = Matrix6<S>::Zero();
    X.template topLeftCorner<3, 3>() = R;
    X.template bottomRightCorner<3, 3>() = R;
    X.template bottomLeftCorner<3, 3>() = skew<S>(p) * R;
    return X;
  }

  template <class T>
  Transform<T> cast() const {
    return Transform<T>(R.template cast<T>(), p.template cast<T>());
  }
};

/// Rotation about a unit axis by angle (rad), right-handed.
template <class S>
inline Matrix3<S> axis_angle_rotation(const Vector3<S>& axis, S angle) {
  S s, c;
  sincos(angle, s, c);
  const S t = S(1) - c;
  const S x = axis.x(), y = axis.y(), z = axis.z();
  Matrix3<S> R;
  // clang-format off
  R << t * x * x + c, t * x * y - s * z, t * x * z + s * y,
       t * x * y + s * z, t * y * y + c, t * y * z - s * x,
       t * x * z - s * y, t * y * z + s * x, t * z * z + c;
  // clang-format on
  return R;
}

/// Rotation from URDF roll-pitch-yaw (rad): R = Rz(yaw) Ry(pitch) Rx(roll).
template <class S>
inline Matrix3<S> rpy_rotation(S roll, S pitch, S yaw) {
  using std::cos;
  using std::sin;
  const S cr = cos(roll), sr = sin(roll), cp = cos(pitch), sp = sin(pitch), cy = cos(yaw), sy = sin(yaw);
  Matrix3<S> R;
  // clang-format off
  R << cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr,
       sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr,
       -sp, cp * sr, cp * cr;
  // clang-format on
  return R;
}

}  // namespace talus
