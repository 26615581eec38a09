#pragma once
/// \file forward_dynamics_constrained.hpp
/// Forward dynamics under the active constraints of a ConstraintSet:
///
///     H(q) q̈ + C(q, q̇) = τ + Gᵀ λ + Σ Jᵢᵀ fᵢ(ext)
///     G(q) q̈          = γ(q, q̇)
///
/// Output q̈ (nv); the constraint forces λ (active rows; N or N·m along each row, see
/// constraint_set.hpp) go to cs.lambda; cs.G, cs.gamma, cs.C and data.H are left as used.
/// Methods (same answer, different cost; kkt.hpp says how each solves the system):
///   forward_dynamics_direct       full KKT matrix, decomposition chosen by KKTMethod
///   forward_dynamics_range_space  LᵀL of H along the tree, then G H⁻¹ Gᵀ (m × m)
///   forward_dynamics_null_space   QR of Gᵀ, reduced (nv − m) system
///   forward_dynamics_kokkevis     contacts only: ABA for the free motion and for the response
///                                 to a unit force along each contact row (Kokkevis 2004)
///   forward_dynamics_articulated  (forward_dynamics_articulated.hpp) no H: ABA's factorization
///                                 of H⁻¹ and G H⁻¹ Gᵀ by row sweeps (bench/RESULTS.md)
/// External forces fext (optional) are spatial forces on each body, body frame (rnea.hpp).
/// Status: invalid_input (NaN/Inf, unnormalised quaternion, unbound set, Kokkevis with a
/// non-contact constraint), singular (redundant or inconsistent constraints, H not SPD).
/// On failure q̈ and λ are zero.
#include <talus/algorithms/aba.hpp>
#include <talus/constraints/constraint_quantities.hpp>
#include <talus/solvers/kkt.hpp>

