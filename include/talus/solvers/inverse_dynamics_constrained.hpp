#pragma once
/// \file inverse_dynamics_constrained.hpp
/// Inverse dynamics under the active constraints of a ConstraintSet, for a mechanism whose
/// coordinates are not all actuated (a floating base; passive joints of a closed chain):
///
///     H(q) q̈ + C(q, q̇) = Sᵀ τₐ + Gᵀ λ          (nv rows; C includes − Σ Jᵢᵀ fᵢ(ext) if given)
///     G(q) q̈          = γ(q, q̇)                (m active rows)
///
/// S (na × nv) selects the actuated coordinates (Actuation below), P (nu × nv, nu = nv − na)
/// the others. Sign conventions, frames and units are those of the forward solvers
/// (constraint_set.hpp): λ is the force (N) or torque (N·m) each row applies to the mechanism
/// (a foot on the ground pushing up has λ_z > 0), returned in cs.lambda (active rows, packed);
/// τ (N·m or N per coordinate, nv entries) is zero on the unactuated coordinates, so that
/// forward_dynamics_*(q, q̇, τ) gives back q̈ and λ. q̈ in the tangent space (free flyer: [ω̇; v̇]
/// of the base, body frame). Nothing allocates: the matrices live in an
/// InverseDynamicsWorkspace (fixed capacity, make it a static object next to the set) and the
/// factorizations are the library's unblocked ones (linalg/householder.hpp).
///
/// Functions (each solves its problem exactly; unique answers are stated below):
///
///   inverse_dynamics_constrained (RBDL InverseDynamicsConstraints)
///       unknowns q̈, τₐ, λ; equations: the two above and S q̈ = S q̈_des.
///       Writing q̈ = Sᵀu + Pᵀw with u = S q̈_des, the constraints give (G Pᵀ) w = γ − G Sᵀ u
///       and the unactuated rows of the dynamics give P(H q̈ + C) = P Gᵀ λ. With the QR of
///       P Gᵀ (rank ρ): w is fixed by the constraints along range(G Pᵀ)ᵀ and by the
///       unactuated dynamics in the rest (always unique). λ is unique when m = ρ (RBDL's
///       case, m = nu = rank); when m > ρ (over-constrained: e.g. a quadruped on four point
///       contacts, m = 12 > 6; or two point feet, m = 6 but ρ = 5: the squeeze between them)
///       the m − ρ internal-force directions are chosen to minimise
///       ‖τₐ‖₂ (Euclidean norm over the actuated coordinates, N·m and N alike), which makes λ
///       unique whenever G has full row rank.
///       Feasibility: when m > ρ the desired actuated accelerations must satisfy the m − ρ
///       constraint combinations that do not involve the unactuated coordinates (the feet
///       stay put: random joint accelerations do not). Violated by more than √ε (relative to
///       max(1, |γ| + |G Sᵀ u|)): Status::singular — use the relaxed variant.
///   inverse_dynamics_constrained_relaxed (RBDL InverseDynamicsConstraintsRelaxed)
///       always solvable when G has full row rank. Lexicographic least squares:
///         1. minimise ‖S(q̈ − q̈_des)‖²_W = Σₖ wₖ (q̈ₖ − q̈_des,ₖ)² over the actuated k,
///            subject to both equations (W = diag(weights), weights in [1e-9, 1e9]);
///         2. among the minimisers (q̈ is then unique), minimise ‖τₐ‖₂ (as above).
///       Where the exact variant is feasible, the minimum of 1 is zero and the two agree to
///       rounding. Unlike RBDL (which adds W = 100·S H Sᵀ to the KKT matrix, a penalty that
///       does not in general reach a reachable target exactly), this reaches every reachable
///       target exactly.
///   static_equilibrium_torques
///       q̇ = 0, q̈ = 0: g(q) = Sᵀ τₐ + Gᵀ λ with minimum ‖τₐ‖₂; cs.lambda holds λ. The
///       acceleration constraint G·0 = γ is assumed (γ = 0 at rest unless a Baumgarte term acts
///       on a position error: assemble the configuration first). Status::singular when no λ
///       holds the unactuated coordinates (P g ∉ range(P Gᵀ) beyond √ε: the robot cannot
///       stand on these constraints, e.g. a quadruped on one or two point feet).
///
/// Status (outputs τ, q̈ and cs.lambda zero unless ok):
///   invalid_input   NaN/Inf or values beyond input_limits in q, q̇, q̈_des, weights (or a
///                   weight of an actuated coordinate outside [1e-9, 1e9]), unnormalised
///                   quaternion, unbound set, ws.pivot_tolerance outside [0, 1], a custom
///                   constraint whose values are not finite;
///   singular        infeasible q̈_des (exact variant), no equilibrium (static), or G not of
///                   full row rank (redundant constraints) / the unactuated block of H on the
///                   constraints' null space not positive definite, decided
///                   by rank with cs.ws.pivot_tolerance (relative to the largest pivot);
///   overflow        a result is not finite.
/// As with the forward solvers, cs.failure() says why a call failed (input_invalid for a bad
/// q̈_des or weight; singular for the cases above).
#include <array>
#include <cmath>
#include <type_traits>

