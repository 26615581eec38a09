#pragma once
/// \file forward_dynamics_constrained_aba.hpp
/// Constrained ABA: constrained forward dynamics with the constraints folded into the
/// articulated-body algorithm's passes (Sathya & Carpentier, "Constrained articulated body
/// dynamics algorithms", 2024; Pinocchio 3's constrainedABA / lcaba), cost O(nb + m) per
/// iteration. The system is the one every method solves (forward_dynamics_constrained.hpp):
///
///     H q̈ + C = τ + Gᵀ λ,     G q̈ = γ
///
/// solved by the proximal method of multipliers of forward_dynamics_proximal.hpp (same
/// ProximalSettings, ProximalReport, iterates and stopping rule; redundant sets get the unique
/// q̈ and the minimum-norm λ), but each proximal step is one ABA on the penalised system
/// instead of a solve with G H⁻¹ Gᵀ. Step k (λ₀ = 0) is the KKT system
/// [H −Gᵀ; G μI] [q̈ₖ; λₖ] = [τ − C; γ + μ λₖ₋₁]; eliminating λₖ:
///
///     (H + Gᵀ G / μ) q̈ₖ = τ − C + Gᵀ (λₖ₋₁ + γ / μ),     λₖ = λₖ₋₁ + (γ − G q̈ₖ) / μ,
///
/// and then H q̈ₖ + C = τ + Gᵀ λₖ holds exactly: (q̈ₖ, λₖ) is the proximal method's iterate.
///
/// Folding (Featherstone notation, body frames, [angular; linear]). Every supported row k acts
/// on one body b: G_k = f_kᵀ J_b, with f_k a spatial force on b (body frame) and J_b the body's
/// Jacobian (its spatial velocity v_b = J_b q̇). So Gᵀ G / μ = Σ_b J_bᵀ K_b J_b with
/// K_b = Σ_{k on b} f_k f_kᵀ / μ: a 6 × 6 inertia added to body b, which ABA's backward pass
/// folds into I^A as it folds I_b. ABA sees body accelerations a_b = J_b q̈ + c̄_b (c̄_b: a_b at
/// q̈ = 0, gravity as the fictitious base acceleration, as ABA), so K_b a_b adds J_bᵀ K_b c̄_b,
/// which the bias force takes back. Per row, with the row's target for a_b
///
///     γ̄_k = γ_k + f_kᵀ c̄_b          (G_k q̈ = γ_k  ⇔  f_kᵀ a_b = γ̄_k),
///
///     I^A_b += Σ_k f_k f_kᵀ / μ,      p^A_b −= Σ_k f_k (λ_k + γ̄_k / μ),      r_k = γ̄_k − f_kᵀ a_b.
///
/// Rows that fold (f_k in the body frame; R_b = ᵒR_b, p = a point in b):
///   contact          n_k = R_bᵀ n_k,world at the contact point c:    f_k = [c × n; n]
///   contact_6d       axis n = F's axis (local) or R_bᵀ e_k (local_world_aligned): angular rows
///                    f_k = [n; 0], linear rows [p_F × n; n] (p_F: F's origin in b)
///   loop, world → b  (predecessor the world): axis a = [a_ω; a_v] in P's axes, n_ω = R_bᵀ P_R a_ω,
///                    n_v = R_bᵀ P_R a_v, s = S's origin in b:     f_k = [n_ω + s × n_v; n_v]
///   loop, b → world  (successor the world): n_ω = P_R a_ω, n_v = P_R a_v (P_R: P in b),
///                    x = R_bᵀ (p_S − p_b):                         f_k = −[n_ω + x × n_v; n_v]
/// A loop between two bodies and custom rows do not fold (their rows act on two bodies, or
/// are arbitrary): invalid_input with FailureReason::kind_not_supported naming the first such
/// active constraint (use forward_dynamics_proximal or _articulated for them).
///
/// Steps:
///   1. one forward sweep: placements, world Jacobian columns, v, c, I^A = I, p^A, a at q̈ = 0
///      (ABA's first pass; detail::articulated_forward);
///   2. the rows: G, γ (with Baumgarte where enabled), errors (constraint_rows), for cs.G and
///      the stopping rule's scale; then f_k, γ̄_k, and the penalty folded into I^A_b, p^A_b;
///   3. ABA's backward pass (U, D⁻¹, u, I^A, p^A) and forward pass: q̈₁, a_b, r, λ₁ = r / μ;
///   4. while ‖r‖∞ > tolerance and k < max_iterations: the inertias do not change with λ, so
///      the next iterate is the last one plus the response to the force change Gᵀ (λₖ − λₖ₋₁):
///      a bias-only backward sweep (u_i = −S_iᵀ p_i, p_λ(i) += λX_i* (p_i + U_i D_i⁻¹ u_i)) over
///      the forces f_k Δλ_k and a forward sweep without c and gravity, added to q̈ and a; then r
///      and λ += r / μ.
/// Stopping rule (forward_dynamics_proximal's): ok when ‖G q̈ − γ‖∞ ≤ absolute_accuracy +
/// relative_accuracy · s, s = ‖γ‖∞ + ‖ |G| |q̈₁| ‖∞ (the proximal method takes q̈₀ = H⁻¹(τ − C),
/// which this one never computes; q̈₁ is the first penalised answer), residual as r above
/// (f_kᵀ a_b − γ̄_k = G_k q̈ − γ_k: O(m), not m × nv).
///
/// Choice of μ: convergence as the proximal method, the error × μ/(σ + μ) per iteration (σ the
/// smallest non-zero eigenvalue of G H⁻¹ Gᵀ). Unlike the proximal method's, this factorization
/// sees 1/μ: ABA eliminates articulated inertias of size ‖f‖²/μ against the bodies' own, so
/// the rounding of q̈ grows like eps/μ (in 1/kg units: μ = 1e-8 leaves ~1e-8 relative error,
/// μ = 1e-3 ~1e-11 on solo12, 1e-12 on anymal_c and talos, with more iterations: 4-10, at most
/// 14 in tests/constraints/proximal_test.cpp). constrained_aba_settings<S>() gives the values the
/// tests use (μ = 1e-3, absolute 1e-12, relative 1e-14, 60 iterations at most).
///
/// Results: q̈ into ddq, λ (active rows, minimum norm for a redundant set) into cs.lambda, cs.G,
/// cs.gamma and the errors as used; data.ddq, data.a_gf at the returned q̈; data.IA, data.pA
/// hold the penalised quantities. Not computed: data.H, data.L, cs.C.
/// Cost: O(nb) for the sweeps, O(m · depth) for G (cs.G and the scale only), O(m) per row
/// fold; each further iteration two O(nb) sweeps without any 6 × 6 product (U, D⁻¹ reused)
/// plus O(m). No m × m or nv × nv matrix is formed or factored. No heap (the set's workspace and
/// fixed-size locals); at most max_iterations iterations.
///
/// compute_impulse_constrained_aba (end of the file) solves the impulse system the same way.
///
/// Status (q̈ and λ zero unless ok; cs.failure() records why):
///   invalid_input  the settings (as forward_dynamics_proximal: input_invalid); q, q̇, τ, fext,
///                  an unbound set (as the other solvers); a constraint that does not fold
///                  (kind_not_supported, with its index and kind);
///   singular       some D_i not positive definite (a massless subtree without a constraint);
///   not_converged  max_iterations reached (an inconsistent set, or μ too large for the cap);
///   overflow       λ or q̈ not finite.
/// The report as forward_dynamics_proximal's (filled for ok and not_converged). No active rows:
/// q̈ = ABA's, ok, zero iterations.
#include <array>

