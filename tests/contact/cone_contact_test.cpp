// Exact (circular) Coulomb cones in the contact solves: ContactOptions::solver = pgs or admm
// (cone_solvers.hpp) on the rows ContactProblem builds. Every expectation is independent of
// the solvers: analytic answers for a block (the circle has no preferred direction, unlike a
// polygon), Lemke's exact LCP answer where the solution is unique and inside both the polygon
// and the circle, and, for a box on four redundant corners, the invariants every solution
// shares (the box's motion, the total force), while the direct KKT solve reports `singular`.
//
// Tolerances. The cone solvers accept an answer when their residuals are below
// relative_tolerance = √ε ≈ 1.5e-8 of the size of the terms (cone_solvers.hpp, "The check"):
// a force is then right to ~1e-8 of the largest force and an acceleration to ~1e-8 of the
// largest term of W f + b (≲ 20 m/s² for the block: 1e-6 N, m/s² leave a margin of ~5). On
// solo12 the terms reach ~1e3 (light legs), so the comparisons with Lemke hold the cone solvers
// to 1e-11 (`tight`) and ask 1e-7. Lemke's answers are exact to rounding (1e-9).
#include <cmath>
#include <cstdio>
#include <memory>

#include <gtest/gtest.h>

#include <talus/contact.hpp>
#include <talus/models/solo12.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>
#include <talus/solvers/forward_dynamics_proximal.hpp>

#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::ConeModel;
using talus::ContactFailureReason;
using talus::ContactSolver;
using talus::Status;
using talus::Vector3;
constexpr double g0 = 9.81;
const Vector3<double> kZ = Vector3<double>::UnitZ();

// ---- the block: a point mass on three prismatic joints (H = m I) -----------------------------------
using BlockTree = talus::Tree<talus::Body<talus::JointPrismaticX, -1>, talus::Body<talus::JointPrismaticY, 0>,
                              talus::Body<talus::JointPrismaticZ, 1>>;
using Block = talus::Model<double, BlockTree, 0>;
constexpr double kMass = 2.0;
Block make_block() {
  Block m;
  m.body_name = {"bx", "by", "block"};
  m.joint_name = {"x", "y", "z"};
  m.inertia[0] = talus::Inertia<double>(0.0, Vector3<double>::Zero(), talus::Matrix3<double>::Zero());
  m.inertia[1] = talus::Inertia<double>(0.0, Vector3<double>::Zero(), talus::Matrix3<double>::Zero());
  m.inertia[2] = talus::Inertia<double>(kMass, Vector3<double>::Zero(), talus::Matrix3<double>::Identity() * 1e-3);
  return m;
}
using BlockProblem = talus::ContactProblem<Block, 1, 4>;
using BlockOptions = talus::ContactOptions<double, BlockProblem::max_lcp>;

BlockOptions cone_options(ContactSolver solver) {
  BlockOptions o;
  o.solver = solver;
  return o;
}

// The block at rest at the origin on the plane with normal n, pushed by F (world).
Status block_exact(ContactSolver solver, const Vector3<double>& n, double mu, const Vector3<double>& F,
                   Block::TangentVector& a, Vector3<double>& f, talus::ContactReport<double>& rep) {
  static const Block model = make_block();
  static talus::Data<Block> data;
  BlockProblem cp;
  EXPECT_EQ(cp.add_contact(2, Vector3<double>::Zero(), n, mu, 4, ConeModel::exact), Status::ok);
  const Status s = talus::forward_dynamics_contact(model, data, cp, Block::ConfigVector::Zero(),
                                                   Block::TangentVector::Zero(), F, a, cone_options(solver), rep);
  EXPECT_EQ(cp.world_force(0, f), Status::ok);
  return s;
}

// On a horizontal plane, pushed with |F| in ANY tangential direction: below μmg it sticks
// (a = 0, friction −F), above it slides with a = (|F| − μmg)/m along F and friction μmg
// against F. The circle resists the same in every direction (the polygon test in
// contact_test.cpp shows the 4-gon does not).
TEST(ReferenceContact, ExactConeBlockHasNoPreferredDirection) {
  const double mu = 0.5, W = mu * kMass * g0;
  for (ContactSolver solver : {ContactSolver::pgs, ContactSolver::admm}) {
    int max_it = 0;
    for (double angle : {0.0, 0.3, 0.785398163397448, 2.5}) {
      const Vector3<double> u(std::cos(angle), std::sin(angle), 0);
      for (double ratio : {0.0, 0.5, 0.95, 1.2, 2.0}) {
        Block::TangentVector a;
        Vector3<double> f;
        talus::ContactReport<double> rep;
        ASSERT_EQ(block_exact(solver, kZ, mu, ratio * W * u, a, f, rep), Status::ok) << angle << " " << ratio;
        const double a_exp = ratio < 1 ? 0.0 : (ratio - 1) * W / kMass;
        EXPECT_NEAR((a - a_exp * u).norm(), 0.0, 1e-6) << "angle " << angle << " ratio " << ratio;
        EXPECT_NEAR(f.z(), kMass * g0, 1e-6);
        const Vector3<double> ft_exp = -std::min(ratio, 1.0) * W * u;
        EXPECT_NEAR((Vector3<double>(f.x(), f.y(), 0) - ft_exp).norm(), 0.0, 1e-6) << angle << " " << ratio;
        max_it = std::max(max_it, rep.cone.iterations);
      }
    }
    std::printf("%s, block on a plane, 20 pushes: at most %d iterations\n",
                solver == ContactSolver::pgs ? "PGS" : "ADMM", max_it);
  }
}

