#pragma once
/// \file rotation.hpp
/// Rotation matrices on SO(3): the exponential map and its left Jacobian, the pieces an
/// invariant filter on SE_K(3) is made of (estimation/invariant_ekf.hpp).
///
///   rotation_exp(φ)           = I + sin θ/θ φ^ + (1 − cos θ)/θ² φ^²          θ = ‖φ‖ (rad)
///   rotation_left_jacobian(φ) = I + (1 − cos θ)/θ² φ^ + (θ − sin θ)/θ³ φ^²
///
/// φ is a rotation vector (axis times angle, rad); φ^ is its cross-product matrix (skew,
/// spatial.hpp). exp(φ^) rotates a vector by θ about φ/θ, right-handed. The left Jacobian
/// J_l(φ) is what maps a translation-like part ρ of a Lie algebra element of SE_K(3) to the
/// group: exp([φ, ρ]) = [exp(φ^), J_l(φ) ρ] (Barfoot, State Estimation for Robotics, 7.1.4).
/// Below θ = 1e-4 both use their Taylor series, which is exact to rounding there.
/// rotation_log (internal) is the inverse of rotation_exp: the loop constraints' orientation errors.
#include <cmath>

#include <talus/math/sincos.hpp>
#include <talus/math/spatial.hpp>

namespace talus {

namespace detail {
/// The coefficients a = sin θ/θ, b = (1 − cos θ)/θ², c = (θ − sin θ)/θ³ of the SO(3) series.
template <class S>
inline void rotation_series(S theta2, S& a, S& b, S& c) {
  using std::sqrt;
  if (theta2 < S(1e-8)) {
    a = S(1) - theta2 / S(6);
    b = S(0.5) - theta2 / S(24);
    c = S(1) / S(6) - theta2 / S(120);
    return;
  }
  const S theta = sqrt(theta2);
  S s, co;
  sincos(theta, s, co);
  a = s / theta;
  b = (S(1) - co) / theta2;
  c = (theta - s) / (theta2 * theta);
}
}  // namespace detail

/// exp(φ^): the rotation by the rotation vector φ (rad).
template <class S>
inline Matrix3<S> rotation_exp(const Vector3<S>& phi) {
  S a, b, c;
  detail::rotation_series(phi.squaredNorm(), a, b, c);
  const Matrix3<S> K = skew<S>(phi);
  return Matrix3<S>::Identity() + a * K + b * (K * K);
}

/// J_l(φ), the left Jacobian of SO(3) (see the file comment).
template <class S>
inline Matrix3<S> rotation_left_jacobian(const Vector3<S>& phi) {
  S a, b, c;
  detail::rotation_series(phi.squaredNorm(), a, b, c);
  const Matrix3<S> K = skew<S>(phi);
  return Matrix3<S>::Identity() + b * K + c * (K * K);
}

/// The nearest rotation to a matrix that drifted from SO(3) by rounding (a few ε per
/// product): one step of the polar iteration R ← (R + R⁻ᵀ)/2, with R⁻ᵀ = cof(R)/det R, which
/// removes the first-order drift; callers apply it after each product so drift never grows.
template <class S>
inline Matrix3<S> rotation_renormalize(const Matrix3<S>& R) {
  Matrix3<S> cof;
  cof.col(0) = R.col(1).cross(R.col(2));
  cof.col(1) = R.col(2).cross(R.col(0));
  cof.col(2) = R.col(0).cross(R.col(1));
  const S det = R.col(0).dot(cof.col(0));
  return S(0.5) * (R + cof / det);
}

namespace detail {
/// Rotation vector (axis · angle, rad) of a rotation matrix.
template <class S>
Vector3<S> rotation_log(const Matrix3<S>& R) {
  using std::atan2;
  const Vector3<S> d(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));
  const S s2 = d.norm();          // 2 sin θ
  const S c2 = R.trace() - S(1);  // 2 cos θ
  const S theta = atan2(s2, c2);
  if (s2 < S(1e-6)) {
    if (c2 > S(0)) return S(0.5) * d;  // θ ≈ 0: log ≈ vee(R − Rᵀ)/2
    // θ ≈ π: axis from the diagonal of (R + I)/2 = n nᵀ
    const Matrix3<S> B = S(0.5) * (R + Matrix3<S>::Identity());
    int k = 0;
    B.diagonal().maxCoeff(&k);
    Vector3<S> n = B.col(k) / std::sqrt(B(k, k));
    return theta * n.normalized();
  }
  return (theta / s2) * d;
}

}  // namespace detail

}  // namespace talus