#include <talus/constraints/constraint_quantities.hpp>
#include <talus/linalg/kkt_workspace.hpp>

namespace talus {

/// Which velocity coordinates have an actuator. Compile-time size nv; set at start-up.
/// `except_floating_base()` is the usual legged-robot map: every coordinate actuated but the 6
/// of each free-flyer joint (the base); `all()` for a fixed-base arm; `set(k, on)` for passive
/// joints of closed chains.
template <class ModelT>
struct Actuation {
  static constexpr int nv = ModelT::nv;
  std::array<bool, nv> actuated{};  ///< actuated[k]: coordinate k (velocity index) has an actuator

  static Actuation none() { return Actuation{}; }
  static Actuation all() {
    Actuation a;
    a.actuated.fill(true);
    return a;
  }
  static Actuation except_floating_base() {
    using Tree = typename ModelT::Tree;
    Actuation a = all();
    static_for<ModelT::nb>([&](auto i) {
      constexpr int I = decltype(i)::value;
      if constexpr (std::is_same_v<typename Tree::template Joint<I>, JointFreeFlyer>)
        for (int k = 0; k < 6; ++k) a.actuated[static_cast<std::size_t>(Tree::idx_v[I] + k)] = false;
    });
    return a;
  }
  /// invalid_input for k outside [0, nv).
  Status set(int k, bool on) {
    if (k < 0 || k >= nv) return Status::invalid_input;
    actuated[static_cast<std::size_t>(k)] = on;
    return Status::ok;
  }
  bool is_actuated(int k) const { return k >= 0 && k < nv && actuated[static_cast<std::size_t>(k)]; }
  int count() const {
    int n = 0;
    for (bool b : actuated) n += b ? 1 : 0;
    return n;
  }
};

/// Scratch of the constrained inverse dynamics: every matrix at its maximum size (nv, MaxRows
/// of the set), nothing allocated (its size: sizeof, or bench/RESULTS.md's memory table).
template <class S, int NV, int MaxRows>
struct InverseDynamicsWorkspace {
  // detail::BoundedMatrix: the storage order Eigen accepts when a capacity is 1 (MaxRows = 1, nv = 1)
  using NVMatrix = detail::BoundedMatrix<S, Eigen::Dynamic, Eigen::Dynamic, NV, NV>;
  using NVxRows = detail::BoundedMatrix<S, Eigen::Dynamic, Eigen::Dynamic, NV, MaxRows>;
  using RowsxNV = detail::BoundedMatrix<S, Eigen::Dynamic, Eigen::Dynamic, MaxRows, NV>;
  using RowsxRows = detail::BoundedMatrix<S, Eigen::Dynamic, Eigen::Dynamic, MaxRows, MaxRows>;
  using NVVector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, NV, 1>;
  using RowVector = Eigen::Matrix<S, Eigen::Dynamic, 1, 0, MaxRows, 1>;
  using TangentVector = Eigen::Matrix<S, NV, 1>;

