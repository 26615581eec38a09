#pragma once
/// \file workspace.hpp
/// Fixed-capacity storage for the constrained solvers: every matrix has a compile-time
/// maximum size (Eigen's `Matrix<S, Dynamic, Dynamic, 0, MaxRows, MaxCols>`), so a solve over
/// any subset of active rows never allocates. One SolverWorkspace lives in each
/// ConstraintSet; the generic solvers in kkt.hpp take it explicitly.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

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
  col_piv_householder_qr,  ///< Householder QR with column pivoting (Eigen's algorithm, unblocked) — rank-revealing
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
// Eigen's dense kernels (GEMM, GEMV through a temporary, the blocked QR/LU/LLT updates) take
// scratch memory from alloca or, where Eigen knows no alloca (bare metal: arm-none-eabi with
// newlib), from malloc; the reference is compiled in even where the scratch is never needed.
// The decompositions and products the solvers run are therefore written here, unblocked and
// coefficient by coefficient (Eigen's own algorithms, not Eigen's kernels): no object that
// uses them references malloc, on any target (checked on Cortex-M by the target tests, which
// link every solver and require an image without malloc).

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
  ColsVec h;             ///< Householder coefficients τ_k
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

/// Storage for at most one object of the types Ts at a time (the direct method's one
/// factorization): the size of the largest, not of all. Not std::variant: its accessors keep
/// a bad_variant_access path that, without exceptions, calls abort(), and newlib's abort
/// (bare metal) raises a signal through a table it allocates with malloc. A copy starts empty:
/// the content is scratch of the last solve.
template <class... Ts>
class OneOf {
 public:
  OneOf() = default;
  OneOf(const OneOf&) {}
  OneOf& operator=(const OneOf& other) {
    if (this != &other) reset();
    return *this;
  }
  ~OneOf() { reset(); }

  /// Destroys the current object, if any, and value-constructs a T in its place.
  template <class T>
  T& emplace() {
    static_assert((std::is_same_v<T, Ts> || ...), "OneOf: not one of its types");
    reset();
    T* p = ::new (static_cast<void*>(storage_)) T();
    destroy_ = [](void* q) { static_cast<T*>(q)->~T(); };
    return *p;
  }
  void reset() {
    if (destroy_) destroy_(storage_);
    destroy_ = nullptr;
  }

 private:
  alignas(Ts...) unsigned char storage_[std::max({sizeof(Ts)...})];
  void (*destroy_)(void*) = nullptr;
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

namespace detail {
/// Eigen's storage option for a matrix of at most max_rows × max_cols: Eigen refuses at
/// compile time a column-major matrix that can hold only one row (and more than one column),
/// and a row-major one that can hold only one column. Capacity-1 sets (MaxRows = 1) and
/// one-dof models (nv = 1) hit exactly those shapes.
constexpr int storage_for(int max_rows, int max_cols) {
  return max_rows == 1 && max_cols != 1 ? Eigen::RowMajor : Eigen::ColMajor;
}
/// Eigen::Matrix with at most MaxR × MaxC entries and the storage option Eigen accepts for it.
template <class S, int R, int C, int MaxR, int MaxC>
using BoundedMatrix = Eigen::Matrix<S, R, C, storage_for(MaxR, MaxC), MaxR, MaxC>;
}  // namespace detail

template <class S, int NV, int MaxRows>
struct SolverWorkspace {
  static constexpr int nv = NV;
  static constexpr int max_rows = MaxRows;
  static constexpr int max_kkt = NV + MaxRows;
  using RowVector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MaxRows, 1>;
  using GMatrix = detail::BoundedMatrix<S, Eigen::Dynamic, NV, MaxRows, NV>;  ///< rows × nv
  using GtMatrix = detail::BoundedMatrix<S, NV, Eigen::Dynamic, NV, MaxRows>;  ///< nv × rows
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
  detail::OneOf<detail::UnblockedPartialPivLU<KKTMatrix>, Eigen::FullPivLU<KKTMatrix>,
               detail::UnblockedColPivHouseholderQR<KKTMatrix>, detail::UnblockedHouseholderQR<KKTMatrix>, Eigen::LDLT<KKTMatrix>>
      kkt;
  /// The last solve_kkt_direct's acceptance check (kkt.hpp): the normwise backward error
  /// ‖K z − r‖∞ / (‖K‖∞ ‖z‖∞ + ‖r‖∞) of its answer and the tolerance it was held to; both zero
  /// when the call failed before there was an answer to check.
  S kkt_residual = S(0);
  S kkt_residual_tolerance = S(0);

  // range-space method, Kokkevis and articulated: Z = L⁻ᵀ Gᵀ (or H⁻¹ Gᵀ, or M Gᵀ), Y = G H⁻¹ Gᵀ
  GtMatrix Z;
  GMatrix W;  ///< range space: G L⁻¹
  GtMatrix Zd;  ///< articulated method: D⁻¹ Z (Z = M Gᵀ in Z)
  RowMatrix Y;
  detail::UnblockedLLT<RowMatrix> Y_llt;
  detail::UnblockedColPivHouseholderQR<RowMatrix> Y_qr;  ///< assembly: rank-revealing solve of G W⁻¹ Gᵀ
  RowVector r;

  // null-space method: Gᵀ = Q [R; 0], Q = [Qy Qz]
  GtMatrix Gt;
  detail::UnblockedColPivHouseholderQR<GtMatrix> Gt_qr;
  Eigen::Matrix<S, NV, NV> Q = Eigen::Matrix<S, NV, NV>::Zero();
  detail::BoundedMatrix<S, NV, Eigen::Dynamic, NV, NV> HQz;  ///< H Qz
  NVMatrix ZHZ;
  detail::UnblockedLLT<NVMatrix> ZHZ_llt;
  NVVector qz;
  RowVector qy;
  TangentVector t = TangentVector::Zero();
  TangentVector t2 = TangentVector::Zero();
};

}  // namespace talus
