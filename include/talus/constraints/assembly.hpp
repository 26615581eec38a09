#pragma once
/// \file assembly.hpp
/// Consistent initial conditions for a constrained mechanism.
///
/// assemble_q: from a guess q₀, Newton iterations on the position errors e(q) (rows that
/// are position-level; loops and custom constraints, and contacts against their anchors),
/// each step the weighted least change that removes the linearised error:
///     min ½ Δᵀ W Δ   s.t.   G Δ = −e,      Δ = −W⁻¹ Gᵀ (G W⁻¹ Gᵀ)⁺ e,
/// then q ← integrate(q, Δ) (quaternions stay on the unit sphere). Convergence is quadratic
/// near a regular solution; the result is close to (not exactly the weighted projection of)
/// the guess, the difference being second order in the initial error. W = diag(weights) > 0
/// (tangent space, nv). A rank-revealing QR solves for y, so redundant but consistent rows
/// (a planar loop closed with all six axes) are fine. Stops when max|e| ≤ tolerance, or
/// returns not_converged after max_iterations with the last iterate in q and the residual
/// in the report.
///
/// assemble_qdot: the weighted closest q̇ to a guess that satisfies G q̇ = 0 (exact, one
/// solve): q̇ = q̇₀ − W⁻¹ Gᵀ (G W⁻¹ Gᵀ)⁺ G q̇₀.
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
  ws.Y = cs.G.lazyProduct(ws.Z);  // coefficient by coefficient: no GEMM kernel (workspace.hpp)
  ws.Y_qr.setThreshold(ws.pivot_tolerance);
  ws.Y_qr.compute(ws.Y);
  ws.r = rhs;
  if (m > 0) ws.Y_qr.solve_in_place(ws.r);
  out = ws.Z.lazyProduct(ws.r);
}
}  // namespace detail

template <class ModelT, int MR, int MC, class Q0, class Wt, class Out>
Status assemble_q(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                  const Eigen::MatrixBase<Q0>& q_guess, const Eigen::MatrixBase<Wt>& weights, Out& q,
                  AssemblyOptions<typename ModelT::Scalar> options = {},
                  AssemblyReport<typename ModelT::Scalar>* report = nullptr) {
  using S = typename ModelT::Scalar;
  using TV = typename ModelT::TangentVector;
  typename ModelT::ConfigVector qk = q_guess;
  AssemblyReport<S> rep;
  Status s = detail::check_constraint_inputs(model, cs, q_guess, weights);
  if (s == Status::ok && !(weights.minCoeff() > S(0))) s = Status::invalid_input;
  if (s == Status::ok && !(options.tolerance > S(0) && options.max_iterations >= 0)) s = Status::invalid_input;
  if (s != Status::ok) {
    q = q_guess;  // defined: the guess, unchanged
    if (!all_finite(q)) q.setZero();
    if (report) *report = rep;
    return s;
  }
  const TV winv = weights.cwiseInverse();
  TV delta;
  typename ModelT::ConfigVector qn;
  s = Status::not_converged;
  for (int it = 0;; ++it) {
    detail::constraint_pass(model, data, cs, qk, ModelT::TangentVector::Zero(), detail::pass_jacobian | detail::pass_position_error);
    rep.iterations = it;
    rep.residual = cs.active_rows() > 0 ? cs.position_error.cwiseAbs().maxCoeff() : S(0);
    if (!(rep.residual == rep.residual)) break;  // NaN: give up, report
    if (rep.residual <= options.tolerance) {
      s = Status::ok;
      break;
    }
    if (it >= options.max_iterations) break;
    typename ConstraintSet<ModelT, MR, MC>::RowVector rhs = -cs.position_error;
    detail::weighted_min_norm(cs, winv, rhs, delta);
    (void)integrate(model, qk, delta, qn);
    qk = qn;
  }
  q = qk;
  if (report) *report = rep;
  return s;
}

template <class ModelT, int MR, int MC, class Q, class V0, class Wt, class Out>
Status assemble_qdot(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                     const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V0>& v_guess,
                     const Eigen::MatrixBase<Wt>& weights, Out& v) {
  using S = typename ModelT::Scalar;
  using TV = typename ModelT::TangentVector;
  Status s = detail::check_constraint_inputs(model, cs, q, v_guess, weights);
  if (s == Status::ok && !(weights.minCoeff() > S(0))) s = Status::invalid_input;
  if (s != Status::ok) {
    v.setZero();
    return s;
  }
  detail::constraint_pass(model, data, cs, q, ModelT::TangentVector::Zero(), detail::pass_jacobian | detail::pass_position_error);
  const TV winv = weights.cwiseInverse();
  TV step;
  typename ConstraintSet<ModelT, MR, MC>::RowVector rhs = -(cs.G * v_guess);
  detail::weighted_min_norm(cs, winv, rhs, step);
  v = v_guess + step;
  return Status::ok;
}

}  // namespace talus