// On an incline of angle α, unpushed: sticks when tan α < μ, else a = g (sin α − μ cos α)
// down the slope, with the exact cone as with the polygon (the slope is a vertex of both).
TEST(ReferenceContact, ExactConeBlockOnInclineSticksBelowAtanMu) {
  const double mu = 0.5;
  const double pi = 3.14159265358979323846;
  for (ContactSolver solver : {ContactSolver::pgs, ContactSolver::admm})
    for (double deg : {10.0, 26.0, 27.0, 45.0}) {
      const double al = deg * pi / 180;
      const Vector3<double> n(-std::sin(al), 0, std::cos(al)), down(-std::cos(al), 0, -std::sin(al));
      Block::TangentVector a;
      Vector3<double> f;
      talus::ContactReport<double> rep;
      ASSERT_EQ(block_exact(solver, n, mu, Vector3<double>::Zero(), a, f, rep), Status::ok);
      const double a_exp = std::tan(al) < mu ? 0.0 : g0 * (std::sin(al) - mu * std::cos(al));
      EXPECT_NEAR((a - a_exp * down).norm(), 0.0, 1e-6) << deg;
      EXPECT_NEAR(f.dot(n), kMass * g0 * std::cos(al), 1e-6) << deg;
    }
}

// Kinetic friction on the exact cone at acceleration level: the block sliding on a horizontal
// plane with velocity v_t (v_n = 0), pushed by a tangential F (any direction, |F| < μmg or not)
// gets f_n = m g, friction −μ m g v̂ (opposite v_t, whatever F) and a_t = F/m − μ g v̂ (hand
// derivation: Newton along the plane). PGS and ADMM (the sliding unit normal-only, its
// friction in the normal column) and Lemke's polygon (the same N − μQ column: a sliding
// contact's friction does not depend on the cone model) must all give it.
TEST(ReferenceContact, ExactConeBlockSlidingGetsKineticFriction) {
  const double mu = 0.5;
  const Block model = make_block();
  talus::Data<Block> data;
  for (double vang : {0.0, 0.7, 2.0}) {
    const Vector3<double> vt(0.3 * std::cos(vang), 0.3 * std::sin(vang), 0), vhat = vt.normalized();
    for (double fang : {0.0, 1.1}) {
      for (double push : {0.0, 0.3, 1.4}) {
        const Vector3<double> F = push * mu * kMass * g0 * Vector3<double>(std::cos(fang), std::sin(fang), 0);
        const Vector3<double> a_exp = F / kMass - mu * g0 * vhat, f_exp = kMass * g0 * kZ - mu * kMass * g0 * vhat;
        for (ContactSolver solver : {ContactSolver::lemke, ContactSolver::pgs, ContactSolver::admm}) {
          BlockProblem cp;
          ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), kZ, mu, 4,
                                   solver == ContactSolver::lemke ? ConeModel::polygon : ConeModel::exact),
                    Status::ok);
          Block::TangentVector a;
          talus::ContactReport<double> rep;
          const Block::TangentVector v = vt;
          ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, Block::ConfigVector::Zero(), v, F, a,
                                                    cone_options(solver), rep),
                    Status::ok)
              << static_cast<int>(solver) << " " << talus::to_string(cp.failure().reason);
          Vector3<double> f;
          ASSERT_EQ(cp.world_force(0, f), Status::ok);
          EXPECT_TRUE(cp.sliding(0));
          EXPECT_EQ(rep.sliding, 1);
          EXPECT_NEAR((a - a_exp).norm(), 0.0, 1e-6)
              << static_cast<int>(solver) << " v " << vang << " F " << fang << " " << push;
          EXPECT_NEAR((f - f_exp).norm(), 0.0, 1e-6) << static_cast<int>(solver) << " v " << vang << " F " << fang;
          EXPECT_LE(f.dot(vhat), -mu * kMass * g0 * (1 - 1e-9)) << "friction opposite v_t";
          if (solver != ContactSolver::lemke) {
            EXPECT_LE(rep.cone.dual_residual, 1e-6);
          }
        }
      }
    }
  }
  // ContactMode::sticking keeps static friction (the circle): pushed below μmg it stays (a = 0)
  BlockProblem cp;
  ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), kZ, mu, 4, ConeModel::exact), Status::ok);
  ASSERT_EQ(cp.set_mode(0, talus::ContactMode::sticking), Status::ok);
  Block::TangentVector a, v = Block::TangentVector::Zero();
  v[0] = 0.3;
  talus::ContactReport<double> rep;
  const Block::TangentVector F(0.4 * mu * kMass * g0, 0, 0);
  ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, Block::ConfigVector::Zero(), v, F, a,
                                            cone_options(ContactSolver::pgs), rep),
            Status::ok);
  EXPECT_FALSE(cp.sliding(0));
  EXPECT_NEAR(a.norm(), 0.0, 1e-6);
}

// ---- solo12 on four feet: Lemke, PGS and ADMM on problems with one solution ---------------------------
namespace solo = talus::models::solo12;
using M = solo::Model<double>;
constexpr int kFeet[4] = {solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                          solo::frame_id("HR_FOOT")};
using Problem = talus::ContactProblem<M, 4, 8>;
using Options = talus::ContactOptions<double, Problem::max_lcp>;
using Set = talus::ConstraintSet<M, 12, 4>;

