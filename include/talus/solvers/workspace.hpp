#pragma once
/// \file workspace.hpp
/// Fixed-capacity storage for the constrained solvers: every matrix has a compile-time
/// maximum size (Eigen's `Matrix<S, Dynamic, Dynamic, 0, MaxRows, MaxCols>`), so a solve over
/// any subset of active rows never allocates. One SolverWorkspace lives in each
/// ConstraintSet; the generic solvers in kkt.hpp take it explicitly.
#include <utility>
#include <variant>

#include <Eigen/Cholesky>
#include <Eigen/Householder>
#include <Eigen/LU>
#include <Eigen/QR>

#include <talus/status.hpp>

namespace talus {

/// Decomposition used by the direct (full KKT) method.
enum class KKTMethod : unsigned char {
  partial_piv_lu,          ///< LU with partial pivoting (as Eigen::PartialPivLU, unblocked) — fastest general choice
  full_piv_lu,             ///< Eigen::FullPivLU — rank-revealing, slowest
  col_piv_householder_qr,  ///< Eigen::ColPivHouseholderQR — rank-revealing
  householder_qr,          ///< Householder QR without pivoting (unblocked, so it never allocates)
  ldlt,                    ///< Eigen::LDLT with symmetric pivoting (the KKT matrix is symmetric indefinite)
};

constexpr const char* to_string(KKTMethod m) {
  switch (m) {
    case KKTMethod::partial_piv_lu: return "partial_piv_lu";
    case KKTMethod::full_piv_lu: return "full_piv_lu";
    case KKTMethod::col_piv_householder_qr: return "col_piv_householder_qr";
    case KKTMethod::householder_qr: return "householder_qr";
    case KKTMethod::ldlt: return "ldlt";
  }
  return "unknown";
}

namespace detail {
/// Householder QR, unblocked (Eigen's HouseholderQR switches to a blocked update that
/// allocates when the matrix has more than 48 columns).
template <class MatrixType>
struct UnblockedHouseholderQR {
  using S = typename MatrixType::Scalar;
  using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MatrixType::MaxRowsAtCompileTime, 1>;
  MatrixType qr;
  Vec h;
  Vec tmp;

  void compute(const MatrixType& A) {
    qr = A;
    const Eigen::Index n = qr.rows();
    h.resize(n);
    tmp.resize(n);
    for (Eigen::Index k = 0; k < n; ++k) {
      const Eigen::Index rem = n - k;
      S beta;
      qr.col(k).tail(rem).makeHouseholderInPlace(h(k), beta);
      qr(k, k) = beta;
      qr.bottomRightCorner(rem, n - k - 1).applyHouseholderOnTheLeft(qr.col(k).tail(rem - 1), h(k), tmp.data());
    }
  }
  /// x ← R⁻¹ Qᵀ x
  template <class X>
  void solve_in_place(X& x) {
    const Eigen::Index n = qr.rows();
    for (Eigen::Index k = 0; k < n; ++k)
      x.tail(n - k).applyHouseholderOnTheLeft(qr.col(k).tail(n - k - 1), h(k), tmp.data());
    qr.template triangularView<Eigen::Upper>().solveInPlace(x);
  }
};

// Eigen's LLT (from size 32) and PartialPivLU (from size 17) switch to blocked algorithms
// whose level-3 kernels (GEMM, triangular solves with a matrix right-hand side) take their
// workspace from alloca or, where Eigen has none (bare metal, e.g. arm-none-eabi + newlib),
// from malloc. Those kernels are compiled in whatever the size, so every object that uses
// the decompositions references malloc, and on bare metal a KKT matrix above 16 x 16 calls it.
// The two decompositions below are Eigen's own unblocked algorithms (the ones Eigen runs
// below those sizes, with the same expressions, hence the same results there) and Eigen's
// solves: nothing allocates, on any target.

/// Cholesky A = L Lᵀ (lower triangle), unblocked; the subset of Eigen::LLT the solvers use.
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

/// Smallest and largest magnitudes of a vector (pivots): a ratio below the tolerance means
/// the factorized matrix is singular to working precision.
template <class V>
bool pivots_ok(const V& d, typename V::Scalar rel_tol) {
  using S = typename V::Scalar;
  if (d.size() == 0) return true;
  const S mx = d.cwiseAbs().maxCoeff();
  const S mn = d.cwiseAbs().minCoeff();
  return mx > S(0) && mn > rel_tol * mx && mn == mn;
}
}  // namespace detail

template <class S, int NV, int MaxRows>
struct SolverWorkspace {
  static constexpr int nv = NV;
  static constexpr int max_rows = MaxRows;
  static constexpr int max_kkt = NV + MaxRows;
  using RowVector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MaxRows, 1>;
  using GMatrix = Eigen::Matrix<S, Eigen::Dynamic, NV, 0, MaxRows, NV>;               ///< rows × nv
  using GtMatrix = Eigen::Matrix<S, NV, Eigen::Dynamic, 0, NV, MaxRows>;              ///< nv × rows
  using RowMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, MaxRows, MaxRows>;
  using NVMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, NV, NV>;         ///< reduced (null-space) sizes
  using KKTMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, max_kkt, max_kkt>;
  using KKTVector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, max_kkt, 1>;
  using NVVector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, NV, 1>;
  using TangentVector = Eigen::Matrix<S, NV, 1>;

  /// Pivot ratio under which a factorization is declared singular (relative to the largest).
  S pivot_tolerance = S(100) * Eigen::NumTraits<S>::epsilon() * S(max_kkt);

  // direct method
  KKTMatrix K;
  KKTVector kkt_x;
  std::variant<std::monostate, detail::UnblockedPartialPivLU<KKTMatrix>, Eigen::FullPivLU<KKTMatrix>,
               Eigen::ColPivHouseholderQR<KKTMatrix>, detail::UnblockedHouseholderQR<KKTMatrix>, Eigen::LDLT<KKTMatrix>>
      kkt;

  // range-space method and Kokkevis: Z = L⁻ᵀ Gᵀ (or H⁻¹ Gᵀ), Y = G H⁻¹ Gᵀ
  GtMatrix Z;
  GMatrix W;  ///< range space: G L⁻¹
  RowMatrix Y;
  detail::UnblockedLLT<RowMatrix> Y_llt;
  Eigen::ColPivHouseholderQR<RowMatrix> Y_qr;  ///< assembly: rank-revealing solve of G W⁻¹ Gᵀ
  RowVector r;

  // null-space method: Gᵀ = Q [R; 0], Q = [Qy Qz]
  GtMatrix Gt;
  Eigen::ColPivHouseholderQR<GtMatrix> Gt_qr;
  Eigen::Matrix<S, NV, NV> Q = Eigen::Matrix<S, NV, NV>::Zero();
  NVMatrix ZHZ;
  detail::UnblockedLLT<NVMatrix> ZHZ_llt;
  NVVector qz;
  RowVector qy;
  TangentVector t = TangentVector::Zero();
  TangentVector t2 = TangentVector::Zero();
};

}  // namespace talus
