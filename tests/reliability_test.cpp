// Regression tests for the defects an independent fuzzing campaign found (issue 10), one
// test per defect, named after it. Each failed before its fix (see the note); each
// checks the promise itself: bad input → a clear Status and zero outputs; ok → finite and
// right (checked against another method or a closed form).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>

#include <talus/constraints.hpp>
#include <talus/models/solo12.hpp>
#include <talus/talus.hpp>

#include "support/hand_models.hpp"
#include "support/random_state.hpp"

namespace talus_test {
namespace {

using talus::Status;
using talus::Vector3;
namespace solo = talus::models::solo12;
using Solo = solo::Model<double>;
using Pendulum = DoublePendulum<double>;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class X>
bool all_zero(const X& x) {
  return (x.array() == 0).all();
}

// A solo12 set with one contact on the front-left foot.
std::unique_ptr<talus::ConstraintSet<Solo, 12>> solo_one_contact(const Solo& model) {
  auto cs = std::make_unique<talus::ConstraintSet<Solo, 12>>();
  const auto& F = model.frames[solo::frame_id("FL_FOOT")];
  EXPECT_EQ(cs->add_contact(F.body, F.placement.p,
                            {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
            Status::ok);
  EXPECT_EQ(cs->bind(model), Status::ok);
  return cs;
}

std::unique_ptr<talus::ConstraintSet<Solo, 12>> solo_four_feet(const Solo& model) {
  auto cs = std::make_unique<talus::ConstraintSet<Solo, 12>>();
  for (const char* foot : {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"}) {
    const auto& F = model.frames[solo::frame_id(foot)];
    EXPECT_EQ(cs->add_contact(F.body, F.placement.p,
                              {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
              Status::ok);
  }
  EXPECT_EQ(cs->bind(model), Status::ok);
  return cs;
}

// ---- 1. the generic KKT blocks check capacity and sizes ---------------------------------

TEST(Reliability, Defect1_KktBlocksCheckCapacityAndSizes) {
  const Pendulum model = make_double_pendulum<double>();
  auto data = std::make_unique<talus::Data<Pendulum>>();
  const Pendulum::ConfigVector q(0.3, -0.4);
  ASSERT_EQ(talus::crba(model, *data, q), Status::ok);
  ASSERT_EQ(talus::factorize_ltl(model, *data), Status::ok);
  talus::SolverWorkspace<double, 2, 2> ws;
  const Eigen::Vector2d b(1.0, -2.0);
  Eigen::Vector2d x;
  Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 2, 1> lambda;
  // 40 × 2 G with a 2-row workspace: capacity_exceeded, nothing written past the workspace
  const Eigen::MatrixXd G = Eigen::MatrixXd::Ones(40, 2);
  const Eigen::VectorXd g = Eigen::VectorXd::Zero(40);
  for (int method = 0; method < 3; ++method) {
    x.setConstant(7);
    lambda.setConstant(2, 7);
    Status s = method == 0 ? talus::solve_kkt_direct(data->H, b, G, g, talus::KKTMethod::partial_piv_lu, ws, x, lambda)
               : method == 1 ? talus::solve_kkt_range_space(model, *data, b, G, g, ws, x, lambda)
                             : talus::solve_kkt_null_space(data->H, b, G, g, ws, x, lambda);
    EXPECT_EQ(s, Status::capacity_exceeded) << "method " << method;
    EXPECT_TRUE(all_zero(x));
    EXPECT_TRUE(all_zero(lambda));
  }
  // g of the wrong size, NaN in b, G with nv + 1 columns: invalid_input
  const Eigen::MatrixXd G1 = Eigen::MatrixXd::Ones(1, 2);
  const Eigen::VectorXd g2 = Eigen::VectorXd::Zero(2);
  const Eigen::VectorXd g1 = Eigen::VectorXd::Zero(1);
  const Eigen::Vector2d bnan(kNaN, 1.0);
  const Eigen::MatrixXd G3 = Eigen::MatrixXd::Ones(1, 3);
  for (int method = 0; method < 3; ++method) {
    auto run = [&](const Eigen::Vector2d& bb, const Eigen::MatrixXd& GG, const Eigen::VectorXd& gg) {
      x.setConstant(7);
      return method == 0 ? talus::solve_kkt_direct(data->H, bb, GG, gg, talus::KKTMethod::partial_piv_lu, ws, x, lambda)
             : method == 1 ? talus::solve_kkt_range_space(model, *data, bb, GG, gg, ws, x, lambda)
                           : talus::solve_kkt_null_space(data->H, bb, GG, gg, ws, x, lambda);
    };
    EXPECT_EQ(run(b, G1, g2), Status::invalid_input) << "method " << method;
    EXPECT_TRUE(all_zero(x));
    EXPECT_EQ(run(bnan, G1, g1), Status::invalid_input) << "method " << method;
    EXPECT_TRUE(all_zero(x));
    EXPECT_TRUE(all_zero(lambda));
    EXPECT_EQ(run(b, G3, g1), Status::invalid_input) << "method " << method;
    // and a valid call still agrees across the three methods (one row: q1 + q2 = 0)
    Eigen::Vector2d x0;
    ASSERT_EQ(talus::solve_kkt_direct(data->H, b, G1, g1, talus::KKTMethod::partial_piv_lu, ws, x0, lambda),
              Status::ok);
    ASSERT_EQ(run(b, G1, g1), Status::ok);
    EXPECT_LT((x - x0).norm(), 1e-12 * x0.norm());
  }
}

// ---- 2. assemble_q never returns uninitialised memory -----------------------------------

TEST(Reliability, Defect2_AssembleQNeverReturnsUninitialisedMemory) {
  const Solo model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<Solo>>();
  auto cs = solo_one_contact(model);
  ASSERT_EQ(cs->set_contact_anchor(0, Vector3<double>(0.2, 0.1, -0.3)), Status::ok);
  Solo::ConfigVector q0, q;
  talus::neutral(model, q0);
  Solo::TangentVector w = Solo::TangentVector::Ones();
  w[7] = 4.9e-324;  // positive, but 1/w is Inf
  q.setConstant(5);
  EXPECT_EQ(talus::assemble_q(model, *data, *cs, q0, w, q), Status::invalid_input);
  EXPECT_TRUE(all_zero(q));
  w[7] = 1e-300;
  EXPECT_EQ(talus::assemble_q(model, *data, *cs, q0, w, q), Status::invalid_input);
  // valid weights: converges, and the contact point reaches its anchor
  w.setOnes();
  talus::AssemblyReport<double> rep;
  ASSERT_EQ(talus::assemble_q(model, *data, *cs, q0, w, q, {}, &rep), Status::ok);
  EXPECT_LE(rep.residual, 1e-12);
  ASSERT_EQ(talus::forward_kinematics(model, *data, q), Status::ok);
  talus::Transform<double> oMf;
  ASSERT_EQ(talus::frame_placement(model, *data, solo::frame_id("FL_FOOT"), oMf), Status::ok);
  EXPECT_LT((oMf.p - Vector3<double>(0.2, 0.1, -0.3)).norm(), 1e-12);
  // a cap of one iteration from far away: not_converged with a valid, finite iterate
  ASSERT_EQ(cs->set_contact_anchor(0, Vector3<double>(3, 0, 0)), Status::ok);
  ASSERT_EQ(talus::assemble_q(model, *data, *cs, q0, w, q, {1e-12, 1}, &rep), Status::not_converged);
  EXPECT_TRUE(talus::all_finite(q));
  EXPECT_EQ(talus::check_configuration(model, q), Status::ok);
}

// A custom constraint whose values are NaN (a user's bug): every consumer says so.
class NanConstraint : public talus::CustomConstraint<Solo> {
 public:
  int rows() const override { return 1; }
  void jacobian(const Solo&, const talus::Data<Solo>&, const ConfigVector&, Rows& G) const override { G(0, 6) = 1; }
  void gamma(const Solo&, const talus::Data<Solo>&, const ConfigVector&, const TangentVector&,
             RowValues& g) const override {
    g[0] = 0;
  }
  void position_errors(const Solo&, const talus::Data<Solo>&, const ConfigVector&, RowValues& e) const override {
    e[0] = kNaN;
  }
};

TEST(Reliability, Defect2_AssemblyRejectsNanPositionErrors) {
  const Solo model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<Solo>>();
  static const NanConstraint nan_constraint;
  auto cs = std::make_unique<talus::ConstraintSet<Solo, 12>>();
  ASSERT_EQ(cs->add_custom(nan_constraint), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  Solo::ConfigVector q0, q;
  talus::neutral(model, q0);
  q.setConstant(5);
  EXPECT_EQ(talus::assemble_q(model, *data, *cs, q0, Solo::TangentVector::Ones(), q), Status::invalid_input);
  EXPECT_TRUE(all_zero(q));
  talus::ConstraintSet<Solo, 12>::RowVector e;  // (an nv-vector was accepted before sizes were checked at compile time)
  EXPECT_EQ(talus::compute_position_errors(model, *data, *cs, q0, e), Status::invalid_input);
}

// ---- 3. crba writes every entry of H; H is exactly symmetric ----------------------------

TEST(Reliability, Defect3_CrbaWritesEveryEntryOfH) {
  const Solo model = solo::make_model<double>();
  auto fresh = std::make_unique<talus::Data<Solo>>();
  auto dirty = std::make_unique<talus::Data<Solo>>();
  talus::Random rng(3);
  const auto s = random_state(model, rng);
  ASSERT_EQ(talus::crba(model, *fresh, s.q), Status::ok);
  dirty->H.setConstant(347.0);  // anything an earlier use may have left
  ASSERT_EQ(talus::crba(model, *dirty, s.q), Status::ok);
  EXPECT_TRUE((dirty->H.array() == fresh->H.array()).all()) << "H depends on what Data held before";
  EXPECT_TRUE((fresh->H.array() == fresh->H.transpose().array()).all()) << "H is not exactly symmetric";
  // two legs do not couple: the FL and FR knee rows are zero in each other's columns
  EXPECT_EQ(fresh->H(8, 11), 0.0);
  // the methods that read the full H agree with range space (tree-sparse) on a dirtied Data
  auto cs = solo_four_feet(model);
  Solo::TangentVector a_range, a_direct, a_null;
  ASSERT_EQ(talus::forward_dynamics_range_space(model, *fresh, *cs, s.q, s.v, s.tau, a_range), Status::ok);
  dirty->H.setConstant(347.0);
  ASSERT_EQ(talus::forward_dynamics_direct(model, *dirty, *cs, s.q, s.v, s.tau, a_direct), Status::ok);
  dirty->H.setConstant(-5.0);
  ASSERT_EQ(talus::forward_dynamics_null_space(model, *dirty, *cs, s.q, s.v, s.tau, a_null), Status::ok);
  EXPECT_LT((a_direct - a_range).norm(), 1e-9 * (1 + a_range.norm()));
  EXPECT_LT((a_null - a_range).norm(), 1e-9 * (1 + a_range.norm()));
}

// ---- 4. outputs are zero on failure -------------------------------------------------------

TEST(Reliability, Defect4_OutputsZeroOnFailure) {
  const auto model = chain::make_model<double>();
  using M = Chain<double>;
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(4);
  const auto s = random_state(model, rng);
  M::ConfigVector qbad = s.q;
  qbad[3] = 2;  // unnormalised quaternion
  M::ConfigVector qout = M::ConfigVector::Constant(9);
  EXPECT_EQ(talus::integrate(model, qbad, s.v, qout), Status::invalid_input);
  EXPECT_TRUE(all_zero(qout));
  M::TangentVector vnan = s.v;
  vnan[2] = kNaN;
  qout.setConstant(9);
  EXPECT_EQ(talus::integrate(model, s.q, vnan, qout), Status::invalid_input);
  EXPECT_TRUE(all_zero(qout));
  M::TangentVector dq = M::TangentVector::Constant(9);
  EXPECT_EQ(talus::difference(model, s.q, qbad, dq), Status::invalid_input);
  EXPECT_TRUE(all_zero(dq));

  ASSERT_EQ(talus::forward_kinematics(model, *data, s.q, s.v, s.a), Status::ok);
  talus::Transform<double> X;
  EXPECT_EQ(talus::frame_placement(model, *data, 99, X), Status::invalid_input);
  EXPECT_TRUE(all_zero(X.R) && all_zero(X.p));
  talus::Motion<double> m = talus::Motion<double>::Constant(9);
  using RF = talus::ReferenceFrame;
  EXPECT_EQ(talus::frame_velocity(model, *data, -1, RF::local, m), Status::invalid_input);
  EXPECT_TRUE(all_zero(m));
  m.setConstant(9);
  EXPECT_EQ(talus::frame_acceleration(model, *data, 2, RF::world, m), Status::invalid_input);
  EXPECT_TRUE(all_zero(m));
  m.setConstant(9);
  EXPECT_EQ(talus::frame_classical_acceleration(model, *data, 5, RF::world, m), Status::invalid_input);
  EXPECT_TRUE(all_zero(m));
  Vector3<double> p = Vector3<double>::Constant(9);
  EXPECT_EQ(talus::point_position(model, *data, M::nb, Vector3<double>::Zero(), p), Status::invalid_input);
  EXPECT_TRUE(all_zero(p));
  p.setConstant(9);
  EXPECT_EQ(talus::point_velocity(model, *data, -2, Vector3<double>::Zero(), RF::world, p), Status::invalid_input);
  EXPECT_TRUE(all_zero(p));
  p.setConstant(9);
  EXPECT_EQ(talus::point_acceleration(model, *data, 17, Vector3<double>::Zero(), RF::world, p), Status::invalid_input);
  EXPECT_TRUE(all_zero(p));

  // center_of_mass: a failed call does not leave the previous call's com / vcom
  ASSERT_EQ(talus::center_of_mass(model, *data, s.q, s.v), Status::ok);
  ASSERT_FALSE(all_zero(data->com));
  ASSERT_FALSE(all_zero(data->vcom));
  EXPECT_EQ(talus::center_of_mass(model, *data, qbad, s.v), Status::invalid_input);
  EXPECT_TRUE(all_zero(data->com) && all_zero(data->vcom) && data->mass == 0);
  ASSERT_EQ(talus::center_of_mass(model, *data, s.q, s.v), Status::ok);
  EXPECT_EQ(talus::center_of_mass(model, *data, qbad), Status::invalid_input);
  EXPECT_TRUE(all_zero(data->com) && all_zero(data->vcom));
}

// ---- 5. non-finite inputs are rejected -----------------------------------------------------

class WrenchConstraint : public talus::CustomConstraint<Solo> {
 public:
  int count = 3;
  int bad_body = 0;
  int rows() const override { return 1; }
  void jacobian(const Solo&, const talus::Data<Solo>&, const ConfigVector&, Rows& G) const override { G(0, 6) = 1; }
  void gamma(const Solo&, const talus::Data<Solo>&, const ConfigVector&, const TangentVector&,
             RowValues& g) const override {
    g[0] = 0;
  }
  void position_errors(const Solo&, const talus::Data<Solo>&, const ConfigVector&, RowValues& e) const override {
    e[0] = 0;
  }
  int wrenches(const Solo&, const talus::Data<Solo>&, const RowValues&, int body[2],
               talus::Force<double> f[2]) const override {
    for (int k = 0; k < 2; ++k) {
      body[k] = bad_body;
      f[k].setOnes();
    }
    return count;
  }
};

TEST(Reliability, Defect5_NonFiniteInputsRejected) {
  const Solo model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<Solo>>();
  talus::Random rng(5);
  const auto s = random_state(model, rng);
  using RF = talus::ReferenceFrame;
  ASSERT_EQ(talus::compute_joint_jacobians(model, *data, s.q), Status::ok);
  ASSERT_EQ(talus::forward_kinematics(model, *data, s.q, s.v, s.a), Status::ok);
  const Vector3<double> pnan(0, kNaN, 0), pinf(kInf, 0, 0);
  Vector3<double> out;
  Solo::Jacobian3 J3;
  for (const Vector3<double>& p : {pnan, pinf}) {
    EXPECT_EQ(talus::point_position(model, *data, 3, p, out), Status::invalid_input);
    EXPECT_EQ(talus::point_velocity(model, *data, 3, p, RF::world, out), Status::invalid_input);
    EXPECT_EQ(talus::point_acceleration(model, *data, 3, p, RF::world, out), Status::invalid_input);
    EXPECT_TRUE(all_zero(out));
    EXPECT_EQ(talus::point_jacobian(model, *data, 3, p, RF::world, J3), Status::invalid_input);
    EXPECT_TRUE(all_zero(J3));
    EXPECT_EQ(talus::point_jacobian(model, *data, s.q, 3, p, RF::world, J3), Status::invalid_input);
  }
  // a ReferenceFrame value outside the enumerators
  const auto rf_bad = static_cast<RF>(7);
  Solo::Jacobian6 J6;
  talus::Motion<double> m;
  EXPECT_EQ(talus::frame_jacobian(model, *data, 0, rf_bad, J6), Status::invalid_input);
  EXPECT_EQ(talus::frame_velocity(model, *data, 0, rf_bad, m), Status::invalid_input);
  EXPECT_TRUE(all_zero(m));
  EXPECT_EQ(talus::point_velocity(model, *data, 3, Vector3<double>::Zero(), rf_bad, out), Status::invalid_input);

  // contact anchors, loop frames
  auto cs = solo_four_feet(model);
  EXPECT_EQ(cs->set_contact_anchor(0, pnan), Status::invalid_input);
  Eigen::VectorXd e;  // (an nv-vector compiled before sizes were checked at compile time: it read past λ's rows)
  ASSERT_EQ(talus::compute_position_errors(model, *data, *cs, s.q, e), Status::ok);
  EXPECT_TRUE(talus::all_finite(e));
  const auto& FL = model.frames[solo::frame_id("FL_FOOT")];
  talus::LoopAxis<double> ax;
  ax.axis = talus::Motion<double>::Unit(3);
  talus::Transform<double> nan_frame = FL.placement;
  nan_frame.p[1] = kNaN;
  talus::Transform<double> not_rotation = FL.placement;
  not_rotation.R(0, 0) = 2;
  for (const auto& frame : {nan_frame, not_rotation}) {
    auto loop = std::make_unique<talus::ConstraintSet<Solo, 12>>();
    EXPECT_EQ(loop->add_loop(FL.body, frame, -1, talus::Transform<double>(), {ax}),
              Status::invalid_input);  // refused at add
    EXPECT_EQ(loop->size(), 0);
    Solo::TangentVector a;
    EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, *loop, s.q, s.v, s.tau, a), Status::invalid_input);
    EXPECT_TRUE(all_zero(a));
  }
  // a negative (or NaN) pivot tolerance: singular systems must not come back ok
  auto redundant = std::make_unique<talus::ConstraintSet<Solo, 12>>();
  for (int k = 0; k < 2; ++k)
    ASSERT_EQ(redundant->add_contact(FL.body, FL.placement.p, {Vector3<double>::UnitZ()}), Status::ok);
  ASSERT_EQ(redundant->bind(model), Status::ok);
  Solo::TangentVector a;
  EXPECT_EQ(talus::forward_dynamics_direct(model, *data, *redundant, s.q, s.v, s.tau, a), Status::singular);
  for (double tol : {-1.0, kNaN}) {
    redundant->ws.pivot_tolerance = tol;
    for (int method = 0; method < 5; ++method) {
      a.setConstant(3);
      EXPECT_EQ(talus::forward_dynamics_direct(model, *data, *redundant, s.q, s.v, s.tau, a,
                                               static_cast<talus::KKTMethod>(method)),
                Status::invalid_input);
      EXPECT_TRUE(all_zero(a));
    }
    EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, *redundant, s.q, s.v, s.tau, a), Status::invalid_input);
    EXPECT_EQ(talus::forward_dynamics_kokkevis(model, *data, *redundant, s.q, s.v, s.tau, a), Status::invalid_input);
    EXPECT_EQ(talus::forward_dynamics_null_space(model, *data, *redundant, s.q, s.v, s.tau, a), Status::invalid_input);
  }
}

// ---- 6. finite but extreme inputs: never ok with NaN/Inf -----------------------------------

TEST(Reliability, Defect6_ExtremeInputsNeverOkWithNonFinite) {
  const Solo model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<Solo>>();
  talus::Random rng(6);
  const auto s = random_state(model, rng);
  Solo::TangentVector out;
  auto never_ok_non_finite = [&](Status st, const auto& x) {
    EXPECT_TRUE(st != Status::ok || talus::all_finite(x)) << talus::to_string(st);
    if (st != Status::ok) {
      EXPECT_TRUE(all_zero(x));
    }
  };
  for (double big : {1e200, -1e154, 1e20}) {
    Solo::TangentVector v = s.v;
    v[7] = big;
    EXPECT_EQ(talus::rnea(model, *data, s.q, v, s.a, out), Status::invalid_input);
    never_ok_non_finite(talus::nonlinear_effects(model, *data, s.q, v, out), out);
    never_ok_non_finite(talus::aba(model, *data, s.q, v, s.tau, out), out);
    Solo::ConfigVector q = s.q;
    q[0] = big;
    EXPECT_EQ(talus::aba(model, *data, q, s.v, s.tau, out), Status::invalid_input);
    EXPECT_TRUE(all_zero(out));
    EXPECT_EQ(talus::crba(model, *data, q), Status::invalid_input);
    EXPECT_TRUE(all_zero(data->H));
  }
  // the largest valid inputs give ok and finite outputs (double)
  Solo::TangentVector vmax = Solo::TangentVector::Constant(talus::input_limits::magnitude);
  never_ok_non_finite(talus::aba(model, *data, s.q, vmax, vmax, out), out);
  never_ok_non_finite(talus::rnea(model, *data, s.q, vmax, vmax, out), out);
  // Baumgarte time constants and assembly weights below the range
  auto cs = std::make_unique<talus::ConstraintSet<Solo, 12>>();
  const auto& FL = model.frames[solo::frame_id("FL_FOOT")];
  talus::LoopAxis<double> ax;
  ax.axis = talus::Motion<double>::Unit(5);
  EXPECT_EQ(cs->add_loop(FL.body, FL.placement, -1, talus::Transform<double>(), {ax},
                         talus::Baumgarte<double>::on(1e-160)),
            Status::invalid_input);  // refused at add
  // integrate: a result outside the valid configurations is not ok (the next call would
  // refuse it), and it is zero
  Solo::ConfigVector qi = Solo::ConfigVector::Constant(9);
  Solo::TangentVector dv = Solo::TangentVector::Zero();
  dv[3] = 1e8;  // a base displacement of 1e8 m: a valid input, an invalid result
  EXPECT_EQ(talus::integrate(model, s.q, dv, qi), Status::overflow);
  EXPECT_TRUE(all_zero(qi));
  dv[3] = 1.0;
  ASSERT_EQ(talus::integrate(model, s.q, dv, qi), Status::ok);
  EXPECT_EQ(talus::check_configuration(model, qi), Status::ok);
  // normalize: no overflow or underflow of the squared norm
  Solo::ConfigVector q = s.q;
  q.segment<4>(3) << 3e200, 1e200, 0, 0;
  ASSERT_EQ(talus::normalize(model, q), Status::ok);
  EXPECT_NEAR(q[3], 3 / std::sqrt(10.0), 1e-15);
  EXPECT_NEAR(q[4], 1 / std::sqrt(10.0), 1e-15);
  q.segment<4>(3) << 0, 1e-170, 0, 0;
  ASSERT_EQ(talus::normalize(model, q), Status::ok);
  EXPECT_EQ(q[4], 1.0);  // not the identity
  q.segment<4>(3).setZero();
  EXPECT_EQ(talus::normalize(model, q), Status::invalid_input);  // no direction to keep
  EXPECT_TRUE(all_zero(q));
}

// ---- 7. sincos of large angles -------------------------------------------------------------

TEST(Reliability, Defect7_SincosLargeAngles) {
  double s = 0, c = 0;
  for (double x : {1e18, 1e22, -1e40, 1e200, kInf, kNaN, 1.7e6}) {
    talus::sincos(x, s, c);
    EXPECT_TRUE(std::isnan(s) && std::isnan(c)) << x;  // never a wrong finite value
  }
  for (double x : {1e5, 1e6, -1.6e6, 123456.789, 1.5707963267948966 * 1048576}) {
    talus::sincos(x, s, c);
    EXPECT_NEAR(s, std::sin(x), 2e-16) << x;
    EXPECT_NEAR(c, std::cos(x), 2e-16) << x;
  }
  const Solo model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<Solo>>();
  Solo::ConfigVector q;
  talus::neutral(model, q);
  q[8] = 1e18;
  EXPECT_EQ(talus::forward_kinematics(model, *data, q), Status::invalid_input);
}

// ---- 8. unchecked calls ----------------------------------------------------------------------

TEST(Reliability, Defect8_SparseSolvesReturnStatus) {
  const Solo model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<Solo>>();
  Solo::TangentVector x = Solo::TangentVector::Ones();
  EXPECT_EQ(talus::solve_ltl(model, *data, x), Status::singular);  // never factorized
  EXPECT_TRUE(all_zero(x));
  data->H.setZero();
  EXPECT_EQ(talus::factorize_ltl(model, *data), Status::singular);
  for (int f = 0; f < 4; ++f) {
    x.setOnes();
    const Status s = f == 0   ? talus::solve_ltl(model, *data, x)
                     : f == 1 ? talus::solve_l(model, *data, x)
                     : f == 2 ? talus::solve_lt(model, *data, x)
                              : talus::multiply_ltl(model, *data, x);
    EXPECT_EQ(s, Status::singular);
    EXPECT_TRUE(all_zero(x));
  }
  talus::Random rng(8);
  const auto st = random_state(model, rng);
  ASSERT_EQ(talus::crba(model, *data, st.q), Status::ok);
  ASSERT_EQ(talus::factorize_ltl(model, *data), Status::ok);
  x = st.tau;
  ASSERT_EQ(talus::solve_ltl(model, *data, x), Status::ok);
  ASSERT_EQ(talus::multiply_ltl(model, *data, x), Status::ok);
  EXPECT_LT((x - st.tau).norm(), 1e-9 * st.tau.norm());
  x[3] = kNaN;
  EXPECT_EQ(talus::solve_ltl(model, *data, x), Status::invalid_input);
  EXPECT_TRUE(all_zero(x));
}

TEST(Reliability, Defect8_NullNamesAndCustomWrenches) {
  const Solo model = solo::make_model<double>();
  EXPECT_EQ(model.frame_id(nullptr), -1);
  EXPECT_EQ(model.body_id(nullptr), -1);
  auto data = std::make_unique<talus::Data<Solo>>();
  static WrenchConstraint wc;
  auto cs = std::make_unique<talus::ConstraintSet<Solo, 12>>();
  ASSERT_EQ(cs->add_custom(wc), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  talus::Random rng(9);
  const auto s = random_state(model, rng);
  Solo::TangentVector a;
  ASSERT_EQ(talus::forward_dynamics_range_space(model, *data, *cs, s.q, s.v, s.tau, a), Status::ok);
  std::array<talus::ConstraintWrench<double>, 12> w;
  for (auto [count, body] : {std::pair{3, 0}, std::pair{-1, 0}, std::pair{1, Solo::nb}, std::pair{2, -7}}) {
    wc.count = count;
    wc.bad_body = body;
    EXPECT_EQ(talus::constraint_wrenches(model, *data, *cs, talus::ReferenceFrame::world, w), Status::invalid_input);
    for (const auto& wi : w) EXPECT_EQ(wi.count, 0);
  }
  wc.count = 1;
  wc.bad_body = 2;
  EXPECT_EQ(talus::constraint_wrenches(model, *data, *cs, talus::ReferenceFrame::world, w), Status::ok);
  EXPECT_EQ(w[0].count, 1);
  // out-of-range constraint index: an empty entry, not a read past the array
  EXPECT_EQ(cs->constraint(12).rows, 0);
  EXPECT_EQ(cs->constraint(-1).rows, 0);
}

TEST(Reliability, Defect8_CheckModel) {
  const Solo good = solo::make_model<double>();
  EXPECT_EQ(talus::check_model(good), Status::ok);
  EXPECT_EQ(talus::check_model(chain::make_model<double>()), Status::ok);
  EXPECT_EQ(talus::check_model(make_double_pendulum<double>()), Status::ok);
  EXPECT_EQ(talus::check_model(good.cast<float>()), Status::ok);
  auto expect_bad = [](const auto& m, const char* what) {
    EXPECT_EQ(talus::check_model(m), Status::invalid_input) << what;
  };
  {
    Solo m = good;
    m.joint_placement[2].p[0] = kNaN;
    expect_bad(m, "NaN placement");
  }
  {
    Solo m = good;
    m.joint_placement[2].R(0, 1) = 0.5;
    expect_bad(m, "placement rotation not orthonormal");
  }
  {
    Solo m = good;
    m.joint_placement[2].R = -m.joint_placement[2].R;
    expect_bad(m, "placement rotation with det −1");
  }
  {
    Solo m = good;
    m.inertia[4].mass = -1;
    expect_bad(m, "negative mass");
  }
  {
    Solo m = good;
    m.inertia[4].I_c(0, 0) = -1e-3;
    expect_bad(m, "inertia not positive semi-definite");
  }
  {
    Solo m = good;
    m.inertia[4].I_c(0, 1) = 1.0;
    expect_bad(m, "inertia not symmetric");
  }
  {
    Solo m = good;
    m.frames[1].body = Solo::nb;
    expect_bad(m, "frame on a body out of range");
  }
  {
    Solo m = good;
    m.gravity[2] = kInf;
    expect_bad(m, "infinite gravity");
  }
  {
    auto m = chain::make_model<double>();
    m.axis[2].setZero();  // body 2 is a generic-axis revolute joint
    expect_bad(m, "zero joint axis");
  }
  // bind refuses a set on an invalid model
  Solo m = good;
  m.inertia[1].mass = kNaN;
  auto cs = std::make_unique<talus::ConstraintSet<Solo, 12>>();
  const auto& FL = good.frames[solo::frame_id("FL_FOOT")];
  ASSERT_EQ(cs->add_contact(FL.body, FL.placement.p, {Vector3<double>::UnitZ()}), Status::ok);
  EXPECT_EQ(cs->bind(m), Status::invalid_input);
  EXPECT_EQ(cs->bind(good), Status::ok);
}

// ---- 9. solve_kkt_direct: ok only with an answer that solves its system ---------------------
// fuzz_kkt (finding-*-colpiv-tiny, finding-*-ldlt-indefinite in the corpus) found ok with KKT
// residuals of 0.05-0.5. The direct method now checks its answer: the normwise backward error
// ‖K z − r‖∞ / (‖K‖∞ ‖z‖∞ + ‖r‖∞) against a tolerance of a few n ε, both in the workspace.

using KktWs = talus::SolverWorkspace<double, 2, 2>;
using KktLambda = KktWs::RowVector;
constexpr talus::KKTMethod kKktMethods[] = {talus::KKTMethod::partial_piv_lu, talus::KKTMethod::full_piv_lu,
                                            talus::KKTMethod::col_piv_householder_qr, talus::KKTMethod::householder_qr,
                                            talus::KKTMethod::ldlt};

// [H Gᵀ; G 0] [x; −λ] = [b; g] by Eigen's FullPivLU on the dense matrix (not a talus path).
void kkt_reference(const Eigen::MatrixXd& H, const Eigen::VectorXd& b, const Eigen::MatrixXd& G,
                   const Eigen::VectorXd& g, Eigen::VectorXd& x, Eigen::VectorXd& lambda) {
  const int n = static_cast<int>(H.rows()), m = static_cast<int>(G.rows());
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = H;
  K.topRightCorner(n, m) = G.transpose();
  K.bottomLeftCorner(m, n) = G;
  Eigen::VectorXd r(n + m);
  r << b, g;
  const Eigen::VectorXd z = K.fullPivLu().solve(r);
  x = z.head(n);
  lambda = -z.tail(m);
}

// Eigen's makeHouseholder squares the entries unscaled: a column below ~1e-154 had ‖tail‖²
// underflow to 0, the reflection was skipped, and QR factorized another matrix (ok, relative
// residual 0.5 on a 2 × 2 H of magnitude 1e-225). The reflections and column norms of the
// talus QRs are scaled now. The system scaled by 2⁻⁶⁰⁰ (exactly) has the unscaled answer;
// also the null-space method, whose QR of Gᵀ had the same defect.
TEST(Reliability, Defect9_KktQrOfTinyMagnitudes) {
  const double s = std::ldexp(1.0, -600);
  Eigen::Matrix2d H;
  H << 4, 1, 1, 3;
  const Eigen::Vector2d b(1.0, -2.0);
  for (int m = 0; m <= 1; ++m) {
    Eigen::MatrixXd G(m, 2);
    Eigen::VectorXd g(m);
    if (m == 1) {
      G << 1, 2;
      g << 0.5;
    }
    Eigen::VectorXd x_ref, lambda_ref;
    kkt_reference(H, b, G, g, x_ref, lambda_ref);
    const Eigen::Matrix2d Hs = s * H;
    const Eigen::Vector2d bs = s * b;
    const Eigen::MatrixXd Gs = s * G;
    const Eigen::VectorXd gs = s * g;
    KktWs ws;
    Eigen::Vector2d x;
    KktLambda lambda;
    for (talus::KKTMethod method : kKktMethods) {
      ASSERT_EQ(talus::solve_kkt_direct(Hs, bs, Gs, gs, method, ws, x, lambda), Status::ok)
          << talus::to_string(method) << ", " << m << " rows";
      EXPECT_LE((x - x_ref).cwiseAbs().maxCoeff(), 1e-14 * x_ref.cwiseAbs().maxCoeff()) << talus::to_string(method);
      if (m == 1) {
        EXPECT_NEAR(lambda[0], lambda_ref[0], 1e-14 * std::abs(lambda_ref[0])) << talus::to_string(method);
      }
      EXPECT_LE(ws.kkt_residual, ws.kkt_residual_tolerance);
    }
    ASSERT_EQ(talus::solve_kkt_null_space(Hs, bs, Gs, gs, ws, x, lambda), Status::ok);
    EXPECT_LE((x - x_ref).cwiseAbs().maxCoeff(), 1e-14 * x_ref.cwiseAbs().maxCoeff()) << "null space";
    if (m == 1) {
      EXPECT_NEAR(lambda[0], lambda_ref[0], 1e-14 * std::abs(lambda_ref[0])) << "null space";
    }
  }
}

// Eigen's LDLT pivots on the diagonal only: on K with a small positive definite H = δ (A Aᵀ +
// I/4) (δ = 1e-6) beside O(1) rows of G its pivots pass the pivot tolerance and have the
// right signs, but the factor grows and the answer's backward error is 2.4e-11, 300 times the
// tolerance: ok before, singular now by the acceptance check. Partial pivoting on the same
// system: ok, and the FullPivLU answer. With an indefinite H the pivots' signs are not those
// of a KKT matrix (nv positive, m negative: Sylvester's law of inertia): singular even where
// the numbers happen to solve it.
TEST(Reliability, Defect9_KktLdltRefusesWhatItCannotFactor) {
  using Ws3 = talus::SolverWorkspace<double, 3, 2>;
  const double a_data[9] = {0.75, -0.75, 0.75, 0.5, 0.25, 0.75, 0.5, -0.75, -0.25};  // column-major
  const Eigen::Map<const Eigen::Matrix3d> A(a_data);
  const Eigen::Matrix3d H = 1e-6 * (A * A.transpose() + 0.25 * Eigen::Matrix3d::Identity());
  Eigen::MatrixXd G(2, 3);
  G << 0.75, 0, 0.75, 1, -0.5, 1;
  Eigen::VectorXd g(2);
  g << -0.5, -0.75;
  const Eigen::Vector3d b3(-0.75, -0.25, -0.75);
  Ws3 ws3;
  Eigen::Vector3d x3;
  Ws3::RowVector lambda3;
  x3.setConstant(7);
  EXPECT_EQ(talus::solve_kkt_direct(H, b3, G, g, talus::KKTMethod::ldlt, ws3, x3, lambda3), Status::singular);
  EXPECT_TRUE(all_zero(x3));
  EXPECT_TRUE(all_zero(lambda3));
  EXPECT_GT(ws3.kkt_residual, 10 * ws3.kkt_residual_tolerance) << "refused by the acceptance check";
  EXPECT_EQ(ws3.kkt_residual_tolerance, 64 * 5 * std::numeric_limits<double>::epsilon());
  Eigen::VectorXd x_ref, lambda_ref;
  kkt_reference(H, b3, G, g, x_ref, lambda_ref);
  ASSERT_EQ(talus::solve_kkt_direct(H, b3, G, g, talus::KKTMethod::partial_piv_lu, ws3, x3, lambda3), Status::ok);
  EXPECT_LE(ws3.kkt_residual, ws3.kkt_residual_tolerance);
  EXPECT_LE((x3 - x_ref).cwiseAbs().maxCoeff(), 1e-9 * x_ref.cwiseAbs().maxCoeff());
  EXPECT_LE((Eigen::VectorXd(lambda3) - lambda_ref).cwiseAbs().maxCoeff(), 1e-9 * lambda_ref.cwiseAbs().maxCoeff());
  KktWs ws;
  Eigen::Vector2d x;
  KktLambda lambda;
  const Eigen::Vector2d b(1.0, -2.0);
  // indefinite H, no rows: LDLᵀ is exact here (residual 0), the inertia refuses it
  const Eigen::Matrix2d Hi = Eigen::Vector2d(1.0, -1.0).asDiagonal();
  const Eigen::MatrixXd G0(0, 2);
  const Eigen::VectorXd g0(0);
  x.setConstant(7);
  EXPECT_EQ(talus::solve_kkt_direct(Hi, b, G0, g0, talus::KKTMethod::ldlt, ws, x, lambda), Status::singular);
  EXPECT_TRUE(all_zero(x));
  ASSERT_EQ(talus::solve_kkt_direct(Hi, b, G0, g0, talus::KKTMethod::partial_piv_lu, ws, x, lambda), Status::ok);
  EXPECT_EQ(x, Eigen::Vector2d(1.0, 2.0));
  // a negative or NaN pivot tolerance is invalid_input (−0 equals 0: no threshold)
  for (double tol : {-1e-12, kNaN, -kInf, 2.0}) {
    ws3.pivot_tolerance = tol;
    x3.setConstant(7);
    EXPECT_EQ(talus::solve_kkt_direct(H, b3, G, g, talus::KKTMethod::ldlt, ws3, x3, lambda3), Status::invalid_input);
    EXPECT_TRUE(all_zero(x3));
    EXPECT_EQ(ws3.kkt_residual, 0.0);
  }
  ws3.pivot_tolerance = -0.0;
  EXPECT_EQ(talus::solve_kkt_direct(H, b3, G, g, talus::KKTMethod::partial_piv_lu, ws3, x3, lambda3), Status::ok);
}

}  // namespace
}  // namespace talus_test
