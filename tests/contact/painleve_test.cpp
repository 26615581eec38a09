// The Painlevé rod (Drake's examples/rod2d; Stewart 2000, "Rigid-body dynamics with friction
// and impact", SIAM Review 42): a planar rod whose lower end touches the plane z = 0. At
// acceleration level a sliding rod has, for μ large enough, no contact force at all that keeps
// it out of the ground (talus must return its Status) or two (lift-off and a push); at velocity
// level its inelastic impact has closed-form post-impact velocities with and without friction.
// Every expected number comes from the derivations in the comments below, none from talus.
//
// ---- the model and its kinematics ----------------------------------------------------------
// Rod: mass m, length 2ℓ, centre-of-mass inertia J = m(2ℓ)²/12 = mℓ²/3 about y. Joints (all
// with identity placements): prismatic x, prismatic z, revolute y; q = (x, z, θ),
// v = (ẋ, ż, θ̇). talus's revolute-y transform is R_y(θ) = [c 0 s; 0 1 0; −s 0 c] (joints.hpp:
// R(a,a) = c, R(a,b) = −s with a = z, b = x), so the body x axis is (c, 0, −s) in the world and
// the rod's end (±ℓ, 0, 0) (body) sits at (x ± ℓc, 0, z ∓ ℓs). For 0 < θ < π/2 the lower end is
// the +ℓ end:                           p = (x + ℓc, z − ℓs)          (asserted against FK below)
//   ṗ = (ẋ − ℓs θ̇,  ż − ℓc θ̇)         so J_t = (1, 0, −ℓs),  J_n = (0, 1, −ℓc)
//   p̈ = (ẍ − ℓs θ̈ − ℓc θ̇²,  z̈ − ℓc θ̈ + ℓs θ̇²).
// The centre of mass is on the revolute axis and the chain only translates before it, so
// H = diag(m, m, J) (constant), C = (0, m g, 0) (no velocity terms). A force (f_t, f_n) (world
// x, z) at p gives the generalised force J_tᵀ f_t + J_nᵀ f_n = (f_t, f_n, −ℓs f_t − ℓc f_n)
// (the torque r × F about y, r = p − com = (ℓc, 0, −ℓs): r_z F_x − r_x F_z; the same).
//
// The contact: the lower end on the plane through 0 with n = +z, polygon with 4 edges. Its
// default t₁ would be n × e_x = +y (contact_problem.hpp: e = the world axis least aligned with
// n, the first of x, y); orientation −π/2 turns it to t₁ = +x, t₂ = n × t₁ = +y. The 4-gon's
// vertices are ±t₁ = ±x and ±t₂ = ±y: along x (the plane of motion) it resists exactly μ f_n.
// The ±y edges act along a direction no joint can move: their rows of A are zero, so they
// change nothing in the motion; at velocity level each asks Λ ≥ 0 ⟂ β_±y (w = 0ᵀv⁺ + Λ), so
// when the end slides (Λ = |v_t⁺| > 0) β_±y = 0, and when it sticks (Λ = 0) any β_±y within
// the budget Σβ ≤ μ P_n is a solution (a y reaction of a model without y dof is
// indeterminate). The tests assert the 4-gon's bound |P_x| + |P_y| ≤ μ P_n and print P_y.
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

#include <talus/algorithms/kinematics.hpp>
#include <talus/contact/contact_dynamics.hpp>

