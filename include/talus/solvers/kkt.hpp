#pragma once
/// \file kkt.hpp
/// Generic building blocks: solve the equality-constrained system
///
///     H x − Gᵀ λ = b
///     G x        = g
///
/// for x (nv) and λ (m rows), given H (nv × nv, symmetric positive definite), G (m × nv),
/// b and g. Forward dynamics uses b = τ − C, g = γ (x = q̈, λ = constraint forces);
/// impulses use b = H q̇⁻, g = v⁺ (x = q̇⁺, λ = impulses). Three methods:
///
///   direct       [H  Gᵀ; G  0] [x; −λ] = [b; g], one factorization of the whole KKT matrix
///                (KKTMethod picks which), then an acceptance check: the answer z = [x; −λ]
///                must have a normwise backward error ‖K z − [b; g]‖∞ / (‖K‖∞ ‖z‖∞ + ‖[b; g]‖∞)
///                of at most 64 n ε (n = nv + m), else singular; ws.kkt_residual and
///                ws.kkt_residual_tolerance report both (the check reads K from H and G: about
///                nv² + 2 nv m multiply-adds). `ldlt` is Eigen's LDLT, diagonal pivoting
///                only (no 2 × 2 pivots): it needs K with nv positive and m negative pivots,
///                i.e. H positive definite on the null space of G and G of full rank
///                (Sylvester's law of inertia), and refuses any other count as singular;
///                even then its pivot order can be unstable (H with a small diagonal beside
///                large G entries), which the acceptance check refuses. The other
///                decompositions also take an indefinite H when K is regular.
///   range space  x₀ = H⁻¹ b,  (G H⁻¹ Gᵀ) λ = g − G x₀,  x = x₀ + H⁻¹ Gᵀ λ, with H = Lᵀ L
///                factorized along the tree (sparse_factorization.hpp): cheap when m ≪ nv.
///   null space   Gᵀ P = Q [R; 0] (column-pivoted QR), Q = [Qy Qz]; x = Qy a + Qz z with
///                Rᵀ a = Pᵀ g and (Qzᵀ H Qz) z = Qzᵀ (b − H Qy a); λ = P R⁻¹ Qyᵀ (H x − b).
///
/// Status (x and λ zero unless ok; nothing allocates):
///   capacity_exceeded  G has more rows than the workspace's MaxRows;
///   invalid_input      G does not have nv columns, b does not have nv rows, g does not have
///                      G's rows, H, b, G or g hold NaN/Inf, ws.pivot_tolerance is negative or
///                      not finite, or `method` is not a KKTMethod;
///   singular           no unique solution (G rank-deficient: redundant constraints; H not
///                      positive definite; range space: data.L is not a valid factor); direct:
///                      also an answer that fails the acceptance check, or ldlt's pivot signs;
///   overflow           x or λ came out not finite (an extremely ill-conditioned system), or
///                      (direct) the acceptance check's sums overflow.
/// ws.pivot_tolerance: −0 compares equal to 0 and means no rank threshold.
/// λ has G.rows() rows on return (zero rows when G exceeds the capacity).
#include <limits>

#include <talus/algorithms/sparse_factorization.hpp>
#include <talus/linalg/kkt_workspace.hpp>

