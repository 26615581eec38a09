#pragma once
/// \file kkt_workspace.hpp
/// Fixed-capacity storage for the constrained solvers: every matrix has a compile-time
/// maximum size (Eigen's `Matrix<S, Dynamic, Dynamic, 0, MaxRows, MaxCols>`), so a solve over
/// any subset of active rows never allocates. One SolverWorkspace lives in each
/// ConstraintSet (constraints/constraint_set.hpp); the generic solvers in solvers/kkt.hpp take
/// it explicitly. Also the choice of the direct method's factorization (KKTMethod).
#include <algorithm>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include <Eigen/Cholesky>
#include <Eigen/LU>

#include <talus/linalg/cholesky.hpp>
#include <talus/linalg/lu.hpp>
#include <talus/linalg/qr.hpp>

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
  using GMatrix = detail::BoundedMatrix<S, Eigen::Dynamic, NV, MaxRows, NV>;   ///< rows × nv
  using GtMatrix = detail::BoundedMatrix<S, NV, Eigen::Dynamic, NV, MaxRows>;  ///< nv × rows
  using RowMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, MaxRows, MaxRows>;
  using NVMatrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, NV, NV>;  ///< reduced (null-space) sizes
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
                detail::UnblockedColPivHouseholderQR<KKTMatrix>, detail::UnblockedHouseholderQR<KKTMatrix>,
                Eigen::LDLT<KKTMatrix>>
      kkt;
  /// The last solve_kkt_direct's acceptance check (kkt.hpp): the normwise backward error
  /// ‖K z − r‖∞ / (‖K‖∞ ‖z‖∞ + ‖r‖∞) of its answer and the tolerance it was held to; both zero
  /// when the call failed before there was an answer to check.
  S kkt_residual = S(0);
  S kkt_residual_tolerance = S(0);

  // range-space method, Kokkevis and articulated: Z = L⁻ᵀ Gᵀ (or H⁻¹ Gᵀ, or M Gᵀ), Y = G H⁻¹ Gᵀ
  GtMatrix Z;
  GMatrix W;    ///< range space: G L⁻¹
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
