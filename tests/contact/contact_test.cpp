// Unilateral contacts with friction (talus/contact): acceleration level, impacts, time
// stepping. Every expectation is independent of the solver: analytic answers derived in the
// comments (a block on a plane and on an incline), the bilateral solvers of
// forward_dynamics_constrained.hpp when every contact pushes, and the complementarity
// conditions evaluated with the ConstraintSet's own rows (constraint_quantities.hpp).
#include <cmath>
#include <cstdio>
#include <memory>

#include <Eigen/LU>
#include <gtest/gtest.h>

#include <talus/contact/contact_dynamics.hpp>
#include <talus/models/solo12.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>
#include <talus/solvers/impulses.hpp>

#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::ConeModel;
using talus::ContactFailureReason;
using talus::ContactMode;
using talus::Status;
using talus::Vector3;
constexpr double g0 = 9.81;
constexpr double pi = 3.14159265358979323846;

// A point mass m on three prismatic joints (x, y, z): H = m I, the block of the analytic cases.
using BlockTree = talus::Tree<talus::Body<talus::JointPrismaticX, -1>, talus::Body<talus::JointPrismaticY, 0>,
                              talus::Body<talus::JointPrismaticZ, 1>>;
using Block = talus::Model<double, BlockTree, 1>;
constexpr double kMass = 2.0;

Block make_block() {
  Block m;
  m.body_name = {"bx", "by", "block"};
  m.joint_name = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) m.joint_placement[i] = talus::Transform<double>();
  const talus::Matrix3<double> I = talus::Matrix3<double>::Identity() * 1e-3;
  m.inertia[0] = talus::Inertia<double>(0.0, Vector3<double>::Zero(), talus::Matrix3<double>::Zero());
  m.inertia[1] = talus::Inertia<double>(0.0, Vector3<double>::Zero(), talus::Matrix3<double>::Zero());
  m.inertia[2] = talus::Inertia<double>(kMass, Vector3<double>::Zero(), I);
  m.frames[0] = talus::Frame<double>{"point", 2, talus::Transform<double>()};
  return m;
}

using BlockProblem = talus::ContactProblem<Block, 1, 8>;
using BlockOptions = talus::ContactOptions<double, BlockProblem::max_lcp>;

struct BlockResult {
  Status s;
  Block::TangentVector a;
  Vector3<double> f;  // world force on the block
  talus::ContactReport<double> report;
};

// The block at the origin on the plane through the origin with normal n, pushed by the
// horizontal force F (world), moving with velocity v.
BlockResult block_solve(const Vector3<double>& n, double mu, int edges, const Vector3<double>& F,
                        const Vector3<double>& v = Vector3<double>::Zero(), double orientation = 0) {
  static const Block model = make_block();
  static talus::Data<Block> data;
  static BlockProblem cp;
  cp = BlockProblem{};
  EXPECT_EQ(cp.add_contact(2, Vector3<double>::Zero(), n, mu, edges, ConeModel::polygon, orientation), Status::ok);
  BlockResult r;
  const Block::ConfigVector q = Block::ConfigVector::Zero();
  r.s = talus::forward_dynamics_contact(model, data, cp, q, v, F, r.a, BlockOptions{}, r.report);
  EXPECT_EQ(cp.world_force(0, r.f), Status::ok);
  return r;
}

// ---- reference: the block on a horizontal plane --------------------------------------------

