// Unilateral contacts with friction (talus/contact): acceleration level, impacts, time
// stepping. Every expectation is independent of the solver: analytic answers derived in the
// comments (a block on a plane and on an incline), the bilateral solvers of
// forward_dynamics_constrained.hpp when every contact pushes, and the complementarity
// conditions evaluated with the ConstraintSet's own rows (constraint_quantities.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <type_traits>

#include <Eigen/LU>
#include <gtest/gtest.h>

#include <talus/contact/contact_dynamics.hpp>
#include <talus/models/solo12.hpp>
#include <talus/solvers/forward_dynamics_constrained.hpp>
#include <talus/solvers/impulses.hpp>

#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"
#include "support/lcp_reference.hpp"

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

// ---- reference: row targets (ContactProblem::set_target, set_limit_target) -----------------

// The plane under the block accelerates up at a (its velocity is the block's): the row asks
// z̈ ≥ a, so the block rides along, z̈ = a, pushed by f_n = m (g + a). Below a = −g the plane
// falls away faster than the block: f_n = 0, z̈ = −g (the LCP picks the separation). Every
// solver (the target is taken out of the row's free motion, ws.free).
TEST(ReferenceContact, PlaneAcceleratingUpPushesWithMTimesGPlusA) {
  const Block model = make_block();
  talus::Data<Block> data;
  for (talus::ContactSolver solver :
       {talus::ContactSolver::lemke, talus::ContactSolver::pgs, talus::ContactSolver::admm}) {
    const bool lemke = solver == talus::ContactSolver::lemke;
    for (double a : {0.0, 3.0, -4.0, -2 * g0}) {
      BlockProblem cp;
      ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.5, 4,
                               lemke ? ConeModel::polygon : ConeModel::exact),
                Status::ok);
      ASSERT_EQ(cp.set_target(0, 0.0, a), Status::ok);
      BlockOptions o;
      o.solver = solver;
      Block::TangentVector acc;
      talus::ContactReport<double> rep;
      ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, Block::ConfigVector::Zero(),
                                                Block::TangentVector::Zero(), Block::TangentVector::Zero(), acc, o,
                                                rep),
                Status::ok);
      BlockProblem::ContactForce f;
      ASSERT_EQ(cp.force(0, f), Status::ok);
      const double fn = a > -g0 ? kMass * (g0 + a) : 0.0, az = a > -g0 ? a : -g0;
      const double tol = (lemke ? 1e-12 : 1e-6) * kMass * g0;
      EXPECT_NEAR(f[0], fn, tol) << static_cast<int>(solver) << " a " << a;
      EXPECT_NEAR(acc[2], az, tol / kMass) << static_cast<int>(solver) << " a " << a;
      EXPECT_NEAR(std::hypot(acc[0], acc[1]), 0.0, tol / kMass);
    }
  }
}

// Falling at v_z⁻ = −1, the block is asked to leave at v_target: the impulse is
// m (v_target − v_z⁻), v_z⁺ = v_target. A target beyond any restitution (e = 3 worth: 3 m/s) is
// accepted while restitution 3 is refused; a target adds to the restitution term
// (v_z⁺ = v_target + e |v_z⁻|); a block already leaving faster than the target gets no impulse.
TEST(ReferenceContact, ImpactLeavesAtTargetSeparationVelocity) {
  const Block model = make_block();
  talus::Data<Block> data;
  struct Case {
    double v_minus, target, e, v_plus;
  };
  for (const Case& k : {Case{-1, 0.7, 0, 0.7}, Case{-1, 3.0, 0, 3.0}, Case{-1, 0.2, 0.5, 0.7}, Case{1, 0.5, 0, 1},
                        Case{1, 2.0, 0, 2.0}}) {
    BlockProblem cp;
    ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.3), Status::ok);
    ASSERT_EQ(cp.set_target(0, k.target), Status::ok);
    BlockOptions o;
    o.restitution = k.e;
    const Block::TangentVector vm(0, 0, k.v_minus);
    Block::TangentVector vp;
    talus::ContactReport<double> rep;
    ASSERT_EQ(talus::impulses_contact(model, data, cp, Block::ConfigVector::Zero(), vm, vp, o, rep), Status::ok);
    EXPECT_NEAR((vp - Vector3<double>(0, 0, k.v_plus)).norm(), 0.0, 1e-12) << k.v_minus << " " << k.target;
    BlockProblem::ContactForce p;
    ASSERT_EQ(cp.force(0, p), Status::ok);
    EXPECT_NEAR(p[0], kMass * (k.v_plus - k.v_minus), 1e-12) << k.v_minus << " " << k.target;
  }
  // restitution outside [0, 1] stays refused (outputs zero); a bad target is refused at set_target
  BlockProblem cp;
  ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.3), Status::ok);
  BlockOptions o;
  o.restitution = 3;
  Block::TangentVector vp = Block::TangentVector::Ones();
  talus::ContactReport<double> rep;
  EXPECT_EQ(talus::impulses_contact(model, data, cp, Block::ConfigVector::Zero(), Block::TangentVector(0, 0, -1), vp, o,
                                    rep),
            Status::invalid_input);
  EXPECT_TRUE(vp.isZero(0.0));
  EXPECT_EQ(cp.set_target(0, std::numeric_limits<double>::quiet_NaN()), Status::invalid_input);
  EXPECT_EQ(cp.failure().reason, ContactFailureReason::input_invalid);
  EXPECT_EQ(cp.set_target(0, 0.0, 2e9), Status::invalid_input);
  EXPECT_EQ(cp.set_target(1, 0.0), Status::invalid_input);
  EXPECT_EQ(cp.failure().reason, ContactFailureReason::index_out_of_range);
}

