#pragma once
/// \file jacobians.hpp
/// Frame and point Jacobians.
///
/// compute_joint_jacobians fills data.J: column k is the motion subspace of dof k in world
/// coordinates (world frame, reference point at the world origin), so that for a body b
///   v_b (world) = Σ_{k supports b} J.col(k) v_k.
/// A frame Jacobian J_f (6 x nv) maps v to the frame's spatial velocity [ω; v] in the
/// chosen ReferenceFrame (see kinematics.hpp); a point Jacobian (3 x nv) maps v to the
/// linear velocity of a body point, world axes (local_world_aligned/world) or body axes (local).
/// Columns of dofs that do not move the frame are zero.
#include <talus/algorithms/kinematics.hpp>

namespace talus {

/// Placements (data.liMi, data.oMi) and world-frame joint Jacobian columns (data.J).
template <class ModelT, class Q>
Status compute_joint_jacobians(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  if (Status s = forward_kinematics(model, data, q); s != Status::ok) return s;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using Jt = typename Tree::template Joint<I>;
    data.J.template middleCols<Jt::nv>(Tree::idx_v[I]) = Jt::template motion_subspace_in<S>(data.oMi[I], model.axis[I]);
  });
  return Status::ok;
}

namespace detail {
/// Calls f(k) for every dof k that moves body b (b's own dofs and its ancestors'), bounded by nv.
template <class ModelT, class F>
void for_each_supporting_dof(int body, F&& f) {
  using Tree = typename ModelT::Tree;
  if (body < 0) return;
  // last dof at or above `body`
  int b = body;
  while (b >= 0 && Tree::joint_nv[b] == 0) b = Tree::parent[b];
  if (b < 0) return;
  for (int k = Tree::idx_v[b] + Tree::joint_nv[b] - 1; k >= 0; k = Tree::dof_parent[k]) f(k);
}

/// The linear velocity of the point at world position p per unit rate of a dof whose world
/// Jacobian column (spatial velocity at the world origin, [ω; v]) is c: v + ω × p.
template <class S>
Vector3<S> point_velocity_column(const Motion<S>& c, const Vector3<S>& p) {
  return c.template tail<3>() + c.template head<3>().cross(p);
}

/// Writes into J (6 x nv) the frame Jacobian of a frame at world position/orientation oMf
/// on body `body`, from data.J.
template <class ModelT, class Jac>
void frame_jacobian_from_columns(const Data<ModelT>& data, int body, const Transform<typename ModelT::Scalar>& oMf,
                                 ReferenceFrame rf, Jac& J) {
  using S = typename ModelT::Scalar;
  J.setZero();
  for_each_supporting_dof<ModelT>(body, [&](int k) {
    const Motion<S> c = data.J.col(k);
    switch (rf) {
      case ReferenceFrame::world: J.col(k) = c; break;
      case ReferenceFrame::local_world_aligned:
        J.col(k).template head<3>() = c.template head<3>();
        J.col(k).template tail<3>() = point_velocity_column(c, oMf.p);
        break;
      case ReferenceFrame::local: J.col(k) = oMf.inverse_act_motion(c); break;
    }
  });
}
}  // namespace detail

/// 6D Jacobian of frame `frame`, from data filled by compute_joint_jacobians.
template <class ModelT, class Jac>
Status frame_jacobian(const ModelT& model, const Data<ModelT>& data, int frame, ReferenceFrame rf, Jac& J) {
  static_assert(detail::is_size<Jac, 6, ModelT::nv>(), "talus::frame_jacobian: J must be 6 x nv (Model::Jacobian6)");
  J.setZero();
  if (!detail::reference_frame_valid(rf)) return Status::invalid_input;
  Transform<typename ModelT::Scalar> oMf;
  if (Status s = frame_placement(model, data, frame, oMf); s != Status::ok) return s;
  detail::frame_jacobian_from_columns(data, model.frames[frame].body, oMf, rf, J);
  return detail::finish_output(Status::ok, J);
}

namespace detail {
/// Placements (liMi, oMi) and world Jacobian columns (data.J) of `body` and its ancestors only:
/// the work a single frame or point Jacobian needs (a foot of a quadruped: 4 of 13 bodies).
/// Entries of the other bodies in data are left as they were. q must have been checked.
template <class ModelT, class Q>
void support_jacobian_columns(const ModelT& model, Data<ModelT>& data, const Q& q, int body) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  std::array<bool, ModelT::nb> on_path{};
  for (int b = body; b >= 0; b = Tree::parent[b]) on_path[static_cast<std::size_t>(b)] = true;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    using Jt = typename Tree::template Joint<I>;
    if (!on_path[I]) return;
    update_placement<I, true>(model, data, q);
    data.J.template middleCols<Jt::nv>(Tree::idx_v[I]) = Jt::template motion_subspace_in<S>(data.oMi[I], model.axis[I]);
  });
}
}  // namespace detail