  std::array<int, NV> act{};  ///< actuated velocity indices (na)
  std::array<int, NV> un{};   ///< unactuated velocity indices (nu)
  int na = 0, nu = 0, rank = 0;

  NVxRows Bt;  ///< P Gᵀ (nu × m)
  detail::UnblockedColPivHouseholderQR<NVxRows> Bt_qr;
  NVMatrix Qb;   ///< Q of P Gᵀ Π = Q R (nu × nu)
  RowsxRows T;   ///< R₁₁⁻¹ R₁₂ (ρ × (m − ρ))
  NVMatrix A;    ///< P H Pᵀ Q₂ (nu × (nu − ρ))
  NVMatrix ZAZ;  ///< Q₂ᵀ P H Pᵀ Q₂
  detail::UnblockedLLT<NVMatrix> ZAZ_llt;
  NVxRows Dp;  ///< S Gᵀ Π (na × m)
  NVxRows N;   ///< internal-force directions' effect on τₐ (na × (m − ρ)); relaxed: Mᵀ
  detail::UnblockedColPivHouseholderQR<NVxRows> N_qr;
  RowsxNV K;  ///< relaxed: the constraint rows on u alone ((m − ρ) × na)
  RowVector c, mu, h;
  NVVector u, w, z, e, y;
  TangentVector x = TangentVector::Zero(), f = TangentVector::Zero();
};

namespace detail {

/// Lists of actuated / unactuated indices.
template <class ModelT, class S, int NV, int MR>
void idc_indices(const Actuation<ModelT>& act, InverseDynamicsWorkspace<S, NV, MR>& iw) {
  iw.na = 0;
  iw.nu = 0;
  for (int k = 0; k < NV; ++k) {
    if (act.actuated[static_cast<std::size_t>(k)]) iw.act[static_cast<std::size_t>(iw.na++)] = k;
    else iw.un[static_cast<std::size_t>(iw.nu++)] = k;
  }
}

/// P Gᵀ Π = Q R (column-pivoted, rank ρ), Q formed, T = R₁₁⁻¹ R₁₂.
template <class S, int NV, int MR, class GM>
void idc_prepare(const GM& G, S tol, InverseDynamicsWorkspace<S, NV, MR>& iw) {
  const int m = static_cast<int>(G.rows());
  const int nu = iw.nu;
  iw.Bt.resize(nu, m);
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < m; ++j) iw.Bt(i, j) = G(j, iw.un[static_cast<std::size_t>(i)]);
  iw.Bt_qr.setThreshold(tol);
  iw.Bt_qr.compute(iw.Bt);
  iw.rank = (nu > 0 && m > 0) ? static_cast<int>(iw.Bt_qr.rank()) : 0;
  iw.Bt_qr.form_q(iw.Qb);
  const int r = iw.rank, p = m - r;
  iw.T.resize(r, p);
  for (int j = 0; j < p; ++j) {
    for (int i = 0; i < r; ++i) iw.T(i, j) = iw.Bt_qr.qr(i, r + j);
    solve_upper_in_place(iw.Bt_qr.qr, iw.T.col(j));
  }
}

/// x ← R₁₁⁻ᵀ x on the first n entries (forward substitution with the transpose of the upper
/// triangle of `R`).
template <class M, class X>
void solve_upper_transpose_in_place(const M& R, X&& x, Eigen::Index n) {
  using S = typename M::Scalar;
  for (Eigen::Index i = 0; i < n; ++i) {
    S v = x.coeff(i);
    for (Eigen::Index k = 0; k < i; ++k) v -= R.coeff(k, i) * x.coeff(k);
    x.coeffRef(i) = v / R.coeff(i, i);
  }
}

template <class S>
S idc_feasibility_tolerance() {
  using std::sqrt;
  return sqrt(Eigen::NumTraits<S>::epsilon());
}

/// The q̈ part of the exact problem for given actuated accelerations u (iw.u, na entries):
/// iw.x = q̈. Needs data.H, cs.C, cs.G, cs.gamma and idc_prepare.
template <class ModelT, int MR, int MC, class S, int NV>
Status idc_accelerations(const Data<ModelT>& data, const ConstraintSet<ModelT, MR, MC>& cs,
                         InverseDynamicsWorkspace<S, NV, MR>& iw) {
  using std::abs;
  const auto& G = cs.G;
  const auto& H = data.H;
  const int m = static_cast<int>(G.rows()), na = iw.na, nu = iw.nu, r = iw.rank, p = m - r, k = nu - r;
  const auto& R = iw.Bt_qr.qr;
  // c = Πᵀ (γ − G Sᵀ u)
  iw.c.resize(m);
  S scale = S(1);
  for (int j = 0; j < m; ++j) {
    S v = cs.gamma(j), mag = abs(cs.gamma(j));
    for (int a = 0; a < na; ++a) {
      const S t = G(j, iw.act[static_cast<std::size_t>(a)]) * iw.u(a);
      v -= t;
      mag += abs(t);
    }
    iw.c(j) = v;
    scale = mag > scale ? mag : scale;
  }
  iw.Bt_qr.apply_pt(iw.c);
  // the m − ρ rows of the constraints that the unactuated coordinates cannot meet
  for (int j = 0; j < p; ++j) {
    S res = iw.c(r + j);
    for (int i = 0; i < r; ++i) res -= iw.T(i, j) * iw.c(i);
    if (!(abs(res) <= idc_feasibility_tolerance<S>() * scale)) return Status::singular;
  }
  // R₁₁ᵀ a = c₁;  w = Q₁ a + Q₂ z
  solve_upper_transpose_in_place(R, iw.c, r);
  iw.w.setZero(nu);
  for (int i = 0; i < nu; ++i)
    for (int l = 0; l < r; ++l) iw.w(i) += iw.Qb(i, l) * iw.c(l);
  if (k > 0) {
    // (Q₂ᵀ P H Pᵀ Q₂) z = Q₂ᵀ (−P C − P H Sᵀ u − P H Pᵀ w₁)
    iw.e.resize(nu);
    for (int i = 0; i < nu; ++i) {
      const int ui = iw.un[static_cast<std::size_t>(i)];
      S v = -cs.C(ui);
      for (int a = 0; a < na; ++a) v -= H(ui, iw.act[static_cast<std::size_t>(a)]) * iw.u(a);
      for (int l = 0; l < nu; ++l) v -= H(ui, iw.un[static_cast<std::size_t>(l)]) * iw.w(l);
      iw.e(i) = v;
    }
    iw.A.resize(nu, k);
    for (int i = 0; i < nu; ++i)
      for (int l = 0; l < k; ++l) {
        S v = S(0);
        for (int t = 0; t < nu; ++t)
          v += H(iw.un[static_cast<std::size_t>(i)], iw.un[static_cast<std::size_t>(t)]) * iw.Qb(t, r + l);
        iw.A(i, l) = v;
      }
    iw.ZAZ.resize(k, k);
    for (int i = 0; i < k; ++i)
      for (int l = 0; l < k; ++l) {
        S v = S(0);
        for (int t = 0; t < nu; ++t) v += iw.Qb(t, r + i) * iw.A(t, l);
        iw.ZAZ(i, l) = v;
      }
    iw.ZAZ_llt.compute(iw.ZAZ);
    if (iw.ZAZ_llt.info() != Eigen::Success ||
        !pivots_ok(iw.ZAZ_llt.matrixLLT().diagonal(), std::sqrt(cs.ws.pivot_tolerance)))
      return Status::singular;
    iw.z.setZero(k);
    for (int l = 0; l < k; ++l)
      for (int t = 0; t < nu; ++t) iw.z(l) += iw.Qb(t, r + l) * iw.e(t);
    iw.ZAZ_llt.solveInPlace(iw.z);
    for (int i = 0; i < nu; ++i)
      for (int l = 0; l < k; ++l) iw.w(i) += iw.Qb(i, r + l) * iw.z(l);
  }
  for (int a = 0; a < na; ++a) iw.x(iw.act[static_cast<std::size_t>(a)]) = iw.u(a);
  for (int i = 0; i < nu; ++i) iw.x(iw.un[static_cast<std::size_t>(i)]) = iw.w(i);
  return Status::ok;
}

/// λ and τ for the generalized force iw.f = H q̈ + C that the actuators and the constraints
/// must supply: P f = P Gᵀ λ (checked: singular if P f is not in range(P Gᵀ)), and among those
/// λ the one with minimum ‖S (f − Gᵀ λ)‖₂. λ into `lambda` (m rows), τ into `tau`.
template <class S, int NV, int MR, class GM, class Lambda, class Tau>
Status idc_forces(const GM& G, S pivot_tolerance, InverseDynamicsWorkspace<S, NV, MR>& iw, Lambda& lambda, Tau& tau) {
  using std::abs;
  const int m = static_cast<int>(G.rows()), na = iw.na, nu = iw.nu, r = iw.rank, p = m - r;
  const auto& R = iw.Bt_qr.qr;
  // σ = Qᵀ P f; its last nu − ρ entries must vanish
  S scale = S(1);
  for (int i = 0; i < NV; ++i) scale = abs(iw.f(i)) > scale ? abs(iw.f(i)) : scale;
  iw.e.setZero(nu);
  for (int i = 0; i < nu; ++i)
    for (int t = 0; t < nu; ++t) iw.e(i) += iw.Qb(t, i) * iw.f(iw.un[static_cast<std::size_t>(t)]);
  for (int i = r; i < nu; ++i)
    if (!(abs(iw.e(i)) <= idc_feasibility_tolerance<S>() * scale)) return Status::singular;
  // μ = Πᵀ λ = [μ₁; μ₂], R₁₁ μ₁ + R₁₂ μ₂ = σ₁
  iw.mu.setZero(m);
  for (int i = 0; i < r; ++i) iw.mu(i) = iw.e(i);
  solve_upper_in_place(R, iw.mu.head(r));  // μ₁⁰ = R₁₁⁻¹ σ₁
  if (p > 0) {
    // S Gᵀ Π
    iw.Dp.resize(na, m);
    for (int a = 0; a < na; ++a)
      for (int j = 0; j < m; ++j) iw.Dp(a, j) = G(j, iw.act[static_cast<std::size_t>(a)]);
    for (Eigen::Index t = 0; t < iw.Bt_qr.transpositions.size(); ++t)
      if (iw.Bt_qr.transpositions(t) != t) iw.Dp.col(t).swap(iw.Dp.col(iw.Bt_qr.transpositions(t)));
    // τₐ = S f − S Gᵀ Π μ = e − N μ₂ with N = D₂ − D₁ T, e = S f − D₁ μ₁⁰
    iw.N.resize(na, p);
    for (int a = 0; a < na; ++a)
      for (int j = 0; j < p; ++j) {
        S v = iw.Dp(a, r + j);
        for (int i = 0; i < r; ++i) v -= iw.Dp(a, i) * iw.T(i, j);
        iw.N(a, j) = v;
      }
    iw.y.resize(na);
    for (int a = 0; a < na; ++a) {
      S v = iw.f(iw.act[static_cast<std::size_t>(a)]);
      for (int i = 0; i < r; ++i) v -= iw.Dp(a, i) * iw.mu(i);
      iw.y(a) = v;
    }
    // μ₂ = argmin ‖e − N μ₂‖: N Π_N = Q_N R_N, full column rank p (G of full row rank)
    iw.N_qr.setThreshold(pivot_tolerance);
    iw.N_qr.compute(iw.N);
    if (na < p || iw.N_qr.rank() < p) return Status::singular;
    iw.N_qr.apply_qt(iw.y, p);
    solve_upper_in_place(iw.N_qr.qr, iw.y.head(p));
    iw.h = iw.y.head(p);
    iw.N_qr.apply_p(iw.h);
    for (int j = 0; j < p; ++j) iw.mu(r + j) = iw.h(j);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < p; ++j) iw.mu(i) -= iw.T(i, j) * iw.mu(r + j);
  }
  iw.Bt_qr.apply_p(iw.mu);  // λ = Π μ
  lambda = iw.mu;
  tau.setZero();
  for (int a = 0; a < na; ++a) {
    const int ka = iw.act[static_cast<std::size_t>(a)];
    S v = iw.f(ka);
    for (int j = 0; j < m; ++j) v -= G(j, ka) * iw.mu(j);
    tau(ka) = v;
  }
  return Status::ok;
}