struct Solo {
  M model = solo::make_model<double>();
  std::unique_ptr<talus::Data<M>> data = std::make_unique<talus::Data<M>>();
  std::unique_ptr<Problem> poly = std::make_unique<Problem>(), exact = std::make_unique<Problem>();
  std::unique_ptr<Set> bil = std::make_unique<Set>();
  M::ConfigVector q;
  Solo() {
    talus::neutral(model, q);
    const double legs[12] = {0, 0.8, -1.6, 0, 0.8, -1.6, 0, -0.8, 1.6, 0, -0.8, 1.6};  // crouched stance
    for (int j = 0; j < 12; ++j) q[7 + j] = legs[j];
    EXPECT_EQ(talus::forward_kinematics(model, *data, q), Status::ok);
    for (int f : kFeet) {
      const auto& F = model.frames[f];
      const Vector3<double> p = data->oMi[F.body].act_point(F.placement.p);
      EXPECT_EQ(poly->add_contact(model, f, kZ, 1.0, 8, ConeModel::polygon, 0.0, p), Status::ok);
      EXPECT_EQ(exact->add_contact(model, f, kZ, 1.0, 8, ConeModel::exact, 0.0, p), Status::ok);
      EXPECT_EQ(bil->add_contact(model, f, {kZ, Vector3<double>::UnitX(), Vector3<double>::UnitY()}), Status::ok);
    }
    EXPECT_EQ(bil->bind(model), Status::ok);
  }
};
// The solvers themselves (from scratch): the sticking guess off. Runs with the guess compare
// against these.
Options with(ContactSolver s) {
  Options o;
  o.solver = s;
  o.sticking_guess = false;
  return o;
}
// For comparisons with Lemke's exact answer: the cone solvers held to 1e-11 of the size of the
// terms (solo12's light legs make W's entries ~1e2 and its terms ~1e3, so the default √ε
// leaves ~1e-5 in an acceleration), with room for the iterations that costs.
Options tight(ContactSolver s) {
  Options o = with(s);
  o.cone.relative_tolerance = 1e-11;
  o.cone.max_iterations = 5000;
  return o;
}
double max_force_diff(const Problem& a, const Problem& b) {
  double d = 0;
  for (int k = 0; k < 4; ++k) {
    Vector3<double> fa, fb;
    (void)a.world_force(k, fa);
    (void)b.world_force(k, fb);
    d = std::max(d, (fa - fb).cwiseAbs().maxCoeff());
  }
  return d;
}