#include <talus/solvers/forward_dynamics_articulated.hpp>
#include <talus/solvers/forward_dynamics_proximal.hpp>

namespace talus {

/// Settings for forward_dynamics_constrained_aba: the proximal ones with μ = 1e-3 (the
/// factorization sees 1/μ; file comment) and room for the iterations that μ costs.
template <class S>
ProximalSettings<S> constrained_aba_settings() {
  ProximalSettings<S> p;
  p.mu = S(1e-3);
  p.absolute_accuracy = S(1e-12);
  p.relative_accuracy = S(1e-14);
  p.max_iterations = 60;
  return p;
}

namespace detail {

/// Whether every active constraint's rows act on one body (file comment: contacts, 6D
/// contacts, loops with one side the world); else records kind_not_supported.
template <class ModelT, int MR, int MC>
Status check_foldable(const ConstraintSet<ModelT, MR, MC>& cs) {
  for (int c = 0; c < cs.size(); ++c) {
    if (!cs.is_active(c)) continue;
    const auto& e = cs.constraint(c);
    const bool one_world_side = e.kind == ConstraintKind::loop && ((e.body[0] < 0) != (e.body[1] < 0));
    if (e.kind == ConstraintKind::contact || e.kind == ConstraintKind::contact_6d || one_world_side) continue;
    return cs.record_failure(Status::invalid_input, FailureReason::kind_not_supported, c, e.kind);
  }
  return Status::ok;
}

/// The active rows as spatial forces on their bodies: row k is G_k = f[k]ᵀ J_{body[k]}.
template <class S, int MR>
struct FoldedRows {
  std::array<Force<S>, MR> f;
  std::array<int, MR> body;
};

/// FoldedRows of the active constraints (file comment, "Rows that fold"). Needs data.oMi;
/// the set passed check_foldable.
template <class ModelT, int MR, int MC>
void fold_rows(const Data<ModelT>& data, const ConstraintSet<ModelT, MR, MC>& cs,
               FoldedRows<typename ModelT::Scalar, MR>& rows) {
  using S = typename ModelT::Scalar;
  for (int c = 0; c < cs.size(); ++c) {
    const int r = cs.row_offset(c);
    if (r < 0) continue;
    const auto& e = cs.constraint(c);
    const bool pred_world = e.kind == ConstraintKind::loop && e.body[0] < 0;
    const int b = pred_world ? e.body[1] : e.body[0];
    const Matrix3<S> Rt = data.oMi[b].R.transpose();
    for (int j = 0; j < e.rows; ++j) {
      Force<S> fk = Force<S>::Zero();
      if (e.kind == ConstraintKind::contact) {
        const Vector3<S> n = Rt * e.axis[j].template tail<3>();
        fk.template head<3>() = e.point.cross(n);
        fk.template tail<3>() = n;
      } else if (e.kind == ConstraintKind::contact_6d) {
        const int k = j % 3;
        const Vector3<S> n = e.rows6d == ContactFrame6D::local ? Vector3<S>(e.frame[0].R.col(k))
                                                               : Vector3<S>(Rt.col(k));
        if (j < 3) {
          fk.template head<3>() = n;
        } else {
          fk.template head<3>() = e.frame[0].p.cross(n);
          fk.template tail<3>() = n;
        }
      } else {  // a loop with one side the world: rows in P's axes at S's origin
        const Vector3<S> aw = e.axis[j].template head<3>(), av = e.axis[j].template tail<3>();
        if (pred_world) {  // P fixed in the world, S on b
          const Matrix3<S> RtP = Rt * e.frame[0].R;
          const Vector3<S> nv = RtP * av;
          fk.template head<3>() = RtP * aw + e.frame[1].p.cross(nv);
          fk.template tail<3>() = nv;
        } else {  // P on b, S fixed in the world: minus the velocity of b's point at S
          const Vector3<S> nv = e.frame[0].R * av;
          const Vector3<S> x = Rt * (e.frame[1].p - data.oMi[b].p);
          fk.template head<3>() = -(e.frame[0].R * aw + x.cross(nv));
          fk.template tail<3>() = -nv;
        }
      }
      rows.f[r + j] = fk;
      rows.body[r + j] = b;
    }
  }
}

/// Row targets γ̄_k = γ_k + f_kᵀ c̄_b (into gbar) and the penalty of λ₀ = 0 folded into the
/// bodies: I^A_b += f fᵀ / μ, p^A_b −= f γ̄ / μ. Needs data.a (q̈ = 0, no gravity) and oMi;
/// a_world is the base acceleration ABA's forward pass starts from (linear: gravity or zero).
template <class ModelT, class S, int MR, class Gv, class Gb>
void fold_penalty(Data<ModelT>& data, const FoldedRows<S, MR>& rows, const Gv& gamma, const Motion<S>& a_world,
                  S inv_mu, Gb& gbar) {
  const auto& f = rows.f;
  const auto& body = rows.body;
  const Vector3<S> g_world = a_world.template tail<3>();  // gravity's fictitious base acceleration, or zero
  for (int k = 0; k < gamma.size(); ++k) {
    const int b = body[k];
    Motion<S> cbar = data.a[b];  // c̄_b: a_b at q̈ = 0 with ABA's fictitious base acceleration
    cbar.template tail<3>() += data.oMi[b].R.transpose() * g_world;
    gbar[k] = gamma[k] + f[k].dot(cbar);
    data.IA[b].noalias() += (inv_mu * f[k]) * f[k].transpose();
    data.pA[b] -= (inv_mu * gbar[k]) * f[k];
  }
}

/// r_k = γ̄_k − f_kᵀ a_b at the accelerations in data.a_gf; returns ‖r‖∞.
template <class ModelT, class S, int MR, class Gb, class R>
S folded_residual(const Data<ModelT>& data, const FoldedRows<S, MR>& rows, const Gb& gbar, R& r) {
  const auto& f = rows.f;
  const auto& body = rows.body;
  using std::abs;
  S rmax = S(0);
  for (int k = 0; k < gbar.size(); ++k) {
    r[k] = gbar[k] - f[k].dot(data.a_gf[body[k]]);
    const S a = abs(r[k]);
    rmax = a > rmax || a != a ? a : rmax;  // NaN propagates
  }
  return rmax;
}

/// The response to forces f_k Δλ_k (Δλ_k = r_k / μ) on their bodies through the penalised
/// factorization already in data (U, D⁻¹, liMi): a bias-only backward sweep (no τ, no c),
/// over the bodies that carry a force, and a forward sweep from a zero base acceleration,
/// added to data.ddq and data.a_gf.
template <class ModelT, class S, int MR, class R>
void constrained_aba_increment(const ModelT& model, Data<ModelT>& data, const FoldedRows<S, MR>& rows, const R& r,
                               S inv_mu) {
  const auto& f = rows.f;
  const auto& body = rows.body;
  using Tree = typename ModelT::Tree;
  constexpr int nb = ModelT::nb;
  std::array<Force<S>, nb> p;
  std::array<bool, nb> loaded{};
  static_for<nb>([&](auto i) { p[decltype(i)::value].setZero(); });
  for (int k = 0; k < r.size(); ++k) {
    p[body[k]] -= (inv_mu * r[k]) * f[k];
    loaded[body[k]] = true;
  }
  typename ModelT::TangentVector u;
  static_for_reverse<nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    constexpr int nvi = J::nv;
    constexpr int iv = Tree::idx_v[I];
    if (!loaded[I]) {
      u.template segment<nvi>(iv).setZero();
      return;
    }
    const Eigen::Matrix<S, nvi, 1> ui = -J::template project<S>(model.axis[I], p[I]);
    u.template segment<nvi>(iv) = ui;
    if constexpr (P >= 0) {
      const Force<S> pa =
          p[I] + data.U.template middleCols<nvi>(iv) * (data.Dinv[I].template topLeftCorner<nvi, nvi>() * ui);
      p[P] += detail::parent_link<I>(data).act_force(pa);
      loaded[P] = true;
    }
  });
  std::array<Motion<S>, nb> da;
  static_for<nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    constexpr int nvi = J::nv;
    constexpr int iv = Tree::idx_v[I];
    Motion<S> ap = Motion<S>::Zero();
    if constexpr (P >= 0) ap = detail::parent_link<I>(data).inverse_act_motion(da[P]);
    const Eigen::Matrix<S, nvi, 1> dq =
        data.Dinv[I].template topLeftCorner<nvi, nvi>() *
        (u.template segment<nvi>(iv) - data.U.template middleCols<nvi>(iv).transpose() * ap);
    data.ddq.template segment<nvi>(iv) += dq;
    da[I] = ap + J::template motion<S>(model.axis[I], dq);
    data.a_gf[I] += da[I];
  });
}

