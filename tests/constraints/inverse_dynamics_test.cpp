// Constrained inverse dynamics (inverse_dynamics_constrained, _relaxed, static_equilibrium_torques)
// checked against the forward solve: solo12 on four, two and one point feet, the four-bar
// with a passive and with redundant actuation; bad input; no heap.
#include <talus/models/solo12.hpp>

#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::Status;
namespace solo = talus::models::solo12;
using Solo = solo::Model<double>;
using SoloSet = talus::ConstraintSet<Solo, 12>;
using SoloIDWorkspace = talus::InverseDynamicsWorkspace<double, Solo::nv, 12>;
constexpr int kStates = 20;
constexpr const char* kFeet[] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};

double total_mass(const Solo& model) {
  double m = 0;
  for (const auto& I : model.inertia) m += I.mass;
  return m;
}

/// Feet 0 .. n−1 as 3D point contacts.
void add_solo_feet(const Solo& model, SoloSet& cs, int n) {
  for (int k = 0; k < n; ++k) {
    const auto& F = model.frames[solo::frame_id(kFeet[k])];
    ASSERT_EQ(cs.add_contact(F.body, F.placement.p,
                             {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}, kFeet[k]),
              Status::ok);
  }
  ASSERT_EQ(cs.bind(model), Status::ok);
}

/// (H, C, G, γ) of the last solve satisfy H q̈ + C = τ + Gᵀ λ and G q̈ = γ.
template <class ModelT, int MR, class TV>
void expect_equations(const talus::Data<ModelT>& data, const talus::ConstraintSet<ModelT, MR>& cs, const TV& ddq,
                      const TV& tau) {
  const Eigen::VectorXd lhs = data.H * ddq + cs.C;
  const Eigen::VectorXd rhs = tau + cs.G.transpose() * cs.lambda;
  EXPECT_LE((lhs - rhs).cwiseAbs().maxCoeff() / std::max(1.0, lhs.cwiseAbs().maxCoeff()), 1e-10);
  if (cs.active_rows() > 0) {
    EXPECT_LE((cs.G * ddq - cs.gamma).cwiseAbs().maxCoeff() / std::max(1.0, cs.gamma.cwiseAbs().maxCoeff()), 1e-10);
  }
}

/// Inverse dynamics, then forward dynamics with its τ: the same q̈ and λ (to 1e-9).
template <class ModelT, int MR, class Q, class TV>
void expect_forward_reproduces(const ModelT& model, talus::ConstraintSet<ModelT, MR>& cs, const Q& q, const TV& v,
                               const TV& ddq, const TV& tau, const Eigen::VectorXd& lambda) {
  auto data = std::make_unique<talus::Data<ModelT>>();
  TV ddq_fd;
  ASSERT_EQ(talus::forward_dynamics_direct(model, *data, cs, q, v, tau, ddq_fd), Status::ok);
  EXPECT_LE(rel_err(ddq_fd, ddq), 1e-9);
  if (lambda.size() > 0) {
    EXPECT_LE(rel_err(cs.lambda, lambda), 1e-9);
  }
}

/// Basis of the null space of G (feasible acceleration changes).
Eigen::MatrixXd null_space(const Eigen::MatrixXd& G) {
  Eigen::FullPivLU<Eigen::MatrixXd> lu(G);
  return lu.kernel();
}

