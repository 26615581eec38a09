#pragma once
/// \file cholesky.hpp
/// Cholesky factorization A = L Lᵀ of a symmetric positive definite matrix, in place, without
/// heap and with a pivot check: the Cholesky of the articulated method, the cone solvers and
/// the contact solves' sticking guess, the state estimator, and firmware's own small systems
/// (e.g. a balance controller's force distribution). The range-space, null-space, Kokkevis and
/// proximal methods use the internal UnblockedLLT below (why: its comment).
///
///   cholesky_factor(A, n, rel_pivot_tol)   the leading n × n block of A ← L (lower triangle)
///   cholesky_solve(L, n, x)                x ← (L Lᵀ)⁻¹ x, for the leading n rows of x
///
/// The factor, column by column (left-looking, as Golub & Van Loan's gaxpy Cholesky): for
/// j = 0 … n−1, column j of the lower triangle ← column j − L(j, k) · column k for k = 0 … j−1
/// in turn, then L(j, j) = √(that diagonal entry) and the entries below it are scaled by
/// 1/L(j, j). The updates run down contiguous columns (vectorisable without reassociating a
/// sum), and the arithmetic is the same on every target.
///
/// Failure: cholesky_factor returns Status::singular when a pivot (the diagonal entry before
/// its square root) is not > 0 (also NaN: A is not positive definite to working precision), or
/// when min L(j, j) ≤ √rel_pivot_tol · max L(j, j) (rel_pivot_tol > 0: nearly singular, e.g.
/// redundant constraint rows); the n × n block's lower triangle is then zero. invalid_input if
/// n < 0, n exceeds A's size, or rel_pivot_tol is not in [0, 1]; the whole of A is then zero.
/// Otherwise only the lower triangle of A's leading n × n block is read or written. Units: those of A (L in their square root).
#include <cmath>

#include <Eigen/Core>

#include <talus/status.hpp>

namespace talus {

/// A's leading n × n block ← its Cholesky factor L, A = L Lᵀ (lower triangle; file comment).
template <class Derived>
Status cholesky_factor(Eigen::MatrixBase<Derived>& A, int n, typename Derived::Scalar rel_pivot_tol = 0) {
  using S = typename Derived::Scalar;
  using std::sqrt;
  if (n < 0 || n > A.rows() || n > A.cols() || !(rel_pivot_tol >= S(0) && rel_pivot_tol <= S(1))) {
    A.setZero();
    return Status::invalid_input;
  }
  S lmax = S(0), lmin = S(0);
  bool pd = true;
  for (int j = 0; j < n && pd; ++j) {
    for (int k = 0; k < j; ++k) {  // column j −= L(j, k) · column k, rows j … n−1
      const S a = A.coeff(j, k);
      for (int i = j; i < n; ++i) A.coeffRef(i, j) -= a * A.coeff(i, k);
    }
    const S d = A.coeff(j, j);
    pd = d > S(0);  // false for NaN too
    const S ljj = sqrt(pd ? d : S(1));
    A.coeffRef(j, j) = ljj;
    lmax = j == 0 || ljj > lmax ? ljj : lmax;
    lmin = j == 0 || ljj < lmin ? ljj : lmin;
    const S inv = S(1) / ljj;
    for (int i = j + 1; i < n; ++i) A.coeffRef(i, j) *= inv;
  }
  if (pd && (n == 0 || lmin > sqrt(rel_pivot_tol) * lmax)) return Status::ok;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) A.coeffRef(i, j) = S(0);
  return Status::singular;
}

namespace detail {
/// x ← (L Lᵀ)⁻¹ x for the leading n rows of each column of x, without checks: for the
/// library's own solves right after a cholesky_factor that returned ok on the same n.
template <class DerivedL, class DerivedX>
void cholesky_solve_unchecked(const Eigen::MatrixBase<DerivedL>& L, int n, Eigen::MatrixBase<DerivedX>& x) {
  using S = typename DerivedX::Scalar;
  for (Eigen::Index c = 0; c < x.cols(); ++c) {
    for (int j = 0; j < n; ++j) {  // L y = x, by columns of L
      const S y = x.coeff(j, c) / L.coeff(j, j);
      x.coeffRef(j, c) = y;
      for (int i = j + 1; i < n; ++i) x.coeffRef(i, c) -= L.coeff(i, j) * y;
    }
    for (int j = n - 1; j >= 0; --j) {  // Lᵀ x = y: row j of Lᵀ is column j of L
      S v = x.coeff(j, c);
      for (int i = j + 1; i < n; ++i) v -= L.coeff(i, j) * x.coeff(i, c);
      x.coeffRef(j, c) = v / L.coeff(j, j);
    }
  }
}
template <class DerivedL, class DerivedX>
void cholesky_solve_unchecked(const Eigen::MatrixBase<DerivedL>& L, int n, Eigen::MatrixBase<DerivedX>&& x) {
  cholesky_solve_unchecked(L, n, x);
}
}  // namespace detail

