#pragma once
/// \file lu.hpp
/// LU with partial (row) pivoting, P A = L U, unblocked so that it never allocates. Internal
/// (namespace detail); the direct method's default factorization (solvers/kkt.hpp).
#include <cmath>

#include <Eigen/Core>

#include <talus/linalg/triangular.hpp>

namespace talus {
namespace detail {
/// LU with partial (row) pivoting, P A = L U, unblocked; as Eigen::PartialPivLU.
template <class MatrixType>
struct UnblockedPartialPivLU {
  using S = typename MatrixType::Scalar;
  using Pivots = Eigen::Matrix<int, Eigen::Dynamic, 1, 0, MatrixType::MaxRowsAtCompileTime, 1>;
  MatrixType lu;
  Pivots transpositions;  ///< row k was swapped with row transpositions(k), in order k = 0, 1, ...

  void compute(const MatrixType& A) {
    lu = A;
    const Eigen::Index n = lu.rows();
    transpositions.resize(n);
    for (Eigen::Index k = 0; k < n; ++k) {
      const Eigen::Index rs = n - k - 1;
      Eigen::Index p = 0;
      const S biggest = lu.col(k).tail(n - k).cwiseAbs().maxCoeff(&p);
      p += k;
      transpositions(k) = static_cast<int>(p);
      if (biggest != S(0)) {
        if (p != k) lu.row(k).swap(lu.row(p));
        lu.col(k).tail(rs) /= lu.coeff(k, k);
      }
      if (rs > 0) lu.bottomRightCorner(rs, rs).noalias() -= lu.col(k).tail(rs) * lu.row(k).tail(rs);
    }
  }
  const MatrixType& matrixLU() const { return lu; }
  /// x ← A⁻¹ x
  template <class X>
  void solve_in_place(X& x) const {
    for (Eigen::Index k = 0; k < transpositions.size(); ++k)
      if (transpositions(k) != k) std::swap(x.coeffRef(k), x.coeffRef(transpositions(k)));
    lu.template triangularView<Eigen::UnitLower>().solveInPlace(x);
    lu.template triangularView<Eigen::Upper>().solveInPlace(x);
  }
};
}  // namespace detail
}  // namespace talus