namespace talus_test {
namespace {

using talus::ConeModel;
using talus::ContactFailureReason;
using talus::ContactMode;
using talus::Status;
using talus::Vector3;
constexpr double kG = 9.81;
constexpr double kPi = 3.14159265358979323846;

using RodTree = talus::Tree<talus::Body<talus::JointPrismaticX, -1>, talus::Body<talus::JointPrismaticZ, 0>,
                            talus::Body<talus::JointRevoluteY, 1>>;
using Rod = talus::Model<double, RodTree, 2>;
constexpr double kRodMass = 1.5;                                  // m (kg)
constexpr double kHalf = 0.5;                                     // ℓ (m): the rod is 1 m long
constexpr double kJ = kRodMass * (2 * kHalf) * (2 * kHalf) / 12;  // = mℓ²/3 (kg·m²)
constexpr int kLowerEnd = 0, kUpperEnd = 1;                       // frames

Rod make_rod() {
  Rod m;
  m.body_name = {"rod_x", "rod_z", "rod"};
  m.joint_name = {"x", "z", "theta"};
  for (int i = 0; i < 3; ++i) m.joint_placement[i] = talus::Transform<double>();
  m.inertia[0] = talus::Inertia<double>(0.0, Vector3<double>::Zero(), talus::Matrix3<double>::Zero());
  m.inertia[1] = talus::Inertia<double>(0.0, Vector3<double>::Zero(), talus::Matrix3<double>::Zero());
  // a thin rod along body x: I_xx = 0, I_yy = I_zz = J (only I_yy is reachable by the joints)
  m.inertia[2] = talus::Inertia<double>(kRodMass, Vector3<double>::Zero(), Vector3<double>(0, kJ, kJ).asDiagonal());
  m.frames[kLowerEnd] = talus::Frame<double>{
      "lower_end", 2, talus::Transform<double>(talus::Matrix3<double>::Identity(), Vector3<double>(kHalf, 0, 0))};
  m.frames[kUpperEnd] = talus::Frame<double>{
      "upper_end", 2, talus::Transform<double>(talus::Matrix3<double>::Identity(), Vector3<double>(-kHalf, 0, 0))};
  return m;
}

using RodProblem = talus::ContactProblem<Rod, 1, 4>;
using RodOptions = talus::ContactOptions<double, RodProblem::max_lcp>;

// The rod at angle θ with its lower end on the plane (x = 0, z = ℓ sin θ: gap 0).
Rod::ConfigVector rod_q(double theta) { return Rod::ConfigVector(0.0, kHalf * std::sin(theta), theta); }

// Contact-point velocity (v_t, v_n) = (J_t v, J_n v) from the formulas above.
double contact_vt(double th, const Rod::TangentVector& v) { return v[0] - kHalf * std::sin(th) * v[2]; }
double contact_vn(double th, const Rod::TangentVector& v) { return v[1] - kHalf * std::cos(th) * v[2]; }

// The problem: one contact at the lower end, 4-gon with t₁ = +x (orientation −π/2).
void make_problem(RodProblem& cp, const Rod& model, double mu) {
  cp = RodProblem{};
  ASSERT_EQ(cp.add_contact(model, kLowerEnd, Vector3<double>::UnitZ(), mu, 4, ConeModel::polygon, -kPi / 2),
            Status::ok);
  ASSERT_NEAR((cp.contact(0).t1 - Vector3<double>::UnitX()).norm(), 0.0, 1e-15);
  ASSERT_NEAR((cp.contact(0).t2 - Vector3<double>::UnitY()).norm(), 0.0, 1e-15);
}

struct RodResult {
  Status s = Status::ok;
  Rod::TangentVector out = Rod::TangentVector::Constant(7.0);  // q̈ or v⁺ (7: proves it was written)
  Vector3<double> f = Vector3<double>::Constant(7.0);          // world force (N) or impulse (N·s)
  RodProblem::ContactForce local = RodProblem::ContactForce::Constant(7.0);
  talus::ContactReport<double> report;
  talus::ContactFailure failure;
  bool sliding = false;
};

RodResult rod_acceleration(double theta, const Rod::TangentVector& v, double mu, ContactMode mode) {
  static const Rod model = make_rod();
  static talus::Data<Rod> data;
  static RodProblem cp;
  make_problem(cp, model, mu);
  EXPECT_EQ(cp.set_mode(0, mode), Status::ok);
  RodResult r;
  r.s = talus::forward_dynamics_contact(model, data, cp, rod_q(theta), v, Rod::TangentVector::Zero(), r.out,
                                        RodOptions{}, r.report);
  r.failure = cp.failure();
  EXPECT_EQ(cp.world_force(0, r.f), Status::ok);
  EXPECT_EQ(cp.force(0, r.local), Status::ok);
  r.sliding = cp.sliding(0);
  return r;
}

RodResult rod_impact(double theta, const Rod::TangentVector& vm, double mu, double restitution) {
  static const Rod model = make_rod();
  static talus::Data<Rod> data;
  static RodProblem cp;
  make_problem(cp, model, mu);
  RodOptions o;
  o.restitution = restitution;
  RodResult r;
  r.s = talus::impulses_contact(model, data, cp, rod_q(theta), vm, r.out, o, r.report);
  r.failure = cp.failure();
  EXPECT_EQ(cp.world_force(0, r.f), Status::ok);
  EXPECT_EQ(cp.force(0, r.local), Status::ok);
  return r;
}

// ---- kinematics: the formulas above against talus's forward kinematics ---------------------

TEST(ReferenceContact, PainleveRodEndsMatchTheDerivedKinematics) {
  const Rod model = make_rod();
  talus::Data<Rod> data;
  EXPECT_EQ(model.gravity, Vector3<double>(0, 0, -kG));
  double worst = 0;
  for (double th : {0.1, kPi / 6, std::atan(2.0), 1.2}) {
    const Rod::ConfigVector q(0.3, 0.7, th);
    ASSERT_EQ(talus::forward_kinematics(model, data, q), Status::ok);
    const Vector3<double> lo = data.oMi[2].act_point(model.frames[kLowerEnd].placement.p);
    const Vector3<double> hi = data.oMi[2].act_point(model.frames[kUpperEnd].placement.p);
    const double c = std::cos(th), s = std::sin(th);
    worst = std::max(worst, (lo - Vector3<double>(0.3 + kHalf * c, 0, 0.7 - kHalf * s)).norm());
    worst = std::max(worst, (hi - Vector3<double>(0.3 - kHalf * c, 0, 0.7 + kHalf * s)).norm());
    EXPECT_LT(lo.z(), hi.z()) << "the +ℓ end is the lower one for 0 < θ < π/2";
    // the contact's gap at rod_q(θ) is zero: the end touches the plane
    ASSERT_EQ(talus::forward_kinematics(model, data, rod_q(th)), Status::ok);
    EXPECT_NEAR(data.oMi[2].act_point(model.frames[kLowerEnd].placement.p).z(), 0.0, 1e-15);
  }
  std::printf("rod ends vs (x ± ℓcosθ, z ∓ ℓsinθ): max error %.3g m\n", worst);
  EXPECT_LT(worst, 1e-15);
}

// ---- acceleration level: Painlevé's paradox ------------------------------------------------
// Sliding with v_t = ṗ_x ≠ 0, σ = sign(v_t): f_t = −μσ f_n. With the equations of motion
//   m ẍ = f_t,  m z̈ = −m g + f_n,  J θ̈ = −ℓs f_t − ℓc f_n = ℓ f_n (μσ s − c),
// the normal acceleration a_n = z̈ − ℓc θ̈ + ℓs θ̇² is affine in f_n:
//   a_n = b + d f_n,   b = −g + ℓs θ̇²,   d = 1/m + ℓ²c (c − μσ s)/J = (1/m)(1 + 3c(c − μσ s)).
// (the Delassus coefficient of the normal row with the sliding friction in its column). The
// LCP a_n ≥ 0 ⟂ f_n ≥ 0:
//   d > 0, b < 0: the unique answer f_n = −b/d, a_n = 0;
//   d < 0, b < 0: f_n = 0 gives a_n = b < 0, a_n = 0 needs f_n = −b/d < 0: NO solution;
//   d < 0, b > 0: two, f_n = 0 (a_n = b, lift-off) and f_n = −b/d > 0 (a_n = 0).
// d < 0 ⇔ μσ > (1 + 3c²)/(3sc) (for 0 < θ < π/2, so σ = +1: the end slides toward +x, away
// from under the centre). The bound is least at tan θ = 2 (c² = 1/5, sc = 2/5): μ > 4/3.
// At tan θ = 2: d = (1/m)(8 − 6μσ)/5.
struct SlidingAnswer {
  double d, b, fn;
  Rod::TangentVector a;
};
SlidingAnswer sliding_answer(double th, double thetadot, double mu, double sigma, double fn) {
  const double c = std::cos(th), s = std::sin(th);
  SlidingAnswer r;
  r.d = 1 / kRodMass + kHalf * kHalf * c * (c - mu * sigma * s) / kJ;
  r.b = -kG + kHalf * s * thetadot * thetadot;
  r.fn = fn;
  r.a = Rod::TangentVector(-mu * sigma * fn / kRodMass, -kG + fn / kRodMass, kHalf * fn * (mu * sigma * s - c) / kJ);
  return r;
}

TEST(ReferenceContact, PainleveRodWithoutAccelerationSolutionReturnsSingular) {
  const double th = std::atan(2.0);
  const Rod::TangentVector v(1.0, 0.0, 0.0);  // v_t = ẋ − ℓs θ̇ = 1 > 0: σ = +1; b = −g
  ASSERT_NEAR(contact_vt(th, v), 1.0, 1e-15);
  // the derived coefficient at tan θ = 2 (closed form) agrees with the general formula
  for (double mu : {0.0, 1.0, 2.0}) EXPECT_NEAR(sliding_answer(th, 0, mu, 1, 0).d, (8 - 6 * mu) / 5 / kRodMass, 1e-14);
  double worst_a = 0, worst_f = 0;
  // consistent side: μ < 4/3, d = (8 − 6μ)/(5m) > 0, f_n = g/d (μ = 1: 2.5 m g)
  for (double mu : {0.0, 0.5, 1.0, 1.3}) {
    const double d = (8 - 6 * mu) / (5 * kRodMass);
    const SlidingAnswer e = sliding_answer(th, 0, mu, 1, kG / d);
    ASSERT_GT(e.d, 0);
    const RodResult r = rod_acceleration(th, v, mu, ContactMode::sliding);
    ASSERT_EQ(r.s, Status::ok) << mu;
    EXPECT_TRUE(r.sliding);
    EXPECT_EQ(r.report.sliding, 1);
    const double ea = (r.out - e.a).cwiseAbs().maxCoeff();
    const double ef = (r.f - Vector3<double>(-mu * e.fn, 0, e.fn)).norm();
    worst_a = std::max(worst_a, ea);
    worst_f = std::max(worst_f, ef / e.fn);
    EXPECT_LT(ea, 1e-10 * (1 + e.a.cwiseAbs().maxCoeff())) << mu;
    EXPECT_LT(ef, 1e-10 * e.fn) << mu;
    // the end stays on the plane: a_n = z̈ − ℓc θ̈ (θ̇ = 0) = 0
    EXPECT_NEAR(r.out[1] - kHalf * std::cos(th) * r.out[2], 0.0, 1e-10 * e.fn) << mu;
    std::printf(
        "Painlevé consistent, tanθ = 2, μ = %.2f: d = %.4g 1/kg, f_n = %.6g N (= %.4g m g), |Δq̈| = %.3g, |Δf|/f_n = %.3g\n",
        mu, e.d, e.fn, e.fn / (kRodMass * kG), ea, ef / e.fn);
  }
  EXPECT_NEAR(sliding_answer(th, 0, 1.0, 1, kG / (2.0 / (5 * kRodMass))).fn, 2.5 * kRodMass * kG, 1e-12);
  // inconsistent side: μ > 4/3, d < 0 and b = −g < 0: no f_n ≥ 0 at all. Lemke's path ends on
  // a secondary ray (1×1 LCP M = d < 0: the entering column has no positive entry) and
  // contact_dynamics.hpp documents Status::singular "(the LCP has no solution the method can
  // find: a secondary ray, e.g. Painlevé's paradox)", reason lcp_failed, outputs zero.
  for (double mu : {1.34, 1.5, 2.0, 5.0}) {
    ASSERT_LT(sliding_answer(th, 0, mu, 1, 0).d, 0);
    const RodResult r = rod_acceleration(th, v, mu, ContactMode::sliding);
    EXPECT_EQ(r.s, Status::singular) << mu;
    EXPECT_EQ(r.failure.status, Status::singular);
    EXPECT_EQ(r.failure.reason, ContactFailureReason::lcp_failed) << talus::to_string(r.failure.reason);
    EXPECT_EQ(r.report.lcp.exit, talus::LcpExit::ray);
    EXPECT_EQ(r.out, Rod::TangentVector::Zero()) << "q̈ zero after a failed solve";
    EXPECT_EQ(r.f, Vector3<double>::Zero()) << "force zero after a failed solve";
    EXPECT_EQ(r.local, RodProblem::ContactForce::Zero());
    std::printf(
        "Painlevé inconsistent, tanθ = 2, μ = %.2f: d = %.4g 1/kg, b = %.3g: status %s, reason %s, lcp exit %d (ray = %d), attempts %d\n",
        mu, sliding_answer(th, 0, mu, 1, 0).d, -kG, talus::to_string(r.s), talus::to_string(r.failure.reason),
        static_cast<int>(r.report.lcp.exit), static_cast<int>(talus::LcpExit::ray), r.report.lcp.attempts);
  }
  // the same μ = 2 sliding the other way (σ = −1): d = (8 + 12)/(5m) = 4/m > 0, f_n = m g/4
  {
    const Rod::TangentVector vb(-1.0, 0.0, 0.0);
    const SlidingAnswer e = sliding_answer(th, 0, 2.0, -1, kRodMass * kG / 4);
    EXPECT_NEAR(e.d, 4 / kRodMass, 1e-14);
    const RodResult r = rod_acceleration(th, vb, 2.0, ContactMode::sliding);
    ASSERT_EQ(r.s, Status::ok);
    EXPECT_LT((r.out - e.a).cwiseAbs().maxCoeff(), 1e-10);
    EXPECT_LT((r.f - Vector3<double>(2.0 * e.fn, 0, e.fn)).norm(), 1e-10);
    worst_a = std::max(worst_a, (r.out - e.a).cwiseAbs().maxCoeff());
  }
  // ContactMode::classify decides sliding from ‖v_t‖ = 1 > sliding_speed: the same singular
  EXPECT_EQ(rod_acceleration(th, v, 2.0, ContactMode::classify).s, Status::singular);
  // other angles: the boundary μ_c(θ) = (1 + 3c²)/(3sc); 0.9 μ_c is consistent (f_n = g/d),
  // 1.1 μ_c is not (μ_c(0.3) = 4.41, μ_c(π/4) = 5/3, μ_c(1.3) = 1.57)
  for (double t : {0.3, kPi / 4, 1.3}) {
    const double c = std::cos(t), s = std::sin(t), mu_c = (1 + 3 * c * c) / (3 * s * c);
    const SlidingAnswer e = sliding_answer(t, 0, 0.9 * mu_c, 1, kG / sliding_answer(t, 0, 0.9 * mu_c, 1, 0).d);
    EXPECT_NEAR(e.d, 0.1 * (1 + 3 * c * c) / kRodMass, 1e-13);
    const RodResult ok = rod_acceleration(t, v, 0.9 * mu_c, ContactMode::sliding);
    ASSERT_EQ(ok.s, Status::ok) << t;
    EXPECT_LT((ok.out - e.a).cwiseAbs().maxCoeff(), 1e-10 * (1 + e.a.cwiseAbs().maxCoeff())) << t;
    EXPECT_LT((ok.f - Vector3<double>(-0.9 * mu_c * e.fn, 0, e.fn)).norm(), 1e-10 * e.fn) << t;
    worst_a = std::max(worst_a, (ok.out - e.a).cwiseAbs().maxCoeff());
    const RodResult bad = rod_acceleration(t, v, 1.1 * mu_c, ContactMode::sliding);
    EXPECT_EQ(bad.s, Status::singular) << t;
    EXPECT_EQ(bad.failure.reason, ContactFailureReason::lcp_failed) << t;
    EXPECT_EQ(bad.out, Rod::TangentVector::Zero()) << t;
    EXPECT_EQ(bad.f, Vector3<double>::Zero()) << t;
    std::printf("Painlevé θ = %.4f: μ_c = %.4f; 0.9 μ_c: %s (f_n = %.6g N), 1.1 μ_c: %s\n", t, mu_c,
                talus::to_string(ok.s), e.fn, talus::to_string(bad.s));
  }
  std::printf("Painlevé acceleration level: max |Δq̈| %.3g, max |Δf|/f_n %.3g\n", worst_a, worst_f);
}

// d < 0 with b > 0 (a fast spin θ̇: ℓs θ̇² > g): both f_n = 0 (the end lifts, a_n = b) and
// f_n = −b/d (a_n = 0) solve the LCP. At tan θ = 2, μ = 2, θ̇ = 5: ℓs θ̇² = 0.5·(2/√5)·25 =
// 11.18 > g, b = 1.370 m/s², d = −0.8/m; the two answers are
//   lift-off: q̈ = (0, −g, 0), f = 0;   pushing: f_n = b m/0.8 = 2.569 N, q̈ from the formula.
// With q = b ≥ 0 Lemke returns z = 0 without a pivot (lcp_lemke.hpp: "If q ≥ 0, z = 0 is the
// answer"): the lift-off one, Status ok.
TEST(ReferenceContact, PainleveRodNonUniqueSideReturnsOneOfTheTwoAnswers) {
  const double th = std::atan(2.0), thetadot = 5.0, mu = 2.0;
  const Rod::TangentVector v(3.0, 0.0, thetadot);  // v_t = 3 − ℓs·5 = 0.764 > 0: σ = +1
  ASSERT_GT(contact_vt(th, v), 0.5);
  const SlidingAnswer lift = sliding_answer(th, thetadot, mu, 1, 0.0);
  ASSERT_LT(lift.d, 0);
  ASSERT_GT(lift.b, 0);
  const SlidingAnswer push = sliding_answer(th, thetadot, mu, 1, -lift.b / lift.d);
  EXPECT_NEAR(lift.d, -0.8 / kRodMass, 1e-14);
  EXPECT_NEAR(lift.b, -kG + 0.5 * (2 / std::sqrt(5.0)) * 25, 1e-14);
  const RodResult r = rod_acceleration(th, v, mu, ContactMode::sliding);
  ASSERT_EQ(r.s, Status::ok);
  EXPECT_TRUE(r.sliding);
  const double e_lift = std::max((r.out - lift.a).cwiseAbs().maxCoeff(), r.f.norm());
  const double e_push =
      std::max((r.out - push.a).cwiseAbs().maxCoeff(), (r.f - Vector3<double>(-mu * push.fn, 0, push.fn)).norm());
  std::printf(
      "Painlevé non-unique, tanθ = 2, μ = 2, θ̇ = 5: b = %.6g, d = %.4g; lift-off error %.3g, pushing (f_n = %.6g N) error %.3g; status %s, lcp exit %d (trivial = %d)\n",
      lift.b, lift.d, e_lift, push.fn, e_push, talus::to_string(r.s), static_cast<int>(r.report.lcp.exit),
      static_cast<int>(talus::LcpExit::trivial));
  EXPECT_LT(std::min(e_lift, e_push), 1e-10) << "one of the two analytic answers";
  EXPECT_LT(e_lift, 1e-10) << "q = b > 0: Lemke's trivial answer z = 0";
  EXPECT_EQ(r.report.lcp.exit, talus::LcpExit::trivial);
  // the lift-off answer separates: a_n = z̈ − ℓc θ̈ + ℓs θ̇² = b > 0
  EXPECT_NEAR(r.out[1] - kHalf * std::cos(th) * r.out[2] + kHalf * std::sin(th) * thetadot * thetadot, lift.b, 1e-12);
}

// ---- velocity level: the falling rod's impact ----------------------------------------------
// An impulse (P_t, P_n) at the lower end: H Δv = J_tᵀ P_t + J_nᵀ P_n, i.e.
//   ẋ⁺ = ẋ⁻ + P_t/m,  ż⁺ = ż⁻ + P_n/m,  θ̇⁺ = θ̇⁻ − ℓ(s P_t + c P_n)/J,
// and the contact velocity changes by W (P_t, P_n), W = J_c H⁻¹ J_cᵀ (rows t, n):
//   W = [1/m + ℓ²s²/J, ℓ²sc/J; ℓ²sc/J, 1/m + ℓ²c²/J] = (1/m)[1 + 3s², 3sc; 3sc, 1 + 3c²],
//   det W = (1/m²)((1 + 3s²)(1 + 3c²) − 9s²c²) = 4/m².
// Frictionless, restitution e (v_n⁺ = −e v_n⁻):  P_t = 0,  P_n = −(1 + e) m v_n⁻/(1 + 3c²).
// Sticking (v_t⁺ = v_n⁺ = 0): (P_t, P_n) = −W⁻¹(v_t⁻, v_n⁻),  W⁻¹ = (m/4)[1 + 3c², −3sc; −3sc, 1 + 3s²]:
//   P_t = −(m/4)((1 + 3c²) v_t⁻ − 3sc v_n⁻),  P_n = −(m/4)(−3sc v_t⁻ + (1 + 3s²) v_n⁻);
//   valid iff P_n ≥ 0 and |P_t| ≤ μ P_n (the 4-gon has a vertex on x: its x bound is μ P_n).
// Sliding through (v_n⁺ = 0, P_t = −μσ P_n, σ = sign v_t⁺):
//   P_n = −m v_n⁻/(1 + 3c² − 3μσ sc),  v_t⁺ = v_t⁻ + (P_n/m)(3sc − μσ(1 + 3s²));
//   valid iff P_n ≥ 0 and σ v_t⁺ > 0.
// The data: θ = π/6 (s = 1/2, c = √3/2), v⁻ = (0.4, −1, 0.6): v_t⁻ = 0.4 − 0.25·0.6 = 0.25,
// v_n⁻ = −1 − 0.25√3·0.6 = −1.2598 (approaching). Sticking needs μ ≥ μ* = |P_t|/P_n = 0.968.
struct ImpactAnswer {
  double pt, pn;
  Rod::TangentVector v;
};
ImpactAnswer impact_answer(double th, const Rod::TangentVector& vm, double pt, double pn) {
  const double c = std::cos(th), s = std::sin(th);
  return {pt, pn,
          Rod::TangentVector(vm[0] + pt / kRodMass, vm[1] + pn / kRodMass, vm[2] - kHalf * (s * pt + c * pn) / kJ)};
}
constexpr double kImpactTheta = kPi / 6;
const Rod::TangentVector kImpactV(0.4, -1.0, 0.6);

TEST(ReferenceContact, PainleveRodFrictionlessInelasticImpact) {
  const double th = kImpactTheta, c = std::cos(th);
  const Rod::TangentVector& vm = kImpactV;
  const double vn = contact_vn(th, vm);
  ASSERT_NEAR(vn, -1 - 0.25 * std::sqrt(3.0) * 0.6, 1e-15);
  const ImpactAnswer e = impact_answer(th, vm, 0, -kRodMass * vn / (1 + 3 * c * c));
  const RodResult r = rod_impact(th, vm, 0.0, 0.0);
  ASSERT_EQ(r.s, Status::ok);
  const double ev = (r.out - e.v).cwiseAbs().maxCoeff();
  const double ep = (r.f - Vector3<double>(0, 0, e.pn)).norm();
  std::printf("rod impact, frictionless, e = 0: P_n = %.12g N·s, v+ = (%.9g, %.9g, %.9g); |Δv+| = %.3g, |ΔP| = %.3g\n",
              e.pn, e.v[0], e.v[1], e.v[2], ev, ep);
  EXPECT_LT(ev, 1e-10);
  EXPECT_LT(ep, 1e-10);
  EXPECT_NEAR(contact_vn(th, r.out), 0.0, 1e-10) << "the end stops";
  EXPECT_NEAR(contact_vt(th, r.out), contact_vt(th, vm) + 3 * std::sin(th) * c * e.pn / kRodMass, 1e-10)
      << "the end still slides (v_t⁺ = v_t⁻ + W_tn P_n)";
}

TEST(ReferenceContact, PainleveRodFrictionalImpactSticksOrSlides) {
  const double th = kImpactTheta, c = std::cos(th), s = std::sin(th);
  const Rod::TangentVector& vm = kImpactV;
  const double vt = contact_vt(th, vm), vn = contact_vn(th, vm);
  ASSERT_NEAR(vt, 0.25, 1e-15);
  // sticking candidate and its friction ratio μ*
  const double pt_st = -kRodMass / 4 * ((1 + 3 * c * c) * vt - 3 * s * c * vn);
  const double pn_st = -kRodMass / 4 * (-3 * s * c * vt + (1 + 3 * s * s) * vn);
  ASSERT_GT(pn_st, 0);
  const double mu_star = std::abs(pt_st) / pn_st;
  // the sliding candidate for μ, direction σ
  auto slide = [&](double mu, double sigma, double& pn, double& vt_plus) {
    pn = -kRodMass * vn / (1 + 3 * c * c - 3 * mu * sigma * s * c);
    vt_plus = vt + pn / kRodMass * (3 * s * c - mu * sigma * (1 + 3 * s * s));
  };
  std::printf("rod impact: v_t- = %.6g, v_n- = %.6g; sticking impulse (%.9g, %.9g) N·s, mu* = %.6g\n", vt, vn, pt_st,
              pn_st, mu_star);
  double worst = 0;
  // (a) μ = 1.2 > μ*: sticking. Neither sliding direction is consistent (derived): σ = +1 gives
  // v_t⁺ < 0, σ = −1 gives v_t⁺ > 0; so the answer is the sticking one (and unique).
  {
    const double mu = 1.2;
    ASSERT_GT(mu, mu_star);
    double pn, vtp;
    slide(mu, +1, pn, vtp);
    EXPECT_LT(vtp, 0) << "σ = +1 inconsistent";
    slide(mu, -1, pn, vtp);
    EXPECT_GT(vtp, 0) << "σ = −1 inconsistent";
    const ImpactAnswer e = impact_answer(th, vm, pt_st, pn_st);
    const RodResult r = rod_impact(th, vm, mu, 0.0);
    ASSERT_EQ(r.s, Status::ok);
    const double ev = (r.out - e.v).cwiseAbs().maxCoeff();
    const double ep = (Vector3<double>(r.f.x(), 0, r.f.z()) - Vector3<double>(e.pt, 0, e.pn)).norm();
    worst = std::max(worst, std::max(ev, ep));
    std::printf(
        "rod impact, mu = %.2f (sticks): v+ = (%.9g, %.9g, %.9g), P = (%.9g, %.3g, %.9g); |Δv+| = %.3g, |ΔP| = %.3g\n",
        mu, e.v[0], e.v[1], e.v[2], r.f.x(), r.f.y(), r.f.z(), ev, ep);
    EXPECT_LT(ev, 1e-10);
    EXPECT_LT(ep, 1e-10);
    EXPECT_NEAR(contact_vt(th, r.out), 0.0, 1e-10) << "the solver's regime: sticking (v_t⁺ = 0)";
    EXPECT_NEAR(contact_vn(th, r.out), 0.0, 1e-10);
    EXPECT_LT(std::abs(r.f.x()), mu * r.f.z() - 1e-3) << "strictly inside the friction bound";
    EXPECT_LE(std::abs(r.f.x()) + std::abs(r.f.y()), mu * r.f.z() + 1e-12) << "inside the 4-gon";
  }
  // (b) μ = 0.3 < μ*: sticking would need |P_t| = μ* P_n > μ P_n, so the end slides. The
  // sticking friction points −x (P_t < 0), so try σ = +1: v_t⁺ = 0.591 > 0, consistent;
  // σ = −1 gives v_t⁺ > 0, inconsistent. Answer: σ = +1, P_t = −μ P_n.
  {
    const double mu = 0.3;
    ASSERT_LT(mu, mu_star);
    double pn, vtp, pn_other, vtp_other;
    slide(mu, -1, pn_other, vtp_other);
    EXPECT_GT(vtp_other, 0) << "σ = −1 inconsistent";
    slide(mu, +1, pn, vtp);
    ASSERT_GT(pn, 0);
    ASSERT_GT(vtp, 0) << "σ = +1 consistent";
    const ImpactAnswer e = impact_answer(th, vm, -mu * pn, pn);
    EXPECT_NEAR(contact_vt(th, e.v), vtp, 1e-14) << "the two forms of v_t⁺ agree";
    const RodResult r = rod_impact(th, vm, mu, 0.0);
    ASSERT_EQ(r.s, Status::ok);
    const double ev = (r.out - e.v).cwiseAbs().maxCoeff();
    const double ep = (r.f - Vector3<double>(e.pt, 0, e.pn)).norm();
    worst = std::max(worst, std::max(ev, ep));
    std::printf(
        "rod impact, mu = %.2f (slides): v_t+ = %.9g, v+ = (%.9g, %.9g, %.9g), P = (%.9g, %.3g, %.9g); |Δv+| = %.3g, |ΔP| = %.3g\n",
        mu, vtp, e.v[0], e.v[1], e.v[2], r.f.x(), r.f.y(), r.f.z(), ev, ep);
    EXPECT_LT(ev, 1e-10);
    EXPECT_LT(ep, 1e-10);
    EXPECT_GT(contact_vt(th, r.out), 0.5) << "the solver's regime: sliding in +x";
    EXPECT_NEAR(r.f.x(), -mu * r.f.z(), 1e-10) << "the friction is saturated";
    EXPECT_NEAR(contact_vn(th, r.out), 0.0, 1e-10);
  }
  std::printf("rod frictional impact: max error %.3g\n", worst);
}

// Restitution e = 0.5 without friction: v_n⁺ = −e v_n⁻, P_n = −(1 + e) m v_n⁻/(1 + 3c²).
TEST(ReferenceContact, PainleveRodImpactWithRestitution) {
  const double th = kImpactTheta, c = std::cos(th), rest = 0.5;
  const Rod::TangentVector& vm = kImpactV;
  const double vn = contact_vn(th, vm);
  const ImpactAnswer e = impact_answer(th, vm, 0, -(1 + rest) * kRodMass * vn / (1 + 3 * c * c));
  EXPECT_NEAR(contact_vn(th, e.v), -rest * vn, 1e-14) << "the derivation itself";
  const RodResult r = rod_impact(th, vm, 0.0, rest);
  ASSERT_EQ(r.s, Status::ok);
  const double ev = (r.out - e.v).cwiseAbs().maxCoeff();
  const double ep = (r.f - Vector3<double>(0, 0, e.pn)).norm();
  std::printf(
      "rod impact, frictionless, e = 0.5: P_n = %.12g N·s, v_n+ = %.9g (-e v_n- = %.9g); |Δv+| = %.3g, |ΔP| = %.3g\n",
      e.pn, contact_vn(th, r.out), -rest * vn, ev, ep);
  EXPECT_LT(ev, 1e-10);
  EXPECT_LT(ep, 1e-10);
  EXPECT_NEAR(contact_vn(th, r.out), -rest * vn, 1e-10);
}

}  // namespace
}  // namespace talus_test
