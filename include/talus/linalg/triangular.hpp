#pragma once
/// \file triangular.hpp
/// Triangular solves in place by plain substitution, for the unblocked factorizations of this
/// folder (Eigen's triangular solve keeps a malloc fallback for a non-contiguous or sub-vector
/// right-hand side). Internal (namespace detail).
#include <Eigen/Core>

namespace talus {
namespace detail {
/// x ← U⁻¹ x, U the upper triangle of the n × n matrix `A` (n = x.size()), by plain back
/// substitution (Eigen's triangular solve keeps a malloc fallback for a non-contiguous or
/// sub-vector right-hand side).
template <class M, class X>
void solve_upper_in_place(const M& A, X&& x) {
  using S = typename M::Scalar;
  const Eigen::Index n = x.size();
  for (Eigen::Index i = n - 1; i >= 0; --i) {
    S v = x.coeff(i);
    for (Eigen::Index j = i + 1; j < n; ++j) v -= A.coeff(i, j) * x.coeff(j);
    x.coeffRef(i) = v / A.coeff(i, i);
  }
}

/// x ← L⁻¹ x, L the unit lower triangle of `A` (ones on the diagonal), forward substitution.
template <class M, class X>
void solve_unit_lower_in_place(const M& A, X&& x) {
  using S = typename M::Scalar;
  const Eigen::Index n = x.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    S v = x.coeff(i);
    for (Eigen::Index j = 0; j < i; ++j) v -= A.coeff(i, j) * x.coeff(j);
    x.coeffRef(i) = v;
  }
}
}  // namespace detail
}  // namespace talus
