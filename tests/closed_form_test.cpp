// label: consistency — the hand-written planar double pendulum against its closed-form
// equations of motion (Lagrange), independent of any talus algorithm:
//   H = [ i1 + m1 l1² + i2 + m2 (l1² + l2² + 2 l1 l2 cos q2)    i2 + m2 (l2² + l1 l2 cos q2) ]
//       [ i2 + m2 (l2² + l1 l2 cos q2)                          i2 + m2 l2²                  ]
//   C = [ −m2 l1 l2 sin q2 (2 q̇1 q̇2 + q̇2²) ;  m2 l1 l2 sin q2 q̇1² ]
//   g = [ (m1 l1 + m2 l1) g0 sin q1 + m2 l2 g0 sin(q1 + q2) ;  m2 l2 g0 sin(q1 + q2) ]
// Angles about +y from the downward vertical: the tip of link 1 is at (−l1 sin q1, 0, −l1 cos q1).
#include <gtest/gtest.h>

#include <cmath>

#include "support/hand_models.hpp"
#include "support/random_state.hpp"

namespace {

using namespace talus_test;
using M = DoublePendulum<double>;

TEST(ClosedForm, DoublePendulumMatchesLagrange) {
  const PendulumParams p;
  const M model = make_double_pendulum<double>(p);
  talus::Data<M> data;
  talus::Random rng(1);
  const double g0 = 9.81;
  for (int n = 0; n < 200; ++n) {
    const auto s = random_state(model, rng);
    const double q1 = s.q[0], q2 = s.q[1], d1 = s.v[0], d2 = s.v[1];
    const double c2 = std::cos(q2), s2 = std::sin(q2);
    Eigen::Matrix2d H;
    H(0, 0) = p.i1 + p.m1 * p.l1 * p.l1 + p.i2 + p.m2 * (p.l1 * p.l1 + p.l2 * p.l2 + 2 * p.l1 * p.l2 * c2);
    H(0, 1) = H(1, 0) = p.i2 + p.m2 * (p.l2 * p.l2 + p.l1 * p.l2 * c2);
    H(1, 1) = p.i2 + p.m2 * p.l2 * p.l2;
    const Eigen::Vector2d C(-p.m2 * p.l1 * p.l2 * s2 * (2 * d1 * d2 + d2 * d2), p.m2 * p.l1 * p.l2 * s2 * d1 * d1);
    const Eigen::Vector2d g((p.m1 + p.m2) * p.l1 * g0 * std::sin(q1) + p.m2 * p.l2 * g0 * std::sin(q1 + q2),
                            p.m2 * p.l2 * g0 * std::sin(q1 + q2));
    Eigen::Vector2d ddq, bias, grav, tau;
    ASSERT_EQ(talus::crba(model, data, s.q), talus::Status::ok);
    EXPECT_LT(rel_err(data.H, H), 1e-13);
    ASSERT_EQ(talus::generalized_gravity(model, data, s.q, grav), talus::Status::ok);
    EXPECT_LT(rel_err(grav, g), 1e-13);
    ASSERT_EQ(talus::nonlinear_effects(model, data, s.q, s.v, bias), talus::Status::ok);
    EXPECT_LT(rel_err(bias, Eigen::Vector2d(C + g)), 1e-13);
    ASSERT_EQ(talus::aba(model, data, s.q, s.v, s.tau, ddq), talus::Status::ok);
    EXPECT_LT(rel_err(ddq, Eigen::Vector2d(H.inverse() * (s.tau - C - g))), 1e-12);
    ASSERT_EQ(talus::rnea(model, data, s.q, s.v, s.a, tau), talus::Status::ok);
    EXPECT_LT(rel_err(tau, Eigen::Vector2d(H * s.a + C + g)), 1e-13);
    // tip position
    talus::Transform<double> oMf;
    ASSERT_EQ(talus::forward_kinematics(model, data, s.q), talus::Status::ok);
    ASSERT_EQ(talus::frame_placement(model, data, 0, oMf), talus::Status::ok);
    const Eigen::Vector3d tip(-p.l1 * std::sin(q1) - p.l2 * std::sin(q1 + q2), 0,
                              -p.l1 * std::cos(q1) - p.l2 * std::cos(q1 + q2));
    EXPECT_LT((oMf.p - tip).norm(), 1e-14);
  }
}

TEST(ClosedForm, FreeFallingBodyHasGravityAcceleration) {
  // A lone free-flying body: ABA must give a = g in world (expressed in body frame) and no rotation.
  using T = talus::Tree<talus::Body<talus::JointFreeFlyer, -1>>;
  talus::Model<double, T> model;
  model.inertia[0] =
      talus::Inertia<double>(2.0, Eigen::Vector3d(0.1, -0.2, 0.05), Eigen::Vector3d(0.02, 0.03, 0.04).asDiagonal());
  talus::Data<decltype(model)> data;
  talus::Random rng(2);
  for (int n = 0; n < 20; ++n) {
    Eigen::Matrix<double, 7, 1> q;
    talus::random_configuration(model, rng, q);
    Eigen::Matrix<double, 6, 1> v = Eigen::Matrix<double, 6, 1>::Zero(), tau = v, ddq;
    ASSERT_EQ(talus::aba(model, data, q, v, tau, ddq), talus::Status::ok);
    const Eigen::Matrix3d R = talus::quaternion_to_rotation<double>(q[3], q[4], q[5], q[6]);
    // origin acceleration (world) = g, because the body does not rotate
    EXPECT_LT((R * ddq.tail<3>() - model.gravity).norm(), 1e-12);
    EXPECT_LT(ddq.head<3>().norm(), 1e-12);
  }
}

}  // namespace