/// Relaxed variant, step 1: iw.u ← the actuated accelerations closest to u_des (W-norm) that
/// the constraints admit: minimise ‖u − u_des‖²_W s.t. K u = k, K = [−Tᵀ I] Πᵀ G Sᵀ,
/// k = [−Tᵀ I] Πᵀ γ. Needs idc_prepare; iw.u holds u_des on entry.
template <class S, int NV, int MR, class GM, class Gv, class Wv>
Status idc_project(const GM& G, const Gv& gamma, const Wv& weights, S pivot_tolerance,
                   InverseDynamicsWorkspace<S, NV, MR>& iw) {
  using std::sqrt;
  const int m = static_cast<int>(G.rows()), na = iw.na, r = iw.rank, p = m - r;
  if (p == 0) return Status::ok;
  if (na < p) return Status::singular;  // K has full row rank p when G has: never here then
  // rows of Πᵀ [G Sᵀ  γ], then [−Tᵀ I]
  iw.K.resize(p, na);
  iw.h.resize(p);
  iw.c.resize(m);
  for (int a = 0; a <= na; ++a) {
    for (int j = 0; j < m; ++j) iw.c(j) = a < na ? G(j, iw.act[static_cast<std::size_t>(a)]) : gamma(j);
    iw.Bt_qr.apply_pt(iw.c);
    for (int j = 0; j < p; ++j) {
      S v = iw.c(r + j);
      for (int i = 0; i < r; ++i) v -= iw.T(i, j) * iw.c(i);
      if (a < na) iw.K(j, a) = v;
      else iw.h(j) = v;
    }
  }
  // h = k − K u_des;  M = K W^{-1/2};  min ‖y‖ s.t. M y = h;  u = u_des + W^{-1/2} y
  for (int j = 0; j < p; ++j)
    for (int a = 0; a < na; ++a) iw.h(j) -= iw.K(j, a) * iw.u(a);
  iw.N.resize(na, p);
  for (int a = 0; a < na; ++a) {
    const S s = S(1) / sqrt(weights(iw.act[static_cast<std::size_t>(a)]));
    for (int j = 0; j < p; ++j) iw.N(a, j) = iw.K(j, a) * s;
  }
  iw.N_qr.setThreshold(pivot_tolerance);
  iw.N_qr.compute(iw.N);  // Mᵀ Π_M = Q_M R_M
  if (iw.N_qr.rank() < p) return Status::singular;
  // R_Mᵀ (Q_Mᵀ y) = Π_Mᵀ h; minimum norm: Q_Mᵀ y = [R_M⁻ᵀ Π_Mᵀ h; 0]
  iw.N_qr.apply_pt(iw.h);
  solve_upper_transpose_in_place(iw.N_qr.qr, iw.h, p);
  iw.y.setZero(na);
  for (int j = 0; j < p; ++j) iw.y(j) = iw.h(j);
  for (int t = p - 1; t >= 0; --t)
    apply_householder_left(iw.y.tail(na - t), iw.N_qr.qr.col(t).tail(na - t - 1), iw.N_qr.h(t));
  for (int a = 0; a < na; ++a) iw.u(a) += iw.y(a) / sqrt(weights(iw.act[static_cast<std::size_t>(a)]));
  return Status::ok;
}

