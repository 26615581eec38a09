#pragma once
/// \file forward_dynamics_proximal.hpp
/// Constrained forward dynamics by the proximal method of multipliers (an augmented
/// Lagrangian on the constraint forces; Pinocchio's constraintDynamics with ProximalSettings).
/// Same system as forward_dynamics_constrained.hpp:
///
///     H q̈ + C = τ + Gᵀ λ,     G q̈ = γ
///
/// but G may be rank-deficient: redundant constraints (a box on four corner contacts, 12 rows
/// of rank 6; a contact added twice) leave λ non-unique and the direct, range-space and
/// null-space methods return `singular`. q̈ is still unique when the set is consistent (some q̈
/// satisfies G q̈ = γ); this method returns it, with the minimum-norm λ. compute_impulse_proximal
/// (end of the file) does the same for the impulse system of impulses.hpp (q̇⁺ and Λ).
///
/// Algorithm. With H = LᵀL along the tree (sparse_factorization.hpp), q̈₀ = H⁻¹(τ − C) and
/// D = G H⁻¹ Gᵀ (m × m, positive semi-definite; singular exactly when G is rank-deficient):
///
///     factor  D + μ I = R Rᵀ                once (unblocked LLT; SPD for every μ > 0)
///     λ₀ = 0
///     for k = 1 … max_iterations:
///         λₖ  = λₖ₋₁ + (D + μ I)⁻¹ (γ − G q̈(λₖ₋₁))       q̈(λ) = q̈₀ + H⁻¹ Gᵀ λ
///         stop (ok) when ‖G q̈(λₖ) − γ‖∞ ≤ absolute_accuracy + relative_accuracy · s,
///                   s = ‖γ‖∞ + ‖ |G| |q̈₀| ‖∞   (the size of the terms of G q̈₀ − γ)
///
/// Each step is the proximal-point step on λ: λₖ = argmin ½ λᵀDλ − λᵀ(γ − G q̈₀) + (μ/2)‖λ − λₖ₋₁‖²,
/// i.e. the KKT system [H Gᵀ; G −μI] [q̈; −λₖ] = [τ − C; γ − μ λₖ₋₁] that Pinocchio factors
/// (its contact Cholesky) and solves once per iteration. The update and the first stopping rule
/// are Pinocchio's (its absolute residual is ‖G q̈ − γ‖∞). Pinocchio's second rule,
/// ‖λₖ − λₖ₋₁‖∞ ≤ relative_accuracy, is the first one scaled by 1/μ (G q̈(λₖ) − γ = μ(λₖ₋₁ − λₖ)
/// exactly), so talus makes relative_accuracy relative to the size of the terms instead: the
/// rounding floor of the residual grows with s, and an absolute tolerance alone would turn a
/// solvable fast-moving system into not_converged.
///
/// Guarantees (exact arithmetic). Write r = γ − G q̈₀ and let σ be the smallest non-zero
/// eigenvalue of D. Consistent set (r in the range of D): the error λₖ − λ* (λ* the
/// minimum-norm solution of D λ = r) is multiplied by μ/(σ + μ) per iteration on the range of
/// D and stays zero on its null space (λ₀ = 0 has none), so λₖ → λ* and q̈(λₖ) → the unique q̈,
/// with residual ‖D(λₖ − λ*)‖ shrinking by μ/(σ + μ) per iteration. With the default μ = 1e-8
/// and a robot's σ (1/kg, 1/(kg·m²): 1e-3 … 1e2) two or three iterations reach 1e-10. A
/// non-redundant set gives the same q̈ and λ as the direct method.
/// Rounding: the factor of D + μI has condition ~‖D‖/μ, so λ's component along the null space
/// of D (which q̈ does not see) carries an error ~ eps·‖D‖/μ relative to ‖λ‖ (2e-8 for ‖D‖ ~ 1
/// in double); q̈ and the residual are accurate to rounding. μ must be ≫ eps·‖D‖ (in float:
/// μ ≳ 1e-4·‖D‖), else D + μI does not factor (singular), and ≪ σ, else convergence is slow.
/// Inconsistent set (no q̈ satisfies G q̈ = γ, e.g. two contacts on one point asking for
/// different accelerations): the residual cannot fall below the distance d of γ from the range
/// of G H⁻¹ Gᵀ (λ grows by ~d/μ per iteration along the null space), so the call returns
/// not_converged (or overflow if λ leaves the finite range) unless the tolerance exceeds d.
///
/// Cost: the range-space set-up (factorize_ltl, G L⁻¹, D: O(m·nv·depth + m²·nv), one m × m
/// LLT) plus per iteration one LLT solve (m²) and two m × nv products. No heap: everything
/// lives in the set's workspace (cs.ws.W = G L⁻¹, cs.ws.Z = H⁻¹ Gᵀ, cs.ws.Y / Y_llt = D + μI,
/// cs.ws.t = q̈₀, cs.ws.r = the residual, cs.ws.qy = the step); the loop runs at most
/// max_iterations times.
///
/// Status (q̈ and λ zero unless ok; cs.failure() records why, as for the other solvers):
///   invalid_input  settings: μ not finite or ≤ 0, an accuracy negative or not finite,
///                  max_iterations < 1 (FailureReason::input_invalid); and every input check of
///                  forward_dynamics_range_space (q, q̇, τ, fext, unbound set, custom rows);
///   singular       H not positive definite, or D + μI does not factor (μ too small for the
///                  precision of S);
///   not_converged  max_iterations reached (an inconsistent set, or μ too large for the cap);
///   overflow       λ or q̈ not finite.
/// The report is filled whenever the iteration ran (ok and not_converged): iterations done,
/// the residual ‖G q̈ − γ‖∞ of the last iterate (for not_converged: of the iterate that was
/// refused) and its step ‖λₖ − λₖ₋₁‖∞; otherwise it is zero. No active rows: q̈ = H⁻¹(τ − C),
/// ok, zero iterations.
#include <talus/solvers/forward_dynamics_constrained.hpp>

