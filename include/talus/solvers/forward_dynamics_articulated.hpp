#pragma once
/// \file forward_dynamics_articulated.hpp
/// Constrained forward dynamics and impulses by the articulated-body factorization of H⁻¹:
/// no H, no Lᵀ L, one kinematic sweep. The system is the one every method solves
/// (forward_dynamics_constrained.hpp, impulses.hpp):
///
///     H q̈ + C = τ + Gᵀ λ,   G q̈ = γ               (forward dynamics)
///     H (q̇⁺ − q̇⁻) = Gᵀ Λ,  G q̇⁺ = v⁺              (impulse)
///
/// How (Featherstone's ABA read as a factorization): ABA's backward pass maps generalised
/// forces τ to u = M τ (u_i = τ_i − S_iᵀ p_i, p_λ(i) += λX_i* (p_i + U_i D_i⁻¹ u_i)), its
/// forward pass maps u to q̈ = Mᵀ D⁻¹ u, so H⁻¹ = Mᵀ D⁻¹ M with D = diag(D_i) (D_i = S_iᵀ I^A_i S_i).
/// With Z = M Gᵀ (one backward sweep per constraint row, over the bodies that row reaches:
/// a foot's rows visit the foot's support path only),
///
///     K = G H⁻¹ Gᵀ = Zᵀ D⁻¹ Z = Σ_i Z_iᵀ D_i⁻¹ Z_i     (Z_i: body i's dofs; only rows that
///                                                         reach body i contribute)
///     K λ = γ − G q̈₀,   q̈ = ABA's forward pass with u + Z λ   (q̈₀: with u alone)
///
/// Steps: one forward sweep (placements, world Jacobian columns, v, c, the acceleration at
/// q̈ = 0 for γ; ABA's first pass), the constraint rows (G, γ, errors), ABA's backward pass
/// (I^A, U, D⁻¹, u), q̈₀, Z row by row, K, a Cholesky of K (m × m), one more forward pass;
/// then the residual G q̈ − γ and, when it is above rounding, one refinement step with the
/// same factor (K δλ = r, λ += δλ, the forward pass again): K is formed explicitly, and its
/// κ can be about the square of the KKT matrix's, which λ would inherit without it
/// (detail::constraint_residual in forward_dynamics_constrained.hpp says why and what it buys).
/// Cost: O(nb) for the dynamics plus O(m · depth) for Z, O(Σ_i m_i² nv_i) for K, O(m³/6) for
/// its factorization, 2 m nv for the residual; the refinement step, when taken, 2 m² + 2 m nv
/// and one forward pass more. No nv × nv matrix is formed. Any constraint kind (G rows are used as
/// generalised forces, so custom rows work as well as contacts and loops).
///
/// Results as the other methods: q̈ (or q̇⁺), λ (or Λ) in cs.lambda, cs.G, cs.gamma and the
/// errors as used. Not computed: data.H, data.L, cs.C (left as they were). data.a_gf holds
/// the bodies' accelerations (with gravity as a fictitious base acceleration, as ABA) at the
/// returned q̈; data.f is used as scratch.
/// Status: invalid_input (NaN/Inf, bad quaternion, unbound set, τ or v⁺ invalid, a custom
/// constraint's rows not finite), singular (redundant or inconsistent constraints: K not
/// positive definite beyond cs.ws.pivot_tolerance; a joint with a massless subtree),
/// overflow (a result not finite). On failure q̈ and λ are zero.
#include <cstdint>

#include <talus/solvers/forward_dynamics_constrained.hpp>

namespace talus {

namespace detail {

/// One sweep: each body's placement (liMi, oMi) and world Jacobian columns (data.J), and
/// with Dynamics ABA's first pass (v, c, I^A, p^A) and the acceleration at q̈ = 0 without
/// gravity that γ reads (data.a) — the same expressions as constraint_pass and aba in turn;
/// without Dynamics (impulses) I^A = I only.
template <bool Dynamics, bool WithFext, class ModelT, class Q, class V>
void articulated_forward(const ModelT& model, Data<ModelT>& data, const Q& q, const V& v,
                         const ExternalForces<ModelT>* fext) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    if constexpr (Dynamics) {
      aba_forward_body<I, true, WithFext>(model, data, q, v, fext);
      if constexpr (P < 0) data.a[I].setZero();
      else data.a[I] = detail::parent_link<I>(data).inverse_act_motion(data.a[P]) + data.c[I];
    } else {
      update_placement<I, true>(model, data, q);
      data.IA[I] = model.inertia[I].matrix();
    }
    data.J.template middleCols<J::nv>(Tree::idx_v[I]) = J::template motion_subspace_in<S>(data.oMi[I], model.axis[I]);
  });
}