// A time step on a plane rising at v_p (the anchor where the plane is now, gap 0): the row asks
// v_z⁺ ≥ v_p (so the gap stays ≥ 0 after the step), the block leaves with the plane,
// v_z⁺ = v_p, impulse m (v_p + g h) (it also cancels the step's weight).
TEST(ReferenceContact, TimeStepOnRisingPlaneMovesWithIt) {
  const Block model = make_block();
  talus::Data<Block> data;
  const double h = 1e-3, vp_plane = 0.3;
  BlockProblem cp;
  ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.3), Status::ok);
  ASSERT_EQ(cp.set_target(0, vp_plane), Status::ok);
  Block::ConfigVector qn;
  Block::TangentVector vn;
  talus::ContactReport<double> rep;
  ASSERT_EQ(talus::time_step_contact(model, data, cp, Block::ConfigVector::Zero(), Block::TangentVector::Zero(),
                                     Block::TangentVector::Zero(), h, qn, vn, BlockOptions{}, rep),
            Status::ok);
  EXPECT_NEAR((vn - Vector3<double>(0, 0, vp_plane)).norm(), 0.0, 1e-13);
  EXPECT_NEAR(qn[2], h * vp_plane, 1e-15);
  BlockProblem::ContactForce p;
  ASSERT_EQ(cp.force(0, p), Status::ok);
  EXPECT_NEAR(p[0], kMass * (vp_plane + g0 * h), 1e-13);
}

// A joint-limit row's target: the block's z joint at its lower limit 0 (no contact), the row
// asks z̈ ≥ a: the limit pushes m (g + a) (acceleration level). The upper row's target is along
// its own row, −z̈ ≥ a: at the upper limit 1 with a = 2 gravity already gives −z̈ = g ≥ 2 (no
// force); with a = 12 > g the row pulls down with m (12 − g).
TEST(ReferenceContact, JointLimitRowTarget) {
  Block model = make_block();
  model.lower_position_limit[2] = 0.0;
  model.upper_position_limit[2] = 1.0;
  talus::Data<Block> data;
  using LimitProblem = talus::ContactProblem<Block, 1, 8, 1>;
  LimitProblem cp;
  ASSERT_EQ(cp.add_joint_limits(model), Status::ok);
  ASSERT_EQ(cp.limits(), 1);
  const double a = 1.5;
  ASSERT_EQ(cp.set_limit_target(0, 0, 0.0, a), Status::ok);
  ASSERT_EQ(cp.set_limit_target(0, 1, 0.0, 2.0), Status::ok);
  EXPECT_EQ(cp.set_limit_target(0, 2, 0.0, 0.0), Status::invalid_input);
  EXPECT_EQ(cp.set_limit_target(1, 0, 0.0, 0.0), Status::invalid_input);
  talus::ContactOptions<double, LimitProblem::max_lcp> o;
  Block::TangentVector acc;
  talus::ContactReport<double> rep;
  ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, Block::ConfigVector::Zero(), Block::TangentVector::Zero(),
                                            Block::TangentVector::Zero(), acc, o, rep),
            Status::ok);
  EXPECT_NEAR(acc[2], a, 1e-12);
  EXPECT_NEAR(cp.limit_force(0, 0), kMass * (g0 + a), 1e-12);
  const Block::ConfigVector q_top(0, 0, 1.0);
  ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, q_top, Block::TangentVector::Zero(),
                                            Block::TangentVector::Zero(), acc, o, rep),
            Status::ok);
  EXPECT_NEAR(acc[2], -g0, 1e-12);
  EXPECT_EQ(cp.limit_force(0, 1), 0.0);
  // asking −z̈ ≥ 12 > g at the top: the upper row pulls down with m (12 − g)
  ASSERT_EQ(cp.set_limit_target(0, 1, 0.0, 12.0), Status::ok);
  ASSERT_EQ(talus::forward_dynamics_contact(model, data, cp, q_top, Block::TangentVector::Zero(),
                                            Block::TangentVector::Zero(), acc, o, rep),
            Status::ok);
  EXPECT_NEAR(acc[2], -12.0, 1e-12);
  EXPECT_NEAR(cp.limit_force(0, 1), kMass * (12.0 - g0), 1e-12);
}

// ---- reference: a bilateral velocity target at an impact (Drake's kG) ----------------------

