// label: hil — talus's balance controller (include/talus/control/balance_controller.hpp) in the
// HIL rig's solo12 configuration (hil/firmware/main.cpp: height 0.24 m, torques capped at 2.7 N·m) on the
// host, checked against talus's own constrained forward dynamics, an independent computation:
// the controller builds τ by inverse dynamics (RNEA) and a friction-cone distribution; the
// forward dynamics solves H q̈ + C = τ + Gᵀλ, G q̈ = γ with the range-space method.
//
// Claim: on a perturbed standing state (base displaced and tilted, joints and velocities
// perturbed, all four feet on the ground, forces inside the cones), applying the commanded τ
// with the feet held gives back the controller's requested q̈ and its contact forces, hence the
// requested wrench on the base. Tolerance: the distribution minimises ‖G_bᵀλ − τ_b‖²_Q + ε‖λ‖²
// with ε = 1e-9 · max diag(G_b Q G_bᵀ): its bias on the wrench is ε‖λ‖ over the squared
// singular values of G_b Q^½ (≥ ~1e-2 of the max diag for Solo's stance), i.e. ≲ 1e-7 of the
// forces; the cone solver stops at a relative residual 1e-9. Hence 1e-6 relative (to |τ_b|,
// |λ| and |q̈_des|), 10× above those bounds and far below any controller error (a wrong sign
// or a missing term is O(1)).
#include <gtest/gtest.h>

#include <cmath>

#include <talus/control/balance_controller.hpp>
#include <talus/models/solo12.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>

#include "support/alloc_trap.hpp"