// Where the bilateral forces all push and lie inside the circle of radius μ f_n cos(π/8) (so
// inside the 8-gon too), the frictional problem has exactly that solution: all three solvers
// must return it, at the acceleration level, for an impact and for a time step.
TEST(ConsistencyContact, LemkePgsAdmmAgreeWhereTheSolutionIsUnique) {
  Solo s;
  talus::Random rng(5);
  int compared = 0, it_pgs = 0, it_admm = 0, pivots = 0;
  double worst = 0;
  for (int trial = 0; trial < 800 && compared < 12; ++trial) {
    M::TangentVector tau = M::TangentVector::Zero(), v = M::TangentVector::Zero();
    for (int i = 6; i < M::nv; ++i) tau[i] = rng.uniform(-0.15, 0.15);
    M::TangentVector a_bil, a_l, a_p, a_a;
    ASSERT_EQ(talus::forward_dynamics_direct(s.model, *s.data, *s.bil, s.q, v, tau, a_bil), Status::ok);
    bool inside = true;
    for (int k = 0; k < 4; ++k) {
      const double fz = s.bil->lambda(3 * k), fx = s.bil->lambda(3 * k + 1), fy = s.bil->lambda(3 * k + 2);
      inside = inside && fz > 0.05 && std::hypot(fx, fy) < 0.9 * fz * std::cos(3.14159265358979 / 8);
    }
    if (!inside) continue;
    ++compared;
    talus::ContactReport<double> rl, rp, ra;
    ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.poly, s.q, v, tau, a_l, with(ContactSolver::lemke),
                                              rl),
              Status::ok);
    ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.exact, s.q, v, tau, a_p, tight(ContactSolver::pgs),
                                              rp),
              Status::ok);
    const double dp = max_force_diff(*s.poly, *s.exact);
    ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.exact, s.q, v, tau, a_a, tight(ContactSolver::admm),
                                              ra),
              Status::ok);
    const double da = max_force_diff(*s.poly, *s.exact);
    EXPECT_NEAR((a_l - a_bil).cwiseAbs().maxCoeff(), 0.0, 1e-8);
    EXPECT_NEAR((a_p - a_l).cwiseAbs().maxCoeff(), 0.0, 1e-7) << trial;
    EXPECT_NEAR((a_a - a_l).cwiseAbs().maxCoeff(), 0.0, 1e-7) << trial;
    EXPECT_LE(dp, 1e-7) << trial;
    EXPECT_LE(da, 1e-7) << trial;
    worst = std::max({worst, (a_p - a_l).cwiseAbs().maxCoeff(), (a_a - a_l).cwiseAbs().maxCoeff(), dp, da});
    // with the sticking guess (the default): here it is the answer, every solver returns it at once
    for (ContactSolver solver : {ContactSolver::lemke, ContactSolver::pgs, ContactSolver::admm}) {
      Options o = tight(solver);
      o.sticking_guess = true;
      M::TangentVector a_g;
      talus::ContactReport<double> rg;
      ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, solver == ContactSolver::lemke ? *s.poly : *s.exact,
                                                s.q, v, tau, a_g, o, rg),
                Status::ok);
      EXPECT_EQ(rg.guess, talus::ContactGuess::accepted) << trial << " solver " << static_cast<int>(solver);
      EXPECT_EQ(rg.lcp.pivots + rg.cone.iterations, 0) << trial;
      EXPECT_NEAR((a_g - a_l).cwiseAbs().maxCoeff(), 0.0, 1e-7) << trial << " solver " << static_cast<int>(solver);
    }
    it_pgs = std::max(it_pgs, rp.cone.iterations);
    it_admm = std::max(it_admm, ra.cone.iterations);
    pivots = std::max(pivots, rl.lcp.pivots);
  }
  EXPECT_GE(compared, 8);
  std::printf(
      "acceleration level, %d states: Lemke <= %d pivots, PGS <= %d sweeps, ADMM <= %d steps, max difference %.3g\n",
      compared, pivots, it_pgs, it_admm, worst);

  // an impact built backwards from its impulses Λ (inside both cones) and v⁺ = 0: v⁻ = −H⁻¹GᵀΛ
  M::TangentVector v0 = M::TangentVector::Zero(), vb;
  ASSERT_EQ(talus::compute_impulse_direct(s.model, *s.data, *s.bil, s.q, v0, vb), Status::ok);
  const Eigen::MatrixXd H = s.data->H, G = s.bil->G;
  for (int trial = 0; trial < 5; ++trial) {
    Eigen::VectorXd L(12);
    for (int k = 0; k < 4; ++k) {
      L[3 * k] = rng.uniform(0.05, 0.15);
      L[3 * k + 1] = rng.uniform(-0.3, 0.3) * L[3 * k];
      L[3 * k + 2] = rng.uniform(-0.3, 0.3) * L[3 * k];
    }
    const M::TangentVector vm = -H.ldlt().solve(G.transpose() * L);
    for (ContactSolver solver : {ContactSolver::lemke, ContactSolver::pgs, ContactSolver::admm}) {
      Problem& cp = solver == ContactSolver::lemke ? *s.poly : *s.exact;
      M::TangentVector vp;
      talus::ContactReport<double> rep;
      ASSERT_EQ(talus::impulses_contact(s.model, *s.data, cp, s.q, vm, vp, tight(solver), rep), Status::ok);
      EXPECT_NEAR(vp.cwiseAbs().maxCoeff(), 0.0, 1e-7) << trial << " solver " << static_cast<int>(solver);
      for (int k = 0; k < 4; ++k) {
        Vector3<double> f;
        ASSERT_EQ(cp.world_force(k, f), Status::ok);
        EXPECT_NEAR((f - Vector3<double>(L[3 * k + 1], L[3 * k + 2], L[3 * k])).norm(), 0.0, 1e-7) << trial;
      }
    }
  }

  // one time step standing still with the holding torques of the bilateral solve at a = 0
  // (inverse dynamics by the bilateral set: τ with H·0 + C = τ + Gᵀλ has a free base; take the
  // joint torques of a static solve instead: λ from the direct solve with τ = 0 gives a
  // falling robot, so compare the three solvers on the same step from rest, τ = 0)
  M::TangentVector tau0 = M::TangentVector::Zero(), v00 = M::TangentVector::Zero(), vl, vp2, va;
  M::ConfigVector ql, qp, qa;
  talus::ContactReport<double> r1, r2, r3;
  ASSERT_EQ(talus::time_step_contact(s.model, *s.data, *s.poly, s.q, v00, tau0, 1e-3, ql, vl,
                                     with(ContactSolver::lemke), r1),
            Status::ok);
  ASSERT_EQ(talus::time_step_contact(s.model, *s.data, *s.exact, s.q, v00, tau0, 1e-3, qp, vp2,
                                     tight(ContactSolver::pgs), r2),
            Status::ok);
  ASSERT_EQ(talus::time_step_contact(s.model, *s.data, *s.exact, s.q, v00, tau0, 1e-3, qa, va,
                                     tight(ContactSolver::admm), r3),
            Status::ok);
  bool inside = true;  // the step's impulses inside the circle: then the three answers are one
  for (int k = 0; k < 4; ++k) {
    Vector3<double> f;
    (void)s.poly->world_force(k, f);
    inside = inside && f.z() > 0 && f.head<2>().norm() < 0.9 * f.z() * std::cos(3.14159265358979 / 8);
  }
  if (inside) {
    EXPECT_NEAR((vp2 - vl).cwiseAbs().maxCoeff(), 0.0, 1e-7);
    EXPECT_NEAR((va - vl).cwiseAbs().maxCoeff(), 0.0, 1e-7);
  }
  std::printf(
      "time step from rest, tau = 0: impulses inside the cones: %s; |v+| Lemke %.3g, PGS %d sweeps, ADMM %d steps\n",
      inside ? "yes" : "no", vl.cwiseAbs().maxCoeff(), r2.cone.iterations, r3.cone.iterations);
}

