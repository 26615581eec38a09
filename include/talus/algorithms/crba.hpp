#pragma once
/// \file crba.hpp
/// Composite rigid-body algorithm: the joint-space inertia matrix H(q) (nv x nv, symmetric,
/// both triangles filled), kinetic energy T = ½ q̇ᵀ H q̇.
///
/// World-frame form (as Pinocchio): with s_k the motion subspace column of dof k in world
/// coordinates (data.J) and Y^c_i the composite inertia of body i's subtree in world
/// coordinates,
///   Y^c_i = Y_i + Σ_{children j} Y^c_j     (plain sums: all in one frame)
///   F = Y^c_i S_i;   H_ki = s_kᵀ F  for k = i's dofs and every ancestor dof of i
/// Composite inertias are carried as (m, h, I_o) (InertiaSum), which add component-wise.
/// Every entry of H is written on every call (entries between two branches, which are zero,
/// too), so H never depends on what a Data held before; H is exactly symmetric.
/// Fills data.liMi, oMi, J, Yc, H. On failure H is zero.
#include <talus/algorithms/kinematics.hpp>

namespace talus {

namespace detail {
/// CRBA's forward step for body I: placements (liMi, oMi), world Jacobian columns (data.J),
/// the body's inertia in world coordinates (data.Yc). Shared with the one-pass constrained system.
template <int I, class ModelT, class Q>
TALUS_INLINE void crba_forward_body(const ModelT& model, Data<ModelT>& data, const Q& q) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  using J = typename Tree::template Joint<I>;
  update_placement<I, true>(model, data, q);
  data.J.template middleCols<J::nv>(Tree::idx_v[I]) = J::template motion_subspace_in<S>(data.oMi[I], model.axis[I]);
  data.Yc[I] = InertiaSum<S>::from(model.inertia[I], data.oMi[I]);
}

/// CRBA's forward pass: crba_forward_body for every body.
template <class ModelT, class Q>
void crba_forward(const ModelT& model, Data<ModelT>& data, const Q& q) {
  static_for<ModelT::nb>([&](auto i) { crba_forward_body<decltype(i)::value>(model, data, q); });
}

/// fn(std::integral_constant<int, k>) for dof K and each of its ancestor dofs (K, dof_parent[K],
/// ... up to the root), unrolled at compile time; nothing for K = −1.
template <class Tree, int K, class Fn>
TALUS_INLINE void for_each_ancestor_dof(Fn&& fn) {
  if constexpr (K >= 0) {
    fn(std::integral_constant<int, K>{});
    for_each_ancestor_dof<Tree, Tree::dof_parent[K]>(fn);
  }
}

/// H's entries (Iv..Iv+Nvi−1, K+1..Hi−1) and their mirror images are zero (dofs in other
/// branches than the dofs Iv.. of one joint), for K and each ancestor dof of K, Hi the dof
/// below K on the chain (Iv at the start). Fixed-size blocks: the runs are known at compile time.
template <class Tree, int Nvi, int Iv, int K, int Hi, class H>
TALUS_INLINE void zero_branch_gaps(H& h) {
  if constexpr (Hi > K + 1) {
    h.template block<Nvi, Hi - K - 1>(Iv, K + 1).setZero();
    h.template block<Hi - K - 1, Nvi>(K + 1, Iv).setZero();
  }
  if constexpr (K >= 0) zero_branch_gaps<Tree, Nvi, Iv, Tree::dof_parent[K], K>(h);
}

/// CRBA's backward pass, from data.J (world columns) and data.Yc (each body's inertia, world
/// frame) of the forward pass: composite inertias and H. Shared with the one-pass constrained
/// system (constraint_quantities.hpp).
template <class ModelT>
void crba_backward(const ModelT&, Data<ModelT>& data) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_for_reverse<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    constexpr int nvi = J::nv;
    constexpr int iv = Tree::idx_v[I];
    if constexpr (P >= 0) data.Yc[P] += data.Yc[I];
    Eigen::Matrix<S, 6, nvi> F;
    for (int k = 0; k < nvi; ++k) F.col(k) = data.Yc[I] * Motion<S>(data.J.col(iv + k));
    // this joint's block, then every ancestor dof (the λ chain above the first dof of i)
    auto Hii = data.H.template block<nvi, nvi>(iv, iv);
    Hii.noalias() = data.J.template middleCols<nvi>(iv).transpose() * F;
    if constexpr (nvi > 1) Hii.template triangularView<Eigen::StrictlyUpper>() = Hii.transpose();  // exact symmetry
    for_each_ancestor_dof<Tree, Tree::dof_parent[iv]>([&](auto kc) {
      constexpr int k = decltype(kc)::value;
      const Eigen::Matrix<S, 1, nvi> Hki = data.J.col(k).transpose() * F;
      data.H.template block<1, nvi>(k, iv) = Hki;
      data.H.template block<nvi, 1>(iv, k) = Hki.transpose();
    });
    // Zero the columns before iv that are not ancestor dofs (other branches): the runs
    // between consecutive ancestors, and their mirror images.
    zero_branch_gaps<Tree, nvi, iv, Tree::dof_parent[iv], iv>(data.H);
  });
}
}  // namespace detail

template <class ModelT, class Q>
Status crba(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q) {
  TALUS_ASSERT_CONFIG(crba, ModelT, q);
  if constexpr (!detail::fits<Q, ModelT::nq>()) {
    return Status::invalid_input;  // the static_assert above said why; the body is not instantiated
  } else {
    if (Status s = check_configuration(model, q); s != Status::ok) {
      data.H.setZero();
      return s;
    }
    detail::crba_forward(model, data, q);
    detail::crba_backward(model, data);
    if (!all_finite(data.H)) {
      data.H.setZero();
      return Status::overflow;
    }
    return Status::ok;
  }
}

}  // namespace talus