// Pushed along a polygon vertex (t₁ for orientation 0) below μmg it sticks: a = 0 and the
// friction is −F; above μmg it slides: a = F/m − μg along F, friction μmg against F.
TEST(ReferenceContact, BlockOnPlaneSticksBelowAndSlidesAboveMuMg) {
  const double mu = 0.5;
  BlockProblem cp;
  ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), mu), Status::ok);
  const Vector3<double> t1 = cp.contact(0).t1;
  for (int edges : {4, 8}) {
    for (double ratio : {0.0, 0.3, 0.9, 1.2, 2.0}) {
      const Vector3<double> F = ratio * mu * kMass * g0 * t1;
      const BlockResult r = block_solve(Vector3<double>::UnitZ(), mu, edges, F);
      ASSERT_EQ(r.s, Status::ok) << edges << " " << ratio;
      const double a_expected = ratio < 1 ? 0.0 : (ratio - 1) * mu * g0;
      EXPECT_NEAR((r.a - a_expected * t1).norm(), 0.0, 1e-9) << edges << " ratio " << ratio;
      EXPECT_NEAR(r.f.z(), kMass * g0, 1e-9);
      const Vector3<double> ft(r.f.x(), r.f.y(), 0);
      const Vector3<double> ft_expected = ratio < 1 ? Vector3<double>(-F) : Vector3<double>(-mu * kMass * g0 * t1);
      EXPECT_NEAR((ft - ft_expected).norm(), 0.0, 1e-9) << edges << " ratio " << ratio;
      EXPECT_EQ(r.report.sliding, 0) << "at rest: classified sticking (the LCP decides the onset)";
    }
  }
}

// Pushed midway between two vertices of a k-edge polygon, the largest friction the polygon
// resists is μmg cos(π/k) (the support function of the inscribed polygon): 4 edges resist
// 0.707 μmg at 45°, 8 edges resist the full μmg there (45° is a vertex of the octagon).
// Sliding, the friction is the polygon's point farthest along −F: μmg cos(π/k) against F.
TEST(ReferenceContact, PolygonDirectionDependenceIsExact) {
  const double mu = 0.4, W = mu * kMass * g0;
  BlockProblem cp;
  ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), mu), Status::ok);
  const Vector3<double> u = (cp.contact(0).t1 + cp.contact(0).t2).normalized();  // 45° from t₁
  const Vector3<double> F = 0.8 * W * u;
  const BlockResult r4 = block_solve(Vector3<double>::UnitZ(), mu, 4, F);
  ASSERT_EQ(r4.s, Status::ok);
  const double resist4 = W * std::cos(pi / 4);
  EXPECT_NEAR((r4.a - (0.8 * W - resist4) / kMass * u).norm(), 0.0, 1e-9);
  EXPECT_NEAR((Vector3<double>(r4.f.x(), r4.f.y(), 0) + resist4 * u).norm(), 0.0, 1e-9);
  const BlockResult r8 = block_solve(Vector3<double>::UnitZ(), mu, 8, F);
  ASSERT_EQ(r8.s, Status::ok);
  EXPECT_NEAR(r8.a.norm(), 0.0, 1e-9) << "the octagon has a vertex at 45°: it sticks";
  // rotating the 4-gon by 45° puts a vertex on u: it sticks too
  const BlockResult r4r = block_solve(Vector3<double>::UnitZ(), mu, 4, F, Vector3<double>::Zero(), pi / 4);
  ASSERT_EQ(r4r.s, Status::ok);
  EXPECT_NEAR(r4r.a.norm(), 0.0, 1e-9);
}

// Already sliding (v along t₁ above the threshold): kinetic friction μmg against v whatever
// the push, a = F/m − μg v̂ (the sliding column N − μQ).
TEST(ReferenceContact, SlidingBlockGetsKineticFriction) {
  const double mu = 0.3;
  BlockProblem cp;
  ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), mu), Status::ok);
  const Vector3<double> t1 = cp.contact(0).t1, t2 = cp.contact(0).t2;
  const Vector3<double> vdir = (0.6 * t1 + 0.8 * t2);
  for (double push : {0.0, 0.5, 3.0}) {
    const Vector3<double> F = push * kMass * g0 * t1;
    const BlockResult r = block_solve(Vector3<double>::UnitZ(), mu, 4, F, 0.2 * vdir);
    ASSERT_EQ(r.s, Status::ok);
    EXPECT_EQ(r.report.sliding, 1);
    EXPECT_NEAR((r.a - (F / kMass - mu * g0 * vdir)).norm(), 0.0, 1e-9) << push;
  }
}