namespace talus {

/// Parameters of the proximal iteration (Pinocchio's ProximalSettings).
template <class S>
struct ProximalSettings {
  S mu = S(1e-8);                  ///< proximal weight μ > 0 (units of G H⁻¹ Gᵀ: 1/kg, 1/(kg·m²))
  S absolute_accuracy = S(1e-10);  ///< stop when ‖G q̈ − γ‖∞ ≤ absolute + relative · s (file comment)
  S relative_accuracy = S(1e-12);  ///< relative to s = ‖γ‖∞ + ‖ |G| |q̈₀| ‖∞ (≥ 0)
  int max_iterations = 10;         ///< ≥ 1; reaching it gives not_converged
};

/// What the proximal iteration did.
template <class S>
struct ProximalReport {
  int iterations = 0;    ///< iterations run (1 … max_iterations; 0 when none ran)
  S residual = S(0);     ///< ‖G q̈ − γ‖∞ at the last iterate
  S lambda_step = S(0);  ///< ‖λₖ − λₖ₋₁‖∞ of the last iteration
  S tolerance = S(0);    ///< absolute_accuracy + relative_accuracy · s, what residual was held to
  /// (residual, tolerance) as the uniform pair (status.hpp); absolute, in γ's units (m/s², or
  /// m/s for an impulse): the proximal method's accuracy is the caller's settings, not rounding.
  Residual<S> evidence() const { return {residual, tolerance}; }
};

namespace detail {
template <class S>
bool proximal_settings_valid(const ProximalSettings<S>& p) {
  const auto finite = [](S x) { return x - x == S(0); };
  return finite(p.mu) && p.mu > S(0) && finite(p.absolute_accuracy) && p.absolute_accuracy >= S(0) &&
         finite(p.relative_accuracy) && p.relative_accuracy >= S(0) && p.max_iterations >= 1;
}

/// The iteration on the system left by compute_constrained_system and factorize_ltl
/// (data.L, cs.G, cs.gamma, cs.C). x = q̈, lambda = λ; report filled.
/// `classify`: at the cap, a residual that no longer moves (the last step changed it by
/// ‖D Δλ‖∞ ≤ 1e-3 ‖r‖∞) is an inconsistent set, Status::singular, instead of not_converged: a
/// residual in the range of D shrinks by μ/(σ + μ) per step, so it moves by (1 − μ/(σ + μ)) of
/// itself unless σ < 1e-3 μ (numerically null); one in the null space of D never moves.
template <class ModelT, int MR, class B, class GM, class Gv, class X, class Lambda>
Status solve_proximal(const ModelT& model, const Data<ModelT>& data, const Eigen::MatrixBase<B>& b, const GM& G,
                      const Gv& g, const ProximalSettings<typename ModelT::Scalar>& settings,
                      SolverWorkspace<typename ModelT::Scalar, ModelT::nv, MR>& ws, X& x, Lambda& lambda,
                      ProximalReport<typename ModelT::Scalar>& report, bool classify = false) {
  using S = typename ModelT::Scalar;
  (void)model;
  const int m = static_cast<int>(G.rows());
  if (Status s = check_kkt_inputs(b, G, g, ws, x); s != Status::ok) return zero_outputs(s, x, lambda, m);
  if (!ltl_factor_valid(data)) return zero_outputs(Status::singular, x, lambda, m);
  ws.t = b;  // q̈₀ = H⁻¹ b
  solve_lt_unchecked(data, ws.t);
  solve_l_unchecked(data, ws.t);
  if (m == 0) {
    x = ws.t;
    lambda.resize(0);
    return zero_outputs(Status::ok, x, lambda, m);
  }
  range_space_operator(data, G, ws, settings.mu);  // W = G L⁻¹, Y = W Wᵀ + μ I
  ws.Y_llt.compute(ws.Y);
  if (ws.Y_llt.info() != Eigen::Success || !all_finite(ws.Y_llt.matrixLLT().diagonal()))
    return zero_outputs(Status::singular, x, lambda, m);
  ws.Z = ws.W.transpose();  // Z = L⁻¹ L⁻ᵀ Gᵀ = H⁻¹ Gᵀ
  solve_l_unchecked(data, ws.Z);
  // s = ‖γ‖∞ + ‖ |G| |q̈₀| ‖∞, and the first residual r = γ − G q̈₀
  ws.r = G.cwiseAbs().lazyProduct(ws.t.cwiseAbs());
  const S scale = g.cwiseAbs().maxCoeff() + ws.r.maxCoeff();
  report.tolerance = settings.absolute_accuracy + settings.relative_accuracy * scale;
  ws.r = g;
  ws.r.noalias() -= G.lazyProduct(ws.t);
  lambda.setZero(m);
  Status s = Status::not_converged;
  for (int k = 1; k <= settings.max_iterations; ++k) {
    ws.qy = ws.r;  // Δλ = (D + μI)⁻¹ (γ − G q̈(λₖ₋₁))
    ws.Y_llt.solveInPlace(ws.qy);
    lambda += ws.qy;
    x = ws.t;
    x.noalias() += ws.Z.lazyProduct(lambda);
    ws.r = g;
    ws.r.noalias() -= G.lazyProduct(x);
    report.iterations = k;
    report.residual = ws.r.cwiseAbs().maxCoeff();
    report.lambda_step = ws.qy.cwiseAbs().maxCoeff();
    if (!(all_finite(x) && all_finite(lambda) && report.residual - report.residual == S(0))) {
      s = Status::overflow;
      break;
    }
    if (report.residual <= report.tolerance) {
      s = Status::ok;
      break;
    }
  }
  if (classify && s == Status::not_converged) {
    // the last step changed the residual by −D Δλ (Δλ = ws.qy); D Δλ = (D + μI) Δλ − μ Δλ
    using std::abs;
    S change = S(0);
    for (int i = 0; i < m; ++i) {
      S row = -settings.mu * ws.qy.coeff(i);
      for (int j = 0; j < m; ++j) row += ws.Y.coeff(i, j) * ws.qy.coeff(j);
      change = std::max(change, abs(row));
    }
    if (change <= S(1e-3) * report.residual) s = Status::singular;
  }
  return zero_outputs(s, x, lambda, m);
}
}  // namespace detail

/// Proximal method (file comment): q̈ into ddq, λ (minimum norm for a redundant set) into
/// cs.lambda, what the iteration did into report.
template <class ModelT, int MR, int MC, class Q, class V, class T, class Out>
Status forward_dynamics_proximal(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                 const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                 const Eigen::MatrixBase<T>& tau, Out& ddq,
                                 const ProximalSettings<typename ModelT::Scalar>& settings,
                                 ProximalReport<typename ModelT::Scalar>& report,
                                 const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_proximal, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    report = ProximalReport<typename ModelT::Scalar>{};
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::proximal_settings_valid(settings)
                   ? Status::ok
                   : cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
    if (s == Status::ok) s = detail::check_tau(cs, tau);
    if (s == Status::ok) s = compute_constrained_system(model, data, cs, q, v, fext);
    if (s == Status::ok) s = factorize_ltl(model, data);
    if (s == Status::ok)
      s = detail::solve_proximal(model, data, tau - cs.C, cs.G, cs.gamma, settings, cs.ws, x, cs.lambda, report);
    if (s != Status::ok && s != Status::not_converged) report = ProximalReport<typename ModelT::Scalar>{};
    return detail::finish_constrained(s, cs, x, ddq, report.evidence());
  }
}