template <class ModelT, int MR, int MC, class Tau, class Out>
Status idc_finish(Status s, ConstraintSet<ModelT, MR, MC>& cs, const typename ModelT::TangentVector& x, Tau& tau,
                  Out* ddq) {
  if (s == Status::ok && !(all_finite(x) && all_finite(tau) && all_finite(cs.lambda))) s = Status::overflow;
  (void)record_status(cs, s);  // cs.failure(): why, as the forward solvers
  if (s != Status::ok) {
    tau.setZero();
    if (ddq) ddq->setZero();
    cs.lambda.setZero(cs.active_rows());
    return s;
  }
  if (ddq) *ddq = x;
  return Status::ok;
}

template <class ModelT, int MR, int MC, class Q, class V, class A, class Tau, class Out, bool Relaxed, class Wv>
Status idc_solve(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                 const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v, const Eigen::MatrixBase<A>& ddq_desired,
                 const Actuation<ModelT>& actuation, const Wv* weights, Tau& tau, Out& ddq,
                 InverseDynamicsWorkspace<typename ModelT::Scalar, ModelT::nv, MR>& iw,
                 const ExternalForces<ModelT>* fext, std::bool_constant<Relaxed>) {
  using S = typename ModelT::Scalar;
  static_assert(Tau::RowsAtCompileTime == Eigen::Dynamic || Tau::RowsAtCompileTime == ModelT::nv,
                "talus: tau must have nv rows (the model's velocity size)");
  iw.x.setZero();
  if constexpr (Tau::RowsAtCompileTime == Eigen::Dynamic) tau.setZero(ModelT::nv);
  detail::idc_indices(actuation, iw);
  Status s = detail::check_constraint_inputs(model, cs, q, v);
  if (s == Status::ok && !detail::tangent_input_valid<ModelT>(ddq_desired)) s = Status::invalid_input;
  if constexpr (Relaxed) {
    if (s == Status::ok && !detail::tangent_input_valid<ModelT>(*weights)) s = Status::invalid_input;
    for (int a = 0; s == Status::ok && a < iw.na; ++a) {
      const S wa = (*weights)(iw.act[static_cast<std::size_t>(a)]);
      if (!(wa >= S(1e-9) && wa <= S(1e9))) s = Status::invalid_input;
    }
  }
  if (s == Status::ok) s = compute_constrained_system(model, data, cs, q, v, fext);
  if (s != Status::ok) return idc_finish(s, cs, iw.x, tau, &ddq);
  idc_prepare(cs.G, cs.ws.pivot_tolerance, iw);
  iw.u.resize(iw.na);
  for (int a = 0; a < iw.na; ++a) iw.u(a) = ddq_desired(iw.act[static_cast<std::size_t>(a)]);
  if constexpr (Relaxed) s = idc_project(cs.G, cs.gamma, *weights, cs.ws.pivot_tolerance, iw);
  if (s == Status::ok) s = idc_accelerations(data, cs, iw);
  if (s == Status::ok) {
    iw.f.noalias() = data.H.lazyProduct(iw.x);  // coefficient-wise (linalg/householder.hpp: no GEMV kernel)
    iw.f += cs.C;
    s = idc_forces(cs.G, cs.ws.pivot_tolerance, iw, cs.lambda, tau);
  }
  if (s != Status::ok) iw.x.setZero();
  return idc_finish(s, cs, iw.x, tau, &ddq);
}
}  // namespace detail