namespace talus {

namespace detail {
/// τ finite and within limits, else invalid_input recorded as input_invalid.
template <class ModelT, int MR, int MC, class T>
Status check_tau(const ConstraintSet<ModelT, MR, MC>& cs, const T& tau) {
  if (tangent_input_valid<ModelT>(tau)) return Status::ok;
  return cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
}

/// The common end of every constrained solve: outputs (zero unless ok), the failure record,
/// and cs.residual ← `evidence` (the residual the method accepted or refused its answer on;
/// {0, 0} when it failed before checking one).
template <class ModelT, int MR, int MC, class Out>
Status finish_constrained(Status s, ConstraintSet<ModelT, MR, MC>& cs, const typename ModelT::TangentVector& x,
                          Out& ddq, const Residual<typename ModelT::Scalar>& evidence = {}) {
  static_assert(
      holds_size<Out, ModelT::nv>(),
      "talus: the output of a constrained solve (q̈, or q̇⁺ of an impulse) must have nv rows (Model::TangentVector)");
  cs.residual = evidence;
  if (s == Status::ok && !(all_finite(x) && all_finite(cs.lambda))) s = Status::overflow;
  (void)record_status(cs, s);
  if (s != Status::ok) {
    ddq.setZero();
    cs.lambda.setZero(cs.active_rows());
    return s;
  }
  ddq = x;
  return Status::ok;
}
/// r ← target − G x, the residual of the constraint equations G x = target at the returned x;
/// returns the relative residual ‖r‖∞ / max(1, ‖target‖∞, ‖ |G| |x| ‖∞) (0 when r = 0).
/// constraint_residual below: whether it is above rounding, > 4 m eps.
///
/// Why it can be (and what one refinement step does about it): the Schur-complement methods
/// (range space, articulated) form K = G H⁻¹ Gᵀ explicitly, so its rounding error is of order
/// eps ‖K‖ and λ from it is off by about κ(K) eps, where κ(K) can exceed κ of the KKT matrix
/// [H Gᵀ; G 0] by orders of magnitude (rows through light bodies: ‖G H⁻¹ Gᵀ‖ ≫ ‖G‖ when
/// κ(H) is large). That error shows as a residual G x − target far above rounding; one step
/// K δλ = r with the factor already in hand, λ += δλ, x += H⁻¹ Gᵀ δλ, contracts it by about
/// κ(K) eps (so it converges while κ(K) eps ≪ 1; pivot_tolerance refuses K well before
/// κ(K) eps ~ 1) and leaves λ and x as accurate as the residual itself, i.e. to the KKT
/// matrix's conditioning.
template <class GM, class TV, class X, class R>
typename R::Scalar relative_constraint_residual(const GM& G, const TV& target, const X& x, R& r) {
  using S = typename R::Scalar;
  const int m = static_cast<int>(G.rows());
  r = target;
  S scale = S(1), rmax = S(0);  // at least 1 (m/s² or m/s): an answer at rest (x, target ≈ 0) is held to √ε absolute
  for (int i = 0; i < m; ++i) {
    S gx = S(0), ax = S(0);
    for (int j = 0; j < G.cols(); ++j) {
      const S p = G(i, j) * x[j];
      gx += p;
      ax += p < S(0) ? -p : p;
    }
    r[i] -= gx;
    const S ti = target[i] < S(0) ? -target[i] : target[i];
    const S ri = r[i] < S(0) ? -r[i] : r[i];
    scale = ti > scale ? ti : scale;
    scale = ax > scale ? ax : scale;
    rmax = ri > rmax ? ri : rmax;
  }
  return rmax == S(0) ? S(0) : rmax / scale;  // NaN when a sum overflowed
}

/// r ← target − G x and whether the residual is above rounding (see above): relative
/// residual > 4 m eps.
template <class GM, class TV, class X, class R>
bool constraint_residual(const GM& G, const TV& target, const X& x, R& r) {
  using S = typename R::Scalar;
  const S rel = relative_constraint_residual(G, target, x, r);
  return !(rel <= S(4) * S(G.rows()) * Eigen::NumTraits<S>::epsilon());
}

/// The tolerance every method but direct and proximal holds its answer's relative constraint
/// residual ‖G x − target‖∞ / max(1, ‖target‖∞, ‖ |G| |x| ‖∞) to: √eps (1.5e-8 double, 3.5e-4
/// float), the constraint equations holding to half the digits of S. Not the direct method's
/// 64 n eps: after the one refinement step the Schur-complement methods (range space,
/// Kokkevis, articulated) are left at about (κ(K) eps)·(the first residual), K = G H⁻¹ Gᵀ,
/// which on nearly redundant rows (κ(K) up to about κ(KKT)²) is far above rounding while the
/// answer is still as accurate as the KKT matrix's conditioning allows (the direct method's
/// own); what the check refuses is a refinement that did not contract, κ(K) eps no longer
/// small: λ without a correct digit.
template <class S>
S constraint_residual_tolerance() {
  using std::sqrt;
  return sqrt(Eigen::NumTraits<S>::epsilon());
}

/// The acceptance check of the range-space, null-space, Kokkevis and articulated methods:
/// `evidence` ← (relative constraint residual of G x = target, its tolerance); ok when within,
/// singular above, overflow when the residual is not finite. r: scratch (m rows).
template <class GM, class TV, class X, class R, class S>
Status accept_constraint_residual(const GM& G, const TV& target, const X& x, R& r, Residual<S>& evidence) {
  evidence.value = relative_constraint_residual(G, target, x, r);
  evidence.tolerance = constraint_residual_tolerance<S>();
  if (evidence.value <= evidence.tolerance) return Status::ok;
  return evidence.value == evidence.value ? Status::singular : Status::overflow;
}

/// One refinement step of a range-space solve (solve_kkt_range_space) when the residual of
/// G x = g is above rounding (constraint_residual): δλ from the factor of K in ws.Y_llt,
/// δx = H⁻¹ Gᵀ δλ = L⁻¹ Wᵀ δλ (W = G L⁻¹ in ws.W), x += δx, λ += δλ. Cost when taken:
/// m nv (residual) + m² (two triangular solves) + m nv (Wᵀ δλ) + the tree-sparse L⁻¹.
template <class ModelT, class GM, class Gv, class WS, class X, class Lambda>
void refine_range_space(const Data<ModelT>& data, const GM& G, const Gv& g, WS& ws, X& x, Lambda& lambda) {
  if (!constraint_residual(G, g, x, ws.r)) return;
  ws.Y_llt.solveInPlace(ws.r);
  lambda += ws.r;
  ws.t2.noalias() = ws.W.transpose().lazyProduct(ws.r);  // L⁻ᵀ Gᵀ δλ
  solve_l_unchecked(data, ws.t2);                        // H⁻¹ Gᵀ δλ
  x += ws.t2;
}
}  // namespace detail

/// Direct method: [H Gᵀ; G 0] [q̈; −λ] = [τ − C; γ].
template <class ModelT, int MR, int MC, class Q, class V, class T, class Out>
Status forward_dynamics_direct(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                               const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                               const Eigen::MatrixBase<T>& tau, Out& ddq, KKTMethod method = KKTMethod::partial_piv_lu,
                               const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_direct, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::check_tau(cs, tau);
    if (s == Status::ok) s = compute_constrained_system(model, data, cs, q, v, fext);
    Residual<typename ModelT::Scalar> evidence{};
    if (s == Status::ok) {
      s = solve_kkt_direct(data.H, tau - cs.C, cs.G, cs.gamma, method, cs.ws, x, cs.lambda);
      evidence = {cs.ws.kkt_residual, cs.ws.kkt_residual_tolerance};  // its acceptance check (kkt.hpp)
    }
    return detail::finish_constrained(s, cs, x, ddq, evidence);
  }
}