/// Steps 2 (the fold) to 4 of the file comment on the sweep and rows already in data and cs,
/// for G x = gamma with ABA's forward pass from a_world. x = q̈ (or Δq̇ for an impulse),
/// cs.lambda = λ, report filled.
template <class ModelT, int MR, int MC, class T, class Gv>
Status constrained_aba_solve(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs, const T& tau,
                             const Gv& gamma, const Motion<typename ModelT::Scalar>& a_world,
                             const ProximalSettings<typename ModelT::Scalar>& settings,
                             typename ModelT::TangentVector& x, ProximalReport<typename ModelT::Scalar>& report) {
  using S = typename ModelT::Scalar;
  auto& ws = cs.ws;
  const int m = cs.active_rows();
  const S inv_mu = S(1) / settings.mu;
  FoldedRows<S, MR> rows;
  fold_rows(data, cs, rows);
  ws.qy.resize(m);  // γ̄
  fold_penalty(data, rows, gamma, a_world, inv_mu, ws.qy);
  if (!aba_backward<true>(model, data, tau)) return Status::singular;
  aba_accelerations<true>(model, data, data.u, a_world);  // q̈₁ (λ₀ = 0)
  cs.lambda.setZero(m);
  if (m == 0) {
    x = data.ddq;
    return all_finite(x) ? Status::ok : Status::overflow;
  }
  // s = ‖γ‖∞ + ‖ |G| |q̈₁| ‖∞
  ws.r = cs.G.cwiseAbs().lazyProduct(data.ddq.cwiseAbs());
  const S scale = gamma.cwiseAbs().maxCoeff() + ws.r.maxCoeff();
  report.tolerance = settings.absolute_accuracy + settings.relative_accuracy * scale;
  ws.r.resize(m);
  Status s = Status::not_converged;
  for (int k = 1; k <= settings.max_iterations; ++k) {
    if (k > 1) constrained_aba_increment(model, data, rows, ws.r, inv_mu);  // λₖ₋₁ − λₖ₋₂ = r / μ
    report.iterations = k;
    report.residual = folded_residual(data, rows, ws.qy, ws.r);
    report.lambda_step = report.residual * inv_mu;
    cs.lambda += inv_mu * ws.r;  // λₖ = λₖ₋₁ + (γ − G q̈ₖ) / μ
    if (!(all_finite(data.ddq) && all_finite(cs.lambda) && report.residual - report.residual == S(0))) {
      s = Status::overflow;
      break;
    }
    if (report.residual <= report.tolerance) {
      s = Status::ok;
      break;
    }
  }
  x = data.ddq;
  return s;
}

}  // namespace detail