// On a plane inclined by α about y (normal (−sin α, 0, cos α)), no push: it sticks when
// tan α < μ; otherwise it slides down the slope with a = g (sin α − μ cos α). The default t₁
// of this normal points down the slope (n × e_y), a vertex of every polygon.
TEST(ReferenceContact, BlockOnInclineSticksBelowAtanMu) {
  const double mu = 0.5;
  for (int edges : {4, 8}) {
    for (double alpha_deg : {10.0, 20.0, 26.0, 27.0, 35.0, 60.0}) {
      const double al = alpha_deg * pi / 180;
      const Vector3<double> n(-std::sin(al), 0, std::cos(al));
      const Vector3<double> down(-std::cos(al), 0, -std::sin(al));
      const BlockResult r = block_solve(n, mu, edges, Vector3<double>::Zero());
      ASSERT_EQ(r.s, Status::ok);
      const double a = std::tan(al) < mu ? 0.0 : g0 * (std::sin(al) - mu * std::cos(al));
      EXPECT_NEAR((r.a - a * down).norm(), 0.0, 1e-9) << edges << " edges, " << alpha_deg << "°";
      EXPECT_NEAR(r.f.dot(n), kMass * g0 * std::cos(al), 1e-9);
    }
  }
}

// ---- reference: impacts of the block -------------------------------------------------------

// Falling at v_z = −1 with v_x = 1 onto the plane, μ = 0.3 (4-gon, a vertex along the
// motion): the normal impulse stops the fall (m·1, or m(1 + e) with restitution e), the
// friction impulse is at most μ times it: v_x⁺ = 1 − μ(1 + e) (still sliding).
TEST(ReferenceContact, BlockImpactWithFrictionAndRestitution) {
  const Block model = make_block();
  talus::Data<Block> data;
  const double mu = 0.3;
  for (double e : {0.0, 0.5}) {
    BlockProblem cp;
    ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), mu), Status::ok);
    const Vector3<double> t1 = cp.contact(0).t1;
    const Block::TangentVector vm = t1 - Vector3<double>::UnitZ();
    BlockOptions o;
    o.restitution = e;
    Block::TangentVector vp;
    talus::ContactReport<double> rep;
    ASSERT_EQ(talus::impulses_contact(model, data, cp, Block::ConfigVector::Zero(), vm, vp, o, rep), Status::ok);
    EXPECT_NEAR(vp.dot(Vector3<double>::UnitZ()), e, 1e-9);
    EXPECT_NEAR((vp - (1 - mu * (1 + e)) * t1 - e * Vector3<double>::UnitZ()).norm(), 0.0, 1e-9) << e;
    talus::ContactProblem<Block, 1, 8>::ContactForce p;
    ASSERT_EQ(cp.force(0, p), Status::ok);
    EXPECT_NEAR(p[0], kMass * (1 + e), 1e-9);
  }
}

// ---- solo12 on four unilateral feet --------------------------------------------------------

namespace solo = talus::models::solo12;
using M = solo::Model<double>;
constexpr int kFeet[4] = {solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                          solo::frame_id("HR_FOOT")};
using Problem = talus::ContactProblem<M, 4, 8, 12>;
using Options = talus::ContactOptions<double, Problem::max_lcp>;
using Set = talus::ConstraintSet<M, 12, 4>;

struct Solo {
  M model = solo::make_model<double>();
  std::unique_ptr<talus::Data<M>> data = std::make_unique<talus::Data<M>>();
  std::unique_ptr<Problem> cp = std::make_unique<Problem>();
  std::unique_ptr<Set> bil = std::make_unique<Set>();  // the same four feet, bilateral
  M::ConfigVector q;
  explicit Solo(double mu, int edges = 8) {
    talus::neutral(model, q);
    // standing crouched (Pinocchio's and the Solo papers' q0): HAA 0, HFE ±0.8, KFE ∓1.6
    const double legs[12] = {0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6};
    for (int j = 0; j < 12; ++j) q[7 + j] = legs[j];
    EXPECT_EQ(talus::forward_kinematics(model, *data, q), Status::ok);
    for (int f : kFeet) {
      const auto& F = model.frames[f];
      const Vector3<double> p = data->oMi[F.body].act_point(F.placement.p);
      EXPECT_EQ(cp->add_contact(model, f, Vector3<double>::UnitZ(), mu, edges, ConeModel::polygon, 0.0, p), Status::ok);
      EXPECT_EQ(bil->add_contact(model, f, {Vector3<double>::UnitZ(), Vector3<double>::UnitX(), Vector3<double>::UnitY()}),
                Status::ok);
    }
    EXPECT_EQ(bil->bind(model), Status::ok);
  }
};

