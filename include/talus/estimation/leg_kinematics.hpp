#pragma once
/// \file leg_kinematics.hpp
/// The feet's kinematic measurements an estimator corrects with: from the joint encoders of a
/// floating-base model, each foot's position in the base frame and its covariance
/// (leg_kinematics, for invariant_ekf.hpp); with the joint rates too, also each foot's velocity
/// relative to the base and its covariance (leg_odometry, for leg_odometry_ekf.hpp).
///
///   s_j = position of foot frame j in the root body's frame B (m), at the joint angles q_J
///   Σ_j = σ_q² J_j J_jᵀ + σ_m² I    (m², B axes)
///
/// J_j is the 3 × n_J Jacobian of s_j with respect to the joint angles (the linear rows of
/// the frame Jacobian with the base held at the identity, joint columns only); σ_q (rad or m)
/// is the encoders' standard deviation (quantization q_step/√12 plus the drive's noise), σ_m
/// (m) the kinematic model's error at the foot (link lengths, the foot's rolling contact
/// point). The base's own placement is not an input: the measurement is relative.
///
/// The model's root joint must be a free flyer (JointFreeFlyer: q = [p; quaternion; q_J],
/// v = [ω; v; q̇_J]). B is the root body's frame; an IMU mounted with a rotation gives its
/// samples in B after the caller rotates them (a lever arm is not modelled).
/// Status: invalid_input for a non-finite or out-of-limits q_J, an unknown frame, or σ not in
/// [0, 1e3), overflow for a non-finite result; every foot's output is then zero. Nothing allocates; the work is one kinematic sweep.
#include <array>

#include <talus/algorithms/jacobians.hpp>
#include <talus/algorithms/kinematics.hpp>
#include <talus/estimation/invariant_ekf.hpp>
#include <talus/estimation/leg_odometry_ekf.hpp>
#include <talus/model/joints.hpp>