namespace talus {

namespace detail {
/// lambda ← 0 with m rows, or with none when m is not a size lambda can hold.
template <class L>
void zero_rows(L& lambda, int m) {
  constexpr int max = L::MaxRowsAtCompileTime;
  if constexpr (L::RowsAtCompileTime != Eigen::Dynamic) lambda.setZero();
  else lambda.setZero(m >= 0 && (max == Eigen::Dynamic || m <= max) ? m : 0);
}

/// Outputs zero unless s is ok and both are finite; returns s or overflow.
template <class X, class L>
Status zero_outputs(Status s, X& x, L& lambda, int m) {
  if (s == Status::ok && !(all_finite(x) && all_finite(lambda))) s = Status::overflow;
  if (s != Status::ok) {
    x.setZero();
    zero_rows(lambda, m);
  }
  return s;
}

/// The checks the three blocks share (see the file comment), before anything is written.
template <class S, int NV, int MR, class B, class GM, class Gv, class X>
Status check_kkt_inputs(const Eigen::MatrixBase<B>& b, const GM& G, const Gv& g, const SolverWorkspace<S, NV, MR>& ws,
                        const X& x) {
  static_assert(B::RowsAtCompileTime == Eigen::Dynamic || B::RowsAtCompileTime == NV,
                "talus: b must have nv rows (the model's velocity size)");
  static_assert(GM::ColsAtCompileTime == Eigen::Dynamic || GM::ColsAtCompileTime == NV,
                "talus: G must have nv columns (the model's velocity size)");
  static_assert(X::RowsAtCompileTime == Eigen::Dynamic || X::RowsAtCompileTime == NV,
                "talus: x must have nv rows (the model's velocity size)");
  if (G.cols() != NV || x.rows() != NV || x.cols() != 1) return Status::invalid_input;
  if (G.rows() > MR) return Status::capacity_exceeded;
  if (b.rows() != NV || b.cols() != 1 || g.rows() != G.rows() || g.cols() != 1) return Status::invalid_input;
  if (!(ws.pivot_tolerance >= S(0) && ws.pivot_tolerance <= S(1))) return Status::invalid_input;
  if (!(all_finite(b) && all_finite(G) && all_finite(g))) return Status::invalid_input;
  return Status::ok;
}

/// Normwise backward error of the direct method's answer z = [x; −λ] (Rigal and Gaches):
/// ‖K z − [b; g]‖∞ / (‖K‖∞ ‖z‖∞ + ‖[b; g]‖∞), K = [H Gᵀ; G 0] read from H and G, not from the
/// assembled ws.K (the zero block skipped). A backward-stable solve leaves it at a small
/// multiple of n ε whatever the conditioning of K; a factor that is not one of K (a lost
/// reflection, an unstable pivot order of LDLT on an indefinite matrix) leaves it at O(1).
/// NaN when a sum overflows (the answer cannot be checked in S).
template <class S, int NV, class B, class GM, class Gv, class Z>
S kkt_backward_error(const Eigen::Matrix<S, NV, NV>& H, const Eigen::MatrixBase<B>& b, const GM& G, const Gv& g,
                     const Z& z) {
  using std::abs;
  const Eigen::Index m = G.rows();
  S res = S(0), knorm = S(0), rhs = S(0);  // ‖K z − [b; g]‖∞, ‖K‖∞, ‖[b; g]‖∞
  bool finite = true;
  auto take_row = [&](S r_i, S k_i, S rhs_i) {
    finite = finite && r_i - r_i == S(0) && k_i - k_i == S(0);
    res = std::max(res, abs(r_i));
    knorm = std::max(knorm, k_i);
    rhs = std::max(rhs, abs(rhs_i));
  };
  for (Eigen::Index i = 0; i < NV; ++i) {  // rows of [H Gᵀ]
    const S b_i = b.coeff(i);
    S r_i = -b_i, k_i = S(0);
    for (Eigen::Index j = 0; j < NV; ++j) {
      r_i += H.coeff(i, j) * z.coeff(j);
      k_i += abs(H.coeff(i, j));
    }
    for (Eigen::Index c = 0; c < m; ++c) {
      r_i += G.coeff(c, i) * z.coeff(NV + c);
      k_i += abs(G.coeff(c, i));
    }
    take_row(r_i, k_i, b_i);
  }
  for (Eigen::Index c = 0; c < m; ++c) {  // rows of [G 0]
    const S g_c = g.coeff(c);
    S r_c = -g_c, k_c = S(0);
    for (Eigen::Index j = 0; j < NV; ++j) {
      r_c += G.coeff(c, j) * z.coeff(j);
      k_c += abs(G.coeff(c, j));
    }
    take_row(r_c, k_c, g_c);
  }
  if (!finite) return std::numeric_limits<S>::quiet_NaN();
  if (res == S(0)) return S(0);
  return res / (knorm * z.cwiseAbs().maxCoeff() + rhs);
}

/// The tolerance of kkt_backward_error for an n × n KKT matrix, 64 n ε: the rounding of one
/// residual row alone reaches n ε ‖K‖∞ ‖z‖∞ in the worst case, and the factor leaves room for
/// the element growth of the pivoted factorizations; a factor of another matrix is off by
/// O(1), far above it.
template <class S>
S kkt_residual_tolerance(int n) {
  return S(64) * S(n) * Eigen::NumTraits<S>::epsilon();
}

/// LDLᵀ of K = [H Gᵀ; G 0] with H positive definite on the null space of G and G of full row
/// rank has, by Sylvester's law of inertia, exactly nv positive and m negative pivots: any
/// other count means the system is not one the direct method may answer (and Eigen's LDLT,
/// diagonal pivoting only, is not stable on such a matrix).
template <class D>
bool ldlt_inertia_ok(const D& d, int negative) {
  int neg = 0;
  for (Eigen::Index i = 0; i < d.size(); ++i) neg += d.coeff(i) < 0;
  return neg == negative;
}

template <class Decomp, class K, class V>
Status factor_and_solve(Decomp& d, const K& Kmat, V& x, typename K::Scalar tol, int m) {
  d.compute(Kmat);
  const int n = static_cast<int>(Kmat.rows());
  using D = std::decay_t<Decomp>;
  if constexpr (std::is_same_v<D, UnblockedPartialPivLU<K>>) {
    if (!pivots_ok(d.matrixLU().diagonal(), tol)) return Status::singular;
    d.solve_in_place(x);
  } else if constexpr (std::is_same_v<D, Eigen::FullPivLU<K>>) {
    d.setThreshold(tol);
    if (d.rank() < n) return Status::singular;
    // P A Q = L U: x ← Q U⁻¹ L⁻¹ P x, substitutions written out (linalg/householder.hpp: Eigen's
    // FullPivLU::solve runs its triangular solves on sub-blocks, with a malloc fallback).
    V c = d.permutationP() * x;
    solve_unit_lower_in_place(d.matrixLU(), c);
    solve_upper_in_place(d.matrixLU(), c);
    x = d.permutationQ() * c;
  } else if constexpr (std::is_same_v<D, UnblockedColPivHouseholderQR<K>>) {
    d.setThreshold(tol);
    if (d.rank() < n) return Status::singular;
    d.solve_in_place(x);
  } else if constexpr (std::is_same_v<D, UnblockedHouseholderQR<K>>) {
    if (!pivots_ok(d.qr.diagonal(), tol)) return Status::singular;
    d.solve_in_place(x);
  } else {  // LDLT
    if (d.info() != Eigen::Success || !pivots_ok(d.vectorD(), tol) || !ldlt_inertia_ok(d.vectorD(), m))
      return Status::singular;
    x = d.solve(x);
  }
  return Status::ok;
}
}  // namespace detail

namespace detail {
/// The direct method's acceptance check (file comment): ws.kkt_x must solve its system.
template <class S, int NV, int MR, class B, class GM, class Gv>
Status check_kkt_answer(const Eigen::Matrix<S, NV, NV>& H, const Eigen::MatrixBase<B>& b, const GM& G, const Gv& g,
                        SolverWorkspace<S, NV, MR>& ws) {
  if (!all_finite(ws.kkt_x)) return Status::overflow;
  ws.kkt_residual = kkt_backward_error(H, b, G, g, ws.kkt_x);
  ws.kkt_residual_tolerance = kkt_residual_tolerance<S>(static_cast<int>(ws.kkt_x.size()));
  if (ws.kkt_residual <= ws.kkt_residual_tolerance) return Status::ok;
  return ws.kkt_residual == ws.kkt_residual ? Status::singular : Status::overflow;
}
}  // namespace detail

/// Direct method on the full KKT matrix.
template <class S, int NV, int MR, class B, class GM, class Gv, class X, class Lambda>
Status solve_kkt_direct(const Eigen::Matrix<S, NV, NV>& H, const Eigen::MatrixBase<B>& b, const GM& G, const Gv& g,
                        KKTMethod method, SolverWorkspace<S, NV, MR>& ws, X& x, Lambda& lambda) {
  const int m = static_cast<int>(G.rows());
  Status s = detail::check_kkt_inputs(b, G, g, ws, x);
  if (s == Status::ok && !all_finite(H)) s = Status::invalid_input;
  ws.kkt_residual = ws.kkt_residual_tolerance = S(0);
  if (s != Status::ok) return detail::zero_outputs(s, x, lambda, m);
  const int n = NV + m;
  ws.K.setZero(n, n);
  ws.K.template topLeftCorner<NV, NV>() = H;
  ws.K.topRightCorner(NV, m) = G.transpose();
  ws.K.bottomLeftCorner(m, NV) = G;
  ws.kkt_x.resize(n);
  ws.kkt_x.template head<NV>() = b;
  ws.kkt_x.tail(m) = g;
  using K = typename SolverWorkspace<S, NV, MR>::KKTMatrix;
  switch (method) {
    case KKTMethod::partial_piv_lu:
      s = detail::factor_and_solve(ws.kkt.template emplace<detail::UnblockedPartialPivLU<K>>(), ws.K, ws.kkt_x,
                                   ws.pivot_tolerance, m);
      break;
    case KKTMethod::full_piv_lu:
      s = detail::factor_and_solve(ws.kkt.template emplace<Eigen::FullPivLU<K>>(), ws.K, ws.kkt_x, ws.pivot_tolerance,
                                   m);
      break;
    case KKTMethod::col_piv_householder_qr:
      s = detail::factor_and_solve(ws.kkt.template emplace<detail::UnblockedColPivHouseholderQR<K>>(), ws.K, ws.kkt_x,
                                   ws.pivot_tolerance, m);
      break;
    case KKTMethod::householder_qr:
      s = detail::factor_and_solve(ws.kkt.template emplace<detail::UnblockedHouseholderQR<K>>(), ws.K, ws.kkt_x,
                                   ws.pivot_tolerance, m);
      break;
    case KKTMethod::ldlt:
      s = detail::factor_and_solve(ws.kkt.template emplace<Eigen::LDLT<K>>(), ws.K, ws.kkt_x, ws.pivot_tolerance, m);
      break;
    default: s = Status::invalid_input;
  }
  if (s == Status::ok) s = detail::check_kkt_answer(H, b, G, g, ws);
  if (s == Status::ok) {
    x = ws.kkt_x.template head<NV>();
    lambda = -ws.kkt_x.tail(m);
  }
  return detail::zero_outputs(s, x, lambda, m);
}

namespace detail {
/// The range-space operator of the constraints, from H = Lᵀ L in data.L: ws.W ← G L⁻¹ and
/// ws.Y ← W Wᵀ + shift·I = G H⁻¹ Gᵀ + shift·I (symmetric; shift 0 in the range-space method, the
/// proximal parameter μ in the proximal one). Coefficient by coefficient (lazyProduct): Eigen's
/// rankUpdate and GEMM kernels have malloc fallbacks where there is no alloca (bare metal), see
/// linalg/householder.hpp.
template <class ModelT, int MR, class GM>
void range_space_operator(const Data<ModelT>& data, const GM& G,
                          SolverWorkspace<typename ModelT::Scalar, ModelT::nv, MR>& ws,
                          typename ModelT::Scalar shift = 0) {
  const Eigen::Index m = G.rows();
  auto& W = ws.W;
  W = G;
  solve_right_l_unchecked(data, W);
  ws.Y.resize(m, m);
  ws.Y.template triangularView<Eigen::Lower>() = W.lazyProduct(W.transpose());
  if (shift != 0) ws.Y.diagonal().array() += shift;
  ws.Y.template triangularView<Eigen::StrictlyUpper>() = ws.Y.transpose();
}
}  // namespace detail

/// Range-space method. Needs H = Lᵀ L already in data.L (crba + factorize_ltl).
template <class ModelT, int MR, class B, class GM, class Gv, class X, class Lambda>
Status solve_kkt_range_space(const ModelT& model, const Data<ModelT>& data, const Eigen::MatrixBase<B>& b, const GM& G,
                             const Gv& g, SolverWorkspace<typename ModelT::Scalar, ModelT::nv, MR>& ws, X& x,
                             Lambda& lambda) {
  (void)model;  // the tree is in the type; data.L holds the numbers
  const int m = static_cast<int>(G.rows());
  Status s = detail::check_kkt_inputs(b, G, g, ws, x);
  if (s == Status::ok && !detail::ltl_factor_valid(data)) s = Status::singular;
  if (s != Status::ok) return detail::zero_outputs(s, x, lambda, m);
  ws.t = b;
  detail::solve_lt_unchecked(data, ws.t);  // x₀ = H⁻¹ b
  detail::solve_l_unchecked(data, ws.t);
  detail::range_space_operator(data, G, ws);  // W = G L⁻¹, Y = W Wᵀ = G H⁻¹ Gᵀ
  ws.Y_llt.compute(ws.Y);
  if (ws.Y_llt.info() != Eigen::Success ||
      !detail::pivots_ok(ws.Y_llt.matrixLLT().diagonal(), std::sqrt(ws.pivot_tolerance)))
    return detail::zero_outputs(Status::singular, x, lambda, m);
  ws.r = g;  // r = g − G x₀, coefficient-wise: no temporary of G's type (a dynamic G would allocate one)
  ws.r.noalias() -= G.lazyProduct(ws.t);
  lambda = ws.Y_llt.solve(ws.r);
  ws.t2.noalias() = ws.W.transpose() * lambda;  // L⁻ᵀ Gᵀ λ
  detail::solve_l_unchecked(data, ws.t2);       // H⁻¹ Gᵀ λ
  x = ws.t + ws.t2;
  return detail::zero_outputs(Status::ok, x, lambda, m);
}

/// Null-space method (dense).
template <class S, int NV, int MR, class B, class GM, class Gv, class X, class Lambda>
Status solve_kkt_null_space(const Eigen::Matrix<S, NV, NV>& H, const Eigen::MatrixBase<B>& b, const GM& G, const Gv& g,
                            SolverWorkspace<S, NV, MR>& ws, X& x, Lambda& lambda) {
  const int m = static_cast<int>(G.rows());
  if (Status s = detail::check_kkt_inputs(b, G, g, ws, x); s != Status::ok || !all_finite(H))
    return detail::zero_outputs(s != Status::ok ? s : Status::invalid_input, x, lambda, m);
  if (m == 0) {  // unconstrained: H x = b
    ws.ZHZ = H;
    ws.ZHZ_llt.compute(ws.ZHZ);
    if (ws.ZHZ_llt.info() != Eigen::Success) return detail::zero_outputs(Status::singular, x, lambda, m);
    ws.qz = b;
    x = ws.ZHZ_llt.solve(ws.qz);
    lambda.resize(0);
    return detail::zero_outputs(Status::ok, x, lambda, m);
  }
  if (m > NV) return detail::zero_outputs(Status::singular, x, lambda, m);
  ws.Gt = G.transpose();
  ws.Gt_qr.setThreshold(ws.pivot_tolerance);
  ws.Gt_qr.compute(ws.Gt);
  if (ws.Gt_qr.rank() < m) return detail::zero_outputs(Status::singular, x, lambda, m);
  ws.Gt_qr.form_q(ws.Q);
  const auto R = ws.Gt_qr.qr.topLeftCorner(m, m).template triangularView<Eigen::Upper>();
  // Rᵀ a = Pᵀ g
  ws.qy = g;
  ws.Gt_qr.apply_pt(ws.qy);
  R.transpose().solveInPlace(ws.qy);
  // Products coefficient by coefficient (lazyProduct): no GEMM kernel (linalg/householder.hpp).
  const int k = NV - m;
  const auto Qy = ws.Q.leftCols(m);
  const auto Qz = ws.Q.rightCols(k);
  ws.t = Qy.lazyProduct(ws.qy);  // particular solution Qy a
  ws.t2 = b;
  ws.t2 -= H.lazyProduct(ws.t);
  ws.HQz = H.lazyProduct(Qz);
  ws.ZHZ = Qz.transpose().lazyProduct(ws.HQz);
  ws.ZHZ_llt.compute(ws.ZHZ);
  if (ws.ZHZ_llt.info() != Eigen::Success) return detail::zero_outputs(Status::singular, x, lambda, m);
  ws.qz = Qz.transpose().lazyProduct(ws.t2);
  ws.ZHZ_llt.solveInPlace(ws.qz);
  x = ws.t;
  x += Qz.lazyProduct(ws.qz);
  // λ = P R⁻¹ Qyᵀ (H x − b)
  ws.t2 = H.lazyProduct(x);
  ws.t2 -= b;
  ws.r = Qy.transpose().lazyProduct(ws.t2);
  R.solveInPlace(ws.r);
  ws.Gt_qr.apply_p(ws.r);
  lambda = ws.r;
  return detail::zero_outputs(Status::ok, x, lambda, m);
}

}  // namespace talus