// The world force of bilateral foot k (rows z, x, y).
Vector3<double> bilateral_force(const Set& set, int k) {
  return Vector3<double>(set.lambda(3 * k + 1), set.lambda(3 * k + 2), set.lambda(3 * k));
}

// With every bilateral λ_n > 0 and every friction force inside the polygon, the unilateral
// answer is the bilateral one (the same q̈ and forces).
TEST(ConsistencyContact, Solo12AllFeetPushingEqualsBilateralSolve) {
  Solo s(2.0);
  talus::Random rng(11);
  int compared = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // joint torques around the ones that hold the stance (gravity over 4 feet, ~0.1–0.4 N·m)
    M::TangentVector tau = M::TangentVector::Zero();
    for (int i = 6; i < M::nv; ++i) tau[i] = rng.uniform(-0.15, 0.15);
    M::TangentVector v = M::TangentVector::Zero();
    M::TangentVector a_bil, a_uni;
    ASSERT_EQ(talus::forward_dynamics_direct(s.model, *s.data, *s.bil, s.q, v, tau, a_bil), Status::ok);
    bool pushing = true;
    for (int k = 0; k < 4; ++k) {
      const Vector3<double> f = bilateral_force(*s.bil, k);
      pushing = pushing && f.z() > 1e-3 && f.head<2>().norm() < 2.0 * f.z() * std::cos(pi / 8);
    }
    if (!pushing) continue;
    ++compared;
    // Lemke from scratch (the sticking guess off), then with the guess (the default): the
    // guess is the bilateral answer, so it must pass Lemke's check here and return it
    for (const bool guess : {false, true}) {
      Options o;
      o.sticking_guess = guess;
      talus::ContactReport<double> rep;
      ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.cp, s.q, v, tau, a_uni, o, rep), Status::ok);
      if (guess) {
        EXPECT_EQ(rep.guess, talus::ContactGuess::accepted) << trial;
        EXPECT_EQ(rep.lcp.pivots, 0) << trial;
        EXPECT_EQ(rep.lcp.exit, talus::LcpExit::guess) << trial;
      } else {
        EXPECT_EQ(rep.guess, talus::ContactGuess::not_tried) << trial;
        EXPECT_GT(rep.lcp.pivots, 4) << trial;
      }
      EXPECT_NEAR((a_uni - a_bil).cwiseAbs().maxCoeff(), 0.0, 1e-8) << trial << " guess " << guess;
      for (int k = 0; k < 4; ++k) {
        Vector3<double> f;
        ASSERT_EQ(s.cp->world_force(k, f), Status::ok);
        EXPECT_NEAR((f - bilateral_force(*s.bil, k)).norm(), 0.0, 1e-7) << trial << " foot " << k << " guess " << guess;
      }
    }
  }
  std::printf("all feet pushing: %d of 200 states compared\n", compared);
  EXPECT_GE(compared, 10) << "too few states with every foot pushing: the test would not test";
}