/// Constrained inverse dynamics, exact: the actuated entries of q̈ equal those of q̈_des
/// (the unactuated entries of q̈_des are ignored). Outputs τ (zero on unactuated
/// coordinates), q̈ (the full acceleration: the unactuated entries follow from the
/// constraints and the dynamics) and cs.lambda. See the file comment for the equations,
/// the choice of λ when it is not unique and the Status values. fext: external forces on
/// the bodies (body frames), as in forward dynamics.
template <class ModelT, int MR, int MC, class Q, class V, class A, class Tau, class Out>
Status inverse_dynamics_constrained(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                    const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                    const Eigen::MatrixBase<A>& ddq_desired, const Actuation<ModelT>& actuation,
                                    Tau& tau, Out& ddq,
                                    InverseDynamicsWorkspace<typename ModelT::Scalar, ModelT::nv, MR>& ws,
                                    const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(inverse_dynamics_constrained, ModelT, q, v, ddq_desired, ddq);
  TALUS_ASSERT_TANGENT_OUT(inverse_dynamics_constrained, ModelT, tau);
  if constexpr (!(detail::entry_sizes_ok<ModelT, Q, Out, V, A>() && detail::holds_size<Tau, ModelT::nv>()))
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  else
    return detail::idc_solve(model, data, cs, q, v, ddq_desired, actuation,
                             static_cast<const typename ModelT::TangentVector*>(nullptr), tau, ddq, ws, fext,
                             std::bool_constant<false>{});
}

