#pragma once
/// \file crba.hpp
/// Composite rigid-body algorithm: the joint-space inertia matrix H(q) (nv x nv, symmetric,
/// both triangles filled), kinetic energy T = ½ q̇ᵀ H q̇.
///
///   I^c_i = I_i + Σ_{children j} ⁱX_j* I^c_j ʲX_i       (composite inertia, body frame)
///   F = I^c_i S_i;   H_ii = S_iᵀ F;   for each ancestor j of i:  F ← ʲX_child* F,  H_ji = S_jᵀ F
///
/// Composite inertias stay rigid-body inertias, so they are carried as (m, c, I_c) — cheaper
/// to transform and add than 6x6 matrices.
#include <talus/algorithms/kinematics.hpp>

namespace talus {

template <class ModelT, class Q>
Status crba(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  if (Status s = check_configuration(model, q); s != Status::ok) {
    data.H.setZero();
    return s;
  }
  auto& Ic = data.Ic;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using J = typename Tree::template Joint<I>;
    data.liMi[I] = model.joint_placement[I] * J::template transform<S>(model.axis[I], q.template segment<J::nq>(Tree::idx_q[I]));
    Ic[I] = model.inertia[I];
  });
  static_for_reverse<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    constexpr int nvi = J::nv;
    constexpr int iv = Tree::idx_v[I];
    if constexpr (P >= 0) Ic[P] = Ic[P] + Ic[I].transformed(data.liMi[I]);
    Eigen::Matrix<S, 6, nvi> F;
    if constexpr (nvi == 1) F = Ic[I] * J::template motion_subspace<S>(model.axis[I]);
    else F = J::template mul_subspace<S>(model.axis[I], Ic[I].matrix());
    data.H.template block<nvi, nvi>(iv, iv) = J::template project<S>(model.axis[I], F);
    // Walk up the ancestors, carrying F into each ancestor's frame.
    int child = I;
    for_each_ancestor<Tree, I>([&](auto a) {
      constexpr int A = decltype(a)::value;
      using JA = typename Tree::template Joint<A>;
      F = data.liMi[child].act_force_cols(F);
      child = A;
      const Eigen::Matrix<S, JA::nv, nvi> HAi = JA::template project<S>(model.axis[A], F);
      data.H.template block<JA::nv, nvi>(Tree::idx_v[A], iv) = HAi;
      data.H.template block<nvi, JA::nv>(iv, Tree::idx_v[A]) = HAi.transpose();
    });
  });
  return Status::ok;
}

}  // namespace talus