// A torque pattern that makes the bilateral solve pull on a foot: unilaterally that foot's
// f_n is 0 and it accelerates away from the ground (a_n > 0, from the ConstraintSet's rows:
// a = G q̈ − γ), every other foot has a_n = 0 where f_n > 0; friction within the polygon.
TEST(ConsistencyContact, Solo12LiftedFootHasZeroForceAndSeparates) {
  Solo s(1.0);
  talus::Random rng(5);
  int lifted = 0;
  for (int trial = 0; trial < 200 && lifted < 5; ++trial) {
    M::TangentVector tau = M::TangentVector::Zero();
    for (int i = 6; i < M::nv; ++i) tau[i] = rng.uniform(-3.0, 3.0);
    const M::TangentVector v = M::TangentVector::Zero();
    M::TangentVector a_bil, a;
    ASSERT_EQ(talus::forward_dynamics_direct(s.model, *s.data, *s.bil, s.q, v, tau, a_bil), Status::ok);
    int pulling = 0;
    for (int k = 0; k < 4; ++k) pulling += s.bil->lambda(3 * k) < -1e-3;
    if (pulling == 0) continue;
    talus::ContactReport<double> rep;
    ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.cp, s.q, v, tau, a, Options{}, rep), Status::ok);
    // the sticking guess (the bilateral answer, with a pulling foot) must fail Lemke's check
    EXPECT_EQ(rep.guess, talus::ContactGuess::rejected);
    EXPECT_GT(rep.lcp.pivots, 0);
    ASSERT_EQ(talus::compute_constraint_gamma(s.model, *s.data, *s.bil, s.q, v), Status::ok);
    const Eigen::VectorXd acc = s.bil->G * a - s.bil->gamma;  // foot accelerations (x, y, z per foot... rows n, x, y)
    bool any_zero_force = false;
    for (int k = 0; k < 4; ++k) {
      talus::ContactProblem<M, 4, 8, 12>::ContactForce f;
      ASSERT_EQ(s.cp->force(k, f), Status::ok);
      const double an = acc(3 * k);
      EXPECT_GE(f[0], -1e-9);
      EXPECT_GE(an, -1e-7) << "foot " << k << " penetrates";
      EXPECT_LE(std::abs(f[0] * an), 1e-7) << "complementarity, foot " << k;
      EXPECT_LE(f.tail<2>().norm(), 1.0 * f[0] + 1e-9) << "inside the cone";
      if (f[0] < 1e-9) {
        any_zero_force = true;
        EXPECT_GT(an, 1e-6) << "a foot without force separates";
      }
    }
    EXPECT_TRUE(any_zero_force) << "a pulled foot lifts";
    ++lifted;
  }
  EXPECT_GE(lifted, 3);
}

// One foot welded by a bilateral contact, the other three unilateral: while all push, the
// same answer as four bilateral feet. The unilateral LCP must see the robot through the
// bilateral-reduced operator P (with H⁻¹ instead, as Drake's final code, the answer differs).
TEST(ConsistencyContact, BilateralFootAndThreeUnilateralEqualsFourBilateral) {
  Solo s(2.0);
  auto one = std::make_unique<Set>();
  ASSERT_EQ(one->add_contact(s.model, kFeet[0], {Vector3<double>::UnitZ(), Vector3<double>::UnitX(), Vector3<double>::UnitY()}),
            Status::ok);
  ASSERT_EQ(one->bind(s.model), Status::ok);
  ASSERT_EQ(s.cp->set_active(0, false), Status::ok);
  talus::Random rng(17);
  int compared = 0;
  for (int trial = 0; trial < 60; ++trial) {
    // joint torques around the ones that hold the stance (gravity over 4 feet, ~0.1–0.4 N·m)
    M::TangentVector tau = M::TangentVector::Zero();
    for (int i = 6; i < M::nv; ++i) tau[i] = rng.uniform(-0.15, 0.15);
    const M::TangentVector v = M::TangentVector::Zero();
    M::TangentVector a_bil, a;
    ASSERT_EQ(talus::forward_dynamics_direct(s.model, *s.data, *s.bil, s.q, v, tau, a_bil), Status::ok);
    bool pushing = true;
    for (int k = 1; k < 4; ++k) {
      const Vector3<double> f = bilateral_force(*s.bil, k);
      pushing = pushing && f.z() > 1e-3 && f.head<2>().norm() < 2.0 * f.z() * std::cos(pi / 8);
    }
    if (!pushing) continue;
    ++compared;
    talus::ContactReport<double> rep;
    ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.cp, *one, s.q, v, tau, a, Options{}, rep), Status::ok);
    EXPECT_NEAR((a - a_bil).cwiseAbs().maxCoeff(), 0.0, 1e-8) << trial;
    EXPECT_NEAR((bilateral_force(*one, 0) - bilateral_force(*s.bil, 0)).norm(), 0.0, 1e-7);
    EXPECT_EQ(rep.bilateral_rank, 3);
  }
  std::printf("one bilateral foot, three pushing: %d of 60 states compared\n", compared);
  EXPECT_GE(compared, 10);
}

