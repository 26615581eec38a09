#pragma once
/// \file leg_kinematics.hpp
/// The feet's kinematic measurements an estimator corrects with (invariant_ekf.hpp): from
/// the joint encoders of a floating-base model, each foot's position in the base frame and
/// its covariance.
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
#include <talus/model/joints.hpp>

namespace talus {

/// The encoders' joint angles: every coordinate of q after the free flyer's 7.
template <class ModelT>
using JointPositions = Eigen::Matrix<typename ModelT::Scalar, ModelT::nq - 7, 1>;

template <class ModelT, std::size_t NFeet>
Status leg_kinematics(const ModelT& model, Data<ModelT>& data, const JointPositions<ModelT>& q_joints,
                      const std::array<int, NFeet>& foot_frames, typename ModelT::Scalar encoder_std,
                      typename ModelT::Scalar model_std,
                      std::array<FootMeasurement<typename ModelT::Scalar>, NFeet>& feet) {
  using S = typename ModelT::Scalar;
  static_assert(std::is_same<typename ModelT::Tree::template Joint<0>, JointFreeFlyer>::value,
                "talus::leg_kinematics: the model's root joint must be a free flyer");
  for (auto& f : feet) f = FootMeasurement<S>{Vector3<S>::Zero(), Matrix3<S>::Zero()};
  if (!(encoder_std >= S(0) && encoder_std < S(1e3) && model_std >= S(0) && model_std < S(1e3)))
    return Status::invalid_input;
  for (int f : foot_frames)
    if (f < 0 || f >= ModelT::nframes || model.frames[f].body < 0) return Status::invalid_input;
  typename ModelT::ConfigVector q = ModelT::ConfigVector::Zero();
  q[3] = S(1);  // base at the identity: world axes are B's
  q.template tail<ModelT::nq - 7>() = q_joints;
  if (Status s = compute_joint_jacobians(model, data, q); s != Status::ok) return s;
  typename ModelT::Jacobian6 J;
  Status s = Status::ok;
  for (std::size_t j = 0; j < NFeet && s == Status::ok; ++j) {
    Transform<S> oMf;
    s = frame_placement(model, data, foot_frames[j], oMf);
    if (s == Status::ok) s = frame_jacobian(model, data, foot_frames[j], ReferenceFrame::local_world_aligned, J);
    if (s != Status::ok) break;
    const auto Jq = J.template block<3, ModelT::nv - 6>(3, 6);
    feet[j].position = oMf.p;
    feet[j].covariance.noalias() = (encoder_std * encoder_std) * (Jq * Jq.transpose());
    feet[j].covariance.diagonal().array() += model_std * model_std;
    if (!all_finite(feet[j].position) || !all_finite(feet[j].covariance)) s = Status::overflow;
  }
  if (s != Status::ok)  // no foot half-written: all zero on any failure
    for (auto& f : feet) f = FootMeasurement<S>{Vector3<S>::Zero(), Matrix3<S>::Zero()};
  return s;
}

}  // namespace talus