// (a) solo12 on four feet: a feasible q̈ (from a forward solve) is reproduced exactly; the
// forward solve with the returned τ gives back q̈ and λ; the base carries no torque; among the
// τ that produce this q̈, the returned one has the smallest norm.
TEST(ConsistencyInverseDynamics, Solo12FourFeetExact) {
  const Solo model = solo::make_model<double>();
  auto cs = std::make_unique<SoloSet>();
  add_solo_feet(model, *cs, 4);
  auto data = std::make_unique<talus::Data<Solo>>();
  auto ws = std::make_unique<SoloIDWorkspace>();
  const auto act = talus::Actuation<Solo>::except_floating_base();
  EXPECT_EQ(act.count(), 12);
  talus::Random rng(101);
  for (int i = 0; i < kStates; ++i) {
    auto s = random_state(model, rng);
    s.tau.head(6).setZero();
    Solo::TangentVector ddq_ref, tau, ddq;
    ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ddq_ref), Status::ok);
    Solo::TangentVector ddq_des = ddq_ref;
    ddq_des.head(6).setConstant(123.0);  // unactuated entries are ignored
    ASSERT_EQ(talus::inverse_dynamics_constrained(model, *data, *cs, s.q, s.v, ddq_des, act, tau, ddq, *ws),
              Status::ok);
    const Eigen::VectorXd lambda = cs->lambda;
    EXPECT_LE(rel_err(ddq, ddq_ref), 1e-9) << "q̈ is unique: the feet fix the base";
    EXPECT_TRUE(tau.head(6).isZero(0.0)) << "no torque on the base";
    expect_equations(*data, *cs, ddq, tau);
    EXPECT_LE(tau.norm(), s.tau.norm() * (1 + 1e-12)) << "minimum-norm τ";
    expect_forward_reproduces(model, *cs, s.q, s.v, ddq, tau, lambda);
    // minimality: no internal-force direction lowers ‖τ‖ (τ ⟂ S Gᵀ δλ for P Gᵀ δλ = 0)
    const Eigen::MatrixXd G = cs->G;
    const Eigen::MatrixXd internal = null_space(G.leftCols(6).transpose());
    EXPECT_LE((tau.tail(12).transpose() * G.rightCols(12).transpose() * internal).cwiseAbs().maxCoeff(),
              1e-9 * std::max(1.0, tau.norm()));
  }
}

// Infeasible targets: random joint accelerations break the feet constraints. The exact
// variant says singular (outputs zero); the relaxed one returns the W-closest feasible q̈,
// consistent with forward dynamics.
TEST(ConsistencyInverseDynamics, Solo12FourFeetInfeasibleAndRelaxed) {
  const Solo model = solo::make_model<double>();
  auto cs = std::make_unique<SoloSet>();
  add_solo_feet(model, *cs, 4);
  auto data = std::make_unique<talus::Data<Solo>>();
  auto ws = std::make_unique<SoloIDWorkspace>();
  const auto act = talus::Actuation<Solo>::except_floating_base();
  talus::Random rng(102);
  for (int i = 0; i < kStates; ++i) {
    const auto s = random_state(model, rng);
    Solo::TangentVector w;
    for (int k = 0; k < Solo::nv; ++k) w[k] = rng.uniform(0.2, 5.0);
    Solo::TangentVector tau = Solo::TangentVector::Constant(9), ddq = Solo::TangentVector::Constant(9);
    EXPECT_EQ(talus::inverse_dynamics_constrained(model, *data, *cs, s.q, s.v, s.a, act, tau, ddq, *ws),
              Status::singular);
    EXPECT_TRUE(tau.isZero(0.0) && ddq.isZero(0.0) && cs->lambda.isZero(0.0));
    EXPECT_EQ(cs->failure().reason, talus::FailureReason::singular);
    ASSERT_EQ(talus::inverse_dynamics_constrained_relaxed(model, *data, *cs, s.q, s.v, s.a, act, w, tau, ddq, *ws),
              Status::ok);
    const Eigen::VectorXd lambda = cs->lambda;
    EXPECT_TRUE(tau.head(6).isZero(0.0));
    expect_equations(*data, *cs, ddq, tau);
    expect_forward_reproduces(model, *cs, s.q, s.v, ddq, tau, lambda);
    // optimality: the weighted residual is orthogonal to every feasible change of q̈ (null(G))
    const Eigen::MatrixXd N = null_space(Eigen::MatrixXd(cs->G));
    Eigen::VectorXd wr = (w.array() * (ddq - s.a).array()).matrix();
    wr.head(6).setZero();
    EXPECT_LE((N.transpose() * wr).cwiseAbs().maxCoeff(), 1e-9 * std::max(1.0, wr.norm()));
    // feeding the relaxed q̈ back to the exact variant gives the same answer
    Solo::TangentVector tau2, ddq2;
    ASSERT_EQ(talus::inverse_dynamics_constrained(model, *data, *cs, s.q, s.v, ddq, act, tau2, ddq2, *ws), Status::ok);
    EXPECT_LE(rel_err(ddq2, ddq), 1e-9);
    EXPECT_LE(rel_err(tau2, tau), 1e-9);
  }
}

