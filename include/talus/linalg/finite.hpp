#pragma once
/// \file finite.hpp
/// The input bounds of model/check.hpp's table (input_limits) and the two checks every
/// numeric routine runs on a vector or matrix: all entries finite (all_finite) and all within
/// a bound (all_within). The linear-algebra floor: Eigen and nothing of talus above it, so a
/// solver that needs only these includes this header, not the model.
#include <Eigen/Core>

namespace talus {

/// Bounds on input magnitudes (the table in model/check.hpp).
struct input_limits {
  static constexpr double position = 1e6;   ///< m or rad
  static constexpr double magnitude = 1e9;  ///< velocities, accelerations, torques, forces, ...
  static constexpr double mass = 1e6;       ///< kg per body (check_model)
  static constexpr double inertia = 1e6;    ///< kg·m², rotational inertia entries (check_model)
};

/// True if every entry of x is finite (no NaN, no ±Inf).
template <class Derived>
inline bool all_finite(const Eigen::MatrixBase<Derived>& x) {
  // (x - x) is 0 for finite entries and NaN otherwise, so its sum is 0 exactly when every
  // entry is finite (a sum of zeros cannot overflow); avoids std::isfinite, which
  // -ffinite-math-only would fold away. A sum is a vectorised reduction in Eigen, where a
  // coefficient-wise comparison followed by all() is not.
  using S = typename Derived::Scalar;
  return (x - x).sum() == S(0);
}

/// True if every entry of x is finite and |x_i| ≤ bound (false for NaN).
template <class Derived>
inline bool all_within(const Eigen::MatrixBase<Derived>& x, double bound) {
  using S = typename Derived::Scalar;
  return (x.array().abs() <= S(bound)).all();
}

}  // namespace talus
