#pragma once
/// \file constraint_quantities.hpp
/// What the constraints of a set are at (q, q̇): position errors, velocity errors, the
/// constraint Jacobian G, γ, and the whole constrained system (H, C, G, γ) in one call.
/// Definitions of each kind's rows are in constraint_set.hpp. All results go into the set:
/// cs.G, cs.gamma, cs.position_error, cs.velocity_error (active rows, packed), cs.C, and
/// data.H. Frames: G maps q̇ to constraint velocities in the axes given at add time
/// (world axes for contacts, predecessor-frame axes for loops); γ in the same rows
/// (m/s², rad/s²); errors in m and rad.
#include <talus/algorithms/crba.hpp>
#include <talus/algorithms/rnea.hpp>
#include <talus/algorithms/system_kinematics.hpp>
#include <talus/math/rotation.hpp>
#include <talus/constraints/constraint_set.hpp>

namespace talus {

namespace detail {

/// Which quantities a pass computes.
enum PassLevel : int { pass_jacobian = 1, pass_gamma = 2, pass_position_error = 4, pass_velocity_error = 8 };

/// The active constraints' rows at (q, v) (v ignored without gamma or velocity errors), from
/// the kinematics already in data (placements, world Jacobian columns; with gamma or velocity
/// errors also v and a at q̈ = 0). Returns false if a result is not finite (a custom
/// constraint's values; contacts and loops of a bound set at valid inputs are always finite).
template <class ModelT, int MR, int MC, class Q, class V>
bool constraint_rows(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs, const Q& q, const V& v,
                     int what) {
  using S = typename ModelT::Scalar;
  constexpr int nv = ModelT::nv;
  const bool need_motion = (what & (pass_gamma | pass_velocity_error)) != 0;
  const int m = cs.active_rows();
  cs.G.setZero(m, nv);
  cs.gamma.setZero(m);
  cs.position_error.setZero(m);
  cs.velocity_error.setZero(m);
  const typename ModelT::ConfigVector qv = q;
  typename ModelT::TangentVector vv = ModelT::TangentVector::Zero();
  if (need_motion) vv = v;

  for (int c = 0; c < cs.size(); ++c) {
    const int r = cs.row_offset(c);
    if (r < 0) continue;
    const auto& e = cs.constraint(c);
    switch (e.kind) {
      case ConstraintKind::contact: {
        const int b = e.body[0];
        const Vector3<S> p = data.oMi[b].act_point(e.point);
        for_each_supporting_dof<ModelT>(b, [&](int k) {
          const Motion<S> col = data.J.col(k);
          const Vector3<S> lin = col.template tail<3>() + col.template head<3>().cross(p);
          for (int j = 0; j < e.rows; ++j) cs.G(r + j, k) = e.axis[j].template tail<3>().dot(lin);
        });
        if (need_motion) {
          const FrameMotion<S> fm = frame_motion(data, b, Transform<S>(Matrix3<S>::Identity(), e.point), true);
          for (int j = 0; j < e.rows; ++j) {
            const Vector3<S> n = e.axis[j].template tail<3>();
            cs.gamma(r + j) = -n.dot(fm.ddp);
            cs.velocity_error(r + j) = n.dot(fm.dp);
          }
        }
        for (int j = 0; j < e.rows; ++j) cs.position_error(r + j) = e.axis[j].template tail<3>().dot(p - e.anchor);
        break;
      }
      case ConstraintKind::loop: {
        const FrameMotion<S> P = frame_motion(data, e.body[0], e.frame[0], need_motion);
        const FrameMotion<S> Sf = frame_motion(data, e.body[1], e.frame[1], need_motion);
        // rows: a_jᵀ [Pᴿᵀ ω ; Pᴿᵀ (v_o + ω × p_S)] applied to (J_S − J_P) columns
        Eigen::Matrix<S, 6, nv> Jrel = Eigen::Matrix<S, 6, nv>::Zero();
        for_each_supporting_dof<ModelT>(e.body[1], [&](int k) { Jrel.col(k) += data.J.col(k); });
        for_each_supporting_dof<ModelT>(e.body[0], [&](int k) { Jrel.col(k) -= data.J.col(k); });
        const Matrix3<S> Rt = P.R.transpose();
        for (int k = 0; k < nv; ++k) {
          const Vector3<S> w = Jrel.col(k).template head<3>();
          Motion<S> cp;
          cp.template head<3>() = Rt * w;
          cp.template tail<3>() = Rt * (Jrel.col(k).template tail<3>() + w.cross(Sf.p));
          for (int j = 0; j < e.rows; ++j) cs.G(r + j, k) = e.axis[j].dot(cp);
        }
        if (need_motion) {
          const Vector3<S> w = Sf.w - P.w;
          const Vector3<S> rr = Sf.p - P.p;
          const Vector3<S> u = Sf.dp - P.dp - P.w.cross(rr);
          const Vector3<S> dw = Sf.dw - P.dw;
          const Vector3<S> du = Sf.ddp - P.ddp - P.dw.cross(rr) - P.w.cross(Sf.dp - P.dp);
          Motion<S> dc, vel;
          dc.template head<3>() = Rt * (dw - P.w.cross(w));
          dc.template tail<3>() = Rt * (du - P.w.cross(u));
          vel.template head<3>() = Rt * w;
          vel.template tail<3>() = Rt * u;
          for (int j = 0; j < e.rows; ++j) {
            cs.gamma(r + j) = -e.axis[j].dot(dc);
            if (e.velocity_level[j]) cs.velocity_error(r + j) = e.axis[j].dot(vel);
          }
        }
        Motion<S> err;
        err.template head<3>() = rotation_log<S>(Matrix3<S>(Rt * Sf.R));
        err.template tail<3>() = Rt * (Sf.p - P.p);
        for (int j = 0; j < e.rows; ++j)
          if (e.position_level[j]) cs.position_error(r + j) = e.axis[j].dot(err);
        break;
      }
      case ConstraintKind::contact_6d: {
        const int b = e.body[0];
        const FrameMotion<S> F = frame_motion(data, b, e.frame[0], need_motion);
        const bool local = e.rows6d == ContactFrame6D::local;
        const Matrix3<S> Ft = F.R.transpose();
        for_each_supporting_dof<ModelT>(b, [&](int k) {
          const Motion<S> col = data.J.col(k);
          const Vector3<S> w = col.template head<3>();
          const Vector3<S> lin = col.template tail<3>() + w.cross(F.p);  // velocity of F's origin
          cs.G.template block<3, 1>(r, k) = local ? Vector3<S>(Ft * w) : w;
          cs.G.template block<3, 1>(r + 3, k) = local ? Vector3<S>(Ft * lin) : lin;
        });
        if (need_motion) {
          // −d/dt of the velocity rows at q̈ = 0 (F.dw, F.ddp: classical, with q̈ = 0).
          const Vector3<S> dang = local ? Vector3<S>(Ft * F.dw) : F.dw;
          const Vector3<S> dlin = local ? Vector3<S>(Ft * (F.ddp - F.w.cross(F.dp))) : F.ddp;
          cs.gamma.template segment<3>(r) = -dang;
          cs.gamma.template segment<3>(r + 3) = -dlin;
          cs.velocity_error.template segment<3>(r) = local ? Vector3<S>(Ft * F.w) : F.w;
          cs.velocity_error.template segment<3>(r + 3) = local ? Vector3<S>(Ft * F.dp) : F.dp;
        }
        const Transform<S>& ref = e.frame[1];
        const Vector3<S> rot = rotation_log<S>(Matrix3<S>(ref.R.transpose() * F.R));
        cs.position_error.template segment<3>(r) = local ? rot : Vector3<S>(ref.R * rot);
        cs.position_error.template segment<3>(r + 3) = local ? Vector3<S>(Ft * (F.p - ref.p)) : Vector3<S>(F.p - ref.p);
        break;
      }
      case ConstraintKind::custom: {
        typename CustomConstraint<ModelT>::Rows Gc = CustomConstraint<ModelT>::Rows::Zero();
        typename CustomConstraint<ModelT>::RowValues x = CustomConstraint<ModelT>::RowValues::Zero();
        // Row by row, with the row count clamped to the 6 a custom constraint can have: GCC 12
        // with AVX-512 cannot prove head(rows) of a 6-vector in range and warns
        // (-Warray-bounds / -Wstringop-overread) under -march=native.
        const int nr = e.rows < 6 ? e.rows : 6;
        e.custom->jacobian(model, data, qv, Gc);
        for (int j = 0; j < nr; ++j) cs.G.row(r + j) = Gc.row(j);
        if (need_motion) {
          e.custom->gamma(model, data, qv, vv, x);
          for (int j = 0; j < nr; ++j) cs.gamma(r + j) = x[j];
          x.setZero();
          e.custom->velocity_errors(model, data, qv, vv, x);
          for (int j = 0; j < nr; ++j) cs.velocity_error(r + j) = x[j];
        }
        x.setZero();
        e.custom->position_errors(model, data, qv, x);
        for (int j = 0; j < nr; ++j) cs.position_error(r + j) = x[j];
        break;
      }
    }
    if (need_motion && e.baumgarte.enabled) {
      const S a = S(1) / e.baumgarte.time_constant;
      for (int j = 0; j < e.rows; ++j)
        cs.gamma(r + j) -= S(2) * a * cs.velocity_error(r + j) + a * a * cs.position_error(r + j);
    }
  }
  if (all_finite(cs.G) && all_finite(cs.gamma) && all_finite(cs.position_error) && all_finite(cs.velocity_error))
    return true;
  for (int c = 0; c < cs.size(); ++c) {  // which constraint (a custom one) gave the non-finite rows
    const int r = cs.row_offset(c);
    const int n = cs.constraint(c).rows;
    if (r >= 0 && !(all_finite(cs.G.middleRows(r, n)) && all_finite(cs.gamma.segment(r, n)) &&
                    all_finite(cs.position_error.segment(r, n)) && all_finite(cs.velocity_error.segment(r, n)))) {
      (void)cs.record_failure(Status::invalid_input, FailureReason::custom_not_finite, c, cs.constraint(c).kind);
      return false;
    }
  }
  (void)cs.record_failure(Status::invalid_input, FailureReason::custom_not_finite);
  return false;
}

/// One pass over the active constraints at (q, v): forward kinematics with q̈ = 0 and the world
/// Jacobian columns, then the rows (constraint_rows).
template <class ModelT, int MR, int MC, class Q, class V>
bool constraint_pass(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs, const Q& q, const V& v,
                     int what) {
  kinematics_with_world_jacobian(model, data, q, v, (what & (pass_gamma | pass_velocity_error)) != 0);
  return constraint_rows(model, data, cs, q, v, what);
}

/// The checks every constraint function and solver runs first; records why it refuses
/// (cs.failure()), and clears the record when the inputs are fine.
template <class ModelT, int MR, int MC, class Q, class... V>
Status check_constraint_inputs(const ModelT& model, const ConstraintSet<ModelT, MR, MC>& cs, const Q& q,
                               const V&... v) {
  using S = typename ModelT::Scalar;
  if (!cs.bound()) return cs.record_failure(Status::invalid_input, FailureReason::set_not_bound);
  if (!(cs.ws.pivot_tolerance >= S(0) && cs.ws.pivot_tolerance <= S(1)))
    return cs.record_failure(Status::invalid_input, FailureReason::pivot_tolerance_invalid);
  if (check_configuration(model, q) != Status::ok)
    return cs.record_failure(Status::invalid_input, FailureReason::q_invalid);
  if (!(tangent_input_valid<ModelT>(v) && ...))  // what check_inputs does after q (not checked twice)
    return cs.record_failure(Status::invalid_input, FailureReason::input_invalid);
  return cs.succeed();
}

/// Records why a call that got past check_constraint_inputs failed, unless a more precise
/// reason was recorded on the way (custom_not_finite); returns s.
template <class ModelT, int MR, int MC>
Status record_status(const ConstraintSet<ModelT, MR, MC>& cs, Status s) {
  if (s == Status::ok) return cs.succeed();
  if (cs.failure().status == s) return s;
  FailureReason r = FailureReason::input_invalid;
  if (s == Status::singular) r = FailureReason::singular;
  if (s == Status::not_converged) r = FailureReason::not_converged;
  if (s == Status::overflow) r = FailureReason::overflow;
  if (s == Status::capacity_exceeded) r = FailureReason::too_many_rows;
  return cs.record_failure(s, r);
}

template <class ModelT, int MR, int MC>
void zero_constraint_results(ConstraintSet<ModelT, MR, MC>& cs) {
  const int m = cs.active_rows();
  cs.G.setZero(m, ModelT::nv);
  cs.gamma.setZero(m);
  cs.lambda.setZero(m);
  cs.position_error.setZero(m);
  cs.velocity_error.setZero(m);
}
}  // namespace detail

/// cs.G (active rows × nv) at q.
template <class ModelT, int MR, int MC, class Q>
Status compute_constraint_jacobian(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                   const Eigen::MatrixBase<Q>& q) {
  const Status s = detail::check_constraint_inputs(model, cs, q);
  if (s != Status::ok) {
    detail::zero_constraint_results(cs);
    return s;
  }
  if (!detail::constraint_pass(model, data, cs, q, ModelT::TangentVector::Zero(),
                               detail::pass_jacobian | detail::pass_position_error)) {
    detail::zero_constraint_results(cs);
    return Status::invalid_input;
  }
  return Status::ok;
}

/// cs.gamma (γ = −Ġ q̇, with Baumgarte terms where enabled) and cs.G, at (q, q̇).
template <class ModelT, int MR, int MC, class Q, class V>
Status compute_constraint_gamma(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v) {
  const Status s = detail::check_constraint_inputs(model, cs, q, v);
  if (s != Status::ok) {
    detail::zero_constraint_results(cs);
    return s;
  }
  if (!detail::constraint_pass(model, data, cs, q, v, detail::pass_jacobian | detail::pass_gamma)) {
    detail::zero_constraint_results(cs);
    return Status::invalid_input;
  }
  return Status::ok;
}

/// Position errors (active rows) into `err`, also kept in cs.position_error.
template <class ModelT, int MR, int MC, class Q, class Out>
Status compute_position_errors(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                               const Eigen::MatrixBase<Q>& q, Out& err) {
  static_assert(
      detail::holds_rows_up_to<Out, MR>(),
      "talus::compute_position_errors: err must be a resizable vector of up to MaxRows rows (the set's RowVector)");
  Status s = compute_constraint_jacobian(model, data, cs, q);
  err = cs.position_error;  // zero on failure
  return s;
}

/// Velocity errors G q̇ (rows that are not velocity-level read 0) into `err`, also kept in
/// cs.velocity_error.
template <class ModelT, int MR, int MC, class Q, class V, class Out>
Status compute_velocity_errors(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                               const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v, Out& err) {
  static_assert(
      detail::holds_rows_up_to<Out, MR>(),
      "talus::compute_velocity_errors: err must be a resizable vector of up to MaxRows rows (the set's RowVector)");
  Status s = compute_constraint_gamma(model, data, cs, q, v);
  err = cs.velocity_error;
  return s;
}

/// The constrained system at (q, q̇), optionally with external forces (body frames):
/// data.H = H(q), cs.C = C(q, q̇) − Σ Jᵢᵀ fᵢ, cs.G, cs.gamma (and the errors).
template <class ModelT, int MR, int MC, class Q, class V>
Status compute_constrained_system(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                                  const Eigen::MatrixBase<Q>& q, const Eigen::MatrixBase<V>& v,
                                  const ExternalForces<ModelT>* fext = nullptr) {
  Status s = detail::check_constraint_inputs(model, cs, q, v);
  if (s == Status::ok && fext != nullptr && !detail::inputs_finite(*fext)) s = Status::invalid_input;
  if (s != Status::ok) {
    detail::zero_constraint_results(cs);
    data.H.setZero();
    cs.C.setZero();
    return s;
  }
  // One sweep forward (kinematics, CRBA's and RNEA's forward steps), the rows, then CRBA's
  // and RNEA's backward passes: the same numbers as constraint_pass, crba and rnea in turn.
  if (fext != nullptr) detail::constrained_system_forward<true>(model, data, q, v, fext);
  else detail::constrained_system_forward<false>(model, data, q, v, fext);
  if (!detail::constraint_rows(model, data, cs, q, v,
                               detail::pass_jacobian | detail::pass_gamma | detail::pass_position_error |
                                   detail::pass_velocity_error))
    s = Status::invalid_input;
  if (s == Status::ok) {
    detail::crba_backward(model, data);
    if (!all_finite(data.H)) s = Status::overflow;
  }
  if (s == Status::ok) {
    detail::rnea_backward(model, data);
    s = output_or_zero(s, data.tau, cs.C);
  }
  if (s != Status::ok) {
    detail::zero_constraint_results(cs);
    data.H.setZero();
    cs.C.setZero();
  }
  return detail::record_status(cs, s);
}

/// Re-anchors contacts where they are at q (a foot lands somewhere new; call at touch-down,
/// before the solve): a point contact's anchor p₀ becomes its point's world position, a 6D
/// contact's reference placement its frame's world placement, so their position errors are
/// zero at q. `index` −1 re-anchors every active contact (loops and custom constraints are
/// left alone), otherwise the one contact `index` (active or not). Runs forward kinematics
/// (data.oMi at q). invalid_input: q invalid, set not bound, or `index` not a contact (cs
/// unchanged).
template <class ModelT, int MR, int MC, class Q>
Status anchor_contacts(const ModelT& model, Data<ModelT>& data, ConstraintSet<ModelT, MR, MC>& cs,
                       const Eigen::MatrixBase<Q>& q, int index = -1) {
  using S = typename ModelT::Scalar;
  if (Status s = detail::check_constraint_inputs(model, cs, q); s != Status::ok) return s;
  const auto is_contact = [&](int c) {
    const ConstraintKind k = cs.constraint(c).kind;
    return k == ConstraintKind::contact || k == ConstraintKind::contact_6d;
  };
  if (index != -1 && !(cs.valid_index(index) && is_contact(index)))
    return cs.record_failure(Status::invalid_input, FailureReason::index_out_of_range, index);
  if (Status s = forward_kinematics(model, data, q); s != Status::ok) return detail::record_status(cs, s);
  for (int c = 0; c < cs.size(); ++c) {
    if (index != -1 ? c != index : !(cs.is_active(c) && is_contact(c))) continue;
    const auto& e = cs.constraint(c);
    const Transform<S>& oMb = data.oMi[e.body[0]];
    const Status s =
        e.kind == ConstraintKind::contact
            ? cs.set_contact_anchor(c, oMb.act_point(e.point))
            : cs.set_contact_placement(c, Transform<S>(Matrix3<S>(oMb.R * e.frame[0].R), oMb.act_point(e.frame[0].p)));
    if (s != Status::ok) return s;  // beyond input_limits::position (recorded)
  }
  return cs.succeed();
}

}  // namespace talus