// The block falls at v⁻ = (1, 0, −1) onto a frictionless plane, with one bilateral row along x
// (ConstraintSet contact with the single normal x) asked to leave at G v⁺ = w: v⁺ = (w, 0, 0),
// bilateral impulse λ = m (w − 1), contact impulse m·1. w = 0 is the plain overload's answer.
TEST(ReferenceContact, ImpactWithBilateralVelocityTarget) {
  const Block model = make_block();
  talus::Data<Block> data;
  using XSet = talus::ConstraintSet<Block, 3, 1>;
  XSet cs;
  ASSERT_EQ(cs.add_contact(2, Vector3<double>::Zero(), {Vector3<double>::UnitX()}), Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);
  BlockProblem cp;
  ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.0), Status::ok);
  const Block::TangentVector vm(1, 0, -1);
  for (double w : {0.0, 0.25, -2.0}) {
    Eigen::Matrix<double, 1, 1> target;
    target << w;
    Block::TangentVector vp;
    talus::ContactReport<double> rep;
    ASSERT_EQ(talus::impulses_contact(model, data, cp, cs, Block::ConfigVector::Zero(), vm, target, vp, BlockOptions{},
                                      rep),
              Status::ok);
    EXPECT_NEAR((vp - Vector3<double>(w, 0, 0)).norm(), 0.0, 1e-12) << w;
    EXPECT_NEAR(cs.lambda(0), kMass * (w - 1), 1e-12) << w;
    BlockProblem::ContactForce p;
    ASSERT_EQ(cp.force(0, p), Status::ok);
    EXPECT_NEAR(p[0], kMass * 1.0, 1e-12) << w;
    if (w == 0.0) {
      Block::TangentVector vp0;
      ASSERT_EQ(talus::impulses_contact(model, data, cp, cs, Block::ConfigVector::Zero(), vm, vp0, BlockOptions{}, rep),
                Status::ok);
      EXPECT_EQ((vp0 - vp).cwiseAbs().maxCoeff(), 0.0);
    }
  }
  // a target of the wrong size or not finite: invalid_input, outputs zero
  Block::TangentVector vp = Block::TangentVector::Ones();
  talus::ContactReport<double> rep;
  const Eigen::Vector2d two(0.1, 0.2);
  EXPECT_EQ(talus::impulses_contact(model, data, cp, cs, Block::ConfigVector::Zero(), vm, two, vp, BlockOptions{}, rep),
            Status::invalid_input);
  EXPECT_TRUE(vp.isZero(0.0));
  EXPECT_EQ(cp.failure().reason, ContactFailureReason::input_invalid);
  Eigen::Matrix<double, 1, 1> bad;
  bad << std::numeric_limits<double>::infinity();
  vp.setOnes();
  EXPECT_EQ(talus::impulses_contact(model, data, cp, cs, Block::ConfigVector::Zero(), vm, bad, vp, BlockOptions{}, rep),
            Status::invalid_input);
  EXPECT_TRUE(vp.isZero(0.0));
  BlockProblem::ContactForce p;
  ASSERT_EQ(cp.force(0, p), Status::ok);
  EXPECT_TRUE(p.isZero(0.0));
}

// ---- reference: rigid time stepping (cfm exactly 0) -----------------------------------------