// The settings docs/contact.md gives a firmware with a hard period ("A hard period": PGS,
// τ_r = 1e-3, 24 sweeps, the check every 4th, no sticking guess, warm-started from the last
// call), on standing states whose bilateral forces lie inside the cones, so that they are the
// one solution (computed by the direct bilateral solve, no cone solver): every call returns ok
// within the cap, with forces within 2e-3 of the largest bilateral force (τ_r bounds the
// residuals relative to the terms, not the forces' error; bench/RESULTS.md measures both).
TEST(ConsistencyContact, FirmwareCapSettingsMeetTheBilateralAnswer) {
  Solo s;
  talus::Random rng(11);
  Options o = with(ContactSolver::pgs);
  o.cone.relative_tolerance = 1e-3;
  o.cone.max_iterations = 24;
  o.cone.check_interval = 4;
  o.cone.warm_start = true;
  int compared = 0, sweeps = 0;
  double worst = 0;
  for (int trial = 0; trial < 800 && compared < 16; ++trial) {
    M::TangentVector tau = M::TangentVector::Zero(), v = M::TangentVector::Zero(), a_bil, a;
    for (int i = 6; i < M::nv; ++i) tau[i] = rng.uniform(-0.15, 0.15);
    ASSERT_EQ(talus::forward_dynamics_direct(s.model, *s.data, *s.bil, s.q, v, tau, a_bil), Status::ok);
    bool inside = true;
    Vector3<double> fb[4];
    double fmax = 0;
    for (int k = 0; k < 4; ++k) {
      const double fz = s.bil->lambda(3 * k), fx = s.bil->lambda(3 * k + 1), fy = s.bil->lambda(3 * k + 2);
      inside = inside && fz > 0.05 && std::hypot(fx, fy) < 0.9 * fz;
      fb[k] = Vector3<double>(fx, fy, fz);  // the set's axes: z, x, y
      fmax = std::max(fmax, fb[k].norm());
    }
    if (!inside) continue;
    ++compared;
    talus::ContactReport<double> rep;
    ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.exact, s.q, v, tau, a, o, rep), Status::ok)
        << trial << ": " << rep.cone.iterations << " sweeps";
    double d = 0;
    for (int k = 0; k < 4; ++k) {
      Vector3<double> f;
      ASSERT_EQ(s.exact->world_force(k, f), Status::ok);
      d = std::max(d, (f - fb[k]).norm());
    }
    EXPECT_LE(d, 2e-3 * fmax) << trial;
    EXPECT_LE(rep.cone.iterations, 24);
    worst = std::max(worst, d / fmax);
    sweeps = std::max(sweeps, rep.cone.iterations);
  }
  EXPECT_GE(compared, 8);
  std::printf("firmware settings, %d standing states: <= %d sweeps, forces within %.3g of the largest\n", compared,
              sweeps, worst);
}

// ---- a box on four corner contacts: redundant (12 rows of rank 6) --------------------------------------
using BoxTree = talus::Tree<talus::Body<talus::JointFreeFlyer, -1>>;
using Box = talus::Model<double, BoxTree, 0>;
using BoxProblem = talus::ContactProblem<Box, 4, 4>;
using BoxOptions = talus::ContactOptions<double, BoxProblem::max_lcp>;
using BoxSet = talus::ConstraintSet<Box, 12, 4>;
constexpr double kBoxMass = 3.0, kA = 0.4, kB = 0.3, kC = 0.2;  // kg; m along x, y, z

Box make_box() {
  Box m;
  m.body_name = {"box"};
  m.joint_name = {"root"};
  const Vector3<double> I(kBoxMass * (kB * kB + kC * kC) / 12, kBoxMass * (kA * kA + kC * kC) / 12,
                          kBoxMass * (kA * kA + kB * kB) / 12);
  m.inertia[0] = talus::Inertia<double>(kBoxMass, Vector3<double>::Zero(), I.asDiagonal());
  return m;
}
Vector3<double> corner(int k) { return Vector3<double>((k & 1 ? 1 : -1) * kA / 2, (k & 2 ? 1 : -1) * kB / 2, -kC / 2); }

