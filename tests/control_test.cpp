// label: control — talus's balance controller (include/talus/control/balance_controller.hpp) as a
// library user meets it: what init() refuses (feet not in the model's leg order, no standing
// height, a joint without a torque limit), where its limits come from (the model's URDF), and
// the controller on a second robot, anymal_c (about 50 kg, 80 N·m joints; the HIL rig's robot
// is the 2.5 kg Solo-12), standing at its SRDF posture.
//
// The anymal_c check is hil/tests/controller_test.cpp's, an independent computation: the
// controller builds τ by inverse dynamics (RNEA) and a friction-cone distribution; talus's
// constrained forward dynamics (range-space method) of (q, v, τ) with the feet held must give
// back the requested q̈ and the contact forces. Tolerance 1e-6 relative, as there: the
// distribution's regularisation biases the wrench by about ε‖λ‖ over the squared singular
// values of G_b Q^½ (ε = 1e-9 of its largest diagonal entry), the cone solver stops at 1e-9;
// a wrong sign or a missing term is O(1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include <talus/control.hpp>
#include <talus/models/anymal_c_feet.hpp>
#include <talus/models/solo12.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>

namespace {

using talus::Status;

double rel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

// ---- solo12: init's refusals -------------------------------------------------------------

namespace solo = talus::models::solo12;
using Solo = solo::Model<double>;
using SoloController = talus::BalanceController<Solo>;

struct SoloSetup {
  Solo model = solo::make_model<double>();
  SoloController::Joints stance, swing;
  int feet[4];  // the model's leg order: FL, FR, HL, HR (joints 0..2, 3..5, 6..8, 9..11)
  talus::ControllerConfig<double> cfg;
  SoloSetup() {
    stance << 0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6;
    swing << 0.1, 1.2, -2.4, -0.1, 1.2, -2.4, 0.1, -1.2, 2.4, -0.1, -1.2, 2.4;
    const char* names[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
    for (int k = 0; k < 4; ++k) feet[k] = model.frame_id(names[k]);
    cfg.height = 0.24;
  }
};

TEST(Control, InitRefusesFeetNotInTheModelsLegOrder) {
  SoloSetup s;
  // Every order of the four feet: only the model's own is accepted.
  int perm[4] = {0, 1, 2, 3};
  int accepted = 0, refused = 0;
  do {
    const int feet[4] = {s.feet[perm[0]], s.feet[perm[1]], s.feet[perm[2]], s.feet[perm[3]]};
    SoloController ctl;
    const Status st = ctl.init(s.model, feet, s.stance, s.swing, s.cfg);
    const bool identity = perm[0] == 0 && perm[1] == 1 && perm[2] == 2 && perm[3] == 3;
    EXPECT_EQ(st, identity ? Status::ok : Status::invalid_input)
        << "feet order " << perm[0] << perm[1] << perm[2] << perm[3];
    if (st == Status::ok) ++accepted;
    else ++refused;
  } while (std::next_permutation(perm, perm + 4));
  EXPECT_EQ(accepted, 1);
  EXPECT_EQ(refused, 23);
  // A frame on the base (no leg's joint above it), a foot given twice, an unknown frame.
  const int base_frame = s.model.frame_id("base_link");
  ASSERT_GE(base_frame, 0);
  const int bad[3][4] = {{base_frame, s.feet[1], s.feet[2], s.feet[3]},
                         {s.feet[0], s.feet[0], s.feet[2], s.feet[3]},
                         {s.feet[0], s.feet[1], s.feet[2], Solo::nframes}};
  for (const auto& feet : bad) {
    SoloController ctl;
    EXPECT_EQ(ctl.init(s.model, feet, s.stance, s.swing, s.cfg), Status::invalid_input);
  }
}

// The cone solver's settings out of their domain: refused at init, not at the first push.
TEST(Control, InitRefusesSolverSettingsOutOfDomain) {
  SoloSetup s;
  for (int which = 0; which < 4; ++which) {
    talus::ControllerConfig<double> cfg = s.cfg;
    if (which == 0) cfg.solver_iterations = 0;
    if (which == 1) cfg.solver_check_interval = 0;
    if (which == 2) cfg.solver_rho_update_factor = 0.5;
    if (which == 3) cfg.solver_rho_update_factor = std::nan("");
    SoloController ctl;
    EXPECT_EQ(ctl.init(s.model, s.feet, s.stance, s.swing, cfg), Status::invalid_input) << which;
  }
  talus::ControllerConfig<double> cfg = s.cfg;
  cfg.solver_check_interval = 1;  // the library's default check, and a fixed ρ: accepted
  cfg.solver_rho_update_factor = 1;
  SoloController ctl;
  EXPECT_EQ(ctl.init(s.model, s.feet, s.stance, s.swing, cfg), Status::ok);
}

TEST(Control, InitRefusesAnUnsetHeight) {
  SoloSetup s;
  for (const double h : {0.0, -0.24, std::nan(""), HUGE_VAL}) {
    SoloController ctl;
    talus::ControllerConfig<double> cfg;  // height not set: 0
    if (h != 0.0) cfg.height = h;
    EXPECT_EQ(ctl.init(s.model, s.feet, s.stance, s.swing, cfg), Status::invalid_input) << h;
    // Unbound: a step commands nothing and says so.
    Solo::ConfigVector q = Solo::ConfigVector::Zero();
    q[3] = 1;
    q.tail<12>() = s.stance;
    const SoloController::Output o = ctl.step(0.0, q, Solo::TangentVector::Zero(), 0, 0xF);
    EXPECT_EQ(o.status, Status::invalid_input);
    EXPECT_EQ(o.tau.cwiseAbs().maxCoeff(), 0.0);
  }
  SoloController ctl;
  EXPECT_EQ(ctl.init(s.model, s.feet, s.stance, s.swing, s.cfg), Status::ok);             // height 0.24
  EXPECT_EQ(ctl.init(s.model, s.feet, s.stance, s.swing, s.cfg), Status::invalid_input);  // once per object
}

TEST(Control, TorqueLimitsComeFromTheModel) {
  SoloSetup s;
  {  // solo12's URDF says effort 1000 N·m on every joint: that is the limit without a cap.
    SoloController ctl;
    ASSERT_EQ(ctl.init(s.model, s.feet, s.stance, s.swing, s.cfg), Status::ok);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(ctl.torque_limit()[i], s.model.effort_limit[6 + i]) << i;
    EXPECT_EQ(ctl.torque_limit()[0], 1000.0);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(ctl.joint_upper()[i], s.model.upper_position_limit[7 + i]) << i;
  }
  {  // A cap below the model's limit wins; per joint, the smaller of the two.
    Solo m = s.model;
    m.effort_limit[6 + 4] = 1.5;
    talus::ControllerConfig<double> cfg = s.cfg;
    cfg.torque_limit = 2.7;
    SoloController ctl;
    ASSERT_EQ(ctl.init(m, s.feet, s.stance, s.swing, cfg), Status::ok);
    EXPECT_EQ(ctl.torque_limit()[4], 1.5);
    EXPECT_EQ(ctl.torque_limit()[5], 2.7);
  }
  {  // A joint without an effort limit (the model's 1e10 "none"): refused without a cap.
    Solo m = s.model;
    m.effort_limit[6 + 7] = 1e10;
    SoloController ctl;
    EXPECT_EQ(ctl.init(m, s.feet, s.stance, s.swing, s.cfg), Status::invalid_input);
    talus::ControllerConfig<double> cfg = s.cfg;
    cfg.torque_limit = 2.7;
    SoloController capped;
    ASSERT_EQ(capped.init(m, s.feet, s.stance, s.swing, cfg), Status::ok);
    EXPECT_EQ(capped.torque_limit()[7], 2.7);
  }
  {  // A stance outside the model's joint range.
    Solo m = s.model;
    m.upper_position_limit[7 + 1] = 0.5;  // FL_HFE: the stance has 0.8
    SoloController ctl;
    EXPECT_EQ(ctl.init(m, s.feet, s.stance, s.swing, s.cfg), Status::invalid_input);
  }
}

// ---- anymal_c --------------------------------------------------------------------------------

namespace anymal = talus::models::anymal_c_feet;
using Anymal = anymal::Model<double>;
using AnymalController = talus::BalanceController<Anymal>;

struct AnymalSetup {
  Anymal model = anymal::make_model<double>();
  AnymalController::Joints stance, swing;
  int feet[4];
  double height = 0;  // base height with the feet' frames at z = 0, at the stance (m)
  talus::ControllerConfig<double> cfg;
  AnymalSetup() {
    // anymal.srdf "standing", by joint name (the model's joint order is the URDF tree's).
    const char* names[12] = {"LF_HAA", "LF_HFE", "LF_KFE", "RF_HAA", "RF_HFE", "RF_KFE",
                             "LH_HAA", "LH_HFE", "LH_KFE", "RH_HAA", "RH_HFE", "RH_KFE"};
    const double standing[12] = {-0.1, 0.7, -1.0, 0.1, 0.7, -1.0, -0.1, -0.7, 1.0, 0.1, -0.7, 1.0};
    stance.setConstant(std::nan(""));
    for (int j = 0; j < 12; ++j)
      for (int b = 0; b < Anymal::nb; ++b)
        if (model.joint_name[b] != nullptr && std::strcmp(model.joint_name[b], names[j]) == 0)
          stance[Anymal::Tree::idx_v[b] - 6] = standing[j];
    // Swing: hip and knee flexed further (the foot lifts); unused by these tests but checked
    // against the joint range by init().
    swing = stance;
    for (int k = 0; k < 4; ++k) swing.segment<2>(3 * k + 1) *= 1.3;
    // Foot k below leg k's joints: the leg owning joints 3k..3k+2 in the model's order.
    for (int k = 0; k < 4; ++k) {
      const char* leg = model.joint_name[Anymal::Tree::dof_body[6 + 3 * k]];  // e.g. "LF_HAA"
      const char foot[8] = {leg[0], leg[1], '_', 'F', 'O', 'O', 'T', 0};
      feet[k] = model.frame_id(foot);
    }
    Anymal::ConfigVector q = Anymal::ConfigVector::Zero();
    q[3] = 1;
    q.tail<12>() = stance;
    talus::Data<Anymal> data;
    EXPECT_EQ(talus::forward_kinematics(model, data, q), Status::ok);
    for (int k = 0; k < 4; ++k) {
      talus::Transform<double> oMf;
      EXPECT_EQ(talus::frame_placement(model, data, feet[k], oMf), Status::ok);
      height -= oMf.p.z() / 4;
    }
    cfg.height = height;
    cfg.regularization = 1e-9;
  }
  void state(double amp, unsigned seed, Anymal::ConfigVector& q, Anymal::TangentVector& v) const {
    talus::Random rng(seed);
    q.setZero();
    q[2] = height;
    q.tail<12>() = stance;
    v.setZero();
    for (int i = 0; i < 3; ++i) q[i] += amp * 0.02 * rng.uniform(-1, 1);
    const Eigen::Vector3d w(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
    q.segment<4>(3) = talus::quaternion_exp<double>(amp * 0.05 * w);
    for (int i = 0; i < 12; ++i) q[7 + i] += amp * 0.05 * rng.uniform(-1, 1);
    for (int i = 0; i < 18; ++i) v[i] = amp * 0.2 * rng.uniform(-1, 1);
  }
};

TEST(Control, AnymalLimitsFromItsUrdfAndFeetInItsLegOrder) {
  AnymalSetup s;
  ASSERT_TRUE(s.stance.allFinite()) << s.stance.transpose();
  for (int k = 0; k < 4; ++k) ASSERT_GE(s.feet[k], 0) << k;
  ASSERT_GT(s.height, 0.3);  // a 0.5 m-tall robot: the stance puts the feet below the base
  AnymalController ctl;
  ASSERT_EQ(ctl.init(s.model, s.feet, s.stance, s.swing, s.cfg), Status::ok);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(ctl.torque_limit()[i], 80.0) << i;  // URDF: effort 80
  // The README's order, LF, RF, LH, RH, is not the model's leg order (the URDF tree's).
  const int lf = s.model.frame_id("LF_FOOT"), rf = s.model.frame_id("RF_FOOT");
  const int lh = s.model.frame_id("LH_FOOT"), rh = s.model.frame_id("RH_FOOT");
  const int readme[4] = {lf, rf, lh, rh};
  const bool same = std::equal(readme, readme + 4, s.feet);
  AnymalController other;
  EXPECT_EQ(other.init(s.model, readme, s.stance, s.swing, s.cfg), same ? Status::ok : Status::invalid_input);
  // A joint angle inside the old ±10 rad but beyond LF_HAA's URDF range [−0.72, 0.49] is refused.
  Anymal::ConfigVector q;
  Anymal::TangentVector v;
  s.state(0.0, 1, q, v);
  const int haa = Anymal::Tree::idx_q[s.model.body_id("LF_HIP")];
  ASSERT_GE(haa, 7);
  q[haa] = 0.6;
  (void)ctl.step(0.0, q, v, 0, 0xF);
  EXPECT_EQ(ctl.sensor_invalid, 1u);
  q[haa] = 0.45;
  (void)ctl.step(0.001, q, v, 0, 0xF);
  EXPECT_EQ(ctl.sensor_invalid, 1u);
}

TEST(Control, AnymalStandingTorquesReproduceRequestedMotionAndForces) {
  int checked = 0;
  double tau_max = 0;
  for (unsigned seed = 0; seed <= 20; ++seed) {
    AnymalSetup s;
    AnymalController ctl;
    ASSERT_EQ(ctl.init(s.model, s.feet, s.stance, s.swing, s.cfg), Status::ok);
    Anymal::ConfigVector q;
    Anymal::TangentVector v;
    // Seed 0: the nominal posture, at rest. Others: perturbed by half of solo12's test
    // (hil/tests): ±5 mm, ±0.0125 rad of base tilt and of joint angle, ±0.05 rad/s, m/s; larger
    // ones ask for horizontal accelerations whose forces leave μ = 0.6 cones on some feet
    // of this robot (its CoM is not above the feet's centroid), where the claim does not apply.
    s.state(seed == 0 ? 0.0 : 0.25, seed, q, v);
    const AnymalController::Output first = ctl.step(0.0, q, v, 0, 0xF);
    ASSERT_EQ(first.status, Status::ok) << seed;
    ASSERT_EQ(first.state, talus::ControllerState::stand_up) << seed;
    const AnymalController::Output out = ctl.step(2.0, q, v, 0, 0xF);
    ASSERT_EQ(out.status, Status::ok) << seed;
    ASSERT_EQ(out.state, talus::ControllerState::balance) << seed;
    ASSERT_EQ(out.clamped, 0) << seed << ": " << out.tau.transpose();
    tau_max = std::max(tau_max, out.tau.cwiseAbs().maxCoeff());
    if (seed == 0) {
      // At rest at its height the feet carry the weight: Σ λ_z = m g up to the (small)
      // requested vertical acceleration of the CoM.
      double fz = 0;
      for (int k = 0; k < 4; ++k) fz += out.lambda[3 * k];
      const double mg = s.model.total_mass() * -s.model.gravity.z();
      EXPECT_NEAR(fz, mg, 0.05 * mg);
    }
    bool inside = out.solver_iterations == 0;
    for (int k = 0; k < 4; ++k) {
      const Eigen::Vector3d f = out.lambda.segment<3>(3 * k);
      inside = inside && f[0] > 1.0 && f.tail<2>().norm() < 0.6 * f[0];
    }
    if (seed == 0) {
      ASSERT_TRUE(inside) << out.lambda.transpose();
    }
    if (!inside) continue;
    ++checked;
    talus::ConstraintSet<Anymal, 12> cs;
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(cs.add_contact(s.model, s.feet[k],
                               {Eigen::Vector3d::UnitZ(), Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitY()}),
                Status::ok);
    ASSERT_EQ(cs.bind(s.model), Status::ok);
    talus::Data<Anymal> data;
    Anymal::TangentVector tau = Anymal::TangentVector::Zero(), qdd;
    tau.tail<12>() = out.tau;
    ASSERT_EQ(talus::forward_dynamics_range_space(s.model, data, cs, q, v, tau, qdd), Status::ok);
    EXPECT_LE(rel(qdd, out.qdd_des), 1e-6) << seed << "\n" << qdd.transpose() << "\n" << out.qdd_des.transpose();
    const Eigen::VectorXd lambda = cs.lambda;
    EXPECT_LE(rel(lambda, out.lambda), 1e-6) << seed << "\n" << lambda.transpose() << "\n" << out.lambda.transpose();
    const Eigen::Matrix<double, 6, 1> wrench = cs.G.leftCols(6).transpose() * cs.lambda;
    EXPECT_LE(rel(wrench, out.wrench), 1e-6) << seed;
  }
  std::printf("anymal_c: %d of 21 states inside the cones and checked; max |tau| %.1f N·m\n", checked, tau_max);
  EXPECT_GE(checked, 16);  // the nominal posture and most perturbed states stick on all four feet
  // Standing anymal_c needs far more than Solo-12's 2.7 N·m (the old built-in limit, which
  // clamped 10 of its 12 joints): the limits are its own.
  EXPECT_GT(tau_max, 2.7);
}

}  // namespace