/// Constrained inverse dynamics, relaxed: the actuated accelerations closest to q̈_des in
/// the norm Σₖ weightsₖ (q̈ₖ − q̈_des,ₖ)² over the actuated k (weights in [1e-9, 1e9]; the
/// unactuated entries are ignored) that the constraints admit, then as the exact variant.
template <class ModelT, int MR, int MC, class Q, class V, class A, class Wt, class Tau, class Out>
Status inverse_dynamics_constrained_relaxed(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                            const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                            const Eigen::MatrixBase<A>& ddq_desired, const Actuation<ModelT>& actuation,
                                            const Eigen::MatrixBase<Wt>& weights, Tau& tau, Out& ddq,
                                            InverseDynamicsWorkspace<typename ModelT::Scalar, ModelT::nv, MR>& ws,
                                            const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(inverse_dynamics_constrained_relaxed, ModelT, q, v, ddq_desired, ddq);
  TALUS_ASSERT_TANGENT(inverse_dynamics_constrained_relaxed, ModelT, weights);
  TALUS_ASSERT_TANGENT_OUT(inverse_dynamics_constrained_relaxed, ModelT, tau);
  if constexpr (!(detail::entry_sizes_ok<ModelT, Q, Out, V, A, Wt>() && detail::holds_size<Tau, ModelT::nv>()))
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  else
    return detail::idc_solve(model, data, cs, q, v, ddq_desired, actuation, &weights, tau, ddq, ws, fext,
                             std::bool_constant<true>{});
}