// A block resting on the plane, one rigid step (stiffness ∞: cfm = 0, erp = 1): the impulse is
// exactly the step's weight m g h, v⁺ = 0, with every solver (the hand-derived value to
// rounding). A hard but finite contact (k = 1e6 N/m, b = 1e12 N·s/m: the largest damping) has
// cfm = 1/(h k + b) > 0 and its force is the rigid one divided by 1 + m cfm/h (the 1-row LCP
// (1/m + cfm/h) p = g h): 2e-9 relative here, so the rigid value needs k = ∞, which any
// damping leaves rigid.
TEST(ReferenceContact, RigidTimeStepHasExactlyZeroCfm) {
  const Block model = make_block();
  talus::Data<Block> data;
  const double h = 1e-3, rigid = kMass * g0 * h;
  for (talus::ContactSolver solver :
       {talus::ContactSolver::lemke, talus::ContactSolver::pgs, talus::ContactSolver::admm}) {
    const bool lemke = solver == talus::ContactSolver::lemke;
    for (int variant = 0; variant < 3; ++variant) {  // rigid; rigid with damping; hard but finite
      BlockProblem cp;
      ASSERT_EQ(cp.add_contact(2, Vector3<double>::Zero(), Vector3<double>::UnitZ(), 0.5, 4,
                               lemke ? ConeModel::polygon : ConeModel::exact),
                Status::ok);
      BlockOptions o;
      o.solver = solver;
      if (variant == 1) o.damping = 1e12;
      if (variant == 2) {
        o.stiffness = 1e6;
        o.damping = 1e12;
      }
      for (bool guess : {true, false}) {
        o.sticking_guess = guess;
        Block::ConfigVector qn;
        Block::TangentVector vn;
        talus::ContactReport<double> rep;
        ASSERT_EQ(talus::time_step_contact(model, data, cp, Block::ConfigVector::Zero(), Block::TangentVector::Zero(),
                                           Block::TangentVector::Zero(), h, qn, vn, o, rep),
                  Status::ok);
        BlockProblem::ContactForce p;
        ASSERT_EQ(cp.force(0, p), Status::ok);
        const double cfm = variant == 2 ? 1 / (h * o.stiffness + o.damping) : 0.0;
        const double expected = rigid / (1 + kMass * cfm / h);
        const double tol = lemke || guess ? 1e-14 : 1e-7;  // PGS/ADMM from 0: their tolerance
        EXPECT_NEAR(p[0] / expected - 1, 0.0, tol)
            << static_cast<int>(solver) << " variant " << variant << " guess " << guess;
        if (variant == 2) {
          EXPECT_GT(std::abs(p[0] / rigid - 1), 1e-9) << "a finite k is not rigid";
        } else {
          EXPECT_NEAR(p[0] / rigid - 1, 0.0, tol);
        }
        EXPECT_NEAR(vn[2], (p[0] - rigid) / kMass, 1e-15);
      }
    }
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
      EXPECT_EQ(bil->add_contact(model, f,
                                 {Vector3<double>::UnitZ(), Vector3<double>::UnitX(), Vector3<double>::UnitY()}),
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
  ASSERT_EQ(one->add_contact(s.model, kFeet[0],
                             {Vector3<double>::UnitZ(), Vector3<double>::UnitX(), Vector3<double>::UnitY()}),
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
    ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.cp, *one, s.q, v, tau, a, Options{}, rep),
              Status::ok);
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
        EXPECT_NEAR((f - Vector3<double>(L[3 * k + 1], L[3 * k + 2], L[3 * k])).norm(), 0.0, 1e-8)
            << trial << " foot " << k;
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
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, cp, s.q, v, tau, a, Options{}, rep),
            Status::invalid_input);
  EXPECT_EQ(a, M::TangentVector::Zero());
  tau[7] = 0;
  M::ConfigVector qbad = s.q;
  qbad[3] = 2;  // unnormalised quaternion
  a.setConstant(7);
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, cp, qbad, v, tau, a, Options{}, rep),
            Status::invalid_input);
  EXPECT_EQ(cp.failure().reason, ContactFailureReason::q_invalid);
  EXPECT_EQ(a, M::TangentVector::Zero());
  Options o;
  o.restitution = 2;
  EXPECT_EQ(talus::impulses_contact(s.model, *s.data, cp, s.q, v, a, o, rep), Status::invalid_input);
  M::ConfigVector qn;
  EXPECT_EQ(talus::time_step_contact(s.model, *s.data, cp, s.q, v, tau, -1e-3, qn, a, Options{}, rep),
            Status::invalid_input);
  EXPECT_EQ(qn, M::ConfigVector::Zero());
  ASSERT_EQ(cp.set_friction(0, 0.5, 4), Status::ok);
  EXPECT_EQ(cp.set_friction(7, 0.5, 4), Status::invalid_input);
  EXPECT_EQ(cp.set_friction(0, nan, 4), Status::invalid_input);
  EXPECT_EQ(cp.set_contact_plane(0, Vector3<double>(0, 0, 2), Vector3<double>::Zero()), Status::invalid_input);
  // an exact cone is for the iterative solvers: Lemke refuses it, naming the contact
  Problem ex;
  ASSERT_EQ(ex.add_contact(s.model, kFeet[0], Vector3<double>::UnitZ(), 0.5, 4, ConeModel::exact), Status::ok);
  EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, ex, s.q, v, tau, a, Options{}, rep),
            Status::invalid_input);
  EXPECT_EQ(ex.failure().reason, ContactFailureReason::cone_not_supported);
  EXPECT_EQ(ex.failure().index, 0);
}

// ---- float: the active-set recovery (active_set_recovery.hpp) -----------------------------
//
// State 7 of the on-target reference (targets/host/contact_reference.cpp: seed 20240601, the
// same draws), solo12 at rest on its four feet, μ = 0.7, 4-edge polygons: the feet's forces
// nearly cancel gravity, so q̈ is small beside the free fall x_b, and recovering it as
// x_b + P Aᵀ φ from float Lemke's φ (error ~ κ(basis) eps_f) came out 4 % off. Against the
// double solve of the same (float-rounded) inputs, float q̈ must be within the tolerance of
// the on-target check (32·eps_f·κ_q̈, κ_q̈ = 5.0e3 there: 1.9e-2) with a wide margin, and the
// forces likewise; the recovery must have replaced the LCP's answer with a smaller physical
// residual. With the recovery off the same solve is measurably worse (what this test catches).
namespace refstate {
struct Inputs {
  M::ConfigVector q;
  M::TangentVector tau;
};
Inputs reference_state(const M& model, int state) {
  talus::Random rng(20240601);
  Inputs in;
  for (int s = 0; s <= state; ++s) {
    talus::random_configuration(model, rng, in.q);
    for (int k = 0; k < M::nv; ++k) {
      (void)rng.uniform(-1, 1);  // v
      (void)rng.uniform(-1, 1);  // a
      in.tau[k] = rng.uniform(-1, 1);
    }
  }
  return in;
}
}  // namespace refstate

