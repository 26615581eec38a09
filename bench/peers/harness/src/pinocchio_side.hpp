#pragma once
// Pinocchio 3.7.0 side, shared by its translation units (pinocchio_side.cpp: set-up, CRBA, RNEA,
// ABA, Jacobian; pinocchio_contact.cpp: constraintDynamics, impulseDynamics; pinocchio_urdf.cpp:
// the URDF parser). Header-only use of Pinocchio (no PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION):
// every algorithm is compiled here, with the harness's flags.
#include <pinocchio/multibody/data.hpp>
#include <pinocchio/multibody/model.hpp>

#include "common.hpp"

namespace peers {

struct PinSide : Side {
  Robot robot;
  PeerLayout L;
  pinocchio::Model model;
  std::unique_ptr<pinocchio::Data> data;
  std::vector<Eigen::VectorXd> q, v, tau;            // the states, Pinocchio's convention
  int k = 0;                                         // next state of run()
  std::vector<pinocchio::JointIndex> joint_of_body;  // talus body i -> Pinocchio joint
  pinocchio::FrameIndex jac_fid = 0;
  pinocchio::Data::Matrix6x J;
};

/// Pinocchio's BODY frame of that name (its own placement, from its own parse); false (err) if
/// absent or not on the same joint / at the same placement as talus's frame.
bool pin_find_frame(const PinSide& s, const FrameDesc& f, pinocchio::FrameIndex& id, std::string& err);

/// pinocchio::urdf::buildModel (JointModelFreeFlyer root when floating).
void load_pinocchio_model(const std::string& urdf, bool floating, pinocchio::Model& model);
/// Adds the constrained forward dynamics and impulse cases (robot.contacts).
bool add_pinocchio_contact_cases(PinSide& s, std::string& err);

template <class F>
void pin_cycle(int& k, long n, F&& f) {
  for (long i = 0; i < n; ++i) {
    f(k);
    k = (k + 1) & (kStates - 1);
  }
}

}  // namespace peers