/// Z = M Gᵀ (ws.Z, nv × m, column r = z_r) with D⁻¹ Z beside it (ws.Zd), and K = Zᵀ D⁻¹ Z
/// (ws.Y, both triangles). Needs ABA's second pass in data (U, D⁻¹, liMi). Row r's sweep
/// visits a body only if the row has a nonzero entry in the body's dofs or a child passed it
/// a force; every other body's block of z_r is exactly zero, and body i adds to K only among
/// the rows that visited it (a quadruped's feet meet at the base's 6 dofs only).
template <class ModelT, class GM, class WS>
void articulated_delassus(const ModelT& model, Data<ModelT>& data, const GM& G, WS& ws) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  constexpr int nb = ModelT::nb;
  constexpr int nv = ModelT::nv;
  static_assert(WS::max_rows <= 32767, "row indices are stored as 16-bit integers");
  const int m = static_cast<int>(G.rows());
  ws.Z.setZero(nv, m);  // the blocks of bodies a row does not visit are read as zeros (Z λ)
  ws.Zd.resize(nv, m);  // read only where written
  std::array<std::array<std::int16_t, WS::max_rows>, nb> rows;  // rows that visited body i, ascending
  std::array<int, nb> nrows{};
  std::array<bool, nb> has_p{};  // data.f[i] holds a force passed up by a child for this row
  for (int r = 0; r < m; ++r) {
    static_for_reverse<nb>([&](auto i) {
      constexpr int I = decltype(i)::value;
      constexpr int P = Tree::parent[I];
      using J = typename Tree::template Joint<I>;
      constexpr int nvi = J::nv;
      constexpr int iv = Tree::idx_v[I];
      const bool passed = has_p[I];
      has_p[I] = false;
      Eigen::Matrix<S, nvi, 1> z;
      bool live = passed;
      for (int k = 0; k < nvi; ++k) {
        z[k] = G(r, iv + k);
        live = live || z[k] != S(0);
      }
      if (!live) return;
      rows[I][nrows[I]++] = static_cast<std::int16_t>(r);
      if (passed) z -= J::template project<S>(model.axis[I], data.f[I]);
      const Eigen::Matrix<S, nvi, 1> zd = data.Dinv[I].template topLeftCorner<nvi, nvi>() * z;
      ws.Z.template block<nvi, 1>(iv, r) = z;
      ws.Zd.template block<nvi, 1>(iv, r) = zd;
      if constexpr (P >= 0) {
        Force<S> p = data.U.template middleCols<nvi>(iv) * zd;
        if (passed) p += data.f[I];
        const Force<S> pp = detail::parent_link<I>(data).act_force(p);
        if (has_p[P]) data.f[P] += pp;
        else data.f[P] = pp;
        has_p[P] = true;
      }
    });
  }
  ws.Y.setZero(m, m);
  static_for<nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int nvi = Tree::template Joint<I>::nv;
    constexpr int iv = Tree::idx_v[I];
    for (int a = 0; a < nrows[I]; ++a) {
      const int ra = rows[I][a];
      const Eigen::Matrix<S, nvi, 1> za = ws.Z.template block<nvi, 1>(iv, ra);
      for (int c = 0; c <= a; ++c) {
        const int rc = rows[I][c];
        ws.Y(ra, rc) += za.dot(ws.Zd.template block<nvi, 1>(iv, rc));
      }
    }
  });
  ws.Y.template triangularView<Eigen::StrictlyUpper>() = ws.Y.transpose();
}

/// K = L Lᵀ for K = ws.Y (m × m, symmetric), in place in ws.Y's lower triangle
/// (cholesky_factor). False if K is not positive definite or a diagonal entry of L is below
/// sqrt(ws.pivot_tolerance) times the largest (redundant rows).
template <class WS>
bool factor_delassus(WS& ws) {
  return cholesky_factor(ws.Y, static_cast<int>(ws.Y.rows()), ws.pivot_tolerance) == Status::ok;
}

/// x ← K⁻¹ x with the factor of factor_delassus (two triangular substitutions, m² flops).
template <class WS, class X>
void solve_delassus(const WS& ws, X& x) {
  detail::cholesky_solve_unchecked(ws.Y, static_cast<int>(ws.Y.rows()), x);
}

/// ws.t ← Z λ (the reduced generalised forces of Gᵀ λ).
template <class WS, class Lambda>
void reduced_constraint_forces(WS& ws, const Lambda& lambda) {
  ws.t.setZero();
  for (int r = 0; r < lambda.size(); ++r) ws.t += lambda[r] * ws.Z.col(r);
}

}  // namespace detail

