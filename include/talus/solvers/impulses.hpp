#pragma once
/// \file impulses.hpp
/// Contact gain (a perfectly plastic impact, or any prescribed post-impact constraint
/// velocity): the velocity jump q̇⁻ → q̇⁺ produced by constraint impulses Λ (active rows,
/// N·s or N·m·s), with
///
///     H(q) (q̇⁺ − q̇⁻) = Gᵀ Λ
///     G(q) q̇⁺        = v⁺        (v⁺ = 0 unless given: the constrained points stop)
///
/// Output q̇⁺; Λ goes to cs.lambda; cs.G and data.H are left as used. Methods as for
/// forward dynamics (kkt.hpp): direct (KKTMethod), range-space sparse, null-space; and the
/// articulated-body method, compute_impulse_articulated (forward_dynamics_articulated.hpp).
/// Status: invalid_input (NaN/Inf, bad quaternion, unbound set, v⁺ of the wrong size),
/// singular (redundant constraints). On failure q̇⁺ and Λ are zero.
#include <talus/solvers/forward_dynamics_constrained.hpp>

namespace talus {

namespace detail {
enum class ImpulseMethod : unsigned char { direct, range_space, null_space };

template <class ModelT, int MR, int MC, class Q, class V, class Out>
Status impulse(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs, const Q& q, const V& v_minus,
               Out& v_plus, ImpulseMethod how, KKTMethod method,
               const typename ConstraintSet<ModelT, MR, MC>::RowVector* target) {
  typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
  Status s = check_constraint_inputs(model, cs, q, v_minus);
  if (s == Status::ok && target != nullptr && (target->size() != cs.active_rows() || !all_finite(*target)))
    s = Status::invalid_input;
  if (s != Status::ok) {
    zero_constraint_results(cs);
    data.H.setZero();
    return finish_constrained(s, cs, x, v_plus);
  }
  // One sweep for placements, world Jacobian columns and world inertias (CRBA's forward pass,
  // which is also all the constraint rows need), then the rows, then CRBA's backward pass:
  // the same numbers as constraint_pass and crba in turn, with the kinematics computed once.
  crba_forward(model, data, q);
  if (!constraint_rows(model, data, cs, q, ModelT::TangentVector::Zero(), pass_jacobian | pass_position_error)) {
    zero_constraint_results(cs);
    data.H.setZero();
    return finish_constrained(Status::invalid_input, cs, x, v_plus);
  }
  crba_backward(model, data);
  if (!all_finite(data.H)) {
    data.H.setZero();
    return finish_constrained(Status::overflow, cs, x, v_plus);
  }
  const typename ModelT::TangentVector b = data.H * v_minus;
  typename ConstraintSet<ModelT, MR, MC>::RowVector g;
  if (target != nullptr) g = *target;
  else g.setZero(cs.active_rows());
  Residual<typename ModelT::Scalar> evidence{};
  switch (how) {
    case ImpulseMethod::direct:
      s = solve_kkt_direct(data.H, b, cs.G, g, method, cs.ws, x, cs.lambda);
      evidence = {cs.ws.kkt_residual, cs.ws.kkt_residual_tolerance};  // its acceptance check (kkt.hpp)
      break;
    case ImpulseMethod::range_space:
      s = factorize_ltl(model, data);
      if (s == Status::ok) s = solve_kkt_range_space(model, data, b, cs.G, g, cs.ws, x, cs.lambda);
      if (s == Status::ok) refine_range_space(data, cs.G, g, cs.ws, x, cs.lambda);
      break;
    case ImpulseMethod::null_space: s = solve_kkt_null_space(data.H, b, cs.G, g, cs.ws, x, cs.lambda); break;
  }
  if (s == Status::ok && how != ImpulseMethod::direct) s = accept_constraint_residual(cs.G, g, x, cs.ws.r, evidence);
  return finish_constrained(s, cs, x, v_plus, evidence);
}
}  // namespace detail

/// Direct method: [H Gᵀ; G 0] [q̇⁺; −Λ] = [H q̇⁻; v⁺]. `target` = v⁺ (active rows) or null for 0.
template <class ModelT, int MR, int MC, class Q, class V, class Out>
Status compute_impulse_direct(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                              const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
                              KKTMethod method = KKTMethod::partial_piv_lu,
                              const typename ConstraintSet<ModelT, MR, MC>::RowVector* target = nullptr) {
  TALUS_CHECK_ENTRY_SIZES_QV(compute_impulse_direct, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) return Status::invalid_input;
  else return detail::impulse(model, data, cs, q, v_minus, v_plus, detail::ImpulseMethod::direct, method, target);
}

/// Range-space method: (G H⁻¹ Gᵀ) Λ = v⁺ − G q̇⁻, q̇⁺ = q̇⁻ + H⁻¹ Gᵀ Λ, then one refinement step
/// when G q̇⁺ − v⁺ is above rounding (detail::refine_range_space).
template <class ModelT, int MR, int MC, class Q, class V, class Out>
Status compute_impulse_range_space(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                   const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
                                   const typename ConstraintSet<ModelT, MR, MC>::RowVector* target = nullptr) {
  TALUS_CHECK_ENTRY_SIZES_QV(compute_impulse_range_space, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) return Status::invalid_input;
  else
    return detail::impulse(model, data, cs, q, v_minus, v_plus, detail::ImpulseMethod::range_space,
                           KKTMethod::partial_piv_lu, target);
}

/// Null-space method.
template <class ModelT, int MR, int MC, class Q, class V, class Out>
Status compute_impulse_null_space(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                  const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
                                  const typename ConstraintSet<ModelT, MR, MC>::RowVector* target = nullptr) {
  TALUS_CHECK_ENTRY_SIZES_QV(compute_impulse_null_space, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) return Status::invalid_input;
  else
    return detail::impulse(model, data, cs, q, v_minus, v_plus, detail::ImpulseMethod::null_space,
                           KKTMethod::partial_piv_lu, target);
}

}  // namespace talus