template <class S>
struct FeetSolve {
  using MS = solo::Model<S>;
  using P = talus::ContactProblem<MS, 4, 4>;
  MS model = solo::make_model<S>();
  std::unique_ptr<talus::Data<MS>> data = std::make_unique<talus::Data<MS>>();
  std::unique_ptr<P> cp = std::make_unique<P>();
  typename MS::TangentVector ddq;
  Eigen::Matrix<double, 12, 1> f;
  talus::ContactReport<S> report;
  FeetSolve() {
    for (int foot : kFeet) EXPECT_EQ(cp->add_contact(model, foot, Vector3<S>::UnitZ(), S(0.7), 4), Status::ok);
  }
  template <class Set = void>
  Status solve(const refstate::Inputs& in, bool recovery, Set* set = nullptr) {
    talus::ContactOptions<S, P::max_lcp> o;
    o.active_set_recovery = recovery;
    const typename MS::ConfigVector q = in.q.template cast<S>();
    const typename MS::TangentVector v = MS::TangentVector::Zero(), tau = in.tau.template cast<S>();
    Status s;
    if constexpr (std::is_void_v<Set>)
      s = talus::forward_dynamics_contact(model, *data, *cp, q, v, tau, ddq, o, report);
    else s = talus::forward_dynamics_contact(model, *data, *cp, *set, q, v, tau, ddq, o, report);
    for (int i = 0; i < 4; ++i) {
      typename P::ContactForce c;
      EXPECT_EQ(cp->force(i, c), Status::ok);
      f.segment<3>(3 * i) = c.template cast<double>();
    }
    return s;
  }
};

double rel_max(const Eigen::VectorXd& x, const Eigen::VectorXd& r, double floor = 0) {
  return (x - r).cwiseAbs().maxCoeff() / std::max(floor, r.cwiseAbs().maxCoeff());
}

TEST(FloatContact, ActiveSetRecoveryFixesLemkeAtReferenceState7) {
  FeetSolve<double> d;
  FeetSolve<float> fl;
  refstate::Inputs in = refstate::reference_state(d.model, 7);
  // the float inputs, exactly: double solves the same rounded problem
  in.q = in.q.cast<float>().cast<double>();
  in.tau = in.tau.cast<float>().cast<double>();
  ASSERT_EQ(talus::normalize(d.model, in.q), Status::ok);
  ASSERT_EQ(d.solve(in, true), Status::ok);
  const Eigen::VectorXd ddq_ref = d.ddq;
  const Eigen::VectorXd f_ref = d.f;
  ASSERT_EQ(fl.solve(in, false), Status::ok);
  const double plain_x = rel_max(fl.ddq.cast<double>(), ddq_ref), plain_f = rel_max(fl.f, f_ref, 1e-3);
  ASSERT_EQ(fl.solve(in, true), Status::ok);
  const double rec_x = rel_max(fl.ddq.cast<double>(), ddq_ref), rec_f = rel_max(fl.f, f_ref, 1e-3);
  std::printf(
      "state 7 float vs double: q̈ %.3g -> %.3g, forces %.3g -> %.3g; physical residual %.3g -> %.3g (%d unknowns)\n",
      plain_x, rec_x, plain_f, rec_f, static_cast<double>(fl.report.recovery.residual_lcp),
      static_cast<double>(fl.report.recovery.residual), fl.report.recovery.active);
  EXPECT_TRUE(fl.report.recovery.applied);
  EXPECT_LE(fl.report.recovery.residual, fl.report.recovery.residual_lcp);
  EXPECT_LT(rec_x, 1e-4) << "float q̈ against double (tolerance of the on-target check: 1.9e-2)";
  EXPECT_LT(rec_f, 1e-4);
  EXPECT_GT(plain_x, 100 * rec_x) << "without the recovery the same solve should be visibly worse";
  // in double the recovery changes nothing beyond rounding
  const Eigen::VectorXd f_rec = d.f;
  ASSERT_EQ(d.solve(in, false), Status::ok);
  EXPECT_LT(rel_max(Eigen::VectorXd(d.ddq), ddq_ref), 1e-12);
  EXPECT_LT(rel_max(d.f, f_rec, 1e-3), 1e-12);
}

