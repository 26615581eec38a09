#pragma once
/// \file constraint_forces.hpp
/// Constraint forces resolved onto bodies: for the multipliers λ of the last solve
/// (cs.lambda, active rows), the wrench each active constraint applies to each body it
/// involves, such that Σ (constraints, bodies) J_bodyᵀ f = Gᵀ λ.
///
///   contact: one body; the force Σ_k λ_k n_k (world axes) acting at the contact point.
///   contact_6d: one body; the couple Σ_{k<3} λ_k d_k plus the force Σ_{k≥3} λ_k d_k at F's
///            origin, d_k the row axes (world axes for local_world_aligned, F's for local).
///   loop:    the successor receives F = Σ_k λ_k [R a_k,ω + p_S × R a_k,v ; R a_k,v] (world
///            frame, about the world origin; R = predecessor frame rotation, p_S = successor
///            frame origin), i.e. the force R a_v through S's origin plus the couple R a_ω;
///            the predecessor receives −F. A side that is the world is reported with body −1.
///   custom:  what its wrenches() returns (nothing by default); a count outside 0..2 or a body
///            id outside −1..nb−1 makes the call return invalid_input (every output zero).
///
/// Frames of the output (`rf`): ReferenceFrame::local — each body's own frame, about its
/// origin (the convention of ExternalForces in rnea.hpp); world (or local_world_aligned,
/// treated as world) — world axes, about the world origin. Units N and N·m.
/// Call right after a solve: it reads data.oMi as the solve left it (positions at q).
#include <talus/constraints/constraint_set.hpp>

namespace talus {

template <class S>
struct ConstraintWrench {
  int count = 0;  ///< bodies involved (0, 1 or 2)
  int body[2] = {-1, -1};
  Force<S> force[2] = {Force<S>::Zero(), Force<S>::Zero()};
};

/// out[c] for every constraint index c (inactive constraints: count 0).
template <class ModelT, int MR, int MC, class W, std::size_t N>
Status constraint_wrenches(const ModelT& model, const Data<ModelT>& data, const ConstraintSet<ModelT, MR, MC>& cs,
                           ReferenceFrame rf, std::array<W, N>& out) {
  using S = typename ModelT::Scalar;
  static_assert(
      std::is_same_v<W, ConstraintWrench<S>> && N == static_cast<std::size_t>(MC),
      "talus::constraint_wrenches: out must be std::array<ConstraintWrench<S>, MaxConstraints> (one per constraint)");
  auto fail = [&out](Status s) {
    for (auto& w : out) w = ConstraintWrench<S>{};
    return s;
  };
  (void)fail(Status::ok);  // start from empty wrenches
  if (!cs.bound()) return cs.record_failure(fail(Status::invalid_input), FailureReason::set_not_bound);
  if (cs.lambda.size() != cs.active_rows() || !detail::reference_frame_valid(rf) || !all_finite(cs.lambda))
    return cs.record_failure(fail(Status::invalid_input), FailureReason::input_invalid);
  for (int c = 0; c < cs.size(); ++c) {
    const int r = cs.row_offset(c);
    if (r < 0) continue;
    const auto& e = cs.constraint(c);
    ConstraintWrench<S>& w = out[c];
    switch (e.kind) {
      case ConstraintKind::contact: {
        Vector3<S> f = Vector3<S>::Zero();
        for (int j = 0; j < e.rows; ++j) f += cs.lambda(r + j) * e.axis[j].template tail<3>();
        const Vector3<S> p = data.oMi[e.body[0]].act_point(e.point);
        w.count = 1;
        w.body[0] = e.body[0];
        w.force[0].template head<3>() = p.cross(f);  // fixed-size halves: GCC 12 -march=native read
        w.force[0].template tail<3>() = f;           // the comma initializer's AVX path as out of bounds
        break;
      }
      case ConstraintKind::contact_6d: {
        const Transform<S>& oMb = data.oMi[e.body[0]];
        const Matrix3<S> R = e.rows6d == ContactFrame6D::local ? Matrix3<S>(oMb.R * e.frame[0].R)
                                                               : Matrix3<S>::Identity();
        const Vector3<S> n = R * Vector3<S>(cs.lambda.template segment<3>(r));
        const Vector3<S> f = R * Vector3<S>(cs.lambda.template segment<3>(r + 3));
        const Vector3<S> p = oMb.act_point(e.frame[0].p);
        w.count = 1;
        w.body[0] = e.body[0];
        w.force[0].template head<3>() = n + p.cross(f);
        w.force[0].template tail<3>() = f;
        break;
      }
      case ConstraintKind::loop: {
        const Matrix3<S> R = e.body[0] < 0 ? e.frame[0].R : Matrix3<S>(data.oMi[e.body[0]].R * e.frame[0].R);
        const Vector3<S> pS = e.body[1] < 0 ? e.frame[1].p : data.oMi[e.body[1]].act_point(e.frame[1].p);
        Force<S> F = Force<S>::Zero();
        for (int j = 0; j < e.rows; ++j) {
          const Vector3<S> aw = R * e.axis[j].template head<3>();
          const Vector3<S> av = R * e.axis[j].template tail<3>();
          F.template head<3>() += cs.lambda(r + j) * (aw + pS.cross(av));
          F.template tail<3>() += cs.lambda(r + j) * av;
        }
        w.count = 2;
        w.body[0] = e.body[1];
        w.force[0] = F;
        w.body[1] = e.body[0];
        w.force[1] = -F;
        break;
      }
      case ConstraintKind::custom: {
        typename CustomConstraint<ModelT>::RowValues l = CustomConstraint<ModelT>::RowValues::Zero();
        for (int j = 0; j < e.rows && j < 6; ++j) l[j] = cs.lambda(r + j);
        int body[2] = {-1, -1};
        Force<S> force[2] = {Force<S>::Zero(), Force<S>::Zero()};
        const int n = e.custom->wrenches(model, data, l, body, force);
        if (n < 0 || n > 2)  // more than the two it may report
          return cs.record_failure(fail(Status::invalid_input), FailureReason::custom_wrench_invalid, c, e.kind);
        for (int k = 0; k < n; ++k) {
          if (body[k] < -1 || body[k] >= ModelT::nb)
            return cs.record_failure(fail(Status::invalid_input), FailureReason::custom_wrench_invalid, c, e.kind);
          w.body[k] = body[k];
          w.force[k] = force[k];
        }
        w.count = n;
        break;
      }
    }
    if (rf == ReferenceFrame::local)
      for (int k = 0; k < w.count; ++k)
        if (w.body[k] >= 0) w.force[k] = data.oMi[w.body[k]].inverse_act_force(w.force[k]);
    for (int k = 0; k < w.count; ++k)
      if (!all_finite(w.force[k])) return cs.record_failure(fail(Status::overflow), FailureReason::overflow, c, e.kind);
  }
  return cs.succeed();
}

}  // namespace talus