// (c) Where the exact variant is feasible, the relaxed one (any weights) agrees with it.
TEST(ConsistencyInverseDynamics, RelaxedAgreesWhenFeasible) {
  const Solo model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<Solo>>();
  auto ws = std::make_unique<SoloIDWorkspace>();
  const auto act = talus::Actuation<Solo>::except_floating_base();
  talus::Random rng(103);
  for (int feet : {4, 2, 1, 0}) {
    auto cs = std::make_unique<SoloSet>();
    add_solo_feet(model, *cs, feet);
    for (int i = 0; i < 8; ++i) {
      auto s = random_state(model, rng);
      s.tau.head(6).setZero();
      Solo::TangentVector ddq_des, w;
      ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ddq_des), Status::ok);
      for (int k = 0; k < Solo::nv; ++k) w[k] = rng.uniform(1e-3, 1e3);
      Solo::TangentVector tau_e, ddq_e, tau_r, ddq_r;
      ASSERT_EQ(talus::inverse_dynamics_constrained(model, *data, *cs, s.q, s.v, ddq_des, act, tau_e, ddq_e, *ws),
                Status::ok);
      const Eigen::VectorXd lambda_e = cs->lambda;
      ASSERT_EQ(talus::inverse_dynamics_constrained_relaxed(model, *data, *cs, s.q, s.v, ddq_des, act, w, tau_r, ddq_r,
                                                            *ws),
                Status::ok);
      EXPECT_LE(rel_err(ddq_r, ddq_e), 1e-9) << feet << " feet";
      EXPECT_LE(rel_err(tau_r, tau_e), 1e-9) << feet << " feet";
      if (feet > 0) {
        EXPECT_LE(rel_err(cs->lambda, lambda_e), 1e-9) << feet << " feet";
      }
      EXPECT_LE(rel_err(ddq_e, ddq_des), 1e-9) << feet << " feet";
      if (feet <= 1) {  // P Gᵀ of full column rank: τ is determined by q̈, so τ is the one we started from
        // (not on two feet: squeezing along the line between them is an internal force)
        EXPECT_LE(rel_err(tau_e, s.tau), 1e-9) << feet << " feet";
      }
    }
  }
}

// One foot, no foot (m < nu: the base follows the dynamics): every target of the joints is
// feasible. Two point feet (m = nu = 6, RBDL's square case, but P Gᵀ has rank 5): the distance
// between the feet depends on the joints alone, so a random target is not.
TEST(ConsistencyInverseDynamics, Solo12FewFeetRandomTargets) {
  const Solo model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<Solo>>();
  auto ws = std::make_unique<SoloIDWorkspace>();
  const auto act = talus::Actuation<Solo>::except_floating_base();
  talus::Random rng(104);
  for (int feet : {2, 1, 0}) {
    auto cs = std::make_unique<SoloSet>();
    add_solo_feet(model, *cs, feet);
    for (int i = 0; i < 10; ++i) {
      const auto s = random_state(model, rng);
      Solo::TangentVector tau, ddq;
      if (feet == 2) {
        EXPECT_EQ(talus::inverse_dynamics_constrained(model, *data, *cs, s.q, s.v, s.a, act, tau, ddq, *ws),
                  Status::singular);
        continue;
      }
      ASSERT_EQ(talus::inverse_dynamics_constrained(model, *data, *cs, s.q, s.v, s.a, act, tau, ddq, *ws), Status::ok)
          << feet << " feet";
      const Eigen::VectorXd lambda = cs->lambda;
      EXPECT_LE((ddq - s.a).tail(12).cwiseAbs().maxCoeff(), 1e-12) << "the joints get what they asked for";
      EXPECT_TRUE(tau.head(6).isZero(0.0));
      expect_equations(*data, *cs, ddq, tau);
      expect_forward_reproduces(model, *cs, s.q, s.v, ddq, tau, lambda);
    }
  }
}

