#pragma once
/// \file centroidal.hpp
/// Center of mass and centroidal momentum.
///
/// CoM c = Σ m_i c_i / M over the moving bodies (masses of links welded to the world are
/// not part of the model), world frame. Its Jacobian J_c (3 x nv): ċ = J_c q̇.
/// Centroidal momentum h_G = [k_G; l] (angular momentum about the CoM, N·m·s; linear
/// momentum, kg·m/s), world axes — talus's [angular; linear] order. h_G = A_G(q) q̇, with
/// A_G (6 x nv) the centroidal momentum matrix (Orin & Goswami).
///
/// Method: c and ċ body by body, c = Σ m_i c_i / M (center_of_mass). For the matrices,
/// world-frame subtree inertias Y_i (rigid-body inertias, summed leaf to root);
/// dof k on body i with world column s_k moves the whole subtree of i rigidly, so
///   J_c col k = (m_sub,i / M) (s_k,lin + s_k,ang × c_sub,i),   A_G col k = ᴳX_O* (Y_i s_k).
#include <talus/algorithms/jacobians.hpp>

namespace talus {

namespace detail {
/// data.Ycom[i] ← world-frame inertia of the subtree of i; data.mass, data.com. Needs data.oMi.
template <class ModelT>
void subtree_inertias(const ModelT& model, Data<ModelT>& data) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    data.Ycom[I] = model.inertia[I].transformed(data.oMi[I]);
  });
  static_for_reverse<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    if constexpr (P >= 0) data.Ycom[P] = data.Ycom[P] + data.Ycom[I];
  });
  Inertia<S> total;
  for (int i = 0; i < ModelT::nb; ++i)
    if (Tree::parent[i] < 0) total = total + data.Ycom[i];
  data.mass = total.mass;
  data.com = total.com;
}
}  // namespace detail

namespace detail {
/// Outputs of the CoM functions: zero (data.com, data.vcom, data.mass) unless s is ok and
/// they are finite.
template <class ModelT>
Status finish_com(Status s, Data<ModelT>& data) {
  if (s == Status::ok && !(all_finite(data.com) && all_finite(data.vcom))) s = Status::overflow;
  if (s != Status::ok) {
    data.com.setZero();
    data.vcom.setZero();
    data.mass = typename ModelT::Scalar(0);
  }
  return s;
}
}  // namespace detail

namespace detail {
/// data.mass (kg), data.com (m, world) and, WithVelocity, data.vcom (m/s, world) from the
/// placements (and body velocities) already in data: c = Σ m_i ᵒXᵢ(c_i) / M and
/// ċ = Σ m_i ᵒRᵢ (v_i + ω_i × c_i) / M, body by body (the subtree inertias are not needed for
/// c and ċ alone). singular if the total mass M is not > 0.
template <bool WithVelocity, class ModelT>
Status com_from_kinematics(const ModelT& model, Data<ModelT>& data) {
  using S = typename ModelT::Scalar;
  S mass = S(0);
  Vector3<S> mc = Vector3<S>::Zero(), mv = Vector3<S>::Zero();
  for (int i = 0; i < ModelT::nb; ++i) {
    const Inertia<S>& Y = model.inertia[i];
    mass += Y.mass;
    mc += Y.mass * data.oMi[i].act_point(Y.com);
    if constexpr (WithVelocity) {
      const Motion<S>& vi = data.v[i];
      mv += Y.mass * (data.oMi[i].R * (vi.template tail<3>() + vi.template head<3>().cross(Y.com)));
    }
  }
  data.mass = mass;
  if (!(mass > S(0))) return Status::singular;
  data.com = mc / mass;
  data.vcom = mv / mass;
  return Status::ok;
}
}  // namespace detail

/// data.com (m, world), data.mass (kg); data.vcom is set to zero. Returns singular if the
/// total mass is zero. On failure data.com, data.vcom and data.mass are zero.
template <class ModelT, class Q>
Status center_of_mass(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q) {
  data.vcom.setZero();
  Status s = forward_kinematics(model, data, q);
  if (s == Status::ok) s = detail::com_from_kinematics<false>(model, data);
  return detail::finish_com(s, data);
}

/// data.com and data.vcom (m/s, world).
template <class ModelT, class Q, class V>
Status center_of_mass(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q,
                      const Eigen::MatrixBase<V>& v) {
  data.vcom.setZero();
  Status s = forward_kinematics(model, data, q, v);
  if (s == Status::ok) s = detail::com_from_kinematics<true>(model, data);
  return detail::finish_com(s, data);
}

/// Jacobian of the center of mass, world axes: ċ = Jc q̇. Also fills data.com, data.J.
template <class ModelT, class Q, class Jac>
Status com_jacobian(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, Jac& Jc) {
  static_assert(detail::is_size<Jac, 3, ModelT::nv>(), "talus::com_jacobian: Jc must be 3 x nv (Model::Jacobian3)");
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  Jc.setZero();
  if (Status s = compute_joint_jacobians(model, data, q); s != Status::ok) return s;
  detail::subtree_inertias(model, data);
  if (!(data.mass > 0)) return Status::singular;
  for (int k = 0; k < ModelT::nv; ++k) {
    const Inertia<S>& Y = data.Ycom[Tree::dof_body[k]];
    const Motion<S> s = data.J.col(k);
    Jc.col(k) = (Y.mass / data.mass) * (s.template tail<3>() + s.template head<3>().cross(Y.com));
  }
  return detail::finish_output(Status::ok, Jc);
}

/// Centroidal momentum matrix A_G (6 x nv), h_G = A_G q̇. Also fills data.com, data.J.
template <class ModelT, class Q, class Jac>
Status centroidal_momentum_matrix(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, Jac& Ag) {
  static_assert(detail::is_size<Jac, 6, ModelT::nv>(),
                "talus::centroidal_momentum_matrix: Ag must be 6 x nv (Model::Jacobian6)");
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  Ag.setZero();
  if (Status s = compute_joint_jacobians(model, data, q); s != Status::ok) return s;
  detail::subtree_inertias(model, data);
  if (!(data.mass > 0)) return Status::singular;
  for (int k = 0; k < ModelT::nv; ++k) {
    const Force<S> hO = data.Ycom[Tree::dof_body[k]] * Motion<S>(data.J.col(k));  // momentum about world origin
    Ag.col(k).template tail<3>() = hO.template tail<3>();
    Ag.col(k).template head<3>() = hO.template head<3>() - data.com.cross(hO.template tail<3>());
  }
  return detail::finish_output(Status::ok, Ag);
}

/// Centroidal momentum h_G = [k_G; l] (world axes, about the CoM). Also fills data.com, data.vcom.
template <class ModelT, class Q, class V>
Status centroidal_momentum(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q,
                           const Eigen::MatrixBase<V>& v, Force<typename ModelT::Scalar>& hg) {
  using S = typename ModelT::Scalar;
  hg.setZero();
  if (Status s = center_of_mass(model, data, q, v); s != Status::ok) return s;
  Force<S> hO = Force<S>::Zero();
  for (int i = 0; i < ModelT::nb; ++i) hO += data.oMi[i].act_force(model.inertia[i] * data.v[i]);
  hg.template tail<3>() = hO.template tail<3>();
  hg.template head<3>() = hO.template head<3>() - data.com.cross(hO.template tail<3>());
  return detail::finish_output(Status::ok, hg);
}

}  // namespace talus
