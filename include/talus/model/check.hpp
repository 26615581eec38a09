#pragma once
/// \file check.hpp
/// Input checks shared by the algorithms: finite numbers and normalised quaternions.
/// Cost: one pass over the inputs; negligible next to any algorithm.
#include <talus/model/data.hpp>

namespace talus {

/// True if every entry of x is finite (no NaN, no ±Inf).
template <class Derived>
inline bool all_finite(const Eigen::MatrixBase<Derived>& x) {
  // (x - x) is 0 for finite entries and NaN otherwise; avoids std::isfinite, which
  // -ffinite-math-only would fold away.
  return ((x - x).array() == (x - x).array()).all();
}

/// ok if q has model.nq finite entries and every quaternion in it is unit to within
/// quaternion_norm_tolerance(); invalid_input otherwise.
template <class ModelT, class Q>
inline Status check_configuration(const ModelT&, const Eigen::MatrixBase<Q>& q) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  if (!all_finite(q)) return Status::invalid_input;
  bool ok = true;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using J = typename Tree::template Joint<I>;
    if constexpr (J::has_quaternion)
      ok = ok && J::template valid<S>(q.template segment<J::nq>(Tree::idx_q[I]));
  });
  return ok ? Status::ok : Status::invalid_input;
}

/// ok if every entry of x is finite, invalid_input otherwise.
template <class Derived>
inline Status check_finite(const Eigen::MatrixBase<Derived>& x) {
  return all_finite(x) ? Status::ok : Status::invalid_input;
}

namespace detail {
template <class Derived>
inline bool inputs_finite(const Eigen::MatrixBase<Derived>& x) { return all_finite(x); }
template <class T, std::size_t N>
inline bool inputs_finite(const std::array<T, N>& xs) {  // e.g. ExternalForces
  bool ok = true;
  for (const auto& x : xs) ok = ok && all_finite(x);
  return ok;
}
}  // namespace detail

/// One check for an algorithm's inputs: q a valid configuration, every other argument
/// (Eigen vectors, or arrays of them such as external forces) finite.
template <class ModelT, class Q, class... Rest>
inline Status check_inputs(const ModelT& model, const Eigen::MatrixBase<Q>& q, const Rest&... rest) {
  if (Status s = check_configuration(model, q); s != Status::ok) return s;
  return (detail::inputs_finite(rest) && ...) ? Status::ok : Status::invalid_input;
}

/// out = result if s is ok, zero otherwise (outputs stay defined on failure); returns s.
template <class Result, class Out>
inline Status output_or_zero(Status s, const Result& result, Out& out) {
  if (s == Status::ok) out = result;
  else out.setZero();
  return s;
}

}  // namespace talus