/// Range-space method: q̈₀ = H⁻¹(τ − C), (G H⁻¹ Gᵀ) λ = γ − G q̈₀, q̈ = q̈₀ + H⁻¹ Gᵀ λ, then one
/// refinement step when G q̈ − γ is above rounding (detail::refine_range_space).
template <class ModelT, int MR, int MC, class Q, class V, class T, class Out>
Status forward_dynamics_range_space(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                    const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                    const Eigen::MatrixBase<T>& tau, Out& ddq,
                                    const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_range_space, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::check_tau(cs, tau);
    if (s == Status::ok) s = compute_constrained_system(model, data, cs, q, v, fext);
    if (s == Status::ok) s = factorize_ltl(model, data);
    if (s == Status::ok) s = solve_kkt_range_space(model, data, tau - cs.C, cs.G, cs.gamma, cs.ws, x, cs.lambda);
    if (s == Status::ok) detail::refine_range_space(data, cs.G, cs.gamma, cs.ws, x, cs.lambda);
    Residual<typename ModelT::Scalar> evidence{};
    if (s == Status::ok) s = detail::accept_constraint_residual(cs.G, cs.gamma, x, cs.ws.r, evidence);
    return detail::finish_constrained(s, cs, x, ddq, evidence);
  }
}

/// Null-space method: Gᵀ P = Q [R; 0]; q̈ = Qy a + Qz z.
template <class ModelT, int MR, int MC, class Q, class V, class T, class Out>
Status forward_dynamics_null_space(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                   const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                   const Eigen::MatrixBase<T>& tau, Out& ddq,
                                   const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_null_space, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::check_tau(cs, tau);
    if (s == Status::ok) s = compute_constrained_system(model, data, cs, q, v, fext);
    if (s == Status::ok) s = solve_kkt_null_space(data.H, tau - cs.C, cs.G, cs.gamma, cs.ws, x, cs.lambda);
    Residual<typename ModelT::Scalar> evidence{};
    if (s == Status::ok) s = detail::accept_constraint_residual(cs.G, cs.gamma, x, cs.ws.r, evidence);
    return detail::finish_constrained(s, cs, x, ddq, evidence);
  }
}

namespace detail {
/// H⁻¹ Jᵀ f for a spatial force f (body frame) on body b, from the articulated inertias
/// of the last ABA (data.IA after the backward pass, data.U, data.Dinv): the ABA recursion
/// with zero velocity, zero τ, no gravity and f as the only force.
template <class ModelT, class Out>
void aba_unit_response(const ModelT& model, Data<ModelT>& data, int b, const Force<typename ModelT::Scalar>& f,
                       Out&& x) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  constexpr int nb = ModelT::nb;
  std::array<Force<S>, nb> pa;
  std::array<Motion<S>, nb> acc;
  std::array<bool, nb> on_path{};
  for (int i = b; i >= 0; i = Tree::parent[i]) on_path[i] = true;
  typename ModelT::TangentVector u = ModelT::TangentVector::Zero();
  static_for<nb>([&](auto i) { pa[decltype(i)::value].setZero(); });
  pa[b] = -f;
  static_for_reverse<nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    constexpr int nvi = J::nv;
    constexpr int iv = Tree::idx_v[I];
    if (!on_path[I]) return;
    u.template segment<nvi>(iv) = -J::template project<S>(model.axis[I], pa[I]);
    if constexpr (P >= 0) {
      const Eigen::Matrix<S, 6, nvi> U = data.U.template middleCols<nvi>(iv);
      const Force<S> p = pa[I] + U * (data.Dinv[I].template topLeftCorner<nvi, nvi>() * u.template segment<nvi>(iv));
      pa[P] += detail::parent_link<I>(data).act_force(p);
    }
  });
  static_for<nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    constexpr int nvi = J::nv;
    constexpr int iv = Tree::idx_v[I];
    Motion<S> ap = Motion<S>::Zero();
    if constexpr (P >= 0) ap = detail::parent_link<I>(data).inverse_act_motion(acc[P]);
    const Eigen::Matrix<S, nvi, 1> qdd =
        data.Dinv[I].template topLeftCorner<nvi, nvi>() *
        (u.template segment<nvi>(iv) - data.U.template middleCols<nvi>(iv).transpose() * ap);
    x.template segment<nvi>(iv) = qdd;
    acc[I] = ap + J::template motion<S>(model.axis[I], qdd);
  });
}
}  // namespace detail

