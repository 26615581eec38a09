#pragma once
/// \file rnea.hpp
/// Recursive Newton–Euler algorithm: inverse dynamics.
///
///   τ = H(q) q̈ + C(q, q̇) − Σ_i J_iᵀ f_ext,i      (C includes gravity)
///
/// Forward pass (gravity enters as a fictitious base acceleration −g):
///   a_i = ⁱX_λ(i) a_λ(i) + S_i q̈_i + v_i × S_i q̇_i,   a_world = [0; −g]
///   f_i = I_i a_i + v_i ×* I_i v_i − f_ext,i
/// Backward pass:  τ_i = S_iᵀ f_i,   f_λ(i) += λ(i)X_i* f_i
///
/// External forces f_ext[i] act on body i and are expressed in body i's frame, as
/// [moment about the body origin; force] (N·m; N).
#include <talus/algorithms/kinematics.hpp>

namespace talus {

template <class ModelT>
using ExternalForces = std::array<Force<typename ModelT::Scalar>, ModelT::nb>;

/// All-zero external forces (note: `ExternalForces<M> f{};` leaves Eigen vectors uninitialised).
template <class ModelT>
ExternalForces<ModelT> zero_external_forces() {
  return filled<Force<typename ModelT::Scalar>, ModelT::nb>(Force<typename ModelT::Scalar>::Zero());
}

namespace detail {

/// RNEA's backward pass: τ_i = S_iᵀ f_i, f_λ(i) += λ(i)X_i* f_i (data.f, liMi -> data.tau).
template <class ModelT>
void rnea_backward(const ModelT& model, Data<ModelT>& data) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_for_reverse<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    data.tau.template segment<J::nv>(Tree::idx_v[I]) = J::template project<S>(model.axis[I], data.f[I]);
    if constexpr (P >= 0) data.f[P] += parent_link<I>(data).act_force(data.f[I]);
  });
}

/// RNEA's forward step for body I, after its placement liMi (Level 0: gravity only, v = q̈ = 0;
/// 1: + velocity, q̈ = 0; 2: full): v_i, a_gf,i (with gravity), f_i. Shared with the one-pass
/// constrained system (constraint_quantities.hpp).
template <int I, int Level, bool WithFext, class ModelT, class V, class A>
TALUS_INLINE void rnea_forward_body(const ModelT& model, Data<ModelT>& data, const V& v, const A& a,
                                    const ExternalForces<ModelT>* fext,
                                    const Motion<typename ModelT::Scalar>& a_world) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  constexpr int P = Tree::parent[I];
  using J = typename Tree::template Joint<I>;
  const Vector3<S>& axis = model.axis[I];
  const Motion<S> a_parent = P < 0 ? a_world : data.a_gf[P];
  data.a_gf[I] = parent_link<I>(data).inverse_act_motion(a_parent);
  if constexpr (Level >= 1) {
    // S q̇ and S q̈ enter through the joint (add_motion, add_cross_motion): for an axis-aligned
    // joint they are one entry of a 6-vector, and the joint touches only the entries they change.
    const auto qd = v.template segment<J::nv>(Tree::idx_v[I]);
    if constexpr (P < 0) data.v[I] = J::template motion<S>(axis, qd);
    else {
      data.v[I] = parent_link<I>(data).inverse_act_motion(data.v[P]);
      J::template add_motion<S>(data.v[I], axis, qd);
    }
    J::template add_cross_motion<S>(data.a_gf[I], data.v[I], axis, qd);
    if constexpr (Level >= 2) J::template add_motion<S>(data.a_gf[I], axis, a.template segment<J::nv>(Tree::idx_v[I]));
    const Force<S> h = model.inertia[I] * data.v[I];
    data.f[I] = model.inertia[I] * data.a_gf[I] + cross_force<S>(data.v[I], h);
  } else {
    data.v[I].setZero();
    data.f[I] = model.inertia[I] * data.a_gf[I];
  }
  if constexpr (WithFext) data.f[I] -= (*fext)[I];
}