// Resting on the ground and pushed sideways by F below μmg (a generalized force on the free
// flyer: [torque; force] in the body frame, here aligned with the world): every solution has
// the box at rest, total normal force m g, total friction −F — but the split between the
// corners is not unique. Lemke, PGS and ADMM must agree on those invariants; the direct KKT
// solve of the same corners welded reports singular, the proximal solve converges to them.
TEST(ConsistencyContact, BoxOnFourRedundantCornersInvariantsAgree) {
  const Box model = make_box();
  talus::Data<Box> data;
  BoxProblem poly, exact;
  auto bil = std::make_unique<BoxSet>();
  for (int k = 0; k < 4; ++k) {
    ASSERT_EQ(poly.add_contact(0, corner(k), kZ, 0.6, 4, ConeModel::polygon), Status::ok);
    ASSERT_EQ(exact.add_contact(0, corner(k), kZ, 0.6, 4, ConeModel::exact), Status::ok);
    ASSERT_EQ(bil->add_contact(0, corner(k), {kZ, Vector3<double>::UnitX(), Vector3<double>::UnitY()}), Status::ok);
  }
  ASSERT_EQ(bil->bind(model), Status::ok);
  Box::ConfigVector q;
  q << 0.1, -0.2, kC / 2, 1, 0, 0, 0;
  const Box::TangentVector v = Box::TangentVector::Zero();
  const double mg = kBoxMass * g0;
  // |F| = 0.84 push·m g ≤ 0.38 m g: inside the 4-gon's smallest reach μ m g cos(π/4) = 0.42 m g
  for (double push : {0.0, 0.3, 0.45}) {
    Box::TangentVector tau = Box::TangentVector::Zero();
    tau[3] = 0.8 * push * mg;
    tau[4] = 0.25 * push * mg;
    const Vector3<double> F(tau[3], tau[4], 0);
    for (int run = 0; run < 6; ++run) {  // each solver from scratch, then with the sticking guess
      const ContactSolver solver = run % 3 == 0   ? ContactSolver::lemke
                                   : run % 3 == 1 ? ContactSolver::pgs
                                                  : ContactSolver::admm;
      BoxProblem& cp = solver == ContactSolver::lemke ? poly : exact;
      BoxOptions o;
      o.solver = solver;
      o.sticking_guess = run >= 3;
      Box::TangentVector a;
      talus::ContactReport<double> rep;
      ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, q, v, tau, a, o, rep), Status::ok)
          << "push " << push << " solver " << static_cast<int>(solver);
      EXPECT_NEAR(a.cwiseAbs().maxCoeff(), 0.0, 1e-6) << push << " solver " << static_cast<int>(solver);
      Vector3<double> total = Vector3<double>::Zero();
      for (int k = 0; k < 4; ++k) {
        Vector3<double> f;
        ASSERT_EQ(cp.world_force(k, f), Status::ok);
        EXPECT_GE(f.z(), -1e-9);
        total += f;
      }
      EXPECT_NEAR(total.z(), mg, 1e-6 * mg) << push;
      EXPECT_NEAR((total.head<2>() + F.head<2>()).norm(), 0.0, 1e-6 * mg) << push;
      std::printf(
          "box, push %.2f m g, %s: a = %.2g, total normal %.9g N (m g = %.9g), %d pivots / %d iterations, guess %s\n",
          push,
          solver == ContactSolver::lemke ? "Lemke"
          : solver == ContactSolver::pgs ? "PGS"
                                         : "ADMM",
          a.cwiseAbs().maxCoeff(), total.z(), mg, rep.lcp.pivots, rep.cone.iterations, talus::to_string(rep.guess));
    }
    Box::TangentVector a;
    EXPECT_EQ(talus::forward_dynamics_direct(model, data, *bil, q, v, tau, a), Status::singular);
    talus::ProximalReport<double> prep;
    ASSERT_EQ(talus::forward_dynamics_proximal(model, data, *bil, q, v, tau, a, talus::ProximalSettings<double>{},
                                               prep),
              Status::ok);
    EXPECT_NEAR(a.cwiseAbs().maxCoeff(), 0.0, 1e-9);
    double nz = 0;
    for (int k = 0; k < 4; ++k) nz += bil->lambda(3 * k);
    EXPECT_NEAR(nz, mg, 1e-9 * mg);
    std::printf("box, push %.2f m g, proximal (welded corners): %d iterations, residual %.3g\n", push, prep.iterations,
                prep.residual);
  }
  // a time step at rest: every solver keeps it at rest (v⁺ = 0) with the weight's impulse m g h
  const double h = 1e-3;
  for (ContactSolver solver : {ContactSolver::lemke, ContactSolver::pgs, ContactSolver::admm}) {
    BoxProblem& cp = solver == ContactSolver::lemke ? poly : exact;
    BoxOptions o;
    o.solver = solver;
    Box::ConfigVector qn;
    Box::TangentVector vn;
    talus::ContactReport<double> rep;
    ASSERT_EQ(talus::time_step_contact(model, data, cp, q, v, Box::TangentVector::Zero(), h, qn, vn, o, rep),
              Status::ok);
    EXPECT_NEAR(vn.cwiseAbs().maxCoeff(), 0.0, 1e-7) << static_cast<int>(solver);
    double pz = 0;
    for (int k = 0; k < 4; ++k) {
      BoxProblem::ContactForce f;
      ASSERT_EQ(cp.force(k, f), Status::ok);
      pz += f[0];
    }
    EXPECT_NEAR(pz, mg * h, 1e-7 * mg * h) << static_cast<int>(solver);
  }
}