/// Contact gain by the proximal method (impulses.hpp has the system; Pinocchio's impulseDynamics
/// with ProximalSettings): the velocity jump q̇⁻ → q̇⁺ of constraint impulses Λ (cs.lambda, N·s
/// or N·m·s, active rows) with
///
///     H (q̇⁺ − q̇⁻) = Gᵀ Λ,     G q̇⁺ = v⁺   (v⁺ = `target`, or 0: the constrained points stop),
///
/// solved as forward_dynamics_proximal solves G q̈ = γ (the file comment, with b = H q̇⁻ for τ − C
/// and v⁺ for γ): Λₖ = Λₖ₋₁ + (D + μI)⁻¹ (v⁺ − G q̇⁺(Λₖ₋₁)), D = G H⁻¹ Gᵀ, from Λ₀ = 0, until
/// ‖G q̇⁺ − v⁺‖∞ ≤ absolute_accuracy + relative_accuracy (‖v⁺‖∞ + ‖ |G| |q̇⁻| ‖∞). A redundant set
/// (a box landing on four welded corners: 12 rows of rank 6, which compute_impulse_direct,
/// _range_space and _null_space refuse as singular) gets its unique q̇⁺ and the minimum-norm Λ:
/// for the symmetric box, every corner the same share and no corner pulling.
/// Status (q̇⁺ and Λ zero unless ok; cs.failure() says why): invalid_input (the settings as for
/// forward_dynamics_proximal, and the input checks of compute_impulse_range_space), singular
/// (H not positive definite, D + μI does not factor, or the set is inconsistent: at the cap the
/// residual no longer moves — it lies in the null space of D, so no Λ reaches v⁺; possible only
/// with a target v⁺ — see solve_proximal's `classify`),
/// not_converged (max_iterations reached while the residual still falls), overflow. The report
/// as for forward_dynamics_proximal. Same cost; no heap (the set's workspace).
template <class ModelT, int MR, int MC, class Q, class V, class Out>
Status compute_impulse_proximal(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
                                const ProximalSettings<typename ModelT::Scalar>& settings,
                                ProximalReport<typename ModelT::Scalar>& report,
                                const typename ConstraintSet<ModelT, MR, MC>::RowVector* target = nullptr) {
  TALUS_CHECK_ENTRY_SIZES_QV(compute_impulse_proximal, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    report = ProximalReport<typename ModelT::Scalar>{};
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::proximal_settings_valid(settings)
                   ? Status::ok
                   : cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
    if (s == Status::ok) s = detail::check_constraint_inputs(model, cs, q, v_minus);
    if (s == Status::ok && target != nullptr && (target->size() != cs.active_rows() || !all_finite(*target)))
      s = Status::invalid_input;
    // the rows and H from one kinematic sweep (CRBA's forward pass), as compute_impulse_range_space
    if (s == Status::ok) {
      detail::crba_forward(model, data, q);
      if (!detail::constraint_rows(model, data, cs, q, ModelT::TangentVector::Zero(),
                                   detail::pass_jacobian | detail::pass_position_error))
        s = Status::invalid_input;
    }
    if (s == Status::ok) {
      detail::crba_backward(model, data);
      if (!all_finite(data.H)) s = Status::overflow;
    }
    if (s == Status::ok) s = factorize_ltl(model, data);
    if (s == Status::ok) {
      const typename ModelT::TangentVector b = data.H * v_minus;
      typename ConstraintSet<ModelT, MR, MC>::RowVector g;
      if (target != nullptr) g = *target;
      else g.setZero(cs.active_rows());
      s = detail::solve_proximal(model, data, b, cs.G, g, settings, cs.ws, x, cs.lambda, report, true);
    }
    if (s == Status::invalid_input) detail::zero_constraint_results(cs);
    if (s == Status::invalid_input || s == Status::overflow) data.H.setZero();
    if (s != Status::ok && s != Status::not_converged) report = ProximalReport<typename ModelT::Scalar>{};
    return detail::finish_constrained(s, cs, x, v_plus, report.evidence());
  }
}

}  // namespace talus