/// Constrained ABA (file comment): q̈ into ddq, λ (minimum norm for a redundant set) into
/// cs.lambda, what the iteration did into report. Settings as forward_dynamics_proximal
/// (constrained_aba_settings<S>() for this method's μ).
template <class ModelT, int MR, int MC, class Q, class V, class T, class Out>
Status forward_dynamics_constrained_aba(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                        const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                        const Eigen::MatrixBase<T>& tau, Out& ddq,
                                        const ProximalSettings<typename ModelT::Scalar>& settings,
                                        ProximalReport<typename ModelT::Scalar>& report,
                                        const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_constrained_aba, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    report = ProximalReport<typename ModelT::Scalar>{};
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::proximal_settings_valid(settings)
                   ? Status::ok
                   : cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
    if (s == Status::ok) s = detail::check_tau(cs, tau);
    if (s == Status::ok) s = detail::check_constraint_inputs(model, cs, q, v);
    if (s == Status::ok && fext != nullptr && !detail::inputs_finite(*fext))
      s = cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
    if (s == Status::ok) s = detail::check_foldable(cs);
    if (s != Status::ok) {
      detail::zero_constraint_results(cs);
      return detail::finish_constrained(s, cs, x, ddq);
    }
    if (fext != nullptr) detail::articulated_forward<true, true>(model, data, q, v, fext);
    else detail::articulated_forward<true, false>(model, data, q, v, fext);
    if (!detail::constraint_rows(model, data, cs, q, v,
                                 detail::pass_jacobian | detail::pass_gamma | detail::pass_position_error |
                                     detail::pass_velocity_error)) {
      detail::zero_constraint_results(cs);
      return detail::finish_constrained(Status::invalid_input, cs, x, ddq);
    }
    s = detail::constrained_aba_solve(model, data, cs, tau, cs.gamma, gravity_acceleration(model), settings, x, report);
    if (s != Status::ok && s != Status::not_converged) report = ProximalReport<typename ModelT::Scalar>{};
    return detail::finish_constrained(s, cs, x, ddq, report.evidence());
  }
}

