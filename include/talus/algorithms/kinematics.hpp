#pragma once
/// \file kinematics.hpp
/// Forward kinematics (position, velocity, acceleration) and placements, velocities and
/// accelerations of bodies, frames and points.
///
/// Recursion (Featherstone, RNEA forward pass), for body i with parent λ(i):
///   λ(i)Mi = X_T(i) X_J(q_i),   oMi = oMλ(i) λ(i)Mi
///   v_i = ⁱX_λ(i) v_λ(i) + S_i q̇_i
///   a_i = ⁱX_λ(i) a_λ(i) + S_i q̈_i + v_i × S_i q̇_i
/// v_i and a_i are spatial, in body i's frame, [angular; linear]; a_i excludes gravity.
///
/// Reference frames for frame/point quantities (`ReferenceFrame`):
///   local               — axes of the frame itself, reference point at its origin;
///   local_world_aligned — world axes, reference point at the frame origin (the usual
///                         "linear velocity of the foot in world coordinates");
///   world               — world axes, reference point at the world origin (spatial).
#include <talus/model/check.hpp>

namespace talus {

enum class ReferenceFrame : unsigned char { local, local_world_aligned, world };

namespace detail {

/// True if joint J forms X_T X_J(q) for a structured X_T (it states the pattern of X_J).
template <class J, class = void>
struct has_transform_pattern : std::false_type {};
template <class J>
struct has_transform_pattern<J, std::void_t<decltype(J::transform_R), decltype(J::transform_p)>> : std::true_type {};

/// λ(I)XI as a Plücker transform that knows the pattern of data.liMi[I] (Tree::Link<I>): the
/// one accessor the passes apply a body's parent link through.
template <int I, class ModelT>
TALUS_INLINE SparseTransform<typename ModelT::Tree::template Link<I>, typename ModelT::Scalar> parent_link(
    const Data<ModelT>& data) {
  return {data.liMi[I]};
}

/// λ(i)Mi = X_T X_J(q_i) for body I, and oMi = oMλ(i) λ(i)Mi if World; both products skip the
/// structural zeros and ones of X_T and of λ(i)Mi.
template <int I, bool World, class ModelT, class Q>
TALUS_INLINE void update_placement(const ModelT& model, Data<ModelT>& data, const Q& q) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  using J = typename Tree::template Joint<I>;
  constexpr int P = Tree::parent[I];
  const auto qi = q.template segment<J::nq>(Tree::idx_q[I]);
  if constexpr (has_transform_pattern<J>::value)
    data.liMi[I] =
        J::template placement<S, typename Tree::template Placement<I>>(model.joint_placement[I], model.axis[I], qi);
  else data.liMi[I] = J::template placement<S>(model.joint_placement[I], model.axis[I], qi);
  if constexpr (World) {
    if constexpr (P < 0) data.oMi[I] = data.liMi[I];
    else data.oMi[I] = compose_right<typename Tree::template Link<I>>(data.oMi[P], data.liMi[I]);
  }
}

/// Level 0: positions; 1: + velocities; 2: + accelerations.
template <int Level, class ModelT, class Q, class V, class A>
inline void kinematics_pass(const ModelT& model, Data<ModelT>& data, const Q& q, const V& v, const A& a) {
  using S = typename ModelT::Scalar;
  using Tree = typename ModelT::Tree;
  static_for<ModelT::nb>([&](auto i) {
    constexpr int I = decltype(i)::value;
    constexpr int P = Tree::parent[I];
    using J = typename Tree::template Joint<I>;
    update_placement<I, true>(model, data, q);
    if constexpr (Level >= 1) {
      const Motion<S> vJ = J::template motion<S>(model.axis[I], v.template segment<J::nv>(Tree::idx_v[I]));
      if constexpr (P < 0) data.v[I] = vJ;
      else data.v[I] = parent_link<I>(data).inverse_act_motion(data.v[P]) + vJ;
      if constexpr (Level >= 2) {
        const Motion<S> aJ = J::template motion<S>(model.axis[I], a.template segment<J::nv>(Tree::idx_v[I]));
        if constexpr (P < 0) data.a[I] = aJ;
        else data.a[I] = parent_link<I>(data).inverse_act_motion(data.a[P]) + aJ + cross_motion<S>(data.v[I], vJ);
      }
    }
  });
}

}  // namespace detail

/// Body placements: fills data.liMi, data.oMi.
template <class ModelT, class Q>
Status forward_kinematics(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q) {
  if (Status s = check_configuration(model, q); s != Status::ok) return s;
  detail::kinematics_pass<0>(model, data, q, q, q);
  return Status::ok;
}