/// Kokkevis method (point and 6D contacts only; another kind: invalid_input, kind_not_supported): q̈₀ from ABA; for each contact row k, H⁻¹ Gᵀ e_k from the
/// ABA response to a unit force along n_k at the contact point; K = G H⁻¹ Gᵀ;
/// K λ = γ − G q̈₀; q̈ = q̈₀ + H⁻¹ Gᵀ λ, then one refinement step when G q̈ − γ is above
/// rounding (K is formed explicitly, as in the range-space method). No H, no O(nv³) step.
template <class ModelT, int MR, int MC, class Q, class V, class T, class Out>
Status forward_dynamics_kokkevis(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                 const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                 const Eigen::MatrixBase<T>& tau, Out& ddq,
                                 const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_kokkevis, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    using S = typename ModelT::Scalar;
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::check_constraint_inputs(model, cs, q, v, tau);
    if (s == Status::ok && fext != nullptr && !detail::inputs_finite(*fext)) s = Status::invalid_input;
    for (int c = 0; s == Status::ok && c < cs.size(); ++c) {
      const ConstraintKind k = cs.constraint(c).kind;
      if (cs.is_active(c) && k != ConstraintKind::contact && k != ConstraintKind::contact_6d)
        s = cs.record_failure(Status::invalid_input, FailureReason::kind_not_supported, c, k);
    }
    if (s != Status::ok) {
      detail::zero_constraint_results(cs);
      return detail::finish_constrained(s, cs, x, ddq);
    }
    if (!detail::constraint_pass(model, data, cs, q, v,
                                 detail::pass_jacobian | detail::pass_gamma | detail::pass_position_error |
                                     detail::pass_velocity_error)) {
      detail::zero_constraint_results(cs);
      return detail::finish_constrained(Status::invalid_input, cs, x, ddq);
    }
    s = fext ? detail::aba_pass<true>(model, data, q, v, tau, fext)
             : detail::aba_pass<false>(model, data, q, v, tau, nullptr);
    if (s != Status::ok) return detail::finish_constrained(s, cs, x, ddq);
    x = data.ddq;
    auto& ws = cs.ws;
    const int m = cs.active_rows();
    ws.Z.setZero(ModelT::nv, m);
    for (int c = 0; c < cs.size(); ++c) {
      const int r = cs.row_offset(c);
      if (r < 0) continue;
      const auto& e = cs.constraint(c);
      const Matrix3<S> Rt = data.oMi[e.body[0]].R.transpose();
      for (int j = 0; j < e.rows; ++j) {
        // Row j's generalised force Gᵀ e_j as a spatial force on the body (body frame): a
        // point contact's row is a unit force along n_j at the point; a 6D contact's angular
        // rows a unit couple, its linear rows a unit force at F's origin, along the row's axis.
        Force<S> f = Force<S>::Zero();
        if (e.kind == ConstraintKind::contact) {
          const Vector3<S> n = Rt * e.axis[j].template tail<3>();  // body axes
          f.template head<3>() = e.point.cross(n);  // fixed-size halves: GCC 12 -march=native misreads << here
          f.template tail<3>() = n;
        } else {
          const int k = j % 3;
          const Vector3<S> n = e.rows6d == ContactFrame6D::local ? Vector3<S>(e.frame[0].R.col(k))
                                                                 : Vector3<S>(Rt.col(k));  // body axes
          if (j < 3) f.template head<3>() = n;
          else {
            f.template head<3>() = e.frame[0].p.cross(n);
            f.template tail<3>() = n;
          }
        }
        detail::aba_unit_response(model, data, e.body[0], f, ws.Z.col(r + j));
      }
    }
    ws.Y.noalias() = cs.G.lazyProduct(ws.Z);  // coefficient-wise: no GEMM kernel (kkt.hpp, range space)
    ws.Y_llt.compute(ws.Y);
    if (ws.Y_llt.info() != Eigen::Success ||
        !detail::pivots_ok(ws.Y_llt.matrixLLT().diagonal(), std::sqrt(ws.pivot_tolerance)))
      return detail::finish_constrained(Status::singular, cs, x, ddq);
    ws.r = cs.gamma - cs.G * x;
    cs.lambda = ws.Y_llt.solve(ws.r);
    x.noalias() += ws.Z * cs.lambda;
    if (detail::constraint_residual(cs.G, cs.gamma, x, ws.r)) {  // one refinement step, as range space
      ws.Y_llt.solveInPlace(ws.r);
      cs.lambda += ws.r;
      x.noalias() += ws.Z * ws.r;
    }
    Residual<S> evidence{};
    s = detail::accept_constraint_residual(cs.G, cs.gamma, x, ws.r, evidence);
    return detail::finish_constrained(s, cs, x, ddq, evidence);
  }
}

}  // namespace talus