// Velocity level: a landing (every foot approaching at 0.5 m/s). Where every impulse pushes,
// the answer is the bilateral impulse solve's (impulses.hpp); the feet do not approach after.
TEST(ConsistencyContact, Solo12LandingEqualsBilateralImpulseWhenAllPush) {
  // A landing built backwards from its answer: pick foot impulses Λ inside the friction polygon
  // (normal 0.05–0.15 N·s, tangential below μ/2 of it) and v⁺ = 0; then v⁻ = −H⁻¹GᵀΛ. Both the
  // bilateral impulse and the unilateral impact (restitution 0) must give v⁺ = 0 and that Λ.
  Solo s(2.0);
  talus::Random rng(23);
  for (int trial = 0; trial < 5; ++trial) {
    M::TangentVector vm = M::TangentVector::Zero(), vb, vp;
    ASSERT_EQ(talus::compute_impulse_direct(s.model, *s.data, *s.bil, s.q, vm, vb), Status::ok);  // fills H, G at q
    Eigen::VectorXd L(12);
    for (int k = 0; k < 4; ++k) {
      L[3 * k] = rng.uniform(0.05, 0.15);
      L[3 * k + 1] = rng.uniform(-0.35, 0.35) * L[3 * k];
      L[3 * k + 2] = rng.uniform(-0.35, 0.35) * L[3 * k];
    }
    const Eigen::MatrixXd H = s.data->H, G = s.bil->G;
    vm = -H.ldlt().solve(G.transpose() * L);
    ASSERT_EQ(talus::compute_impulse_direct(s.model, *s.data, *s.bil, s.q, vm, vb), Status::ok);
    EXPECT_NEAR(vb.cwiseAbs().maxCoeff(), 0.0, 1e-10) << "the bilateral impulse itself";
    EXPECT_NEAR((s.bil->lambda - L).cwiseAbs().maxCoeff(), 0.0, 1e-10);
    for (const bool guess : {false, true}) {  // Lemke from scratch; the sticking guess (accepted here)
      Options o;
      o.sticking_guess = guess;
      talus::ContactReport<double> rep;
      ASSERT_EQ(talus::impulses_contact(s.model, *s.data, *s.cp, s.q, vm, vp, o, rep), Status::ok);
      EXPECT_NEAR(vp.cwiseAbs().maxCoeff(), 0.0, 1e-8) << trial;
      for (int k = 0; k < 4; ++k) {
        Vector3<double> f;
        ASSERT_EQ(s.cp->world_force(k, f), Status::ok);  // for impacts: the impulse, N·s
        EXPECT_NEAR((f - Vector3<double>(L[3 * k + 1], L[3 * k + 2], L[3 * k])).norm(), 0.0, 1e-8) << trial << " foot " << k;
      }
      if (guess) EXPECT_EQ(rep.guess, talus::ContactGuess::accepted) << trial;
      else EXPECT_GT(rep.lcp.pivots, 0);
    }
  }
}