// The same with a bilateral row beside the feet (the FL shoulder held along x: P ≠ H⁻¹), at
// the 20 reference states: float with the recovery against double, and double with and
// without it equal up to rounding.
TEST(FloatContact, ActiveSetRecoveryWithBilateralRows) {
  FeetSolve<double> d;
  FeetSolve<float> fl;
  auto set_d = std::make_unique<talus::ConstraintSet<M, 12, 4>>();
  auto set_f = std::make_unique<talus::ConstraintSet<solo::Model<float>, 12, 4>>();
  ASSERT_EQ(set_d->add_contact(d.model, solo::frame_id("FL_SHOULDER"), {Vector3<double>::UnitX()}), Status::ok);
  ASSERT_EQ(set_f->add_contact(fl.model, solo::frame_id("FL_SHOULDER"), {Vector3<float>::UnitX()}), Status::ok);
  ASSERT_EQ(set_d->bind(d.model), Status::ok);
  ASSERT_EQ(set_f->bind(fl.model), Status::ok);
  int applied = 0;
  double worst_x = 0, worst_f = 0, worst_plain_x = 0, worst_double = 0;
  for (int state = 0; state < 20; ++state) {
    refstate::Inputs in = refstate::reference_state(d.model, state);
    in.q = in.q.cast<float>().cast<double>();
    in.tau = in.tau.cast<float>().cast<double>();
    ASSERT_EQ(talus::normalize(d.model, in.q), Status::ok);
    ASSERT_EQ(d.solve(in, false, set_d.get()), Status::ok) << state;
    const Eigen::VectorXd x0 = d.ddq, f0 = d.f;
    ASSERT_EQ(d.solve(in, true, set_d.get()), Status::ok) << state;
    worst_double = std::max(worst_double, std::max(rel_max(Eigen::VectorXd(d.ddq), x0), rel_max(d.f, f0, 1e-3)));
    ASSERT_EQ(fl.solve(in, false, set_f.get()), Status::ok) << state;
    worst_plain_x = std::max(worst_plain_x, rel_max(fl.ddq.cast<double>(), Eigen::VectorXd(d.ddq)));
    ASSERT_EQ(fl.solve(in, true, set_f.get()), Status::ok) << state;
    applied += fl.report.recovery.applied;
    const double ex = rel_max(fl.ddq.cast<double>(), Eigen::VectorXd(d.ddq)), ef = rel_max(fl.f, d.f, 1e-3);
    worst_x = std::max(worst_x, ex);
    worst_f = std::max(worst_f, ef);
    EXPECT_LT(ex, 2e-3) << state;
    EXPECT_LT(ef, 2e-3) << state;
  }
  std::printf(
      "bilateral row present, 20 states: float vs double worst q̈ %.3g (without the recovery %.3g), forces %.3g; "
      "recovery applied at %d; double with/without %.3g\n",
      worst_x, worst_plain_x, worst_f, applied, worst_double);
  EXPECT_GE(applied, 5);
  EXPECT_LT(worst_double, 1e-12);
}