/// Impulse by constrained ABA: the impulse system of impulses.hpp, H (q̇⁺ − q̇⁻) = Gᵀ Λ,
/// G q̇⁺ = v⁺ (`target`, active rows; null for 0), solved for Δq̇ = q̇⁺ − q̇⁻ as the forward
/// problem above with no velocity, no gravity and no τ: (H + GᵀG/μ) Δq̇ₖ = Gᵀ(Λₖ₋₁ + γ/μ),
/// γ = v⁺ − G q̇⁻. q̇⁺ into v_plus, Λ (minimum norm for a redundant set) into cs.lambda; the
/// same kinds, settings (constrained_aba_settings), report and Status as
/// forward_dynamics_constrained_aba (an inconsistent target gives not_converged). Same cost
/// as one forward call at rest; no heap.
template <class ModelT, int MR, int MC, class Q, class V, class Out>
Status compute_impulse_constrained_aba(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                       const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
                                       const ProximalSettings<typename ModelT::Scalar>& settings,
                                       ProximalReport<typename ModelT::Scalar>& report,
                                       const typename ConstraintSet<ModelT, MR, MC>::RowVector* target = nullptr) {
  TALUS_CHECK_ENTRY_SIZES_QV(compute_impulse_constrained_aba, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    using S = typename ModelT::Scalar;
    report = ProximalReport<S>{};
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::proximal_settings_valid(settings)
                   ? Status::ok
                   : cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
    if (s == Status::ok) s = detail::check_constraint_inputs(model, cs, q, v_minus);
    if (s == Status::ok && target != nullptr && (target->size() != cs.active_rows() || !all_finite(*target)))
      s = cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
    if (s == Status::ok) s = detail::check_foldable(cs);
    if (s != Status::ok) {
      detail::zero_constraint_results(cs);
      return detail::finish_constrained(s, cs, x, v_plus);
    }
    const typename ModelT::TangentVector zero = ModelT::TangentVector::Zero();
    detail::articulated_forward<true, false>(model, data, q, zero, nullptr);  // v = c = p^A = a = 0
    if (!detail::constraint_rows(model, data, cs, q, zero, detail::pass_jacobian | detail::pass_position_error)) {
      detail::zero_constraint_results(cs);
      return detail::finish_constrained(Status::invalid_input, cs, x, v_plus);
    }
    typename ConstraintSet<ModelT, MR, MC>::RowVector gamma;
    if (target != nullptr) gamma = *target;
    else gamma.setZero(cs.active_rows());
    gamma.noalias() -= cs.G.lazyProduct(v_minus);
    s = detail::constrained_aba_solve(model, data, cs, zero, gamma, Motion<S>::Zero(), settings, x, report);
    if (s == Status::ok || s == Status::not_converged) x += v_minus;
    else report = ProximalReport<S>{};
    return detail::finish_constrained(s, cs, x, v_plus, report.evidence());
  }
}

}  // namespace talus