/// Placements and body velocities: fills data.liMi, data.oMi, data.v.
template <class ModelT, class Q, class V>
Status forward_kinematics(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q,
                          const Eigen::MatrixBase<V>& v) {
  if (Status s = check_inputs(model, q, v); s != Status::ok) return s;
  detail::kinematics_pass<1>(model, data, q, v, v);
  return Status::ok;
}

/// Placements, velocities and accelerations (gravity excluded): fills data.liMi, oMi, v, a.
template <class ModelT, class Q, class V, class A>
Status forward_kinematics(const ModelT& model, Data<ModelT>& data, const Eigen::MatrixBase<Q>& q,
                          const Eigen::MatrixBase<V>& v, const Eigen::MatrixBase<A>& a) {
  if (Status s = check_inputs(model, q, v, a); s != Status::ok) return s;
  detail::kinematics_pass<2>(model, data, q, v, a);
  return Status::ok;
}

// ---------------------------------------------------------------------------------------
// Frames and points. All read data filled by forward_kinematics (with v for velocities,
// with v and a for accelerations). A frame attached to the world (body -1) is at rest.
// Status: invalid_input for an unknown frame or body id, a ReferenceFrame value outside
// the enumerators, or a point that is not finite or beyond input_limits::position; the
// output is then zero (a Transform: R and p zero, which no rotation is).

namespace detail {
inline bool reference_frame_valid(ReferenceFrame rf) {
  return rf == ReferenceFrame::local || rf == ReferenceFrame::local_world_aligned || rf == ReferenceFrame::world;
}

template <class ModelT>
bool frame_id_valid(int frame) {
  return frame >= 0 && frame < ModelT::nframes;
}

template <class ModelT>
bool body_id_valid(int body) {
  return body >= -1 && body < ModelT::nb;
}  // −1: the world

/// `out` zero unless s is ok and out is finite; returns s, or overflow.
template <class Out>
Status finish_output(Status s, Out& out) {
  if (s == Status::ok && !all_finite(out)) s = Status::overflow;
  if (s != Status::ok) out.setZero();
  return s;
}

template <class S>
Status finish_output(Status s, Transform<S>& out) {
  if (s == Status::ok && !(all_finite(out.R) && all_finite(out.p))) s = Status::overflow;
  if (s != Status::ok) {
    out.R.setZero();
    out.p.setZero();
  }
  return s;
}

/// Re-express a body-frame spatial motion m_b of body b, at frame placement bMf, in `rf`.
template <class S>
Motion<S> express_motion(const Transform<S>& oMb, const Transform<S>& bMf, const Motion<S>& m_b, ReferenceFrame rf) {
  switch (rf) {
    case ReferenceFrame::local: return bMf.inverse_act_motion(m_b);
    case ReferenceFrame::world: return oMb.act_motion(m_b);
    case ReferenceFrame::local_world_aligned:
    default: {
      // world axes, reference point at the frame origin
      const Motion<S> mf = bMf.inverse_act_motion(m_b);
      const Matrix3<S> oRf = oMb.R * bMf.R;
      Motion<S> r;
      r.template head<3>() = oRf * mf.template head<3>();
      r.template tail<3>() = oRf * mf.template tail<3>();
      return r;
    }
  }
}

/// Motion of frame `frame` from body quantities `m` (data.v or data.a); zero for a world frame.
template <class ModelT, class M>
Status frame_motion_of(const ModelT& model, const Data<ModelT>& data, int frame, ReferenceFrame rf, const M& m,
                       Motion<typename ModelT::Scalar>& out) {
  out.setZero();
  if (!frame_id_valid<ModelT>(frame) || !reference_frame_valid(rf)) return Status::invalid_input;
  const auto& F = model.frames[frame];
  if (F.body >= 0) out = express_motion(data.oMi[F.body], F.placement, m[F.body], rf);
  return finish_output(Status::ok, out);
}
}  // namespace detail

/// oMf: placement of frame `frame` in world.
template <class ModelT>
Status frame_placement(const ModelT& model, const Data<ModelT>& data, int frame,
                       Transform<typename ModelT::Scalar>& oMf) {
  if (!detail::frame_id_valid<ModelT>(frame)) return detail::finish_output(Status::invalid_input, oMf);
  const Frame<typename ModelT::Scalar>& F = model.frames[frame];
  oMf = F.body < 0 ? F.placement : data.oMi[F.body] * F.placement;
  return detail::finish_output(Status::ok, oMf);
}