// Time stepping with rigid contacts converges to the acceleration-level dynamics as h → 0:
// from standing at rest under constant torques, q after T = 40 ms by time_step_contact with
// h = 4, 2, 1 ms approaches q(T) of forward_dynamics_contact integrated (semi-implicit Euler)
// with h = 25 µs, at first order (the error halves with h). At v = 0 the two levels agree
// exactly ((v⁺ − v)/h = q̈ and impulse/h = force at every h): the bias terms vanish.
TEST(ConsistencyContact, TimeStepApproachesAccelerationLevel) {
  Solo s(2.0);
  talus::Random rng(23);
  M::TangentVector tau = M::TangentVector::Zero();
  for (int i = 6; i < M::nv; ++i) tau[i] = rng.uniform(-0.3, 0.3);
  const M::TangentVector v0 = M::TangentVector::Zero();
  M::TangentVector a, vn;
  M::ConfigVector qn;
  talus::ContactReport<double> rep;
  ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.cp, s.q, v0, tau, a, Options{}, rep), Status::ok);
  Vector3<double> f_acc, p;
  ASSERT_EQ(s.cp->world_force(0, f_acc), Status::ok);
  ASSERT_EQ(talus::time_step_contact(s.model, *s.data, *s.cp, s.q, v0, tau, 1e-3, qn, vn, Options{}, rep), Status::ok);
  ASSERT_EQ(s.cp->world_force(0, p), Status::ok);
  EXPECT_NEAR(((vn - v0) / 1e-3 - a).cwiseAbs().maxCoeff(), 0.0, 1e-9);
  EXPECT_NEAR((p / 1e-3 - f_acc).norm(), 0.0, 1e-9);

  const double T = 0.04;
  auto run = [&](double h, bool stepping) {
    M::ConfigVector q = s.q;
    M::TangentVector v = v0;
    const int n = static_cast<int>(std::lround(T / h));
    for (int k = 0; k < n; ++k) {
      if (stepping) {
        EXPECT_EQ(talus::time_step_contact(s.model, *s.data, *s.cp, q, v, tau, h, qn, vn, Options{}, rep), Status::ok);
        q = qn;
        v = vn;
      } else {
        EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.cp, q, v, tau, a, Options{}, rep), Status::ok);
        v += h * a;
        EXPECT_EQ(talus::integrate(s.model, q, M::TangentVector(h * v), qn), Status::ok);
        q = qn;
      }
    }
    return q;
  };
  const M::ConfigVector q_ref = run(25e-6, false);
  double prev = 1e300;
  for (double h : {4e-3, 2e-3, 1e-3}) {
    const double err = (run(h, true) - q_ref).cwiseAbs().maxCoeff();
    std::printf("time stepping h = %g s: max |q(T) - q_ref(T)| = %.3g\n", h, err);
    EXPECT_LT(err, 0.75 * prev) << h;
    prev = err;
  }
  EXPECT_GT((q_ref - s.q).cwiseAbs().maxCoeff(), 1e-3) << "the robot moves: the comparison is not trivial";
}

// ---- bad input ------------------------------------------------------------------------------