// One reason per input (issue "ok means right", item 5): a bad q̇, τ, fext, h, or each option
// is refused with its own reason (and, for an option, which one), outputs zero, at every level
// it applies to; the baseline call with every input valid is ok.
TEST(ConsistencyContact, EachBadInputHasItsOwnReason) {
  using talus::ContactOption;
  Solo s(0.5);
  Problem& cp = *s.cp;
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const M::TangentVector v0 = M::TangentVector::Zero(), tau0 = M::TangentVector::Zero();
  M::TangentVector vbad = v0, taubad = tau0;
  vbad[4] = nan;
  taubad[9] = 2 * talus::input_limits::magnitude;
  talus::ExternalForces<M> f0 = talus::zero_external_forces<M>(), fbad = f0;
  fbad[3][2] = inf;
  talus::ContactReport<double> rep;
  M::TangentVector a;
  M::ConfigVector qn;
  enum Level { acc, imp, step };
  const auto run = [&](Level level, const M::TangentVector& v, const M::TangentVector& tau,
                       const talus::ExternalForces<M>* f, double h, const Options& o) {
    a.setConstant(7);
    qn.setConstant(7);
    Status st = Status::ok;
    if (level == acc) st = talus::forward_dynamics_contact(s.model, *s.data, cp, s.q, v, tau, a, o, rep, f);
    if (level == imp) st = talus::impulses_contact(s.model, *s.data, cp, s.q, v, a, o, rep);
    if (level == step) st = talus::time_step_contact(s.model, *s.data, cp, s.q, v, tau, h, qn, a, o, rep, f);
    return st;
  };
  const auto expect = [&](const char* what, Status st, ContactFailureReason why, ContactOption option, Level level) {
    SCOPED_TRACE(what);
    SCOPED_TRACE(level);
    EXPECT_EQ(st, Status::invalid_input);
    EXPECT_EQ(cp.failure().status, Status::invalid_input);
    EXPECT_EQ(cp.failure().reason, why) << talus::to_string(cp.failure().reason);
    EXPECT_EQ(cp.failure().option, option) << talus::to_string(cp.failure().option);
    EXPECT_EQ(cp.failure().index, -1);
    EXPECT_EQ(a, M::TangentVector::Zero());
    if (level == step) {
      EXPECT_EQ(qn, M::ConfigVector::Zero());
    }
  };
  const Options good;
  for (Level level : {acc, imp, step}) {
    ASSERT_EQ(run(level, v0, tau0, &f0, 1e-3, good), Status::ok) << "the baseline is ok: " << level;
    EXPECT_EQ(cp.failure().option, ContactOption::none);
    expect("v NaN", run(level, vbad, tau0, &f0, 1e-3, good), ContactFailureReason::v_invalid, ContactOption::none,
           level);
  }
  for (Level level : {acc, step}) {
    expect("tau beyond magnitude", run(level, v0, taubad, &f0, 1e-3, good), ContactFailureReason::tau_invalid,
           ContactOption::none, level);
    expect("fext Inf", run(level, v0, tau0, &fbad, 1e-3, good), ContactFailureReason::fext_invalid, ContactOption::none,
           level);
  }
  for (double h : {-1e-3, 0.0, nan, 11.0})
    expect("h outside (0, 10]", run(step, v0, tau0, nullptr, h, good), ContactFailureReason::step_invalid,
           ContactOption::none, step);

  struct OptionCase {
    const char* what;
    void (*set)(Options&);
    ContactOption option;
  };
  const OptionCase options[] = {
      {"solver 7", [](Options& o) { o.solver = static_cast<talus::ContactSolver>(7); }, ContactOption::solver},
      {"restitution 2", [](Options& o) { o.restitution = 2; }, ContactOption::restitution},
      {"restitution -0.1", [](Options& o) { o.restitution = -0.1; }, ContactOption::restitution},
      {"softening NaN", [](Options& o) { o.softening = std::nan(""); }, ContactOption::softening},
      {"softening -1", [](Options& o) { o.softening = -1; }, ContactOption::softening},
      {"stiffness -1", [](Options& o) { o.stiffness = -1; }, ContactOption::stiffness},
      {"stiffness NaN", [](Options& o) { o.stiffness = std::nan(""); }, ContactOption::stiffness},
      {"damping 1e13", [](Options& o) { o.damping = 1e13; }, ContactOption::damping},
      {"margin -0.01", [](Options& o) { o.margin = -0.01; }, ContactOption::margin},
      {"margin NaN", [](Options& o) { o.margin = std::nan(""); }, ContactOption::margin},
      {"lcp pivot tolerance -1", [](Options& o) { o.lcp.pivot_tolerance = -1; }, ContactOption::lcp},
      {"lcp max pivots -1", [](Options& o) { o.lcp.max_pivots = -1; }, ContactOption::lcp},
  };
  for (const OptionCase& c : options) {
    Options o;
    c.set(o);
    for (Level level : {acc, imp, step})
      expect(c.what, run(level, v0, tau0, nullptr, 1e-3, o), ContactFailureReason::options_invalid, c.option, level);
  }
  {  // the cone solvers' options, when PGS or ADMM solves (refused before the cone/solver
     // mismatch of these polygon feet: the option is named, not the contact)
    Options o;
    o.solver = talus::ContactSolver::pgs;
    o.cone.max_iterations = 0;
    expect("cone max_iterations 0", run(acc, v0, tau0, nullptr, 1e-3, o), ContactFailureReason::options_invalid,
           ContactOption::cone, acc);
  }
  {  // k = b = 0: cfm = 1/(h k + b) is not finite (time stepping only)
    Options o;
    o.stiffness = 0;
    o.damping = 0;
    expect("k = b = 0", run(step, v0, tau0, nullptr, 1e-3, o), ContactFailureReason::options_invalid,
           ContactOption::compliance, step);
    EXPECT_EQ(run(acc, v0, tau0, nullptr, 1e-3, o), Status::ok) << "k and b do not enter the acceleration level";
  }
  cp.sliding_speed = -1;
  expect("sliding_speed -1", run(acc, v0, tau0, nullptr, 1e-3, good), ContactFailureReason::options_invalid,
         ContactOption::sliding_speed, acc);
  cp.sliding_speed = 1e-4;
  cp.limit_margin = nan;
  expect("limit_margin NaN", run(imp, v0, tau0, nullptr, 1e-3, good), ContactFailureReason::options_invalid,
         ContactOption::limit_margin, imp);
  cp.limit_margin = 1e-3;
  EXPECT_EQ(run(acc, v0, tau0, nullptr, 1e-3, good), Status::ok);
  EXPECT_EQ(cp.failure().reason, ContactFailureReason::none) << "success clears the record";
  EXPECT_EQ(cp.failure().option, ContactOption::none);
  for (auto r : {ContactFailureReason::v_invalid, ContactFailureReason::tau_invalid, ContactFailureReason::fext_invalid,
                 ContactFailureReason::step_invalid, ContactFailureReason::options_invalid})
    EXPECT_STRNE(talus::to_string(r), "unknown");
  EXPECT_STREQ(talus::to_string(ContactFailureReason::step_invalid), "step_invalid");
  EXPECT_STREQ(talus::to_string(ContactOption::compliance), "compliance");
}

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

