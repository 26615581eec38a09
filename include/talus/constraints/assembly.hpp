#pragma once
/// \file assembly.hpp
/// Consistent initial conditions for a constrained mechanism.
///
/// assemble_q: from a guess q₀, Newton iterations on the position errors e(q) (rows that
/// are position-level; loops and custom constraints, and contacts against their anchors),
/// each step the weighted least change that removes the linearised error:
///     min ½ Δᵀ W Δ   s.t.   G Δ = −e,      Δ = −W⁻¹ Gᵀ (G W⁻¹ Gᵀ)⁺ e,
/// then q ← integrate(q, Δ) (quaternions stay on the unit sphere). W = diag(weights): the
/// cost of moving each tangent coordinate (nv; talus's weights are costs, RBDL's are the
/// opposite: 0 = free). A weight of assembly_pinned (+∞) keeps that coordinate exactly
/// (W⁻¹ = 0 there, so Δ is exactly 0 there): a revolute or prismatic coordinate keeps its
/// bits; a free flyer's or spherical joint's coordinates are pinned in their tangent
/// (body-frame) space, so pin all 6 (3) of them to keep that joint's q exactly. Rows that
/// only pinned coordinates could satisfy cannot be met: not_converged. Convergence is quadratic
/// near a regular solution; the result is close to (not exactly the weighted projection of)
/// the guess, the difference being second order in the initial error. W = diag(weights) > 0
/// (tangent space, nv), every weight in [1e-9, 1e9] or assembly_pinned. A rank-revealing QR solves for y, so redundant but consistent rows
/// (a planar loop closed with all six axes) are fine. Stops when max|e| ≤ tolerance, or
/// returns not_converged after max_iterations with the last iterate in q and the residual
/// in the report.
///
/// assemble_qdot: the weighted closest q̇ to a guess that satisfies G q̇ = 0 (exact, one
/// solve): q̇ = q̇₀ − W⁻¹ Gᵀ (G W⁻¹ Gᵀ)⁺ G q̇₀.
#include <limits>

#include <talus/constraints/constraint_quantities.hpp>
#include <talus/model/configuration.hpp>

