#pragma once
/// \file system_kinematics.hpp
/// The kinematics that the constrained and contact solvers read, in one sweep over the tree:
/// world-frame motion of a point frame on a body (FrameMotion), forward kinematics with the
/// world Jacobian columns (what every constraint row is computed from), and the forward pass
/// of the whole constrained system (CRBA's and RNEA's forward steps and the acceleration at
/// q̈ = 0 that γ reads, per body, so each placement is computed once). Internal (namespace
/// detail): the public entries are in constraints/constraint_quantities.hpp and the solvers.
/// Frames and units as in kinematics.hpp (world axes; m, rad, m/s, rad/s, m/s², rad/s²).
#include <talus/algorithms/crba.hpp>
#include <talus/algorithms/kinematics.hpp>
#include <talus/algorithms/rnea.hpp>

namespace talus {

namespace detail {

/// World-frame motion of a frame bMf attached to body b (b = −1: the world, at rest):
/// rotation and origin, angular velocity, origin velocity, and (from data.a, so with the
/// q̈ used in forward kinematics) angular acceleration and classical origin acceleration.
template <class S>
struct FrameMotion {
  Matrix3<S> R = Matrix3<S>::Identity();
  Vector3<S> p = Vector3<S>::Zero();
  Vector3<S> w = Vector3<S>::Zero(), dp = Vector3<S>::Zero(), dw = Vector3<S>::Zero(), ddp = Vector3<S>::Zero();
};

template <class ModelT>
FrameMotion<typename ModelT::Scalar> frame_motion(const Data<ModelT>& data, int b,
                                                  const Transform<typename ModelT::Scalar>& bMf, bool with_motion) {
  using S = typename ModelT::Scalar;
  FrameMotion<S> m;
  if (b < 0) {
    m.R = bMf.R;
    m.p = bMf.p;
    return m;
  }
  const Transform<S>& oMb = data.oMi[b];
  m.R = oMb.R * bMf.R;
  m.p = oMb.act_point(bMf.p);
  if (!with_motion) return m;
  const Vector3<S> w = data.v[b].template head<3>();
  const Vector3<S> vp = data.v[b].template tail<3>() + w.cross(bMf.p);
  const Vector3<S> al = data.a[b].template head<3>();
  const Vector3<S> ap = data.a[b].template tail<3>() + al.cross(bMf.p) + w.cross(vp);
  m.w = oMb.R * w;
  m.dp = oMb.R * vp;
  m.dw = oMb.R * al;
  m.ddp = oMb.R * ap;
  return m;
}

/// Forward kinematics at (q, v) with q̈ = 0 (with_motion: data.v, data.a too) and the world
/// Jacobian columns data.J: what every constraint row is computed from.
template <class ModelT, class Q, class V>
void kinematics_with_world_jacobian(const ModelT& model, Data<ModelT>& data, const Q& q, const V& v, bool with_motion) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  const typename ModelT::TangentVector zero = ModelT::TangentVector::Zero();
  if (with_motion) kinematics_pass<2>(model, data, q, v, zero);
  else kinematics_pass<0>(model, data, q, v, v);
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using Jt = typename Tree::template Joint<I>;
    data.J.template middleCols<Jt::nv>(Tree::idx_v[I]) = Jt::template motion_subspace_in<S>(data.oMi[I], model.axis[I]);
  });
}

/// The forward pass of the whole constrained system in one sweep over the tree (each body's
/// placement computed once, not three times as by crba, rnea and constraint_pass in turn):
/// per body, CRBA's step (oMi, liMi, world Jacobian columns, world inertia), RNEA's at q̈ = 0
/// (v, a_gf with gravity, f), and the acceleration at q̈ = 0 without gravity that the
/// constraints' γ reads (data.a). Every quantity is computed by the same expressions as by the
/// separate algorithms, so the results are the same to the last bit.
template <bool WithFext, class ModelT, class Q, class V>
void constrained_system_forward(const ModelT& model, Data<ModelT>& data, const Q& q, const V& v,
                                const ExternalForces<ModelT>* fext) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  const auto a_world = gravity_acceleration(model);
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    crba_forward_body<I>(model, data, q);
    rnea_forward_body<I, 1, WithFext>(model, data, v, v, fext, a_world);
    if constexpr (P < 0) {
      data.a[I].setZero();
    } else {
      const Motion<S> vJ = J::template motion<S>(model.axis[I], v.template segment<J::nv>(Tree::idx_v[I]));
      data.a[I] = detail::parent_link<I>(data).inverse_act_motion(data.a[P]) + cross_motion<S>(data.v[I], vJ);
    }
  });
}

}  // namespace detail

}  // namespace talus