// ContactReport::residual (status.hpp, issue 26 item 4): on ok one pair (value, tolerance),
// 0 ≤ value ≤ tolerance, tolerance > 0, from the solve that produced the forces. Lemke
// without the active-set recovery: the LCP check's relative violation recomputed here from
// the problem's own M, q and z (support/lcp_reference.hpp), against check_tolerance. With the
// recovery: its physical residual against Lemke's (when it replaced the answer). Exact cones:
// the largest residual/tolerance ratio of the cone report, against 1; at the iteration cap it
// is above 1 and the solve is refused. Solo12 on four feet, torques that lift feet.
TEST(ConsistencyContact, EveryOkCarriesTheResidualItWasAcceptedOn) {
  const double eps = std::numeric_limits<double>::epsilon();
  Solo s(1.0);
  auto exact = std::make_unique<Problem>();
  for (int f : kFeet) {
    ASSERT_EQ(talus::forward_kinematics(s.model, *s.data, s.q), Status::ok);
    const auto& F = s.model.frames[f];
    const Vector3<double> p = s.data->oMi[F.body].act_point(F.placement.p);
    ASSERT_EQ(exact->add_contact(s.model, f, Vector3<double>::UnitZ(), 1.0, 4, ConeModel::exact, 0.0, p), Status::ok);
  }
  talus::Random rng(29);
  double worst[3] = {0, 0, 0};  // value / tolerance: Lemke, recovery, cones
  int applied = 0, solves = 0, capped = 0;
  const M::TangentVector v = M::TangentVector::Zero();
  for (int trial = 0; trial < 30; ++trial) {
    M::TangentVector tau = M::TangentVector::Zero();
    for (int i = 6; i < M::nv; ++i) tau[i] = rng.uniform(-3.0, 3.0);
    M::TangentVector a;
    for (const bool recovery : {false, true}) {
      for (const bool guess : {false, true}) {
        Options o;
        o.active_set_recovery = recovery;
        o.sticking_guess = guess;
        talus::ContactReport<double> rep;
        ASSERT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *s.cp, s.q, v, tau, a, o, rep), Status::ok);
        SCOPED_TRACE(testing::Message() << "trial " << trial << " recovery " << recovery << " guess " << guess);
        const auto r = rep.residual;
        EXPECT_GT(r.tolerance, 0.0);
        EXPECT_GE(r.value, 0.0);
        EXPECT_LE(r.value, r.tolerance);
        ++solves;
        if (recovery && rep.recovery.applied) {
          ++applied;
          EXPECT_EQ(r.value, rep.recovery.residual);
          EXPECT_EQ(r.tolerance, rep.recovery.residual_lcp);
          worst[1] = std::max(worst[1], r.value / r.tolerance);
          continue;
        }
        EXPECT_EQ(r.tolerance, o.lcp.check_tolerance);
        const auto& ws = s.cp->ws;
        const int n = static_cast<int>(ws.q.size());
        EXPECT_NEAR(r.value,
                    lcp_relative_violation(Eigen::MatrixXd(ws.M), Eigen::VectorXd(ws.q), Eigen::VectorXd(ws.z),
                                           o.lcp.check_tolerance),
                    4 * n * eps);
        worst[0] = std::max(worst[0], r.value / r.tolerance);
      }
    }
    int pgs_sweeps = 0;
    for (talus::ContactSolver solver : {talus::ContactSolver::pgs, talus::ContactSolver::admm}) {
      Options o;
      o.solver = solver;
      o.cone.max_iterations = 2000;
      talus::ContactReport<double> rep;
      const Status st = talus::forward_dynamics_contact(s.model, *s.data, *exact, s.q, v, tau, a, o, rep);
      if (st != Status::ok) {
        EXPECT_EQ(st, Status::not_converged);
        continue;
      }
      const auto r = rep.residual, e = rep.cone.evidence();
      EXPECT_EQ(r.tolerance, 1.0);
      EXPECT_EQ(r.value, e.value);
      EXPECT_GE(r.value, 0.0);
      EXPECT_LE(r.value, r.tolerance);
      EXPECT_LE(rep.cone.primal_residual, rep.cone.primal_tolerance);
      EXPECT_LE(rep.cone.dual_residual, rep.cone.dual_tolerance);
      EXPECT_LE(rep.cone.complementarity, rep.cone.complementarity_tolerance);
      worst[2] = std::max(worst[2], r.value);
      ++solves;
      if (solver == talus::ContactSolver::pgs) pgs_sweeps = rep.cone.iterations;
    }
    // the cap: refused, and the pair says by how much (where one PGS sweep from f = 0 is not
    // already the answer: a state where every foot lifts off is solved exactly by it)
    if (pgs_sweeps <= 1) continue;
    ++capped;
    Options o;
    o.solver = talus::ContactSolver::pgs;
    o.sticking_guess = false;
    o.cone.max_iterations = 1;
    talus::ContactReport<double> rep;
    EXPECT_EQ(talus::forward_dynamics_contact(s.model, *s.data, *exact, s.q, v, tau, a, o, rep), Status::not_converged);
    EXPECT_GT(rep.residual.value, rep.residual.tolerance);
    EXPECT_TRUE(a.isZero());
  }
  std::printf("%d solves (%d recovered): largest value/tolerance Lemke %.3g, recovery %.3g, cones %.3g\n", solves,
              applied, worst[0], worst[1], worst[2]);
  EXPECT_GT(applied, 0);
  EXPECT_GT(capped, 10);
}

}  // namespace
}  // namespace talus_test