/// The gravity field as a fictitious base acceleration [0; −g].
template <class ModelT>
Motion<typename ModelT::Scalar> gravity_acceleration(const ModelT& model) {
  using S = typename ModelT::Scalar;
  Motion<S> a_world;
  a_world << S(0), S(0), S(0), -model.gravity;
  return a_world;
}

/// Level 0: gravity only (v = q̈ = 0); 1: + velocity (q̈ = 0); 2: full.
template <int Level, bool WithFext, class ModelT, class Q, class V, class A>
void rnea_pass(const ModelT& model, Data<ModelT>& data, const Q& q, const V& v, const A& a,
               const ExternalForces<ModelT>* fext) {
  const auto a_world = gravity_acceleration(model);
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    detail::update_placement<I, false>(model, data, q);
    rnea_forward_body<I, Level, WithFext>(model, data, v, a, fext, a_world);
  });
  rnea_backward(model, data);
}

/// RNEA on the placements already in data.liMi (a forward kinematics at the same q): the
/// forward steps and the backward pass, without recomputing a joint transform. For a caller
/// that has swept the tree once at q and reads everything else from data.
template <int Level, bool WithFext, class ModelT, class V, class A>
void rnea_on_placements(const ModelT& model, Data<ModelT>& data, const V& v, const A& a,
                        const ExternalForces<ModelT>* fext) {
  const auto a_world = gravity_acceleration(model);
  static_for<ModelT::nb>([&](auto i) {
    rnea_forward_body<decltype(i)::value, Level, WithFext>(model, data, v, a, fext, a_world);
  });
  rnea_backward(model, data);
}

}  // namespace detail

/// Inverse dynamics: τ = H q̈ + C. Output tau (nv). Also fills data.liMi, v, a_gf, f, tau.
template <class ModelT, class Q, class V, class A, class Out>
Status rnea(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
            const Eigen::MatrixBase<A>& a, Out& tau) {
  TALUS_CHECK_ENTRY_SIZES(rnea, ModelT, q, v, a, tau);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, A>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    const Status s = check_inputs(model, q, v, a);
    if (s == Status::ok) detail::rnea_pass<2, false>(model, data, q, v, a, nullptr);
    return output_or_zero(s, data.tau, tau);
  }
}

/// Inverse dynamics with external forces: τ = H q̈ + C − Σ J_iᵀ f_ext,i.
template <class ModelT, class Q, class V, class A, class Out>
Status rnea(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
            const Eigen::MatrixBase<A>& a, const ExternalForces<ModelT>& fext, Out& tau) {
  TALUS_CHECK_ENTRY_SIZES(rnea, ModelT, q, v, a, tau);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V, A>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    const Status s = check_inputs(model, q, v, a, fext);
    if (s == Status::ok) detail::rnea_pass<2, true>(model, data, q, v, a, &fext);
    return output_or_zero(s, data.tau, tau);
  }
}

/// Nonlinear effects (bias forces) C(q, q̇) = RNEA(q, q̇, 0): Coriolis, centrifugal and gravity.
template <class ModelT, class Q, class V, class Out>
Status nonlinear_effects(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q,
                         const Eigen::MatrixBase<V>& v, Out& C) {
  TALUS_CHECK_ENTRY_SIZES_QV(nonlinear_effects, ModelT, q, v, C);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out, V>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    const Status s = check_inputs(model, q, v);
    if (s == Status::ok) detail::rnea_pass<1, false>(model, data, q, v, v, nullptr);
    return output_or_zero(s, data.tau, C);
  }
}

/// Generalized gravity g(q) = RNEA(q, 0, 0).
template <class ModelT, class Q, class Out>
Status generalized_gravity(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, Out& g) {
  TALUS_ASSERT_CONFIG(generalized_gravity, ModelT, q);
  TALUS_ASSERT_TANGENT_OUT(generalized_gravity, ModelT, g);
  if constexpr (!detail::entry_sizes_ok<ModelT, Q, Out>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    const Status s = check_inputs(model, q);
    if (s == Status::ok) detail::rnea_pass<0, false>(model, data, q, q, q, nullptr);
    return output_or_zero(s, data.tau, g);
  }
}

}  // namespace talus