// (b) Static equilibrium on four feet: forward dynamics at rest with τ gives q̈ = 0 and the
// same λ; the feet carry the weight; τ is smaller than the minimum-norm-λ torques.
TEST(ConsistencyInverseDynamics, Solo12StaticEquilibrium) {
  const Solo model = solo::make_model<double>();
  const double mg = total_mass(model) * 9.81;
  auto data = std::make_unique<talus::Data<Solo>>();
  auto ws = std::make_unique<SoloIDWorkspace>();
  const auto act = talus::Actuation<Solo>::except_floating_base();
  talus::Random rng(105);
  for (int feet : {4, 3, 2}) {
    auto cs = std::make_unique<SoloSet>();
    add_solo_feet(model, *cs, feet);
    for (int i = 0; i < 10; ++i) {
      const auto s = random_state(model, rng);
      const Solo::TangentVector v0 = Solo::TangentVector::Zero();
      Solo::TangentVector tau, ddq;
      const Status st = talus::static_equilibrium_torques(model, *data, *cs, s.q, act, tau, *ws);
      if (feet == 2) {  // two points: the base can roll about the line through them
        EXPECT_EQ(st, Status::singular);
        EXPECT_TRUE(tau.isZero(0.0) && cs->lambda.isZero(0.0));
        continue;
      }
      ASSERT_EQ(st, Status::ok) << feet << " feet";
      const Eigen::VectorXd lambda = cs->lambda;
      EXPECT_TRUE(tau.head(6).isZero(0.0));
      ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, v0, tau, ddq), Status::ok);
      EXPECT_LE(ddq.cwiseAbs().maxCoeff(), 1e-9) << "it stands still";
      EXPECT_LE(rel_err(cs->lambda, lambda), 1e-9);
      double fx = 0, fy = 0, fz = 0;
      for (int k = 0; k < feet; ++k) fx += lambda[3 * k], fy += lambda[3 * k + 1], fz += lambda[3 * k + 2];
      EXPECT_NEAR(fz, mg, 1e-9 * mg) << "the feet carry the weight";
      EXPECT_NEAR(fx, 0, 1e-9 * mg);
      EXPECT_NEAR(fy, 0, 1e-9 * mg);
      // the minimum-norm λ on the base rows (solo12_test's construction) needs at least as much torque
      Solo::TangentVector g;
      ASSERT_EQ(talus::generalized_gravity(model, *data, s.q, g), Status::ok);
      const Eigen::MatrixXd G = cs->G;
      const Eigen::VectorXd lambda0 = G.leftCols(6).transpose().completeOrthogonalDecomposition().solve(g.head(6));
      Solo::TangentVector tau0 = g - G.transpose() * lambda0;
      tau0.head(6).setZero();
      EXPECT_LE(tau.norm(), tau0.norm() * (1 + 1e-12));
      // the exact variant with q̈_des = 0 at rest agrees
      Solo::TangentVector tau_e, ddq_e;
      ASSERT_EQ(talus::inverse_dynamics_constrained(model, *data, *cs, s.q, v0, v0, act, tau_e, ddq_e, *ws),
                Status::ok);
      EXPECT_LE(ddq_e.cwiseAbs().maxCoeff(), 1e-9);
      EXPECT_LE(rel_err(tau_e, tau), 1e-9);
    }
  }
  // one point foot cannot hold the robot
  auto cs = std::make_unique<SoloSet>();
  add_solo_feet(model, *cs, 1);
  talus::Random rng1(106);
  const auto s = random_state(model, rng1);
  Solo::TangentVector tau = Solo::TangentVector::Constant(4);
  EXPECT_EQ(talus::static_equilibrium_torques(model, *data, *cs, s.q, act, tau, *ws), Status::singular);
  EXPECT_TRUE(tau.isZero(0.0));
}