namespace {

namespace solo = talus::models::solo12;
using Model = solo::Model<double>;
using Controller = talus::BalanceController<Model>;
using talus::ControllerState;
using talus::Status;

struct Fixture {
  Model model = solo::make_model<double>();
  Controller ctl;
  Controller::Joints stance, swing;
  int feet[4];
  Fixture() {
    stance << 0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6;
    swing << 0.1, 1.2, -2.4, -0.1, 1.2, -2.4, 0.1, -1.2, 2.4, -0.1, -1.2, 2.4;
    const char* names[4] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
    for (int k = 0; k < 4; ++k) feet[k] = model.frame_id(names[k]);
    talus::ControllerConfig<double> cfg;
    cfg.height = 0.24;
    cfg.torque_limit = 2.7;
    cfg.regularization = 1e-9;
    EXPECT_EQ(ctl.init(model, feet, stance, swing, cfg), Status::ok);
  }
  // A standing state with the perturbation `amp` (0: exactly standing, level, at rest).
  void state(double amp, unsigned seed, Controller::Config& q, Controller::Tangent& v) const {
    talus::Random rng(seed);
    q.setZero();
    q[2] = 0.23;
    q[3] = 1;
    q.tail<12>() = stance;
    v.setZero();
    for (int i = 0; i < 3; ++i) q[i] += amp * 0.02 * rng.uniform(-1, 1);
    Eigen::Vector3d w(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
    const Eigen::Vector4d dq = talus::quaternion_exp<double>(amp * 0.05 * w);
    q.segment<4>(3) = dq;
    for (int i = 0; i < 12; ++i) q[7 + i] += amp * 0.05 * rng.uniform(-1, 1);
    for (int i = 0; i < 18; ++i) v[i] = amp * 0.2 * rng.uniform(-1, 1);
  }
};

double rel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

TEST(HilController, TorquesReproduceRequestedMotionAndForces) {
  int checked = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    Fixture fx;
    Controller::Config q;
    Controller::Tangent v;
    fx.state(0.5, seed, q, v);
    // First frame starts the stand-up ramp; at t = 2 s the controller balances.
    (void)fx.ctl.step(0.0, q, v, 0, 0xF);
    const Controller::Output out = fx.ctl.step(2.0, q, v, 0, 0xF);
    ASSERT_EQ(out.status, Status::ok) << seed;
    ASSERT_EQ(out.state, ControllerState::balance) << seed;
    ASSERT_EQ(out.clamped, 0) << seed;
    // The forces must be inside the cones (sticking), else the claim does not apply.
    bool inside = out.solver_iterations == 0;
    for (int k = 0; k < 4; ++k) {
      const Eigen::Vector3d f = out.lambda.segment<3>(3 * k);
      inside = inside && f[0] > 0.1 && f.tail<2>().norm() < 0.6 * f[0];
    }
    if (!inside) continue;
    ++checked;
    // talus's constrained forward dynamics with the commanded torques and the feet held.
    talus::ConstraintSet<Model, 12> cs;
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(cs.add_contact(fx.model, fx.feet[k],
                               {Eigen::Vector3d::UnitZ(), Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitY()}),
                Status::ok);
    ASSERT_EQ(cs.bind(fx.model), Status::ok);
    talus::Data<Model> data;
    Controller::Tangent tau = Controller::Tangent::Zero(), qdd;
    tau.tail<12>() = out.tau;
    ASSERT_EQ(talus::forward_dynamics_range_space(fx.model, data, cs, q, v, tau, qdd), Status::ok);
    EXPECT_LE(rel(qdd, out.qdd_des), 1e-6) << seed << "\n" << qdd.transpose() << "\n" << out.qdd_des.transpose();
    Eigen::VectorXd lambda = cs.lambda;
    EXPECT_LE(rel(lambda, out.lambda), 1e-6) << seed << "\n" << lambda.transpose() << "\n" << out.lambda.transpose();
    // The wrench the contacts then put on the base is the requested one.
    const Eigen::Matrix<double, 6, 1> wrench = cs.G.leftCols(6).transpose() * cs.lambda;
    EXPECT_LE(rel(wrench, out.wrench), 1e-6) << seed;
  }
  EXPECT_GE(checked, 15);  // most perturbed states stick on all four feet
}

TEST(HilController, BadSensorFramesGiveDampingAndAreCounted) {
  Fixture fx;
  Controller::Config q;
  Controller::Tangent v;
  fx.state(0.5, 3, q, v);
  (void)fx.ctl.step(0.0, q, v, 0, 0xF);
  Controller::Config bad = q;
  bad[9] = std::nan("");
  const Controller::Output o = fx.ctl.step(0.001, bad, v, 0, 0xF);
  EXPECT_EQ(fx.ctl.sensor_invalid, 1u);
  for (int i = 0; i < 12; ++i) EXPECT_DOUBLE_EQ(o.tau[i], -0.15 * v[6 + i]);
  bad = q;
  bad[3] = 1.1;  // quaternion far from unit
  (void)fx.ctl.step(0.002, bad, v, 0, 0xF);
  bad = q;
  bad[8] = 11;  // beyond the joint range
  (void)fx.ctl.step(0.003, bad, v, 0, 0xF);
  EXPECT_EQ(fx.ctl.sensor_invalid, 3u);
  // A valid frame again: back to balancing (not latched).
  EXPECT_EQ(fx.ctl.step(0.004, q, v, 0, 0xF).state, ControllerState::stand_up);
  // The watchdog's safe mode is latched: damping from then on, even on valid frames.
  fx.ctl.enter_safe();
  const Controller::Output s = fx.ctl.step(0.005, q, v, 0, 0xF);
  EXPECT_EQ(s.state, ControllerState::safe_damping);
  for (int i = 0; i < 12; ++i) EXPECT_DOUBLE_EQ(s.tau[i], -0.15 * v[6 + i]);
}

TEST(HilController, LiftingAFootSwitchesItsContactOff) {
  Fixture fx;
  Controller::Config q;
  Controller::Tangent v;
  fx.state(0.0, 1, q, v);
  (void)fx.ctl.step(0.0, q, v, 0, 0xF);
  double t = 1.5;
  (void)fx.ctl.step(t, q, v, 0, 0xF);  // balance
  int rows_before = fx.ctl.constraints().active_rows();
  Controller::Output o;
  for (int i = 0; i < 900; ++i) {
    o = fx.ctl.step(t += 0.001, q, v, 1u << 2, 0xF);  // lift HL for 0.9 s
    if (o.status != Status::ok) std::printf("step %d: %s state %d\n", i, talus::to_string(o.status), int(o.state));
  }
  EXPECT_EQ(rows_before, 12);
  EXPECT_EQ(o.state, ControllerState::three_feet);
  EXPECT_FALSE(fx.ctl.constraints().is_active(2));
  EXPECT_EQ(fx.ctl.constraints().active_rows(), 9);
  EXPECT_EQ(o.lambda.segment<3>(6).norm(), 0.0);
}

TEST(HilController, StepDoesNotAllocate) {
  Fixture fx;
  Controller::Config q;
  Controller::Tangent v;
  fx.state(1.0, 5, q, v);
  (void)fx.ctl.step(0.0, q, v, 0, 0xF);
  Controller::Output o;
  const std::size_t calls = talus_test::heap_calls([&] { o = fx.ctl.step(2.0, q, v, 0, 0xF); });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(o.status, Status::ok);
}

}  // namespace