/// Constrained forward dynamics by the articulated-body factorization (file comment):
/// q̈₀ by ABA, K = G H⁻¹ Gᵀ from one backward sweep per row, K λ = γ − G q̈₀, and q̈ from
/// ABA's forward pass with u + Z λ. No H is formed, so it gains over
/// forward_dynamics_range_space as the tree grows (bench/RESULTS.md compares them per robot);
/// the same answer to rounding.
template <class ModelT, int MR, int MC, class Q, class V, class T, class Out>
Status forward_dynamics_articulated(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                    const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                    const Eigen::MatrixBase<T>& tau, Out& ddq,
                                    const ExternalForces<ModelT>* fext = nullptr) {
  TALUS_CHECK_ENTRY_SIZES(forward_dynamics_articulated, ModelT, q, v, tau, ddq);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, T>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::check_tau(cs, tau);
    if (s == Status::ok) s = detail::check_constraint_inputs(model, cs, q, v);
    if (s == Status::ok && fext != nullptr && !detail::inputs_finite(*fext))
      s = cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
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
    if (!detail::aba_backward<true>(model, data, tau)) return detail::finish_constrained(Status::singular, cs, x, ddq);
    const auto a_world = detail::gravity_acceleration(model);
    detail::aba_accelerations<true>(model, data, data.u, a_world);  // q̈₀ = H⁻¹ (τ − C)
    auto& ws = cs.ws;
    detail::articulated_delassus(model, data, cs.G, ws);
    ws.r = cs.gamma;
    ws.r.noalias() -= cs.G.lazyProduct(data.ddq);
    if (!detail::factor_delassus(ws)) return detail::finish_constrained(Status::singular, cs, x, ddq);
    cs.lambda = ws.r;
    detail::solve_delassus(ws, cs.lambda);
    detail::reduced_constraint_forces(ws, cs.lambda);
    ws.t += data.u;
    detail::aba_accelerations<true>(model, data, ws.t, a_world);        // q̈ = H⁻¹ (τ − C + Gᵀ λ)
    if (detail::constraint_residual(cs.G, cs.gamma, data.ddq, ws.r)) {  // one refinement step
      detail::solve_delassus(ws, ws.r);
      cs.lambda += ws.r;
      detail::reduced_constraint_forces(ws, cs.lambda);
      ws.t += data.u;
      detail::aba_accelerations<true>(model, data, ws.t, a_world);
    }
    x = data.ddq;
    Residual<typename ModelT::Scalar> evidence{};
    s = detail::accept_constraint_residual(cs.G, cs.gamma, x, ws.r, evidence);
    return detail::finish_constrained(s, cs, x, ddq, evidence);
  }
}

/// Impulse by the articulated-body factorization: ABA's second pass for D and U (no
/// velocities needed), K Λ = v⁺ − G q̇⁻, q̇⁺ = q̇⁻ + H⁻¹ Gᵀ Λ. `target` = v⁺ (active rows) or
/// null for 0. Same answer as compute_impulse_range_space to rounding.
template <class ModelT, int MR, int MC, class Q, class V, class Out>
Status compute_impulse_articulated(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                   const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v_minus, Out& v_plus,
                                   const typename ConstraintSet<ModelT, MR, MC>::RowVector* target = nullptr) {
  TALUS_CHECK_ENTRY_SIZES_QV(compute_impulse_articulated, ModelT, q, v_minus, v_plus);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    using S = typename ModelT::Scalar;
    typename ModelT::TangentVector x = ModelT::TangentVector::Zero();
    Status s = detail::check_constraint_inputs(model, cs, q, v_minus);
    if (s == Status::ok && target != nullptr && (target->size() != cs.active_rows() || !all_finite(*target)))
      s = cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
    if (s != Status::ok) {
      detail::zero_constraint_results(cs);
      return detail::finish_constrained(s, cs, x, v_plus);
    }
    const typename ModelT::TangentVector zero = ModelT::TangentVector::Zero();
    detail::articulated_forward<false, false>(model, data, q, zero, nullptr);
    if (!detail::constraint_rows(model, data, cs, q, zero, detail::pass_jacobian | detail::pass_position_error)) {
      detail::zero_constraint_results(cs);
      return detail::finish_constrained(Status::invalid_input, cs, x, v_plus);
    }
    if (!detail::aba_backward<false>(model, data, zero))
      return detail::finish_constrained(Status::singular, cs, x, v_plus);
    auto& ws = cs.ws;
    detail::articulated_delassus(model, data, cs.G, ws);
    if (target != nullptr) ws.r = *target;
    else ws.r.setZero(cs.active_rows());
    ws.r.noalias() -= cs.G.lazyProduct(v_minus);
    if (!detail::factor_delassus(ws)) return detail::finish_constrained(Status::singular, cs, x, v_plus);
    cs.lambda = ws.r;
    detail::solve_delassus(ws, cs.lambda);
    detail::reduced_constraint_forces(ws, cs.lambda);
    detail::aba_accelerations<false>(model, data, ws.t, Motion<S>::Zero());  // H⁻¹ Gᵀ Λ
    x = v_minus + data.ddq;
    typename ConstraintSet<ModelT, MR, MC>::RowVector zero_target;
    if (target == nullptr) zero_target.setZero(cs.active_rows());
    if (detail::constraint_residual(cs.G, target != nullptr ? *target : zero_target, x, ws.r)) {  // one refinement step
      detail::solve_delassus(ws, ws.r);
      cs.lambda += ws.r;
      detail::reduced_constraint_forces(ws, cs.lambda);
      detail::aba_accelerations<false>(model, data, ws.t, Motion<S>::Zero());
      x = v_minus + data.ddq;
    }
    Residual<S> evidence{};
    s = detail::accept_constraint_residual(cs.G, target != nullptr ? *target : zero_target, x, ws.r, evidence);
    return detail::finish_constrained(s, cs, x, v_plus, evidence);
  }
}

}  // namespace talus