// The box sliding on four exact corners at acceleration level (linear velocity v_t ≠ 0, no
// spin). Hand derivation: each corner's friction is −μ f_n,k v̂, so the total is −μ m g v̂ and the
// box decelerates at a = −μ g v̂ without rotating (the normal forces shift forward until their
// moment balances the friction's pitch moment, μ c/2 · m g ≤ a/2 · m g: no tipping); every corner
// pushes, total normal force m g. The split between the corners is not unique (redundant), the
// motion is. The kinetic friction's column couples the corners (D_nt ≠ 0 off the centre): PGS
// and ADMM go through the split passes (cone_forces); Lemke's polygon is the reference.
// One corner alone (the box tips about it) has the diagonal term c of both signs (v̂ towards and
// away from the centre): the three solvers must agree (the answer is unique there).
TEST(ConsistencyContact, BoxSlidingOnExactCornersDeceleratesAtMuG) {
  const Box model = make_box();
  talus::Data<Box> data;
  const double mu = 0.5, mg = kBoxMass * g0;
  Box::ConfigVector q;
  q << 0.1, -0.2, kC / 2, 1, 0, 0, 0;
  const Box::TangentVector tau = Box::TangentVector::Zero();
  for (double vang : {0.0, 0.6, 2.2}) {
    const Vector3<double> vhat(std::cos(vang), std::sin(vang), 0);
    Box::TangentVector v = Box::TangentVector::Zero();
    v.tail<3>() = 0.4 * vhat;  // [ω; v] in the body frame (aligned with the world here)
    Box::TangentVector a_lemke = Box::TangentVector::Zero();
    for (ContactSolver solver : {ContactSolver::lemke, ContactSolver::pgs, ContactSolver::admm}) {
      BoxProblem cp;
      for (int k = 0; k < 4; ++k)
        ASSERT_EQ(cp.add_contact(0, corner(k), kZ, mu, 4,
                                 solver == ContactSolver::lemke ? ConeModel::polygon : ConeModel::exact),
                  Status::ok);
      BoxOptions o;
      o.solver = solver;
      // q̈'s error follows the cone residuals (the default relative tolerance √ε leaves ~1e-6 rad/s²
      // of spin): a tighter tolerance, and PGS on a redundant set needs many sweeps (~650 at √ε)
      o.cone.relative_tolerance = 1e-10;
      o.cone.max_iterations = 5000;
      Box::TangentVector a;
      talus::ContactReport<double> rep;
      ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, q, v, tau, a, o, rep), Status::ok)
          << static_cast<int>(solver) << " " << talus::to_string(cp.failure().reason) << ": " << rep.cone.iterations
          << " iterations"
          << " exit " << static_cast<int>(rep.cone.exit) << " res " << rep.cone.primal_residual << " "
          << rep.cone.dual_residual << " " << rep.cone.complementarity;
      EXPECT_EQ(rep.sliding, 4);
      EXPECT_NEAR(a.head<3>().norm(), 0.0, 1e-6) << "no rotation, solver " << static_cast<int>(solver);
      EXPECT_NEAR((a.tail<3>() + mu * g0 * vhat).norm(), 0.0, 1e-6)
          << "a = -mu g vhat, solver " << static_cast<int>(solver);
      double fn = 0;
      for (int k = 0; k < 4; ++k) {
        Vector3<double> f;
        ASSERT_EQ(cp.world_force(k, f), Status::ok);
        EXPECT_GE(f.z(), -1e-9);
        EXPECT_NEAR((f.head<2>() + mu * f.z() * vhat.head<2>()).norm(), 0.0, 1e-9 * mg) << "friction opposite v_t";
        fn += f.z();
      }
      EXPECT_NEAR(fn, mg, 1e-6 * mg);
      if (solver == ContactSolver::lemke) a_lemke = a;
      else EXPECT_LE((a - a_lemke).cwiseAbs().maxCoeff(), 1e-6);
      std::printf(
          "box sliding (v angle %.1f), %s: |a + mu g vhat| = %.2g, %d pivots / %d iterations, residuals %.2g %.2g %.2g\n",
          vang,
          solver == ContactSolver::lemke ? "Lemke"
          : solver == ContactSolver::pgs ? "PGS"
                                         : "ADMM",
          (a.tail<3>() + mu * g0 * vhat).norm(), rep.lcp.pivots, rep.cone.iterations, rep.cone.primal_residual,
          rep.cone.dual_residual, rep.cone.complementarity);
    }
  }
  // one corner, sliding along ±x and ±y: unique answer, Lemke = PGS = ADMM
  for (int dirn = 0; dirn < 4; ++dirn) {
    Box::TangentVector v = Box::TangentVector::Zero();
    v[3 + dirn / 2] = dirn % 2 ? -0.4 : 0.4;
    Box::TangentVector a_ref = Box::TangentVector::Zero();
    Vector3<double> f_ref = Vector3<double>::Zero();
    for (ContactSolver solver : {ContactSolver::lemke, ContactSolver::pgs, ContactSolver::admm}) {
      BoxProblem cp;
      ASSERT_EQ(cp.add_contact(0, corner(3), kZ, mu, 4,
                               solver == ContactSolver::lemke ? ConeModel::polygon : ConeModel::exact),
                Status::ok);
      BoxOptions o;
      o.solver = solver;
      o.cone.relative_tolerance = 1e-12;
      o.cone.max_iterations = 500;
      Box::TangentVector a;
      talus::ContactReport<double> rep;
      ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, q, v, tau, a, o, rep), Status::ok)
          << dirn << " " << static_cast<int>(solver) << " " << talus::to_string(cp.failure().reason);
      Vector3<double> f;
      ASSERT_EQ(cp.world_force(0, f), Status::ok);
      EXPECT_GT(f.z(), 0.0);
      EXPECT_NEAR((f.head<2>() + mu * f.z() * v.tail<3>().head<2>().normalized()).norm(), 0.0, 1e-9 * mg);
      if (solver == ContactSolver::lemke) {
        a_ref = a;
        f_ref = f;
      } else {
        EXPECT_LE((a - a_ref).cwiseAbs().maxCoeff(), 1e-8 * (1 + a_ref.cwiseAbs().maxCoeff()))
            << dirn << " " << static_cast<int>(solver);
        EXPECT_LE((f - f_ref).norm(), 1e-8 * mg) << dirn << " " << static_cast<int>(solver);
      }
      std::printf("box on one corner sliding (%d), %s: f_n %.6f N, %d iterations\n", dirn,
                  solver == ContactSolver::lemke ? "Lemke"
                  : solver == ContactSolver::pgs ? "PGS"
                                                 : "ADMM",
                  f.z(), rep.cone.iterations);
    }
  }
}

// ---- refusals, the cap, the heap -------------------------------------------------------------------------

