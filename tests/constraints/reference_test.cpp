// Constraint references: answers that come from outside the ConstraintSet machinery.
//  - loop constraints: a double pendulum in absolute coordinates (two free bodies joined by
//    loops) moves as the same pendulum in joint coordinates (foundation ABA);
//  - the parallelogram four-bar follows its closed-form equation of motion;
//  - contacts: a box on three normal contacts has the statically determined forces; on four
//    full contacts (redundant) every method reports singular;
//  - custom: a gear q₀ = r q₁ matches the equivalent one-joint model.
#include "constraints/constraint_checks.hpp"
#include "support/hand_models.hpp"

namespace talus_test {
namespace {

using talus::Status;

TEST(ReferenceConstraints, DoublePendulumAbsoluteCoordinates) {
  const PendulumParams pp;
  const auto joint_model = make_double_pendulum<double>(pp);
  TwoFreeBodies model;
  model.body_name = {"link1", "link2"};
  model.joint_name = {"free1", "free2"};
  model.inertia = joint_model.inertia;
  model.gravity = joint_model.gravity;
  model.frames[0] = talus::Frame<double>{"tip", 1, joint_model.frames[0].placement};
  // loops: world–link1 at the first pivot, link1–link2 at the second; 3 linear rows and the
  // two rotations about x and z (the hinge axis is y): 10 rows, 12 − 10 = 2 dof.
  talus::ConstraintSet<TwoFreeBodies, 10> cs;
  std::array<talus::LoopAxis<double>, 5> ax;
  const int dirs[5] = {0, 2, 3, 4, 5};
  for (int k = 0; k < 5; ++k) ax[k].axis = talus::Motion<double>::Unit(dirs[k]);
  ASSERT_EQ(cs.add_loop(-1, at(0), 0, at(0), {ax[0], ax[1], ax[2], ax[3], ax[4]}, {}, "pivot1"), Status::ok);
  ASSERT_EQ(cs.add_loop(0, joint_model.joint_placement[1], 1, at(0), {ax[0], ax[1], ax[2], ax[3], ax[4]}, {}, "pivot2"),
            Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);

  auto jdata = std::make_unique<talus::Data<DoublePendulum<double>>>();
  auto data = std::make_unique<talus::Data<TwoFreeBodies>>();
  talus::Random rng(21);
  for (int i = 0; i < 20; ++i) {
    const Eigen::Vector2d qj(rng.uniform(-3, 3), rng.uniform(-3, 3)), vj(rng.uniform(-2, 2), rng.uniform(-2, 2)),
        tj(rng.uniform(-1, 1), rng.uniform(-1, 1));
    Eigen::Vector2d ddqj;
    ASSERT_EQ(talus::aba(joint_model, *jdata, qj, vj, tj, ddqj), Status::ok);
    ASSERT_EQ(talus::forward_kinematics(joint_model, *jdata, qj, vj, ddqj), Status::ok);
    // the same state in absolute coordinates
    TwoFreeBodies::ConfigVector q;
    TwoFreeBodies::TangentVector v, tau;
    for (int b = 0; b < 2; ++b) {
      const Eigen::Quaterniond quat(jdata->oMi[b].R);
      q.segment<7>(7 * b) << jdata->oMi[b].p, quat.w(), quat.x(), quat.y(), quat.z();
      v.segment<6>(6 * b) = jdata->v[b];
    }
    // joint torques as body torques: τ₁ acts on link1 (and −τ₁ on the world), τ₂ on link2 and −τ₂ on link1,
    // about y (the hinge axis, the same in both bodies' frames)
    tau.setZero();
    tau[1] = tj[0] - tj[1];
    tau[6 + 1] = tj[1];
    TwoFreeBodies::TangentVector ddq;
    Eigen::VectorXd lambda;
    ddq = check_forward_methods(model, cs, q, v, tau, false, &lambda);
    check_gamma_and_jacobian(model, cs, q, v, true);
    for (int b = 0; b < 2; ++b)
      EXPECT_LE(rel_err(ddq.segment<6>(6 * b), jdata->a[b]), 1e-10) << "body " << b << " state " << i;
  }
}

TEST(ReferenceConstraints, ParallelogramFourBarClosedForm) {
  const FourBarParams p = parallelogram();
  const FourBar model = make_four_bar(p);
  talus::ConstraintSet<FourBar, 6> cs;
  ASSERT_EQ(add_four_bar_loop(p, cs), Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);
  // Closed form. Crank and rocker turn by the same θ, the coupler translates on a circle of
  // radius a. T = ½ (I₁ + I₃ + m₂ a²) θ̇², V = g sin θ (m₁ a/2 + m₂ a + m₃ c/2), and the joint
  // torques do work τ₁ θ̇ − τ₂ θ̇ + τ₃ θ̇ (the coupler joint turns by −θ). M is constant, so
  //   θ̈ = (τ₁ − τ₂ + τ₃ − g cos θ (m₁ a/2 + m₂ a + m₃ c/2)) / (I₁ + I₃ + m₂ a²),
  // with I = m l²/3 (+ the rods' tiny x-inertia does not enter rotation about z).
  const double g = 9.81;
  const double M = p.m1 * p.a * p.a / 3 + p.m3 * p.c * p.c / 3 + p.m2 * p.a * p.a;
  const double k = p.m1 * p.a / 2 + p.m2 * p.a + p.m3 * p.c / 2;
  talus::Random rng(22);
  for (int i = 0; i < 20; ++i) {
    const double th = rng.uniform(0.2, 2.9), om = rng.uniform(-3, 3);
    const FourBar::ConfigVector q(th, -th, th);
    const FourBar::TangentVector v(om, -om, om);
    FourBar::TangentVector tau;
    for (int j = 0; j < 3; ++j) tau[j] = rng.uniform(-1, 1);
    const double thdd = (tau[0] - tau[1] + tau[2] - g * std::cos(th) * k) / M;
    const FourBar::TangentVector ddq = check_forward_methods(model, cs, q, v, tau, false);
    EXPECT_NEAR(ddq[0], thdd, 1e-10 * std::max(1.0, std::abs(thdd)));
    EXPECT_NEAR(ddq[1], -thdd, 1e-10 * std::max(1.0, std::abs(thdd)));
    EXPECT_NEAR(ddq[2], thdd, 1e-10 * std::max(1.0, std::abs(thdd)));
  }
}

TEST(ReferenceConstraints, BoxOnThreeContactsIsStaticallyDetermined) {
  const BoxParams bp;
  const Box model = make_box(bp);
  const double h = bp.lz / 2;
  const Vector3<double> pts[3] = {{0.15, 0.1, -h}, {-0.17, 0.12, -h}, {0.02, -0.13, -h}};
  talus::ConstraintSet<Box, 12> cs;
  for (const auto& pt : pts) ASSERT_EQ(cs.add_contact(0, pt, {Vector3<double>::UnitZ()}), Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);
  // Box level at height h, at rest. Statics: Σλ = m g, Σλ x = m g x_c, Σλ y = m g y_c.
  Box::ConfigVector q;
  q << 0.4, -0.2, h, 1, 0, 0, 0;
  const Box::TangentVector v = Box::TangentVector::Zero(), tau = Box::TangentVector::Zero();
  Eigen::Matrix3d A;
  Eigen::Vector3d b;
  const Vector3<double> c = q.head<3>() + bp.com;
  for (int k = 0; k < 3; ++k) {
    const Vector3<double> pw = q.head<3>() + pts[k];
    A.col(k) << 1, pw.x(), pw.y();
  }
  const double W = bp.mass * 9.81;
  b << W, W * c.x(), W * c.y();
  const Eigen::Vector3d expected = A.lu().solve(b);
  Eigen::VectorXd lambda;
  const Box::TangentVector ddq = check_forward_methods(model, cs, q, v, tau, true, &lambda);
  EXPECT_LE((lambda - expected).cwiseAbs().maxCoeff(), 1e-12 * W);
  EXPECT_LE(ddq.cwiseAbs().maxCoeff(), 1e-12) << "the box stays at rest";

  // Four full contacts at the corners: 12 rows on 6 dof, redundant.
  talus::ConstraintSet<Box, 12> four;
  for (int sx : {-1, 1})
    for (int sy : {-1, 1})
      ASSERT_EQ(four.add_contact(0, Vector3<double>(sx * bp.lx / 2, sy * bp.ly / 2, -h),
                                 {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
                Status::ok);
  ASSERT_EQ(four.bind(model), Status::ok);
  auto data = std::make_unique<talus::Data<Box>>();
  Box::TangentVector out;
  for (talus::KKTMethod m : all_kkt_methods) {
    out.setConstant(5);
    EXPECT_EQ(talus::forward_dynamics_direct(model, *data, four, q, v, tau, out, m), Status::singular)
        << talus::to_string(m);
    EXPECT_TRUE(out.isZero());
    EXPECT_TRUE(four.lambda.isZero());
    EXPECT_EQ(talus::compute_impulse_direct(model, *data, four, q, v, out, m), Status::singular) << talus::to_string(m);
  }
  EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, four, q, v, tau, out), Status::singular);
  EXPECT_EQ(talus::forward_dynamics_null_space(model, *data, four, q, v, tau, out), Status::singular);
  EXPECT_EQ(talus::forward_dynamics_kokkevis(model, *data, four, q, v, tau, out), Status::singular);
  out.setConstant(5);
  EXPECT_EQ(talus::forward_dynamics_articulated(model, *data, four, q, v, tau, out), Status::singular);
  EXPECT_TRUE(out.isZero());
  EXPECT_TRUE(four.lambda.isZero());
  EXPECT_EQ(four.failure().reason, talus::FailureReason::singular);
  out.setConstant(5);
  EXPECT_EQ(talus::compute_impulse_articulated(model, *data, four, q, v, out), Status::singular);
  EXPECT_TRUE(out.isZero());
  EXPECT_EQ(talus::compute_impulse_range_space(model, *data, four, q, v, out), Status::singular);
  EXPECT_EQ(talus::compute_impulse_null_space(model, *data, four, q, v, out), Status::singular);
  EXPECT_TRUE(out.isZero());
}

TEST(ReferenceConstraints, GearCustomConstraintMatchesOneJointModel) {
  const GearParams gp;
  const TwoWheels model = make_two_wheels(gp);
  const GearConstraint gear(gp.ratio);
  talus::ConstraintSet<TwoWheels, 2> cs;
  ASSERT_EQ(cs.add_custom(gear, {}, "gear", 3), Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);
  EXPECT_EQ(cs.find("gear"), 0);
  EXPECT_EQ(cs.find_user_id(3), 0);
  // one wheel with the reflected inertia r² I₁ + I₂ and torque r τ₀ + τ₁
  OneWheel one;
  one.body_name = {"wheel"};
  one.joint_name = {"j"};
  one.inertia[0] = Inertia<double>(1.0, Vector3<double>::Zero(),
                                   Vector3<double>(1, 1, gp.ratio * gp.ratio * gp.i1 + gp.i2).asDiagonal());
  auto odata = std::make_unique<talus::Data<OneWheel>>();
  talus::Random rng(23);
  for (int i = 0; i < 20; ++i) {
    const double th = rng.uniform(-3, 3), om = rng.uniform(-3, 3);
    const TwoWheels::ConfigVector q(gp.ratio * th, th);
    const TwoWheels::TangentVector v(gp.ratio * om, om);
    const TwoWheels::TangentVector tau(rng.uniform(-1, 1), rng.uniform(-1, 1));
    Eigen::Matrix<double, 1, 1> ddq1;
    ASSERT_EQ(talus::aba(one, *odata, Eigen::Matrix<double, 1, 1>(th), Eigen::Matrix<double, 1, 1>(om),
                         Eigen::Matrix<double, 1, 1>(gp.ratio * tau[0] + tau[1]), ddq1),
              Status::ok);
    Eigen::VectorXd lambda;
    const TwoWheels::TangentVector ddq = check_forward_methods(model, cs, q, v, tau, false, &lambda);
    EXPECT_NEAR(ddq[1], ddq1[0], 1e-12 * std::max(1.0, std::abs(ddq1[0])));
    EXPECT_NEAR(ddq[0], gp.ratio * ddq1[0], 1e-12 * std::max(1.0, std::abs(ddq1[0])));
    // the gear force: I₁ q̈₀ = τ₀ + λ
    EXPECT_NEAR(lambda[0], gp.i1 * ddq[0] - tau[0], 1e-12);
    check_impulse_methods(model, cs, q, v, rng);
  }
}

}  // namespace
}  // namespace talus_test