/// Spatial velocity of frame `frame` in reference frame `rf` ([ω; v], v of the reference point).
template <class ModelT>
Status frame_velocity(const ModelT& model, const Data<ModelT>& data, int frame, ReferenceFrame rf,
                      Motion<typename ModelT::Scalar>& out) {
  return detail::frame_motion_of(model, data, frame, rf, data.v, out);
}

/// Spatial acceleration of frame `frame` in `rf` (the derivative of the spatial velocity
/// field; not the classical acceleration of the origin — see frame_classical_acceleration).
template <class ModelT>
Status frame_acceleration(const ModelT& model, const Data<ModelT>& data, int frame, ReferenceFrame rf,
                          Motion<typename ModelT::Scalar>& out) {
  return detail::frame_motion_of(model, data, frame, rf, data.a, out);
}

/// [ω̇; p̈]: angular acceleration and classical (second time derivative) acceleration of the
/// frame origin, in `rf` (local or local_world_aligned; world is treated as local_world_aligned).
template <class ModelT>
Status frame_classical_acceleration(const ModelT& model, const Data<ModelT>& data, int frame, ReferenceFrame rf,
                                    Motion<typename ModelT::Scalar>& out) {
  using S = typename ModelT::Scalar;
  out.setZero();
  if (!detail::frame_id_valid<ModelT>(frame) || !detail::reference_frame_valid(rf)) return Status::invalid_input;
  const auto& F = model.frames[frame];
  if (F.body < 0) return Status::ok;
  const ReferenceFrame r = rf == ReferenceFrame::local ? ReferenceFrame::local : ReferenceFrame::local_world_aligned;
  const Motion<S> vf = detail::express_motion(data.oMi[F.body], F.placement, data.v[F.body], r);
  out = detail::express_motion(data.oMi[F.body], F.placement, data.a[F.body], r);
  out.template tail<3>() += vf.template head<3>().cross(vf.template tail<3>());
  return detail::finish_output(Status::ok, out);
}

/// World position of a point given in body `body`'s frame (body −1: the point is in world).
template <class ModelT>
Status point_position(const ModelT&, const Data<ModelT>& data, int body, const Vector3<typename ModelT::Scalar>& p_body,
                      Vector3<typename ModelT::Scalar>& out) {
  out.setZero();
  if (!detail::body_id_valid<ModelT>(body) || !detail::point_valid(p_body)) return Status::invalid_input;
  out = body < 0 ? p_body : data.oMi[body].act_point(p_body);
  return detail::finish_output(Status::ok, out);
}

/// Linear velocity of a body point, world axes (local_world_aligned/world) or body axes (local).
template <class ModelT>
Status point_velocity(const ModelT&, const Data<ModelT>& data, int body, const Vector3<typename ModelT::Scalar>& p_body,
                      ReferenceFrame rf, Vector3<typename ModelT::Scalar>& out) {
  using S = typename ModelT::Scalar;
  out.setZero();
  if (!detail::body_id_valid<ModelT>(body) || !detail::point_valid(p_body) || !detail::reference_frame_valid(rf))
    return Status::invalid_input;
  if (body < 0) return Status::ok;
  const Motion<S>& v = data.v[body];
  const Vector3<S> vp = v.template tail<3>() + v.template head<3>().cross(p_body);
  out = rf == ReferenceFrame::local ? vp : Vector3<S>(data.oMi[body].R * vp);
  return detail::finish_output(Status::ok, out);
}

/// Classical acceleration (p̈) of a body point, world axes or body axes (local).
template <class ModelT>
Status point_acceleration(const ModelT&, const Data<ModelT>& data, int body,
                          const Vector3<typename ModelT::Scalar>& p_body, ReferenceFrame rf,
                          Vector3<typename ModelT::Scalar>& out) {
  using S = typename ModelT::Scalar;
  out.setZero();
  if (!detail::body_id_valid<ModelT>(body) || !detail::point_valid(p_body) || !detail::reference_frame_valid(rf))
    return Status::invalid_input;
  if (body < 0) return Status::ok;
  const Motion<S>& v = data.v[body];
  const Motion<S>& a = data.a[body];
  const Vector3<S> w = v.template head<3>();
  const Vector3<S> vp = v.template tail<3>() + w.cross(p_body);
  const Vector3<S> ap = a.template tail<3>() + a.template head<3>().cross(p_body) + w.cross(vp);
  out = rf == ReferenceFrame::local ? ap : Vector3<S>(data.oMi[body].R * ap);
  return detail::finish_output(Status::ok, out);
}

}  // namespace talus