namespace talus {

template <class S>
struct AssemblyOptions {
  S tolerance = S(1e-12);   ///< on max |position error| (m, rad)
  int max_iterations = 50;  ///< hard cap
};

template <class S>
struct AssemblyReport {
  int iterations = 0;
  S residual = S(0);  ///< max |position error| at the returned q
};

namespace detail {
/// y = (G W⁻¹ Gᵀ)⁺ rhs by column-pivoted QR (basic solution), returns W⁻¹ Gᵀ y in `out`.
template <class ModelT, int MR, int MC, class W, class R>
void weighted_min_norm(ConstraintSet<ModelT, MR, MC>& cs, const W& winv, const R& rhs,
                       typename ModelT::TangentVector& out) {
  auto& ws = cs.ws;
  const int m = cs.active_rows();
  ws.Z = winv.asDiagonal() * cs.G.transpose();
  ws.Y = cs.G.lazyProduct(ws.Z);  // coefficient by coefficient: no GEMM kernel (linalg/householder.hpp)
  ws.Y_qr.setThreshold(ws.pivot_tolerance);
  ws.Y_qr.compute(ws.Y);
  ws.r = rhs;
  if (m > 0) ws.Y_qr.solve_in_place(ws.r);
  out = ws.Z.lazyProduct(ws.r);
}
}  // namespace detail

/// Weight that pins a coordinate in assemble_q / assemble_qdot: it does not move at all.
template <class S = double>
constexpr S assembly_pinned() {
  return std::numeric_limits<S>::infinity();
}

namespace detail {
/// Weights are costs of moving each coordinate: finite, within [1/input_limits::magnitude,
/// input_limits::magnitude] (so 1/w is finite and the weighted system stays conditioned),
/// or assembly_pinned (1/w = 0).
template <class Wt>
bool assembly_weights_valid(const Eigen::MatrixBase<Wt>& w) {
  using S = typename Wt::Scalar;
  return ((w.array() >= S(1.0 / input_limits::magnitude) && w.array() <= S(input_limits::magnitude)) ||
          w.array() == assembly_pinned<S>())
      .all();
}

template <class ModelT, int MR, int MC, class Q, class V, class Wt>
Status check_assembly_inputs(const ModelT& model, const ConstraintSet<ModelT, MR, MC>& cs, const Q& q, const V* v,
                             const Wt& weights) {
  static_assert(Wt::RowsAtCompileTime == Eigen::Dynamic || Wt::RowsAtCompileTime == ModelT::nv,
                "talus: assembly weights must have nv rows (one per tangent coordinate)");
  Status s = v != nullptr ? check_constraint_inputs(model, cs, q, *v) : check_constraint_inputs(model, cs, q);
  if (s == Status::ok && (weights.rows() != ModelT::nv || !assembly_weights_valid(weights)))
    s = cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
  return s;
}
}  // namespace detail

/// Status: ok (max |e| ≤ tolerance); not_converged (the cap was reached, or a Newton step
/// left the valid configurations: q is then the last iterate, a valid configuration, and
/// the report its residual); invalid_input (q_guess, weights or options invalid, set not
/// bound: q zero). Redundant but consistent rows are fine (rank-revealing solve).
template <class ModelT, int MR, int MC, class Q0, class Wt, class Out>
Status assemble_q(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                  const Eigen::MatrixBase<Q0>& q_guess, const Eigen::MatrixBase<Wt>& weights, Out& q,
                  AssemblyOptions<typename ModelT::Scalar> options = {},
                  AssemblyReport<typename ModelT::Scalar>* report = nullptr) {
  static_assert(detail::holds_size<Out, ModelT::nq>(), "talus::assemble_q: q must have nq rows (Model::ConfigVector)");
  using S = typename ModelT::Scalar;
  using TV = typename ModelT::TangentVector;
  using CV = typename ModelT::ConfigVector;
  AssemblyReport<S> rep;
  Status s = detail::check_assembly_inputs(model, cs, q_guess, static_cast<const TV*>(nullptr), weights);
  if (s == Status::ok &&
      !(options.tolerance > S(0) && options.tolerance <= S(input_limits::position) && options.max_iterations >= 0))
    s = cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
  if (s != Status::ok) {
    q.setZero();
    if (report) *report = rep;
    return s;
  }
  const TV winv = weights.cwiseInverse();
  CV qk = q_guess;
  CV qn = qk;
  TV delta = TV::Zero();
  s = Status::not_converged;
  for (int it = 0;; ++it) {
    if (!detail::constraint_pass(model, data, cs, qk, TV::Zero(),
                                 detail::pass_jacobian | detail::pass_position_error)) {
      s = Status::invalid_input;  // a custom constraint gave a non-finite value
      break;
    }
    rep.iterations = it;
    rep.residual = cs.active_rows() > 0 ? cs.position_error.cwiseAbs().maxCoeff() : S(0);
    if (rep.residual <= options.tolerance) {
      s = Status::ok;
      break;
    }
    if (it >= options.max_iterations) break;
    typename ConstraintSet<ModelT, MR, MC>::RowVector rhs = -cs.position_error;
    detail::weighted_min_norm(cs, winv, rhs, delta);
    // A step that is not finite, or lands outside the valid configurations (beyond the
    // position bound), ends the iteration at the last valid iterate.
    if (integrate(model, qk, delta, qn) != Status::ok || check_configuration(model, qn) != Status::ok) break;
    qk = qn;
  }
  if (s == Status::invalid_input) {
    q.setZero();
    rep = AssemblyReport<S>{};
  } else {
    q = qk;
  }
  if (report) *report = rep;
  return detail::record_status(cs, s);
}

/// Status: ok; invalid_input (inputs, weights or set invalid: v zero); overflow (v not finite).
template <class ModelT, int MR, int MC, class Q, class V0, class Wt, class Out>
Status assemble_qdot(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                     const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V0>& v_guess,
                     const Eigen::MatrixBase<Wt>& weights, Out& v) {
  static_assert(detail::holds_size<Out, ModelT::nv>(),
                "talus::assemble_qdot: v must have nv rows (Model::TangentVector)");
  using TV = typename ModelT::TangentVector;
  Status s = detail::check_assembly_inputs(model, cs, q, &v_guess.derived(), weights);
  TV result = TV::Zero();
  if (s == Status::ok) {
    if (!detail::constraint_pass(model, data, cs, q, TV::Zero(), detail::pass_jacobian | detail::pass_position_error))
      s = Status::invalid_input;
  }
  if (s == Status::ok) {
    const TV winv = weights.cwiseInverse();
    TV step;
    typename ConstraintSet<ModelT, MR, MC>::RowVector rhs = -(cs.G * v_guess);
    detail::weighted_min_norm(cs, winv, rhs, step);
    result = v_guess + step;
  }
  return detail::record_status(cs, output_or_zero(s, result, v));
}

}  // namespace talus