TEST(ConsistencyContact, BadInputIsRefusedWithOutputsZero) {
  Solo s(0.5);
  Problem& cp = *s.cp;
  Problem fresh;
  EXPECT_EQ(fresh.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), -0.1), Status::invalid_input);
  EXPECT_EQ(fresh.failure().reason, ContactFailureReason::friction_invalid);
  EXPECT_EQ(fresh.add_contact(2, Vector3<double>::Zero(), Vector3<double>::Zero(), 0.5), Status::invalid_input);
  EXPECT_EQ(fresh.failure().reason, ContactFailureReason::normal_invalid);
  EXPECT_EQ(fresh.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.5, 10), Status::invalid_input);
  EXPECT_EQ(fresh.failure().reason, ContactFailureReason::friction_invalid) << "10 edges > MaxEdges 8";
  EXPECT_EQ(fresh.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.5, 5), Status::invalid_input);
  EXPECT_EQ(fresh.add_contact(99, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.5), Status::invalid_input);
  EXPECT_EQ(fresh.failure().reason, ContactFailureReason::body_out_of_range);
  const double nan = std::nan("");
  EXPECT_EQ(fresh.add_contact(2, Vector3<double>(nan, 0, 0), Vector3<double>::UnitZ(), 0.5), Status::invalid_input);
  EXPECT_EQ(fresh.failure().reason, ContactFailureReason::point_invalid);
  EXPECT_EQ(fresh.size(), 0);
  EXPECT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.5), Status::capacity_exceeded);
  EXPECT_EQ(cp.failure().reason, ContactFailureReason::too_many_contacts);

  M::TangentVector v = M::TangentVector::Zero(), tau = M::TangentVector::Zero();
  M::TangentVector a = M::TangentVector::Constant(7);
  talus::ContactReport<double> rep;
  tau[7] = nan;
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, cp, s.q, v, tau, a, Options{}, rep), Status::invalid_input);
  EXPECT_EQ(a, M::TangentVector::Zero());
  tau[7] = 0;
  M::ConfigVector qbad = s.q;
  qbad[3] = 2;  // unnormalised quaternion
  a.setConstant(7);
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, cp, qbad, v, tau, a, Options{}, rep), Status::invalid_input);
  EXPECT_EQ(cp.failure().reason, ContactFailureReason::q_invalid);
  EXPECT_EQ(a, M::TangentVector::Zero());
  Options o;
  o.restitution = 2;
  EXPECT_EQ(talus::impulses_contact(s.model, *s.data, cp, s.q, v, a, o, rep), Status::invalid_input);
  M::ConfigVector qn;
  EXPECT_EQ(talus::time_step_contact(s.model, *s.data, cp, s.q, v, tau, -1e-3, qn, a, Options{}, rep), Status::invalid_input);
  EXPECT_EQ(qn, M::ConfigVector::Zero());
  ASSERT_EQ(cp.set_friction(0, 0.5, 4), Status::ok);
  EXPECT_EQ(cp.set_friction(7, 0.5, 4), Status::invalid_input);
  EXPECT_EQ(cp.set_friction(0, nan, 4), Status::invalid_input);
  EXPECT_EQ(cp.set_contact_plane(0, Vector3<double>(0, 0, 2), Vector3<double>::Zero()), Status::invalid_input);
  // an exact cone is for the iterative solvers: Lemke refuses it, naming the contact
  Problem ex;
  ASSERT_EQ(ex.add_contact(s.model, kFeet[0], Vector3<double>::UnitZ(), 0.5, 4, ConeModel::exact), Status::ok);
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, ex, s.q, v, tau, a, Options{}, rep), Status::invalid_input);
  EXPECT_EQ(ex.failure().reason, ContactFailureReason::cone_not_supported);
  EXPECT_EQ(ex.failure().index, 0);
}

// ---- alloc -----------------------------------------------------------------------------------

TEST(AllocContact, NoHeapInAnySolveWithContactsToggled) {
  Solo s(0.7);
  auto one = std::make_unique<Set>();
  ASSERT_EQ(one->add_contact(s.model, kFeet[0], {Vector3<double>::UnitZ()}), Status::ok);
  ASSERT_EQ(one->bind(s.model), Status::ok);
  M::TangentVector v = M::TangentVector::Zero(), tau = M::TangentVector::Zero(), out;
  v[2] = -0.3;
  M::ConfigVector qn;
  talus::ContactReport<double> rep;
  const Options o;
  Status st[16];
  const std::size_t calls = heap_calls([&] {
    for (int k = 0; k < 4; ++k) {
      (void)s.cp->set_active(k, k % 2 == 0);
      st[4 * k + 0] = talus::forward_dynamics_contact(s.model, *s.data, *s.cp, s.q, v, tau, out, o, rep);
      st[4 * k + 1] = talus::forward_dynamics_contact(s.model, *s.data, *s.cp, *one, s.q, v, tau, out, o, rep);
      st[4 * k + 2] = talus::impulses_contact(s.model, *s.data, *s.cp, s.q, v, out, o, rep);
      st[4 * k + 3] = talus::time_step_contact(s.model, *s.data, *s.cp, s.q, v, tau, 1e-3, qn, out, o, rep);
      (void)s.cp->set_active(k, true);
    }
  });
  EXPECT_EQ(calls, 0u);
  for (int k = 0; k < 16; ++k) EXPECT_EQ(st[k], Status::ok) << k;
}

}  // namespace
}  // namespace talus_test
