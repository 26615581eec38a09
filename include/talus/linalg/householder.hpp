#pragma once
/// \file householder.hpp
/// Householder reflectors for the unblocked QR factorizations (qr.hpp): a reflector applied
/// from the left, its construction safe from underflow and overflow, and a norm that scales
/// where the squares would underflow or overflow. Internal (namespace detail).
#include <cmath>
#include <limits>

#include <Eigen/Core>

namespace talus {
namespace detail {
// Eigen's dense kernels (GEMM, GEMV through a temporary, the blocked QR/LU/LLT updates) take
// scratch memory from alloca or, where Eigen knows no alloca (bare metal: arm-none-eabi with
// newlib), from malloc; the reference is compiled in even where the scratch is never needed.
// The decompositions here are therefore written unblocked and coefficient by coefficient
// (Eigen's own algorithms, not Eigen's kernels): no object that uses them references malloc,
// on any target (checked on Cortex-M by the target tests, which link every solver and require
// an image without malloc).

/// A ← (I − τ v vᵀ) A with v = [1; essential]: a Householder reflector from the left, one
/// column at a time (as Eigen's applyHouseholderOnTheLeft, without its GEMV kernel).
template <class Dst, class Ess, class S>
void apply_householder_left(Dst&& A, const Ess& essential, S tau) {
  if (tau == S(0)) return;
  const Eigen::Index n = A.rows();
  for (Eigen::Index j = 0; j < A.cols(); ++j) {
    S w = A.coeff(0, j);
    for (Eigen::Index i = 1; i < n; ++i) w += essential.coeff(i - 1) * A.coeff(i, j);
    w *= tau;
    A.coeffRef(0, j) -= w;
    for (Eigen::Index i = 1; i < n; ++i) A.coeffRef(i, j) -= w * essential.coeff(i - 1);
  }
}

/// True when a vector whose largest magnitude is vmax can be squared and summed unscaled:
/// the squares of entries that could underflow are below ε² vmax² (negligible), and the sum
/// of up to 2¹⁶ squares stays finite. Zero and non-finite vmax are left to the caller's path.
template <class S>
bool unscaled_safe(S vmax) {
  using std::ldexp;
  constexpr int lo = std::numeric_limits<S>::min_exponent / 2 + std::numeric_limits<S>::digits;
  constexpr int hi = std::numeric_limits<S>::max_exponent / 2 - 16;
  return vmax == S(0) || !(vmax - vmax == S(0)) || (vmax >= ldexp(S(1), lo) && vmax <= ldexp(S(1), hi));
}

/// Eigen's makeHouseholderInPlace (v ← [β; essential], v = [c₀; tail], (I − τ [1; e][1; e]ᵀ) v
/// = β e₀), safe from underflow and overflow. Eigen squares the entries unscaled and skips the
/// reflection when ‖tail‖² ≤ the smallest normal number, so a column whose entries are all
/// below ~1e-154 (or whose tail is, under a smaller c₀) keeps its tail and the factor is not
/// of the matrix; entries above ~1e154 overflow (float: 1e-19, 1e19). Outside the range of
/// unscaled_safe (double: 2⁻⁴⁵⁷ to 2⁴⁹⁶) the column is first scaled by a power of two (exact:
/// τ and the essential part are ratios, β scales back). Inside it Eigen's routine runs
/// unchanged (same bits), and a tail it skips is below ε · max|v|, a perturbation the
/// factorization's backward error covers anyway.
template <class V, class S>
void make_householder_in_place(V&& v, S& tau, S& beta) {
  using std::ilogb;
  using std::ldexp;
  const S vmax = v.size() > 0 ? v.cwiseAbs().maxCoeff() : S(0);
  if (unscaled_safe(vmax)) {
    v.makeHouseholderInPlace(tau, beta);
    return;
  }
  const int e = ilogb(vmax);
  for (Eigen::Index i = 0; i < v.size(); ++i) v.coeffRef(i) = ldexp(v.coeff(i), -e);
  v.makeHouseholderInPlace(tau, beta);
  beta = ldexp(beta, e);
}

/// ‖v‖₂ safe from underflow and overflow: Eigen's norm() (same bits) where the largest entry
/// is unscaled_safe, else the norm of v scaled by a power of two (exact), scaled back.
template <class V>
typename V::Scalar safe_norm(const V& v) {
  using S = typename V::Scalar;
  using std::ilogb;
  using std::ldexp;
  using std::sqrt;
  const S vmax = v.size() > 0 ? v.cwiseAbs().maxCoeff() : S(0);
  if (unscaled_safe(vmax)) return v.norm();
  const int e = ilogb(vmax);
  S sum = S(0);
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    const S c = ldexp(v.coeff(i), -e);
    sum += c * c;
  }
  return ldexp(sqrt(sum), e);
}
}  // namespace detail
}  // namespace talus