/// Torques that hold the mechanism at rest at q (q̇ = 0, q̈ = 0): g(q) = Sᵀ τₐ + Gᵀ λ with
/// minimum ‖τₐ‖₂; λ into cs.lambda, cs.C = g(q), cs.G at q. singular if the constraints
/// cannot hold the unactuated coordinates (file comment).
template <class ModelT, int MR, int MC, class Q, class Tau>
Status static_equilibrium_torques(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                  const Eigen::MatrixBase<Q>& q, const Actuation<ModelT>& actuation, Tau& tau,
                                  InverseDynamicsWorkspace<typename ModelT::Scalar, ModelT::nv, MR>& ws) {
  TALUS_ASSERT_CONFIG(static_equilibrium_torques, ModelT, q);
  TALUS_ASSERT_TANGENT_OUT(static_equilibrium_torques, ModelT, tau);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Tau>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    using TV = typename ModelT::TangentVector;
    ws.x.setZero();
    if constexpr (Tau::RowsAtCompileTime == Eigen::Dynamic) tau.setZero(ModelT::nv);
    detail::idc_indices(actuation, ws);
    Status s = detail::check_constraint_inputs(model, cs, q);
    if (s == Status::ok) s = compute_constraint_jacobian(model, data, cs, q);
    if (s == Status::ok) s = generalized_gravity(model, data, q, cs.C);
    if (s == Status::ok) {
      detail::idc_prepare(cs.G, cs.ws.pivot_tolerance, ws);
      ws.f = cs.C;
      s = detail::idc_forces(cs.G, cs.ws.pivot_tolerance, ws, cs.lambda, tau);
    }
    return detail::idc_finish(s, cs, ws.x, tau, static_cast<TV*>(nullptr));
  }
}

}  // namespace talus