/// 6D Jacobian of frame `frame` at configuration q. Computes placements and Jacobian columns
/// of the frame's support path only (the body carrying the frame and its ancestors), as
/// Pinocchio's computeFrameJacobian: data.oMi, liMi and J of those bodies are updated, the
/// others' are left as they were (call compute_joint_jacobians to fill all of them).
template <class ModelT, class Q, class Jac>
Status frame_jacobian(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, int frame,
                      ReferenceFrame rf, Jac& J) {
  static_assert(detail::is_size<Jac, 6, ModelT::nv>(), "talus::frame_jacobian: J must be 6 x nv (Model::Jacobian6)");
  J.setZero();
  if (!detail::frame_id_valid<ModelT>(frame) || !detail::reference_frame_valid(rf)) return Status::invalid_input;
  if (Status s = check_configuration(model, q); s != Status::ok) return s;
  detail::support_jacobian_columns(model, data, q, model.frames[frame].body);
  return frame_jacobian(model, data, frame, rf, J);
}

/// 3D Jacobian of the linear velocity of a point p_body (body frame) of body `body`,
/// from data filled by compute_joint_jacobians. rf local: body axes; otherwise world axes.
template <class ModelT, class Jac>
Status point_jacobian(const ModelT&, const Data<ModelT>& data, int body, const Vector3<typename ModelT::Scalar>& p_body,
                      ReferenceFrame rf, Jac& J) {
  static_assert(detail::is_size<Jac, 3, ModelT::nv>(), "talus::point_jacobian: J must be 3 x nv (Model::Jacobian3)");
  using S = typename ModelT::Scalar;
  J.setZero();
  if (!detail::body_id_valid<ModelT>(body) || !detail::point_valid(p_body) || !detail::reference_frame_valid(rf))
    return Status::invalid_input;
  if (body < 0) return Status::ok;
  const Vector3<S> p = data.oMi[body].act_point(p_body);
  const Matrix3<S> Rt = data.oMi[body].R.transpose();
  detail::for_each_supporting_dof<ModelT>(body, [&](int k) {
    const Vector3<S> lin = detail::point_velocity_column<S>(data.J.col(k), p);
    J.col(k) = rf == ReferenceFrame::local ? Vector3<S>(Rt * lin) : lin;
  });
  return detail::finish_output(Status::ok, J);
}

/// Same at configuration q: like frame_jacobian(q, ...), updates the body's support path only.
template <class ModelT, class Q, class Jac>
Status point_jacobian(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q, int body,
                      const Vector3<typename ModelT::Scalar>& p_body, ReferenceFrame rf, Jac& J) {
  static_assert(detail::is_size<Jac, 3, ModelT::nv>(), "talus::point_jacobian: J must be 3 x nv (Model::Jacobian3)");
  J.setZero();
  if (!detail::body_id_valid<ModelT>(body) || !detail::point_valid(p_body) || !detail::reference_frame_valid(rf))
    return Status::invalid_input;
  if (Status s = check_configuration(model, q); s != Status::ok) return s;
  detail::support_jacobian_columns(model, data, q, body);
  return point_jacobian(model, data, body, p_body, rf, J);
}

/// 3D Jacobian of the linear velocity of a frame's origin: local — frame axes (rows 3..5 of
/// the local 6D Jacobian); local_world_aligned and world — world axes (rows 3..5 of the
/// local_world_aligned 6D Jacobian; the world 6D Jacobian's linear rows are the velocity of
/// the point at the world origin instead, so world is treated as local_world_aligned here).
template <class ModelT, class Jac>
Status frame_linear_jacobian(const ModelT& model, const Data<ModelT>& data, int frame, ReferenceFrame rf, Jac& J) {
  static_assert(detail::is_size<Jac, 3, ModelT::nv>(),
                "talus::frame_linear_jacobian: J must be 3 x nv (Model::Jacobian3)");
  J.setZero();
  if (!detail::frame_id_valid<ModelT>(frame) || !detail::reference_frame_valid(rf)) return Status::invalid_input;
  const auto& F = model.frames[frame];
  if (rf != ReferenceFrame::local) return point_jacobian(model, data, F.body, F.placement.p, rf, J);
  typename ModelT::Jacobian6 J6;
  if (Status s = frame_jacobian(model, data, frame, rf, J6); s != Status::ok) return s;
  J = J6.template bottomRows<3>();
  return Status::ok;
}

}  // namespace talus