// Four-bar, crank actuated only (m = nu = 2), and with all three joints actuated (nu = 0,
// redundant actuation: the crank target alone is not enough, joint targets must be consistent).
TEST(ConsistencyInverseDynamics, FourBar) {
  const FourBarParams p;
  const FourBar model = make_four_bar(p);
  talus::ConstraintSet<FourBar, 6> cs;
  ASSERT_EQ(add_four_bar_loop(p, cs), Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);
  auto data = std::make_unique<talus::Data<FourBar>>();
  talus::InverseDynamicsWorkspace<double, FourBar::nv, 6> ws;
  auto crank = talus::Actuation<FourBar>::none();
  ASSERT_EQ(crank.set(0, true), Status::ok);
  EXPECT_EQ(crank.set(3, true), Status::invalid_input);
  const auto all = talus::Actuation<FourBar>::all();
  talus::Random rng(107);
  for (int i = 0; i < 10; ++i) {
    FourBar::ConfigVector q(rng.uniform(0.5, 1.5), rng.uniform(-2.5, -1.0), rng.uniform(1.0, 2.5));
    FourBar::TangentVector v, tau, ddq, des;
    assemble(model, cs, q, v, rng);
    for (int k = 0; k < 3; ++k) des[k] = rng.uniform(-2, 2);
    ASSERT_EQ(talus::inverse_dynamics_constrained(model, *data, cs, q, v, des, crank, tau, ddq, ws), Status::ok);
    EXPECT_NEAR(ddq[0], des[0], 1e-12);
    EXPECT_EQ(tau[1], 0.0);
    EXPECT_EQ(tau[2], 0.0);
    expect_equations(*data, cs, ddq, tau);
    expect_forward_reproduces(model, cs, q, v, ddq, tau, Eigen::VectorXd(cs.lambda));
    // all actuated: the rocker and coupler targets must follow the crank's
    FourBar::TangentVector tau_a, ddq_a;
    EXPECT_EQ(talus::inverse_dynamics_constrained(model, *data, cs, q, v, des, all, tau_a, ddq_a, ws),
              Status::singular);
    ASSERT_EQ(talus::inverse_dynamics_constrained(model, *data, cs, q, v, ddq, all, tau_a, ddq_a, ws), Status::ok);
    EXPECT_LE(rel_err(ddq_a, ddq), 1e-9);
    EXPECT_LE(tau_a.norm(), tau.norm() * (1 + 1e-12)) << "three motors share the work";
    expect_forward_reproduces(model, cs, q, v, ddq_a, tau_a, Eigen::VectorXd(cs.lambda));
    // relaxed, all actuated, weight on the crank: nearly the crank's target
    FourBar::TangentVector w(1e6, 1, 1);
    ASSERT_EQ(talus::inverse_dynamics_constrained_relaxed(model, *data, cs, q, v, des, all, w, tau_a, ddq_a, ws),
              Status::ok);
    EXPECT_NEAR(ddq_a[0], des[0], 1e-4 * std::max(1.0, std::abs(des[0])) * 10);
    expect_forward_reproduces(model, cs, q, v, ddq_a, tau_a, Eigen::VectorXd(cs.lambda));
    // static equilibrium with the crank motor alone
    ASSERT_EQ(talus::static_equilibrium_torques(model, *data, cs, q, crank, tau, ws), Status::ok);
    const FourBar::TangentVector z = FourBar::TangentVector::Zero();
    ASSERT_EQ(talus::forward_dynamics_direct(model, *data, cs, q, z, tau, ddq), Status::ok);
    EXPECT_LE(ddq.cwiseAbs().maxCoeff(), 1e-9);
  }
}