/// x ← (L Lᵀ)⁻¹ x for the leading n rows of each column of x, L the lower triangle of the
/// leading n × n block of `L` as cholesky_factor left it (two substitutions, 2n² flops a column).
/// invalid_input if n < 0 or n exceeds L's or x's rows; singular if a diagonal entry of L is not
/// > 0 or not finite (not a factor cholesky_factor accepted); overflow if the result is not
/// finite. On any failure x is zero.
template <class DerivedL, class DerivedX>
Status cholesky_solve(const Eigen::MatrixBase<DerivedL>& L, int n, Eigen::MatrixBase<DerivedX>& x) {
  using S = typename DerivedX::Scalar;
  Status s = Status::ok;
  if (n < 0 || n > L.rows() || n > L.cols() || n > x.rows()) s = Status::invalid_input;
  for (int j = 0; j < n && s == Status::ok; ++j) {
    const S d = static_cast<S>(L.coeff(j, j));
    if (!(d > S(0) && d <= Eigen::NumTraits<S>::highest())) s = Status::singular;
  }
  if (s == Status::ok) {
    detail::cholesky_solve_unchecked(L, n, x);
    if (!x.allFinite()) s = Status::overflow;
  }
  if (s != Status::ok) x.setZero();
  return s;
}
/// The same for a vector or matrix expression taken by value (a block, a segment).
template <class DerivedL, class DerivedX>
Status cholesky_solve(const Eigen::MatrixBase<DerivedL>& L, int n, Eigen::MatrixBase<DerivedX>&& x) {
  return cholesky_solve(L, n, x);
}

namespace detail {
/// Cholesky A = L Lᵀ of a whole matrix into its own storage (A kept), for the range-space,
/// null-space, Kokkevis and proximal methods: the subset of Eigen::LLT's interface they use,
/// and Eigen's own unblocked algorithm (row k: the pivot a_kk − ‖L_k,0:k‖², then the column
/// below it by one matrix-vector product; the one Eigen runs below size 32, so the same results
/// as Eigen::LLT there), not cholesky_factor's column updates: on a nearly singular K = G H⁻¹ Gᵀ
/// the two round the last pivot differently, and the tests of these methods' acceptance check
/// (tests/constraints/api_test.cpp) are built on this one's. Tolerance 0: only the sign of the
/// pivots; callers add their relative pivot check (pivots_ok). Solves: Eigen's triangular solves.
template <class MatrixType>
struct UnblockedLLT {
  using S = typename MatrixType::Scalar;
  using Vector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MatrixType::MaxRowsAtCompileTime, 1>;
  MatrixType m;
  Eigen::ComputationInfo status = Eigen::InvalidInput;

  UnblockedLLT& compute(const MatrixType& A) {
    using std::sqrt;
    m = A;
    status = Eigen::Success;
    const Eigen::Index n = m.rows();
    for (Eigen::Index k = 0; k < n; ++k) {
      const Eigen::Index rs = n - k - 1;
      Eigen::Block<MatrixType, Eigen::Dynamic, 1> A21(m, k + 1, k, rs, 1);
      Eigen::Block<MatrixType, 1, Eigen::Dynamic> A10(m, k, 0, 1, k);
      Eigen::Block<MatrixType, Eigen::Dynamic, Eigen::Dynamic> A20(m, k + 1, 0, rs, k);
      S x = m.coeff(k, k);
      if (k > 0) x -= A10.squaredNorm();
      if (x <= S(0)) {
        status = Eigen::NumericalIssue;
        break;
      }
      m.coeffRef(k, k) = x = sqrt(x);
      if (k > 0 && rs > 0) A21.noalias() -= A20 * A10.adjoint();
      if (rs > 0) A21 /= x;
    }
    return *this;
  }
  Eigen::ComputationInfo info() const { return status; }
  const MatrixType& matrixLLT() const { return m; }
  /// x ← A⁻¹ x
  template <class X>
  void solveInPlace(X& x) const {
    m.template triangularView<Eigen::Lower>().solveInPlace(x);
    m.adjoint().template triangularView<Eigen::Upper>().solveInPlace(x);
  }
  /// A⁻¹ b
  template <class B>
  Vector solve(const Eigen::MatrixBase<B>& b) const {
    Vector x = b;
    solveInPlace(x);
    return x;
  }
};
}  // namespace detail

}  // namespace talus