TEST(ConsistencyContact, ConeSolverRefusalsAndCap) {
  Solo s;
  const M::TangentVector v = M::TangentVector::Zero(), tau = M::TangentVector::Zero();
  M::TangentVector a = M::TangentVector::Constant(3);
  talus::ContactReport<double> rep;
  // a polygon to PGS, a circle to Lemke: refused, naming contact 0
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.poly, s.q, v, tau, a, with(ContactSolver::pgs), rep),
            Status::invalid_input);
  EXPECT_EQ(s.poly->failure().reason, ContactFailureReason::cone_not_supported);
  EXPECT_EQ(s.poly->failure().index, 0);
  EXPECT_EQ(a, M::TangentVector::Zero());
  // an exact cone sliding at acceleration level: kinetic friction in the normal column, as
  // Lemke's polygon has it (cone-independent): the same q̈ and forces
  M::TangentVector vs = M::TangentVector::Zero();
  vs[3] = 0.2;  // the base moving along its x: every foot slides
  M::TangentVector a_lemke = M::TangentVector::Zero();
  ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.poly, s.q, vs, tau, a_lemke,
                                            with(ContactSolver::lemke), rep),
            Status::ok);
  EXPECT_EQ(rep.sliding, 4);
  for (ContactSolver solver : {ContactSolver::pgs, ContactSolver::admm}) {
    ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.exact, s.q, vs, tau, a, tight(solver), rep),
              Status::ok)
        << talus::to_string(s.exact->failure().reason) << ": " << rep.cone.iterations << " iterations"
        << " exit " << static_cast<int>(rep.cone.exit) << " res " << rep.cone.primal_residual << " "
        << rep.cone.dual_residual << " " << rep.cone.complementarity;
    EXPECT_EQ(rep.sliding, 4);
    EXPECT_LE((a - a_lemke).cwiseAbs().maxCoeff(), 1e-7 * (1 + a_lemke.cwiseAbs().maxCoeff()))
        << static_cast<int>(solver);
    EXPECT_LE(max_force_diff(*s.exact, *s.poly), 1e-7);
    std::printf("solo12 sliding on 4 exact cones, %s: %d iterations, |a - a_lemke| = %.2g\n",
                solver == ContactSolver::pgs ? "PGS" : "ADMM", rep.cone.iterations,
                (a - a_lemke).cwiseAbs().maxCoeff());
  }
  // ... and the same state steps at velocity level
  M::ConfigVector qn;
  EXPECT_EQ(talus::time_step_contact(s.model, *s.data, *s.exact, s.q, vs, tau, 1e-3, qn, a, with(ContactSolver::pgs),
                                     rep),
            Status::ok);
  // bad cone options and a solver outside the enumerators
  Options bad = with(ContactSolver::pgs);
  bad.cone.max_iterations = 0;
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.exact, s.q, v, tau, a, bad, rep),
            Status::invalid_input);
  EXPECT_EQ(s.exact->failure().reason, ContactFailureReason::options_invalid);
  EXPECT_EQ(s.exact->failure().option, talus::ContactOption::cone);
  Options odd;
  odd.solver = static_cast<ContactSolver>(7);
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.exact, s.q, v, tau, a, odd, rep),
            Status::invalid_input);
  // the cap: one iteration at a tolerance no first sweep meets
  Options cap = with(ContactSolver::admm);
  cap.cone.max_iterations = 1;
  cap.cone.relative_tolerance = 1e-15;
  a.setConstant(3);
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.exact, s.q, v, tau, a, cap, rep),
            Status::not_converged);
  EXPECT_EQ(s.exact->failure().reason, ContactFailureReason::not_converged);
  EXPECT_EQ(a, M::TangentVector::Zero());
  for (int k = 0; k < 4; ++k) {
    Problem::ContactForce f = Problem::ContactForce::Constant(1);
    (void)s.exact->force(k, f);
    EXPECT_EQ(f, Problem::ContactForce::Zero());
  }
  EXPECT_EQ(rep.cone.iterations, 1);
  // set_cone switches a contact between the two models
  ASSERT_EQ(s.poly->set_cone(0, ConeModel::exact), Status::ok);
  EXPECT_EQ(s.poly->set_cone(9, ConeModel::exact), Status::invalid_input);
  EXPECT_EQ(s.poly->contact(0).cone, ConeModel::exact);
}

TEST(AllocContact, ConeSolversDoNotAllocate) {
  Solo s;
  M::TangentVector v = M::TangentVector::Zero(), tau = M::TangentVector::Zero(), out;
  M::ConfigVector qn;
  talus::ContactReport<double> rep;
  Options pgs = with(ContactSolver::pgs), admm = with(ContactSolver::admm);
  admm.cone.warm_start = true;
  Status st[12];
  const std::size_t calls = heap_calls([&] {
    for (int k = 0; k < 4; ++k) {
      (void)s.exact->set_active(k, false);
      st[3 * k + 0] = talus::forward_dynamics_contact(s.model, *s.data, *s.exact, s.q, v, tau, out, pgs, rep);
      st[3 * k + 1] = talus::impulses_contact(s.model, *s.data, *s.exact, s.q, v, out, admm, rep);
      st[3 * k + 2] = talus::time_step_contact(s.model, *s.data, *s.exact, s.q, v, tau, 1e-3, qn, out, admm, rep);
      (void)s.exact->set_active(k, true);
    }
  });
  EXPECT_EQ(calls, 0u);
  for (int k = 0; k < 12; ++k) EXPECT_EQ(st[k], Status::ok) << k;
}

}  // namespace
}  // namespace talus_test