// (d) Bad input: invalid_input and zero outputs.
TEST(ConsistencyInverseDynamics, BadInput) {
  const Solo model = solo::make_model<double>();
  auto cs = std::make_unique<SoloSet>();
  add_solo_feet(model, *cs, 4);
  auto data = std::make_unique<talus::Data<Solo>>();
  auto ws = std::make_unique<SoloIDWorkspace>();
  const auto act = talus::Actuation<Solo>::except_floating_base();
  talus::Random rng(108);
  const auto s = random_state(model, rng);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Solo::TangentVector ones = Solo::TangentVector::Ones();
  auto expect_zero = [&](const Solo::TangentVector& tau, const Solo::TangentVector& ddq, const char* what) {
    EXPECT_TRUE(tau.isZero(0.0)) << what;
    EXPECT_TRUE(ddq.isZero(0.0)) << what;
    EXPECT_TRUE(cs->lambda.isZero(0.0)) << what;
  };
  Solo::ConfigVector q_nan = s.q, q_unnorm = s.q;
  q_nan[9] = nan;
  q_unnorm[3] = 2;
  Solo::TangentVector v_nan = s.v, a_nan = s.a, a_big = s.a;
  v_nan[4] = nan;
  a_nan[10] = std::numeric_limits<double>::infinity();
  a_big[7] = 1e12;
  struct Case {
    const Solo::ConfigVector* q;
    const Solo::TangentVector* v;
    const Solo::TangentVector* a;
    const char* what;
  };
  const Case cases[] = {{&q_nan, &s.v, &s.a, "NaN q"},
                        {&q_unnorm, &s.v, &s.a, "unnormalised quaternion"},
                        {&s.q, &v_nan, &s.a, "NaN v"},
                        {&s.q, &s.v, &a_nan, "Inf q̈_des"},
                        {&s.q, &s.v, &a_big, "q̈_des beyond the limits"}};
  for (const Case& c : cases) {
    Solo::TangentVector tau = Solo::TangentVector::Constant(5), ddq = Solo::TangentVector::Constant(5);
    cs->lambda.setConstant(12, 5);
    EXPECT_EQ(talus::inverse_dynamics_constrained(model, *data, *cs, *c.q, *c.v, *c.a, act, tau, ddq, *ws),
              Status::invalid_input)
        << c.what;
    expect_zero(tau, ddq, c.what);
    tau.setConstant(5), ddq.setConstant(5);
    cs->lambda.setConstant(12, 5);
    EXPECT_EQ(talus::inverse_dynamics_constrained_relaxed(model, *data, *cs, *c.q, *c.v, *c.a, act, ones, tau, ddq,
                                                          *ws),
              Status::invalid_input)
        << c.what;
    expect_zero(tau, ddq, c.what);
  }
  {  // static equilibrium with a bad q
    Solo::TangentVector tau = Solo::TangentVector::Constant(5);
    EXPECT_EQ(talus::static_equilibrium_torques(model, *data, *cs, q_nan, act, tau, *ws), Status::invalid_input);
    EXPECT_TRUE(tau.isZero(0.0) && cs->lambda.isZero(0.0));
  }
  {  // weights: zero, negative, NaN, too large on an actuated coordinate
    for (double bad : {0.0, -1.0, nan, 1e10}) {
      Solo::TangentVector w = ones;
      w[8] = bad;
      Solo::TangentVector tau = Solo::TangentVector::Constant(5), ddq = Solo::TangentVector::Constant(5);
      EXPECT_EQ(talus::inverse_dynamics_constrained_relaxed(model, *data, *cs, s.q, s.v, s.a, act, w, tau, ddq, *ws),
                Status::invalid_input)
          << bad;
      expect_zero(tau, ddq, "weights");
    }
    Solo::TangentVector w = ones, tau, ddq;
    w[2] = 0;  // an unactuated coordinate's weight is not used
    EXPECT_EQ(talus::inverse_dynamics_constrained_relaxed(model, *data, *cs, s.q, s.v, s.a, act, w, tau, ddq, *ws),
              Status::ok);
  }
  {  // unbound set
    SoloSet unbound;
    const auto& F = model.frames[solo::frame_id("FL_FOOT")];
    ASSERT_EQ(unbound.add_contact(F.body, F.placement.p, {Vector3<double>::UnitZ()}), Status::ok);
    Solo::TangentVector tau = Solo::TangentVector::Constant(5), ddq = Solo::TangentVector::Constant(5);
    EXPECT_EQ(talus::inverse_dynamics_constrained(model, *data, unbound, s.q, s.v, s.a, act, tau, ddq, *ws),
              Status::invalid_input);
    EXPECT_EQ(unbound.failure().reason, talus::FailureReason::set_not_bound);
    EXPECT_TRUE(tau.isZero(0.0) && ddq.isZero(0.0));
    tau.setConstant(5);
    EXPECT_EQ(talus::static_equilibrium_torques(model, *data, unbound, s.q, act, tau, *ws), Status::invalid_input);
    EXPECT_TRUE(tau.isZero(0.0));
  }
  {  // the same foot twice: G has dependent rows
    SoloSet twice;
    const auto& F = model.frames[solo::frame_id("FL_FOOT")];
    for (int k = 0; k < 2; ++k)
      ASSERT_EQ(twice.add_contact(F.body, F.placement.p,
                                  {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
                Status::ok);
    ASSERT_EQ(twice.bind(model), Status::ok);
    const Solo::TangentVector z = Solo::TangentVector::Zero();
    Solo::TangentVector tau = Solo::TangentVector::Constant(5), ddq = Solo::TangentVector::Constant(5);
    EXPECT_EQ(talus::inverse_dynamics_constrained_relaxed(model, *data, twice, s.q, z, z, act, ones, tau, ddq, *ws),
              Status::singular);
    EXPECT_TRUE(tau.isZero(0.0) && ddq.isZero(0.0));
  }
}

// (e) No heap in any of the three, on four feet and after lifting two.
TEST(AllocInverseDynamics, Solo12) {
  static const Solo model = solo::make_model<double>();
  static talus::Data<Solo> data;
  static SoloSet cs;
  static SoloIDWorkspace ws;
  add_solo_feet(model, cs, 4);
  const auto act = talus::Actuation<Solo>::except_floating_base();
  talus::Random rng(109);
  auto s = random_state(model, rng);
  s.tau.head(6).setZero();
  Solo::TangentVector des;
  ASSERT_EQ(talus::forward_dynamics_direct(model, data, cs, s.q, s.v, s.tau, des), Status::ok);
  const Solo::TangentVector w = Solo::TangentVector::Ones();
  int bad = 0;
  Solo::TangentVector tau, ddq;
  const std::size_t calls = heap_calls([&] {
    for (int pass = 0; pass < 2; ++pass) {
      bad += talus::inverse_dynamics_constrained(model, data, cs, s.q, s.v, des, act, tau, ddq, ws) != Status::ok;
      bad += talus::inverse_dynamics_constrained_relaxed(model, data, cs, s.q, s.v, s.a, act, w, tau, ddq, ws) !=
             Status::ok;
      bad += talus::static_equilibrium_torques(model, data, cs, s.q, act, tau, ws) != Status::ok;
      (void)cs.set_active(1, false);
      (void)cs.set_active(2, false);
    }
    (void)cs.set_active(1, true);
    (void)cs.set_active(2, true);
  });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(bad, 1) << "only the static equilibrium on two feet fails (singular)";
}

}  // namespace
}  // namespace talus_test