namespace talus {

/// The encoders' joint angles: every coordinate of q after the free flyer's 7.
template <class ModelT>
using JointPositions = Eigen::Matrix<typename ModelT::Scalar, ModelT::nq - 7, 1>;

/// The joint rates: every coordinate of v after the free flyer's 6.
template <class ModelT>
using JointVelocities = Eigen::Matrix<typename ModelT::Scalar, ModelT::nv - 6, 1>;

namespace detail {
/// The one kinematic sweep both functions share: the base at the identity, the joint
/// Jacobians once, then per foot j: per_foot(j, s_j, J_q, J_ω) with J_q and J_ω the 3 × n_J
/// linear and angular rows of the foot's Jacobian (joint columns). Stops at the first failure.
template <class ModelT, std::size_t NFeet, class PerFoot>
Status foot_sweep(const ModelT& model, Data<ModelT>& data, const JointPositions<ModelT>& q_joints,
                  const std::array<int, NFeet>& foot_frames, PerFoot&& per_foot) {
  using S = typename ModelT::Scalar;
  static_assert(std::is_same<typename ModelT::Tree::template Joint<0>, JointFreeFlyer>::value,
                "talus::leg_kinematics: the model's root joint must be a free flyer");
  typename ModelT::ConfigVector q = ModelT::ConfigVector::Zero();
  q[3] = S(1);  // base at the identity: world axes are B's
  q.template tail<ModelT::nq - 7>() = q_joints;
  if (Status s = compute_joint_jacobians(model, data, q); s != Status::ok) return s;
  for (std::size_t j = 0; j < NFeet; ++j) {
    Transform<S> oMf;
    if (Status s = frame_placement(model, data, foot_frames[j], oMf); s != Status::ok) return s;
    // the foot origin's linear velocity per joint rate (B axes): v + ω × s of the world
    // Jacobian columns on the foot's support path (frame_jacobian's local_world_aligned linear
    // rows, without its other columns: the leg's joints only)
    Eigen::Matrix<S, 3, ModelT::nv - 6> Jq = Eigen::Matrix<S, 3, ModelT::nv - 6>::Zero(), Jw = Jq;
    for_each_supporting_dof<ModelT>(model.frames[foot_frames[j]].body, [&](int k) {
      if (k < 6) return;  // the base's columns: the base is the reference here
      const Motion<S> c = data.J.col(k);
      Jq.col(k - 6) = point_velocity_column(c, oMf.p);
      Jw.col(k - 6) = c.template head<3>();
    });
    if (Status s = per_foot(j, oMf.p, Jq, Jw); s != Status::ok) return s;
  }
  return Status::ok;
}
}  // namespace detail

template <class ModelT, std::size_t NFeet>
Status leg_kinematics(const ModelT& model, Data<ModelT>& data, const JointPositions<ModelT>& q_joints,
                      const std::array<int, NFeet>& foot_frames, typename ModelT::Scalar encoder_std,
                      typename ModelT::Scalar model_std,
                      std::array<FootMeasurement<typename ModelT::Scalar>, NFeet>& feet) {
  using S = typename ModelT::Scalar;
  for (auto& f : feet) f = FootMeasurement<S>{Vector3<S>::Zero(), Matrix3<S>::Zero()};
  if (!(encoder_std >= S(0) && encoder_std < S(1e3) && model_std >= S(0) && model_std < S(1e3)))
    return Status::invalid_input;
  for (int f : foot_frames)
    if (f < 0 || f >= ModelT::nframes || model.frames[f].body < 0) return Status::invalid_input;
  const Status s =
      detail::foot_sweep(model, data, q_joints, foot_frames,
                         [&](std::size_t j, const Vector3<S>& p, const auto& Jq, const auto&) {
                           feet[j].position = p;
                           feet[j].covariance.noalias() = (encoder_std * encoder_std) * (Jq * Jq.transpose());
                           feet[j].covariance.diagonal().array() += model_std * model_std;
                           return all_finite(feet[j].position) && all_finite(feet[j].covariance) ? Status::ok
                                                                                                 : Status::overflow;
                         });
  if (s != Status::ok)  // no foot half-written: all zero on any failure
    for (auto& f : feet) f = FootMeasurement<S>{Vector3<S>::Zero(), Matrix3<S>::Zero()};
  return s;
}

/// Leg odometry (leg_odometry_ekf.hpp's FootOdometry): leg_kinematics's position and its
/// covariance, and from the same Jacobian in the same sweep the foot's velocity relative to
/// the base and its angular velocity relative to the base, in B axes, from the joint rates
/// q̇_J (rad/s):
///
///   ṡ_j = J_j q̇_J,   ω_j = J_ω,j q̇_J,   Σv_j = σ_q̇² J_j J_jᵀ + σ_mv² I   (m/s, rad/s, m²/s²)
///
/// σ_q̇ (rad/s) is the joint rates' standard deviation (a differentiated encoder's: about
/// √2 σ_q / dt, less after filtering), σ_mv (m/s) a model term (a small slip; the foot's
/// rolling is modelled by LegOdometryEkf from ω_j). Status as leg_kinematics, also invalid_input for a non-finite joint rate or σ not
/// in [0, 1e3); every foot's output is zero on any failure.
template <class ModelT, std::size_t NFeet>
Status leg_odometry(const ModelT& model, Data<ModelT>& data, const JointPositions<ModelT>& q_joints,
                    const JointVelocities<ModelT>& joint_rates, const std::array<int, NFeet>& foot_frames,
                    typename ModelT::Scalar encoder_std, typename ModelT::Scalar model_std,
                    typename ModelT::Scalar rate_std, typename ModelT::Scalar model_velocity_std,
                    std::array<FootOdometry<typename ModelT::Scalar>, NFeet>& feet) {
  using S = typename ModelT::Scalar;
  FootOdometry<S> zero;
  zero.position_covariance.setZero();
  zero.velocity_covariance.setZero();
  for (auto& f : feet) f = zero;
  const S stds[] = {encoder_std, model_std, rate_std, model_velocity_std};
  for (S x : stds)
    if (!(x >= S(0) && x < S(1e3))) return Status::invalid_input;
  if (!all_finite(joint_rates)) return Status::invalid_input;
  for (int f : foot_frames)
    if (f < 0 || f >= ModelT::nframes || model.frames[f].body < 0) return Status::invalid_input;
  const Status s = detail::foot_sweep(model, data, q_joints, foot_frames,
                                      [&](std::size_t j, const Vector3<S>& p, const auto& Jq, const auto& Jw) {
                                        FootOdometry<S>& f = feet[j];
                                        f.position = p;
                                        Matrix3<S> JJt;
                                        JJt.noalias() = Jq.lazyProduct(Jq.transpose());
                                        f.position_covariance = (encoder_std * encoder_std) * JJt;
                                        f.position_covariance.diagonal().array() += model_std * model_std;
                                        f.velocity.noalias() = Jq.lazyProduct(joint_rates);
                                        f.angular_velocity.noalias() = Jw.lazyProduct(joint_rates);
                                        f.velocity_covariance = (rate_std * rate_std) * JJt;
                                        f.velocity_covariance.diagonal().array() +=
                                            model_velocity_std * model_velocity_std;
                                        return all_finite(f.position) && all_finite(f.position_covariance) &&
                                                       all_finite(f.velocity) && all_finite(f.angular_velocity) &&
                                                       all_finite(f.velocity_covariance)
                                                   ? Status::ok
                                                   : Status::overflow;
                                      });
  if (s != Status::ok)
    for (auto& f : feet) f = zero;
  return s;
}

}  // namespace talus
