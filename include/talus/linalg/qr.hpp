#pragma once
/// \file qr.hpp
/// Householder QR without and with column pivoting (rank-revealing), unblocked so that they
/// never allocate (householder.hpp says why). Internal (namespace detail); used by the KKT
/// solves (solvers/kkt.hpp) and the null-space method.
#include <algorithm>
#include <cmath>

#include <Eigen/Core>

#include <talus/linalg/householder.hpp>
#include <talus/linalg/triangular.hpp>

namespace talus {
namespace detail {
/// Householder QR of a square matrix without pivoting, unblocked.
template <class MatrixType>
struct UnblockedHouseholderQR {
  using S = typename MatrixType::Scalar;
  using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MatrixType::MaxRowsAtCompileTime, 1>;
  MatrixType qr;
  Vec h;

  void compute(const MatrixType& A) {
    qr = A;
    const Eigen::Index n = qr.rows();
    h.resize(n);
    for (Eigen::Index k = 0; k < n; ++k) {
      const Eigen::Index rem = n - k;
      S beta;
      make_householder_in_place(qr.col(k).tail(rem), h(k), beta);
      qr(k, k) = beta;
      apply_householder_left(qr.bottomRightCorner(rem, n - k - 1), qr.col(k).tail(rem - 1), h(k));
    }
  }
  /// x ← R⁻¹ Qᵀ x
  template <class X>
  void solve_in_place(X& x) {
    const Eigen::Index n = qr.rows();
    for (Eigen::Index k = 0; k < n; ++k) apply_householder_left(x.tail(n - k), qr.col(k).tail(n - k - 1), h(k));
    solve_upper_in_place(qr, x);
  }
};

/// Householder QR with column pivoting, A P = Q R, unblocked (Eigen's ColPivHouseholderQR
/// algorithm: largest remaining column first, column norms downdated and recomputed when
/// cancellation makes the downdate inaccurate; reflectors and norms scaled where the squares
/// would underflow or overflow, see make_householder_in_place). Rank-revealing: rank() counts the |R_kk|
/// above threshold · max |R_kk|. Any shape (rows ≥ cols for a basis of the column space).
template <class MatrixType>
struct UnblockedColPivHouseholderQR {
  using S = typename MatrixType::Scalar;
  static constexpr int MaxRows = MatrixType::MaxRowsAtCompileTime, MaxCols = MatrixType::MaxColsAtCompileTime;
  using RowsVec = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MaxRows, 1>;
  using ColsVec = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MaxCols, 1>;
  using Indices = Eigen::Matrix<int, Eigen::Dynamic, 1, 0, MaxCols, 1>;
  MatrixType qr;
  ColsVec h;               ///< Householder coefficients τ_k
  Indices transpositions;  ///< column k was swapped with column transpositions(k), k = 0, 1, ...
  ColsVec norms_updated, norms_direct;
  S max_pivot = S(0);
  S threshold = S(0);

  void setThreshold(S t) { threshold = t; }

  void compute(const MatrixType& A) {
    using std::abs;
    using std::sqrt;
    qr = A;
    const Eigen::Index rows = qr.rows(), cols = qr.cols(), size = std::min(rows, cols);
    h.resize(size);
    transpositions.resize(size);
    norms_updated.resize(cols);
    norms_direct.resize(cols);
    for (Eigen::Index j = 0; j < cols; ++j) norms_direct(j) = norms_updated(j) = safe_norm(qr.col(j));
    const S downdate_threshold = sqrt(Eigen::NumTraits<S>::epsilon());
    max_pivot = S(0);
    for (Eigen::Index k = 0; k < size; ++k) {
      Eigen::Index p = 0;
      norms_updated.tail(cols - k).maxCoeff(&p);
      p += k;
      transpositions(k) = static_cast<int>(p);
      if (p != k) {
        qr.col(k).swap(qr.col(p));
        std::swap(norms_updated(k), norms_updated(p));
        std::swap(norms_direct(k), norms_direct(p));
      }
      S beta;
      make_householder_in_place(qr.col(k).tail(rows - k), h(k), beta);
      qr(k, k) = beta;
      max_pivot = std::max(max_pivot, abs(beta));
      apply_householder_left(qr.bottomRightCorner(rows - k, cols - k - 1), qr.col(k).tail(rows - k - 1), h(k));
      for (Eigen::Index j = k + 1; j < cols; ++j) {
        if (norms_updated(j) == S(0)) continue;
        S t = abs(qr(k, j)) / norms_updated(j);
        t = std::max(S(0), (S(1) + t) * (S(1) - t));
        const S ratio = norms_updated(j) / norms_direct(j);
        if (t * ratio * ratio <= downdate_threshold) {
          norms_direct(j) = safe_norm(qr.col(j).tail(rows - k - 1));
          norms_updated(j) = norms_direct(j);
        } else {
          norms_updated(j) *= sqrt(t);
        }
      }
    }
  }
  Eigen::Index rank() const {
    using std::abs;
    const S limit = threshold * max_pivot;
    Eigen::Index r = 0;
    for (Eigen::Index k = 0; k < h.size(); ++k) r += abs(qr.coeff(k, k)) > limit;
    return r;
  }
  /// x ← Pᵀ x (x has cols entries)
  template <class X>
  void apply_pt(X& x) const {
    for (Eigen::Index k = 0; k < transpositions.size(); ++k)
      if (transpositions(k) != k) std::swap(x.coeffRef(k), x.coeffRef(transpositions(k)));
  }
  /// x ← P x
  template <class X>
  void apply_p(X& x) const {
    for (Eigen::Index k = transpositions.size() - 1; k >= 0; --k)
      if (transpositions(k) != k) std::swap(x.coeffRef(k), x.coeffRef(transpositions(k)));
  }
  /// x ← Qᵀ x (x has rows entries), the first `length` reflectors
  template <class X>
  void apply_qt(X& x, Eigen::Index length) const {
    const Eigen::Index rows = qr.rows();
    for (Eigen::Index k = 0; k < length; ++k)
      apply_householder_left(x.tail(rows - k), qr.col(k).tail(rows - k - 1), h(k));
  }
  /// Q (rows × rows) formed explicitly: Q = H₀ H₁ … applied to the identity.
  template <class Q>
  void form_q(Q& q) const {
    const Eigen::Index rows = qr.rows();
    q.setIdentity(rows, rows);
    for (Eigen::Index k = h.size() - 1; k >= 0; --k)
      apply_householder_left(q.bottomRightCorner(rows - k, rows - k), qr.col(k).tail(rows - k - 1), h(k));
  }
  /// Square A: x ← A⁻¹ x over the rank() leading columns (the basic solution: the other
  /// entries of Pᵀ x are zero; the exact solution when A is regular).
  template <class X>
  void solve_in_place(X& x) const {
    const Eigen::Index r = rank();
    apply_qt(x, r);
    solve_upper_in_place(qr, x.head(r));
    x.tail(x.size() - r).setZero();
    apply_p(x);
  }
};
}  // namespace detail
}  // namespace talus
