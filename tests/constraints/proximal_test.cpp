// forward_dynamics_proximal: the proximal (augmented-Lagrangian) constrained forward dynamics.
// Checked against the direct KKT solve on non-redundant sets (solo12 on four feet), against
// analytic answers and an independent minimum-norm solve (Eigen's
// CompleteOrthogonalDecomposition) on a redundant set (a box on four corner contacts), and on a
// duplicated contact; then the iteration cap, an inconsistent set, bad settings and inputs, and
// the heap.
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <Eigen/QR>
#include <talus/models/anymal_c.hpp>
#include <talus/models/solo12.hpp>
#include <talus/models/talos.hpp>
#include <talus/contact.hpp>
#include <talus/solvers/forward_dynamics_articulated.hpp>
#include <talus/solvers/forward_dynamics_constrained_aba.hpp>
#include <talus/solvers/forward_dynamics_proximal.hpp>
#include <talus/solvers/impulses.hpp>

#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::FailureReason;
using talus::Status;
namespace solo = talus::models::solo12;
using M = solo::Model<double>;
using Set = talus::ConstraintSet<M, 24, 8>;
using Settings = talus::ProximalSettings<double>;
using Report = talus::ProximalReport<double>;
constexpr int kFeet[4] = {solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                          solo::frame_id("HR_FOOT")};
const Vector3<double> kX = Vector3<double>::UnitX(), kY = Vector3<double>::UnitY(), kZ = Vector3<double>::UnitZ();

// ---- a box: one free-flyer body, no frames ----------------------------------------------------------
using BoxTree = talus::Tree<talus::Body<talus::JointFreeFlyer, -1>>;
using Box = talus::Model<double, BoxTree, 0>;
using BoxSet = talus::ConstraintSet<Box, 12, 4>;
constexpr double kMass = 2.0, kA = 0.4, kB = 0.3, kC = 0.2;  // kg; m along x, y, z

Box make_box() {
  Box m;
  m.body_name = {"box"};
  m.joint_name = {"root"};
  const Vector3<double> I(kMass * (kB * kB + kC * kC) / 12, kMass * (kA * kA + kC * kC) / 12,
                          kMass * (kA * kA + kB * kB) / 12);
  m.inertia[0] = Inertia<double>(kMass, Vector3<double>::Zero(), I.asDiagonal());
  return m;
}
/// The four bottom corners, each a point contact with the world axes z, x, y.
std::unique_ptr<BoxSet> box_on_corners(const Box& model) {
  auto cs = std::make_unique<BoxSet>();
  for (double sx : {-1.0, 1.0})
    for (double sy : {-1.0, 1.0})
      EXPECT_EQ(cs->add_contact(0, Vector3<double>(sx * kA / 2, sy * kB / 2, -kC / 2), {kZ, kX, kY}), Status::ok);
  EXPECT_EQ(cs->bind(model), Status::ok);
  return cs;
}
/// Resting on the ground: bottom face at z = 0, rotated by `yaw` about z.
Box::ConfigVector box_at_rest(double yaw = 0.0) {
  Box::ConfigVector q;
  q << 0.1, -0.2, kC / 2, std::cos(yaw / 2), 0, 0, std::sin(yaw / 2);
  return q;
}

/// Minimum-norm λ with Gᵀ λ = H q̈ + C − τ (the only λ the equations determine), from a
/// complete orthogonal decomposition of Gᵀ: independent of D = G H⁻¹ Gᵀ and of the iteration.
template <class ModelT, int MR, int MC, class X, class T>
Eigen::VectorXd min_norm_lambda(const talus::Data<ModelT>& data, const talus::ConstraintSet<ModelT, MR, MC>& cs,
                                const X& ddq, const T& tau) {
  const Eigen::MatrixXd Gt = Eigen::MatrixXd(cs.G).transpose();
  const Eigen::VectorXd f = data.H * ddq + cs.C - tau;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(Gt);
  return cod.solve(f);
}

// 1. Non-redundant: solo12 on four feet (3 axes each): the direct method's q̈ and λ.
TEST(ConsistencyProximal, Solo12FourFeetMatchesDirect) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  for (int f : kFeet) ASSERT_EQ(cs->add_contact(model, f, {kZ, kX, kY}), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  talus::Random rng(31);
  int max_it = 0;
  double max_res = 0;
  for (int i = 0; i < 20; ++i) {
    const auto s = random_state(model, rng);
    ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, s.q), Status::ok);
    M::TangentVector ddq_ref, ddq;
    ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ddq_ref), Status::ok);
    const Eigen::VectorXd lambda_ref = cs->lambda;
    Report rep;
    ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, Settings{}, rep), Status::ok);
    EXPECT_LE(rel_err(ddq, ddq_ref), 1e-9);
    EXPECT_LE(rel_err(cs->lambda, lambda_ref), 1e-9);
    EXPECT_GE(rep.iterations, 1);
    EXPECT_LE(rep.residual, rep.tolerance);
    EXPECT_LE((cs->G * ddq - cs->gamma).cwiseAbs().maxCoeff(), rep.tolerance * (1 + 1e-12));
    EXPECT_EQ(cs->failure().status, Status::ok);
    max_it = std::max(max_it, rep.iterations);
    max_res = std::max(max_res, rep.residual);
  }
  std::printf("solo12, 4 feet x 3 axes, 20 random states: at most %d iterations, residual <= %.3g\n", max_it, max_res);
  // with external forces: the same as the direct method with the same forces
  const auto s = random_state(model, rng);
  talus::ExternalForces<M> fext;
  for (auto& f : fext) f = talus::Force<double>::Random();
  M::TangentVector ddq_ref, ddq;
  ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ddq_ref,
                                           talus::KKTMethod::partial_piv_lu, &fext),
            Status::ok);
  const Eigen::VectorXd lambda_ref = cs->lambda;
  Report rep;
  ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, Settings{}, rep, &fext),
            Status::ok);
  EXPECT_LE(rel_err(ddq, ddq_ref), 1e-9);
  EXPECT_LE(rel_err(cs->lambda, lambda_ref), 1e-9);
  // a subset of feet active (set_active): still the direct answer, λ sized to the active rows
  ASSERT_EQ(cs->set_active(1, false), Status::ok);
  ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ddq_ref), Status::ok);
  const Eigen::VectorXd lambda3 = cs->lambda;
  ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, Settings{}, rep), Status::ok);
  EXPECT_EQ(cs->lambda.size(), 9);
  EXPECT_LE(rel_err(ddq, ddq_ref), 1e-9);
  EXPECT_LE(rel_err(cs->lambda, lambda3), 1e-9);
}

// No active rows: q̈ = ABA's, zero iterations.
TEST(ConsistencyProximal, NoActiveRowsIsUnconstrained) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  ASSERT_EQ(cs->add_contact(model, kFeet[0], {kZ}), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  ASSERT_EQ(cs->set_active(0, false), Status::ok);
  talus::Random rng(2);
  const auto s = random_state(model, rng);
  M::TangentVector ddq, ddq_aba;
  Report rep;
  ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, Settings{}, rep), Status::ok);
  ASSERT_EQ(talus::aba(model, *data, s.q, s.v, s.tau, ddq_aba), Status::ok);
  EXPECT_LE(rel_err(ddq, ddq_aba), 1e-10);
  EXPECT_EQ(rep.iterations, 0);
  EXPECT_EQ(cs->lambda.size(), 0);
}

// 2. Redundant: the box at rest on four corners (12 rows, rank 6).
TEST(ConsistencyProximal, BoxOnFourCornersIsAtRestWithMinimumNormForces) {
  const Box model = make_box();
  ASSERT_EQ(talus::check_model(model), Status::ok);
  auto data = std::make_unique<talus::Data<Box>>();
  auto cs = box_on_corners(model);
  const Box::ConfigVector q = box_at_rest();
  const Box::TangentVector v = Box::TangentVector::Zero(), tau = Box::TangentVector::Zero();
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
  Box::TangentVector ddq = Box::TangentVector::Constant(7.0);
  EXPECT_EQ(talus::forward_dynamics_direct(model, *data, *cs, q, v, tau, ddq), Status::singular);
  EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, *cs, q, v, tau, ddq), Status::singular);
  EXPECT_EQ(ddq, Box::TangentVector::Zero());
  Report rep;
  ddq.setConstant(7.0);
  ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, q, v, tau, ddq, Settings{}, rep), Status::ok);
  std::printf("box on 4 corners (12 rows, rank 6): %d iterations, residual %.3g, last step %.3g N\n", rep.iterations,
              rep.residual, rep.lambda_step);
  EXPECT_LE(rep.iterations, 3);
  EXPECT_LE(rep.residual, 1e-10);
  EXPECT_LE(ddq.cwiseAbs().maxCoeff(), 1e-12) << "at rest (analytic)";
  const double mg = kMass * 9.81;
  double fz = 0;
  for (int c = 0; c < 4; ++c) {
    Vector3<double> f;
    ASSERT_EQ(cs->contact_force(c, f), Status::ok);
    fz += f.z();
    // the minimum-norm split of the weight over four symmetric corners: m g / 4 each, no friction
    EXPECT_NEAR(f.z(), mg / 4, 1e-6 * mg);
    EXPECT_NEAR(f.x(), 0.0, 1e-6 * mg);
    EXPECT_NEAR(f.y(), 0.0, 1e-6 * mg);
  }
  EXPECT_NEAR(fz, mg, 1e-9 * mg) << "total normal force = m g (analytic)";
  const Eigen::VectorXd lmin = min_norm_lambda(*data, *cs, ddq, tau);
  EXPECT_LE(rel_err(cs->lambda, lmin), 1e-7) << "minimum-norm lambda\n"
                                             << cs->lambda.transpose() << "\n"
                                             << lmin.transpose();
  std::printf("box: |lambda - lambda_min_norm| = %.3g N\n", (Eigen::VectorXd(cs->lambda) - lmin).cwiseAbs().maxCoeff());
}

// The box at rest in any yaw, pushed by any wrench τ on its base (v = 0): G has full column
// rank, so q̈ = 0, and λ is the minimum-norm λ with Gᵀ λ = C − τ.
TEST(ConsistencyProximal, BoxUnderRandomWrenchesStaysAtRest) {
  const Box model = make_box();
  auto data = std::make_unique<talus::Data<Box>>();
  auto cs = box_on_corners(model);
  talus::Random rng(8);
  int max_it = 0;
  double max_res = 0, max_lerr = 0;
  for (int i = 0; i < 20; ++i) {
    const Box::ConfigVector q = box_at_rest(rng.uniform(-3, 3));
    const Box::TangentVector v = Box::TangentVector::Zero();
    Box::TangentVector tau;
    for (int k = 0; k < 6; ++k) tau[k] = rng.uniform(-20, 20);
    ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
    Box::TangentVector ddq;
    Report rep;
    ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, q, v, tau, ddq, Settings{}, rep), Status::ok);
    EXPECT_LE(ddq.cwiseAbs().maxCoeff(), 1e-12);
    const Eigen::VectorXd lmin = min_norm_lambda(*data, *cs, ddq, tau);
    EXPECT_LE(rel_err(cs->lambda, lmin), 1e-7);
    // the equations of motion hold with this λ
    EXPECT_LE((data->H * ddq + cs->C - tau - cs->G.transpose() * cs->lambda).cwiseAbs().maxCoeff(), 1e-9);
    max_it = std::max(max_it, rep.iterations);
    max_res = std::max(max_res, rep.residual);
    max_lerr = std::max(max_lerr, rel_err(cs->lambda, lmin));
  }
  std::printf("box, random yaw and wrench: at most %d iterations, residual <= %.3g, lambda vs min-norm <= %.3g\n",
              max_it, max_res, max_lerr);
}

// A foot added twice: the same q̈ as with it once, its force split equally between the copies.
TEST(ConsistencyProximal, DuplicatedFootSplitsItsForceEqually) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto once = std::make_unique<Set>(), twice = std::make_unique<Set>();
  for (int f : kFeet) {
    ASSERT_EQ(once->add_contact(model, f, {kZ, kX, kY}), Status::ok);
    ASSERT_EQ(twice->add_contact(model, f, {kZ, kX, kY}), Status::ok);
  }
  ASSERT_EQ(twice->add_contact(model, kFeet[0], {kZ, kX, kY}), Status::ok);  // rows 12..14 repeat rows 0..2
  ASSERT_EQ(once->bind(model), Status::ok);
  ASSERT_EQ(twice->bind(model), Status::ok);
  talus::Random rng(17);
  int max_it = 0;
  double max_res = 0, max_bound = 0;
  for (int i = 0; i < 20; ++i) {
    const auto s = random_state(model, rng);
    M::TangentVector ddq1, ddq2;
    ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *once, s.q, s.v, s.tau, ddq1), Status::ok);
    EXPECT_EQ(talus::forward_dynamics_direct(model, *data, *twice, s.q, s.v, s.tau, ddq2), Status::singular);
    EXPECT_EQ(twice->failure().reason, FailureReason::singular);
    Report rep;
    ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *twice, s.q, s.v, s.tau, ddq2, Settings{}, rep),
              Status::ok);
    EXPECT_EQ(twice->failure().status, Status::ok);
    EXPECT_LE(rel_err(ddq2, ddq1), 1e-9);
    const Eigen::VectorXd l1 = once->lambda, l2 = twice->lambda;
    ASSERT_EQ(l2.size(), 15);
    // The split between the copies lies in the null space of D = G H⁻¹ Gᵀ, which q̈ does not see:
    // the header documents its rounding error as ~ eps·‖D‖/μ relative to ‖λ‖ (solo12's light legs
    // make ‖D‖ ~ 1e2 /kg, so ~ 1e-6 with μ = 1e-8); held to 10× that bound.
    const Eigen::MatrixXd Gd = twice->G;
    const double normD = (Gd * Eigen::MatrixXd(data->H).ldlt().solve(Gd.transpose())).norm();
    const double bound = 10 * std::numeric_limits<double>::epsilon() * normD / Settings{}.mu;
    const double scale = std::max(1.0, l1.cwiseAbs().maxCoeff());
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(l2[k], l1[k] / 2, bound * scale) << "copy 1, axis " << k;
      EXPECT_NEAR(l2[12 + k], l1[k] / 2, bound * scale) << "copy 2, axis " << k;
      EXPECT_NEAR(l2[k] + l2[12 + k], l1[k], 1e-9 * scale) << "their sum, axis " << k;
    }
    max_bound = std::max(max_bound, bound);
    EXPECT_LE(rel_err(l2.segment(3, 9), l1.segment(3, 9)), 1e-9) << "the other feet";
    max_it = std::max(max_it, rep.iterations);
    max_res = std::max(max_res, rep.residual);
  }
  std::printf("solo12, FL foot twice (15 rows, rank 12): at most %d iterations, residual <= %.3g, split held to %.3g\n",
              max_it, max_res, max_bound);
}

// 3. The cap: one iteration with a tolerance it cannot reach.
TEST(ConsistencyProximal, CapReachedIsNotConvergedWithZeroOutputs) {
  const Box model = make_box();
  auto data = std::make_unique<talus::Data<Box>>();
  auto cs = box_on_corners(model);
  const Box::ConfigVector q = box_at_rest(0.3);
  const Box::TangentVector zero = Box::TangentVector::Zero();
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
  Settings st;
  st.max_iterations = 1;
  st.absolute_accuracy = 1e-300;
  st.relative_accuracy = 0;
  Box::TangentVector ddq = Box::TangentVector::Constant(3.0);
  cs->lambda.setConstant(12, 5.0);
  Report rep;
  EXPECT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, q, zero, zero, ddq, st, rep), Status::not_converged);
  EXPECT_EQ(ddq, Box::TangentVector::Zero());
  EXPECT_EQ(cs->lambda.size(), 12);
  EXPECT_TRUE(cs->lambda.isZero(0.0));
  EXPECT_EQ(cs->failure().status, Status::not_converged);
  EXPECT_EQ(cs->failure().reason, FailureReason::not_converged);
  EXPECT_EQ(rep.iterations, 1);
  EXPECT_GT(rep.residual, st.absolute_accuracy);
  EXPECT_GT(rep.lambda_step, 1.0) << "the first step is the whole force, ~ m g / 4";
  std::printf("box, max_iterations = 1: not_converged, residual %.3g after 1 iteration\n", rep.residual);
  // one more iteration is enough for the default tolerance
  st = Settings{};
  st.max_iterations = 2;
  EXPECT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, q, zero, zero, ddq, st, rep), Status::ok);
  EXPECT_EQ(rep.iterations, 2);
}

// An inconsistent set: the box spinning (ω ≠ 0) while its four corners must not accelerate —
// no rigid motion gives all four corners the required accelerations.
TEST(ConsistencyProximal, InconsistentSetIsNotConverged) {
  const Box model = make_box();
  auto data = std::make_unique<talus::Data<Box>>();
  auto cs = box_on_corners(model);
  const Box::ConfigVector q = box_at_rest();
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
  Box::TangentVector v = Box::TangentVector::Zero(), ddq;
  v[0] = 2.0;  // ω about x (body frame, [ω; v])
  v[2] = 1.0;
  Report rep;
  EXPECT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, q, v, Box::TangentVector::Zero(), ddq, Settings{}, rep),
            Status::not_converged);
  EXPECT_EQ(ddq, Box::TangentVector::Zero());
  EXPECT_TRUE(cs->lambda.isZero(0.0));
  EXPECT_EQ(rep.iterations, Settings{}.max_iterations);
  // the residual stays at the distance of γ from the range of G
  const Eigen::MatrixXd G = cs->G;
  const Eigen::VectorXd gamma = cs->gamma;
  const Eigen::VectorXd gproj = G * Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(G).solve(gamma);
  const double dist = (gamma - gproj).cwiseAbs().maxCoeff();
  EXPECT_GT(dist, 0.1);
  EXPECT_GT(rep.residual, 0.1 * dist);
  std::printf("box spinning: not_converged, residual %.3g (distance of gamma from range(G): %.3g)\n", rep.residual,
              dist);
}

// 4. Bad settings and bad inputs: invalid_input, zero outputs, zero report.
TEST(ConsistencyProximal, BadSettingsAndInputsAreInvalid) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  for (int f : kFeet) ASSERT_EQ(cs->add_contact(model, f, {kZ, kX, kY}), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  talus::Random rng(4);
  const auto s = random_state(model, rng);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<Settings> bad;
  for (double mu : {0.0, -1e-8, nan, inf}) {
    Settings st;
    st.mu = mu;
    bad.push_back(st);
  }
  for (int it : {0, -1, std::numeric_limits<int>::min()}) {
    Settings st;
    st.max_iterations = it;
    bad.push_back(st);
  }
  for (double acc : {-1e-10, nan, inf}) {
    Settings st;
    st.absolute_accuracy = acc;
    bad.push_back(st);
    st = Settings{};
    st.relative_accuracy = acc;
    bad.push_back(st);
  }
  const auto expect_invalid = [&](const char* what, Status got, const M::TangentVector& ddq, const Report& rep) {
    EXPECT_EQ(got, Status::invalid_input) << what;
    EXPECT_EQ(ddq, M::TangentVector::Zero()) << what;
    EXPECT_TRUE(cs->lambda.isZero(0.0)) << what;
    EXPECT_EQ(rep.iterations, 0) << what;
    EXPECT_EQ(rep.residual, 0.0) << what;
    EXPECT_EQ(cs->failure().status, Status::invalid_input) << what;
  };
  for (std::size_t i = 0; i < bad.size(); ++i) {
    M::TangentVector ddq = M::TangentVector::Constant(1.0);
    Report rep;
    ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, Settings{}, rep), Status::ok);
    rep.iterations = 99;
    rep.residual = 1;
    expect_invalid("bad settings",
                   talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, bad[i], rep), ddq, rep);
    EXPECT_EQ(cs->failure().reason, FailureReason::input_invalid) << i;
  }
  {  // NaN τ, NaN q, unnormalised quaternion, NaN external force
    M::TangentVector ddq, tau = s.tau;
    Report rep;
    tau[7] = nan;
    expect_invalid("NaN tau", talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, tau, ddq, Settings{}, rep),
                   ddq, rep);
    M::ConfigVector q = s.q;
    q[0] = nan;
    expect_invalid("NaN q", talus::forward_dynamics_proximal(model, *data, *cs, q, s.v, s.tau, ddq, Settings{}, rep),
                   ddq, rep);
    EXPECT_EQ(cs->failure().reason, FailureReason::q_invalid);
    q = s.q;
    q[3] = 2.0;
    expect_invalid("quaternion",
                   talus::forward_dynamics_proximal(model, *data, *cs, q, s.v, s.tau, ddq, Settings{}, rep), ddq, rep);
    talus::ExternalForces<M> fext;
    for (auto& f : fext) f.setZero();
    fext[3][1] = inf;
    expect_invalid("fext",
                   talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, Settings{}, rep, &fext),
                   ddq, rep);
  }
  {  // a set that is not bound
    auto unbound = std::make_unique<Set>();
    ASSERT_EQ(unbound->add_contact(model, kFeet[0], {kZ}), Status::ok);
    M::TangentVector ddq = M::TangentVector::Constant(1.0);
    Report rep;
    EXPECT_EQ(talus::forward_dynamics_proximal(model, *data, *unbound, s.q, s.v, s.tau, ddq, Settings{}, rep),
              Status::invalid_input);
    EXPECT_EQ(unbound->failure().reason, FailureReason::set_not_bound);
    EXPECT_EQ(ddq, M::TangentVector::Zero());
  }
}

// 6. Impulses: compute_impulse_proximal. A box landing flat on four welded corners (12 rows,
// rank 6): the other impulse methods refuse (singular); the proximal one gives v⁺ = 0 at every
// row, the total impulse H(v⁺ − v⁻) = −H v⁻ (linear m Δv; rotational I Δω about the centre),
// the minimum-norm Λ (checked against a complete orthogonal decomposition of Gᵀ, independent of
// the iteration) and, landing straight down, a quarter of m|v_z| on each corner, no friction,
// no corner pulling. Against forward_dynamics_proximal: at rest with τ = C + H v⁻ the force
// that holds the box is Gᵀλ = −H v⁻, the impulse's equation, so λ (N) = Λ (N·s) number for number.
TEST(ConsistencyProximal, BoxLandingOnFourWeldedCornersImpulse) {
  const Box model = make_box();
  auto data = std::make_unique<talus::Data<Box>>();
  auto cs = box_on_corners(model);
  const Box::ConfigVector q = box_at_rest();
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
  Box::TangentVector vm = Box::TangentVector::Zero(), vp;
  vm[5] = -1.5;  // falling flat at 1.5 m/s ([ω; v], body frame = world here)
  EXPECT_EQ(talus::compute_impulse_direct(model, *data, *cs, q, vm, vp), Status::singular);
  EXPECT_EQ(talus::compute_impulse_range_space(model, *data, *cs, q, vm, vp), Status::singular);
  Report rep;
  vp.setConstant(7.0);
  ASSERT_EQ(talus::compute_impulse_proximal(model, *data, *cs, q, vm, vp, Settings{}, rep), Status::ok);
  std::printf("box landing on 4 welded corners: %d iterations, residual %.3g (tolerance %.3g)\n", rep.iterations,
              rep.residual, rep.tolerance);
  EXPECT_LE(rep.residual, rep.tolerance);
  EXPECT_LE(vp.cwiseAbs().maxCoeff(), 1e-12) << "v+ = 0";
  EXPECT_LE((cs->G * vp).cwiseAbs().maxCoeff(), 1e-12) << "all 12 rows stop";
  const double p = kMass * 1.5;
  for (int c = 0; c < 4; ++c) {
    // λ's null-space component carries the rounding error eps·‖D‖/μ (the file comment): 1e-6
    EXPECT_NEAR(cs->lambda(3 * c), p / 4, 1e-6 * p) << "corner " << c << ": a quarter of m |v_z|, pushing";
    EXPECT_NEAR(cs->lambda(3 * c + 1), 0.0, 1e-6 * p);
    EXPECT_NEAR(cs->lambda(3 * c + 2), 0.0, 1e-6 * p);
  }
  // tumbling in: any v⁻ (linear and angular). v⁺ = 0; total impulse = −H v⁻; Λ minimum-norm.
  talus::Random rng(8);
  double worst = 0;
  for (int trial = 0; trial < 10; ++trial) {
    for (int i = 0; i < 6; ++i) vm[i] = rng.uniform(-2.0, 2.0);
    const Box::ConfigVector qy = box_at_rest(rng.uniform(-1.0, 1.0));
    ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, qy), Status::ok);
    ASSERT_EQ(talus::compute_impulse_proximal(model, *data, *cs, qy, vm, vp, Settings{}, rep), Status::ok) << trial;
    EXPECT_LE(vp.cwiseAbs().maxCoeff(), 1e-10) << trial;
    const Eigen::MatrixXd G = cs->G;
    const Eigen::VectorXd L = cs->lambda;
    const Eigen::VectorXd total = G.transpose() * L, expect = -(data->H * vm);
    EXPECT_LE((total - expect).cwiseAbs().maxCoeff(), 1e-9 * (1 + expect.cwiseAbs().maxCoeff())) << trial;
    EXPECT_NEAR(total[5], -kMass * vm[5], 1e-9) << "linear impulse m dv (z, yaw only turns x-y)";
    const Eigen::VectorXd lmin = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(G.transpose()).solve(expect);
    EXPECT_LE(rel_err(L, lmin), 1e-7) << trial;
    worst = std::max(worst, (L - lmin).cwiseAbs().maxCoeff());
  }
  std::printf("box tumbling in, 10 trials: |Lambda - Lambda_min_norm| <= %.3g N s\n", worst);
  // forward_dynamics_proximal at rest with τ = C + H v⁻: λ = Λ
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
  ASSERT_EQ(talus::compute_impulse_proximal(model, *data, *cs, q, vm, vp, Settings{}, rep), Status::ok);
  const Eigen::VectorXd Lambda = cs->lambda;
  const Eigen::MatrixXd H = data->H;
  Box::TangentVector C, ddq;
  const Box::TangentVector zero = Box::TangentVector::Zero();
  ASSERT_EQ(talus::rnea(model, *data, q, zero, zero, C), Status::ok);
  const Box::TangentVector tau = C + H * vm;
  ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, q, zero, tau, ddq, Settings{}, rep), Status::ok);
  EXPECT_LE(ddq.cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LE(rel_err(cs->lambda, Lambda), 1e-7) << cs->lambda.transpose() << "\n" << Lambda.transpose();
}

// A target v⁺: consistent (every corner rising at 0.1 m/s: the box lifts) is met; inconsistent
// (one corner up, the other three still: no rigid motion) is singular — the residual left at the
// cap lies in the null space of G H⁻¹ Gᵀ — where forward_dynamics_proximal, which does not
// classify, says not_converged. A slow but consistent solve (μ = 1, one iteration) stays
// not_converged. Bad settings: invalid_input. Outputs zero on every failure.
TEST(ConsistencyProximal, ImpulseTargetsCapAndRefusals) {
  const Box model = make_box();
  auto data = std::make_unique<talus::Data<Box>>();
  auto cs = box_on_corners(model);
  const Box::ConfigVector q = box_at_rest(0.3);
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
  Box::TangentVector vm = Box::TangentVector::Zero(), vp;
  vm[5] = -1.0;
  Report rep;
  BoxSet::RowVector target = BoxSet::RowVector::Zero(12);
  for (int c = 0; c < 4; ++c) target[3 * c] = 0.1;
  ASSERT_EQ(talus::compute_impulse_proximal(model, *data, *cs, q, vm, vp, Settings{}, rep, &target), Status::ok);
  EXPECT_LE((cs->G * vp - target).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NEAR(vp[5], 0.1, 1e-10);
  target.setZero();
  target[0] = 0.1;
  vp.setConstant(3);
  EXPECT_EQ(talus::compute_impulse_proximal(model, *data, *cs, q, vm, vp, Settings{}, rep, &target), Status::singular);
  EXPECT_EQ(cs->failure().reason, FailureReason::singular);
  EXPECT_EQ(vp, Box::TangentVector::Zero());
  EXPECT_TRUE(cs->lambda.isZero(0.0));
  Settings slow;
  slow.mu = 1.0;
  slow.max_iterations = 1;
  vp.setConstant(3);
  EXPECT_EQ(talus::compute_impulse_proximal(model, *data, *cs, q, vm, vp, slow, rep), Status::not_converged);
  EXPECT_EQ(rep.iterations, 1);
  EXPECT_GT(rep.residual, rep.tolerance);
  EXPECT_EQ(vp, Box::TangentVector::Zero());
  Settings bad;
  bad.mu = 0;
  EXPECT_EQ(talus::compute_impulse_proximal(model, *data, *cs, q, vm, vp, bad, rep), Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::input_invalid);
  EXPECT_EQ(rep.iterations, 0);
  BoxSet::RowVector wrong = BoxSet::RowVector::Zero(5);
  EXPECT_EQ(talus::compute_impulse_proximal(model, *data, *cs, q, vm, vp, Settings{}, rep, &wrong),
            Status::invalid_input);
}

// impulses_contact with the welded corners as the bilateral set (no unilateral contact): the
// default pivoted-QR elimination returns a basic λ (one valid split, uneven; a corner may pull),
// ContactOptions::bilateral_minimum_norm the proximal one: compute_impulse_proximal's Λ, a
// quarter each. v⁺ = 0 either way (it does not depend on the split).
TEST(ConsistencyProximal, ImpulsesContactMinimumNormBilateral) {
  const Box model = make_box();
  auto data = std::make_unique<talus::Data<Box>>();
  auto cs = box_on_corners(model);
  const Box::ConfigVector q = box_at_rest();
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
  Box::TangentVector vm = Box::TangentVector::Zero(), vp;
  vm[5] = -1.5;
  using CP = talus::ContactProblem<Box, 1, 4>;
  CP cp;
  talus::ContactOptions<double, CP::max_lcp> o;
  talus::ContactReport<double> crep;
  ASSERT_EQ(talus::impulses_contact(model, *data, cp, *cs, q, vm, vp, o, crep), Status::ok);
  EXPECT_LE(vp.cwiseAbs().maxCoeff(), 1e-10);
  double low = 1e9;
  for (int c = 0; c < 4; ++c) low = std::min(low, cs->lambda(3 * c));
  std::printf("impulses_contact, pivoted QR: corner normal impulses %.4f %.4f %.4f %.4f N s (smallest %.3g)\n",
              cs->lambda(0), cs->lambda(3), cs->lambda(6), cs->lambda(9), low);
  o.bilateral_minimum_norm = true;
  ASSERT_EQ(talus::impulses_contact(model, *data, cp, *cs, q, vm, vp, o, crep), Status::ok)
      << talus::to_string(cp.failure().reason);
  EXPECT_LE(vp.cwiseAbs().maxCoeff(), 1e-10);
  const Eigen::VectorXd L = cs->lambda;
  const double p = kMass * 1.5;
  for (int c = 0; c < 4; ++c) {
    EXPECT_NEAR(L(3 * c), p / 4, 1e-6 * p) << c;
    EXPECT_NEAR(L(3 * c + 1), 0.0, 1e-6 * p);
    EXPECT_NEAR(L(3 * c + 2), 0.0, 1e-6 * p);
  }
  EXPECT_GE(crep.bilateral.iterations, 1);
  EXPECT_LE(crep.bilateral.residual, crep.bilateral.tolerance);
  Report rep;
  ASSERT_EQ(talus::compute_impulse_proximal(model, *data, *cs, q, vm, vp, Settings{}, rep), Status::ok);
  EXPECT_LE(rel_err(L, cs->lambda), 1e-7);
  std::printf("impulses_contact, minimum norm: %d iterations, residual %.3g; each corner %.6f N s (m|v|/4 = %.6f)\n",
              crep.bilateral.iterations, crep.bilateral.residual, L(0), p / 4);
  // the same option at acceleration level: the resting box's weight in quarters
  Box::TangentVector ddq;
  const Box::TangentVector zero = Box::TangentVector::Zero();
  ASSERT_EQ(talus::forward_dynamics_contact(model, *data, cp, *cs, q, zero, zero, ddq, o, crep), Status::ok);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(cs->lambda(3 * c), kMass * 9.81 / 4, 1e-6 * kMass * 9.81) << c;
  // bad proximal settings are refused up front (the option's settings are checked only when on)
  o.proximal.max_iterations = 0;
  EXPECT_EQ(talus::impulses_contact(model, *data, cp, *cs, q, vm, vp, o, crep), Status::invalid_input);
  EXPECT_EQ(vp, Box::TangentVector::Zero());
  o.bilateral_minimum_norm = false;
  EXPECT_EQ(talus::impulses_contact(model, *data, cp, *cs, q, vm, vp, o, crep), Status::ok);
}

// 6. Constrained ABA (forward_dynamics_constrained_aba.hpp): the same q̈ and λ, and the same impulses,
// as the range-space, articulated and proximal methods on solo12, as the articulated method on
// anymal_c (four point contacts) and talos (both soles, as 6D contacts and as loops to the world); a
// redundant set against the proximal method; bad input and the cap. One set type per robot.
struct Agreement {
  int references = 3;                                // 3: range space, articulated, proximal; 1: articulated
  double ddq[3] = {0, 0, 0}, lambda[3] = {0, 0, 0};  // vs each reference
  double impulse_v = 0, impulse_lambda = 0;          // impulse vs the references' impulses
  int max_it = 0, total_it = 0, states = 0;
};

/// AllReferences: against range space, articulated and proximal (solo12); else against the
/// articulated method only (the larger robots: one reference keeps the test's compile time down).
template <bool AllReferences, class ModelT, int MR, int MC>
void constrained_aba_agreement(const ModelT& model, talus::ConstraintSet<ModelT, MR, MC>& cs, unsigned seed, int states,
                               Agreement& a) {
  auto data = std::make_unique<talus::Data<ModelT>>();
  talus::Random rng(seed);
  const Settings st = talus::constrained_aba_settings<double>();
  a.references = AllReferences ? 3 : 1;
  for (int i = 0; i < states; ++i) {
    const auto s = random_state(model, rng);
    typename ModelT::TangentVector ref[3], ddq, vp_ref[2], vp;
    Eigen::VectorXd lref[3], iref[2];
    Report rep;
    ASSERT_EQ(talus::forward_dynamics_articulated(model, *data, cs, s.q, s.v, s.tau, ref[0]), Status::ok);
    lref[0] = cs.lambda;
    ASSERT_EQ(talus::compute_impulse_articulated(model, *data, cs, s.q, s.v, vp_ref[0]), Status::ok);
    iref[0] = cs.lambda;
    if constexpr (AllReferences) {
      ASSERT_EQ(talus::forward_dynamics_range_space(model, *data, cs, s.q, s.v, s.tau, ref[1]), Status::ok);
      lref[1] = cs.lambda;
      ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, cs, s.q, s.v, s.tau, ref[2], Settings{}, rep),
                Status::ok);
      lref[2] = cs.lambda;
      ASSERT_EQ(talus::compute_impulse_range_space(model, *data, cs, s.q, s.v, vp_ref[1]), Status::ok);
      iref[1] = cs.lambda;
    }
    ASSERT_EQ(talus::forward_dynamics_constrained_aba(model, *data, cs, s.q, s.v, s.tau, ddq, st, rep), Status::ok);
    EXPECT_LE(rep.residual, rep.tolerance);
    EXPECT_LE((cs.G * ddq - cs.gamma).cwiseAbs().maxCoeff(), 2 * rep.tolerance);
    EXPECT_EQ(cs.failure().status, Status::ok);
    for (int j = 0; j < a.references; ++j) {
      a.ddq[j] = std::max(a.ddq[j], rel_err(ddq, ref[j]));
      a.lambda[j] = std::max(a.lambda[j], rel_err(cs.lambda, lref[j]));
    }
    a.max_it = std::max(a.max_it, rep.iterations);
    a.total_it += rep.iterations;
    ++a.states;
    // the impulse from the state's q̇ as q̇⁻ (target 0)
    ASSERT_EQ(talus::compute_impulse_constrained_aba(model, *data, cs, s.q, s.v, vp, st, rep), Status::ok);
    EXPECT_LE((cs.G * vp).cwiseAbs().maxCoeff(), 2 * rep.tolerance);
    for (int j = 0; j < (AllReferences ? 2 : 1); ++j) {
      a.impulse_v = std::max(a.impulse_v, rel_err(vp, vp_ref[j]));
      a.impulse_lambda = std::max(a.impulse_lambda, rel_err(cs.lambda, iref[j]));
    }
  }
}

void expect_agreement(const char* what, const Agreement& a) {
  const char* names[3] = {"articulated", "range space", "proximal"};
  std::printf("constrained ABA, %s, %d states: max rel. diff q̈ / λ vs", what, a.states);
  for (int j = 0; j < a.references; ++j) {
    EXPECT_LE(a.ddq[j], 1e-10) << what << ", q̈ vs " << names[j];
    EXPECT_LE(a.lambda[j], 1e-10) << what << ", λ vs " << names[j];
    std::printf(" %s %.2g / %.2g,", names[j], a.ddq[j], a.lambda[j]);
  }
  EXPECT_LE(a.impulse_v, 1e-10) << what << ", impulse q̇⁺";
  EXPECT_LE(a.impulse_lambda, 1e-10) << what << ", impulse Λ";
  std::printf(" impulse q̇⁺ / Λ %.2g / %.2g; forward iterations mean %.1f, max %d\n", a.impulse_v, a.impulse_lambda,
              static_cast<double>(a.total_it) / a.states, a.max_it);
}

TEST(ConsistencyConstrainedABA, Solo12FourFeetAndRedundantFootMatchOtherMethods) {
  const auto model = solo::make_model<double>();
  auto cs = std::make_unique<Set>();
  for (int f : kFeet) ASSERT_EQ(cs->add_contact(model, f, {kZ, kX, kY}), Status::ok);
  ASSERT_EQ(cs->add_contact(model, kFeet[0], {kZ, kX, kY}), Status::ok);  // the FL foot again (redundant)
  ASSERT_EQ(cs->bind(model), Status::ok);
  ASSERT_EQ(cs->set_active(4, false), Status::ok);
  Agreement a;
  constrained_aba_agreement<true>(model, *cs, 41, 20, a);
  expect_agreement("solo12, 4 feet x 3 axes", a);
  // redundant: FL twice (15 rows, rank 12): the proximal method's q̈, the once-added foot's force
  // split between the copies (its split lies in the null space of G H⁻¹ Gᵀ: held as the proximal test
  // holds it, to its documented rounding)
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(43);
  const Settings st = talus::constrained_aba_settings<double>();
  double max_ddq = 0, max_sum = 0, max_split = 0;
  int max_it = 0;
  for (int i = 0; i < 10; ++i) {
    const auto s = random_state(model, rng);
    M::TangentVector ddq_once, ddq_prox, ddq;
    Report rep;
    ASSERT_EQ(cs->set_active(4, false), Status::ok);
    ASSERT_EQ(talus::forward_dynamics_range_space(model, *data, *cs, s.q, s.v, s.tau, ddq_once), Status::ok);
    const Eigen::VectorXd l1 = cs->lambda;
    ASSERT_EQ(cs->set_active(4, true), Status::ok);
    ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq_prox, Settings{}, rep),
              Status::ok);
    ASSERT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *cs, s.q, s.v, s.tau, ddq, st, rep), Status::ok);
    max_it = std::max(max_it, rep.iterations);
    const Eigen::VectorXd l2 = cs->lambda;
    ASSERT_EQ(l2.size(), 15);
    max_ddq = std::max({max_ddq, rel_err(ddq, ddq_prox), rel_err(ddq, ddq_once)});
    const double scale = std::max(1.0, l1.cwiseAbs().maxCoeff());
    for (int k = 0; k < 3; ++k) {
      max_sum = std::max(max_sum, std::abs(l2[k] + l2[12 + k] - l1[k]) / scale);
      max_split = std::max(max_split, std::abs(l2[k] - l2[12 + k]) / scale);
    }
    max_sum = std::max(max_sum, rel_err(l2.segment(3, 9), l1.segment(3, 9)));
  }
  EXPECT_LE(max_ddq, 1e-10);
  EXPECT_LE(max_sum, 1e-10);
  EXPECT_LE(max_split, 1e-6);
  std::printf(
      "constrained ABA, solo12 FL twice (rank 12 of 15): q̈ vs proximal/once %.2g, λ sums %.2g, split %.2g, "
      "at most %d iterations\n",
      max_ddq, max_sum, max_split, max_it);
}

TEST(ConsistencyConstrainedABA, AnymalFourFeetMatchesOtherMethods) {
  namespace an = talus::models::anymal_c;
  const auto model = an::make_model<double>();
  auto cs = std::make_unique<talus::ConstraintSet<an::Model<double>, 12, 4>>();
  for (const char* f : {"LF_FOOT", "RF_FOOT", "LH_FOOT", "RH_FOOT"})
    ASSERT_EQ(cs->add_contact(model, an::frame_id(f), {kZ, kX, kY}), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  Agreement a;
  constrained_aba_agreement<false>(model, *cs, 47, 20, a);
  expect_agreement("anymal_c, 4 feet x 3 axes", a);
}

TEST(ConsistencyConstrainedABA, TalosBothSolesMatchesOtherMethods) {
  namespace tl = talus::models::talos;
  using TM = tl::Model<double>;
  const auto model = tl::make_model<double>();
  auto data = std::make_unique<talus::Data<TM>>();
  talus::Random rng(53);
  const auto s0 = random_state(model, rng);
  ASSERT_EQ(talus::forward_kinematics(model, *data, s0.q), Status::ok);
  const int left = tl::frame_id("left_sole_link"), right = tl::frame_id("right_sole_link");
  // 6D contacts, one of each row kind, anchored where the soles are
  auto cs = std::make_unique<talus::ConstraintSet<TM, 12, 2>>();
  ASSERT_EQ(cs->add_contact_6d(model, left, talus::ContactFrame6D::local), Status::ok);
  ASSERT_EQ(cs->add_contact_6d(model, right, talus::ContactFrame6D::local_world_aligned), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, s0.q), Status::ok);
  Agreement a;
  constrained_aba_agreement<false>(model, *cs, 59, 20, a);
  expect_agreement("talos, 2 soles x 6D contacts", a);
  // the same soles as loops to the world, one each way (world -> sole, sole -> world), with Baumgarte
  auto loops = std::make_unique<talus::ConstraintSet<TM, 12, 2>>();
  talus::Transform<double> oMl, oMr;
  ASSERT_EQ(talus::frame_placement(model, *data, left, oMl), Status::ok);
  ASSERT_EQ(talus::frame_placement(model, *data, right, oMr), Status::ok);
  std::array<talus::LoopAxis<double>, 6> ax;
  for (int k = 0; k < 6; ++k) ax[k].axis = talus::Motion<double>::Unit(k);
  ax[4].axis = (talus::Motion<double>() << 0.0, 0.0, 0.0, 0.6, 0.8, 0.0).finished();  // not the unit axes only
  ASSERT_EQ(loops->add_loop(-1, oMl, model.frames[left].body, model.frames[left].placement, ax,
                            talus::Baumgarte<double>::on()),
            Status::ok);
  ASSERT_EQ(loops->add_loop(model.frames[right].body, model.frames[right].placement, -1, oMr, ax), Status::ok);
  ASSERT_EQ(loops->bind(model), Status::ok);
  Agreement b;
  constrained_aba_agreement<false>(model, *loops, 61, 20, b);
  expect_agreement("talos, 2 soles x 6-axis loops to the world", b);
  // a loop between two bodies does not fold: invalid_input, kind_not_supported, outputs zero
  auto two = std::make_unique<talus::ConstraintSet<TM, 12, 2>>();
  ASSERT_EQ(two->add_loop(model.frames[left].body, model.frames[left].placement, model.frames[right].body,
                          model.frames[right].placement, ax),
            Status::ok);
  ASSERT_EQ(two->bind(model), Status::ok);
  TM::TangentVector ddq = TM::TangentVector::Constant(1.0);
  Report rep;
  EXPECT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *two, s0.q, s0.v, s0.tau, ddq,
                                                    talus::constrained_aba_settings<double>(), rep),
            Status::invalid_input);
  EXPECT_EQ(two->failure().reason, FailureReason::kind_not_supported);
  EXPECT_EQ(two->failure().index, 0);
  EXPECT_TRUE(ddq.isZero(0.0));
  EXPECT_TRUE(two->lambda.isZero(0.0));
}

TEST(ConsistencyConstrainedABA, BoxOnCornersBadInputAndCap) {
  const Box model = make_box();
  auto data = std::make_unique<talus::Data<Box>>();
  auto cs = box_on_corners(model);
  const Box::ConfigVector q = box_at_rest(0.3);
  const Box::TangentVector zero = Box::TangentVector::Zero();
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, q), Status::ok);
  talus::Random rng(67);
  const Settings st = talus::constrained_aba_settings<double>();
  Box::TangentVector ddq, ddq_prox;
  Report rep;
  double max_ddq = 0, max_lambda = 0;
  for (int i = 0; i < 5; ++i) {
    Box::TangentVector tau;  // random wrenches, at rest: consistent, 12 rows of rank 6
    for (int k = 0; k < 6; ++k) tau[k] = rng.uniform(-5, 5);
    const Box::TangentVector v = zero;
    ASSERT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, q, v, tau, ddq_prox, Settings{}, rep), Status::ok);
    const Eigen::VectorXd lp = cs->lambda;
    ASSERT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *cs, q, v, tau, ddq, st, rep), Status::ok);
    max_ddq = std::max(max_ddq, rel_err(ddq, ddq_prox));
    max_lambda = std::max(max_lambda, rel_err(cs->lambda, lp));
    EXPECT_LE(ddq.cwiseAbs().maxCoeff(), 1e-10) << "at rest";
  }
  EXPECT_LE(max_ddq, 1e-10);
  // the proximal method's λ carries eps·‖D‖/μ along the null space of D (its header); this one's eps/μ·...
  EXPECT_LE(max_lambda, 1e-6);
  std::printf("constrained ABA, box on 4 corners (rank 6 of 12): q̈ vs proximal %.2g, λ vs proximal %.2g\n", max_ddq,
              max_lambda);
  // bad input: NaN in q
  Box::ConfigVector qbad = q;
  qbad[0] = std::numeric_limits<double>::quiet_NaN();
  ddq.setConstant(2.0);
  EXPECT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *cs, qbad, zero, zero, ddq, st, rep),
            Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::q_invalid);
  EXPECT_TRUE(ddq.isZero(0.0));
  EXPECT_EQ(cs->lambda.size(), 12);
  EXPECT_TRUE(cs->lambda.isZero(0.0));
  EXPECT_EQ(rep.iterations, 0);
  Settings bad = st;
  bad.mu = 0;
  EXPECT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *cs, q, zero, zero, ddq, bad, rep),
            Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::input_invalid);
  // the cap: one iteration, a tolerance it cannot reach
  Settings capped = st;
  capped.max_iterations = 1;
  capped.absolute_accuracy = 1e-300;
  capped.relative_accuracy = 0;
  ddq.setConstant(3.0);
  EXPECT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *cs, q, zero, zero, ddq, capped, rep),
            Status::not_converged);
  EXPECT_TRUE(ddq.isZero(0.0));
  EXPECT_EQ(cs->lambda.size(), 12);
  EXPECT_TRUE(cs->lambda.isZero(0.0));
  EXPECT_EQ(cs->failure().reason, FailureReason::not_converged);
  EXPECT_EQ(rep.iterations, 1);
  EXPECT_GT(rep.residual, capped.absolute_accuracy);
}

// 5. No heap inside the solve (non-redundant, redundant, not converged, invalid).
TEST(AllocProximal, SolveDoesNotAllocate) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  for (int f : kFeet) ASSERT_EQ(cs->add_contact(model, f, {kZ, kX, kY}), Status::ok);
  ASSERT_EQ(cs->add_contact(model, kFeet[0], {kZ, kX, kY}), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  const Box box = make_box();
  auto bdata = std::make_unique<talus::Data<Box>>();
  auto bcs = box_on_corners(box);
  const Box::ConfigVector bq = box_at_rest(0.2);
  const Box::TangentVector bzero = Box::TangentVector::Zero();
  ASSERT_EQ(talus::anchor_contacts(box, *bdata, *bcs, bq), Status::ok);
  talus::Random rng(23);
  const auto s = random_state(model, rng);
  talus::ExternalForces<M> fext;
  for (auto& f : fext) f = talus::Force<double>::Constant(0.5);
  M::TangentVector ddq;
  Box::TangentVector bddq;
  Report rep;
  Settings capped;
  capped.max_iterations = 1;
  capped.absolute_accuracy = 0;
  capped.relative_accuracy = 0;
  Settings bad;
  bad.mu = -1;
  const Settings caba = talus::constrained_aba_settings<double>();
  Box::TangentVector bimpact = Box::TangentVector::Zero();
  bimpact[5] = -1.0;
  bimpact[0] = 0.3;
  BoxSet::RowVector bodd = BoxSet::RowVector::Zero(12);
  bodd[0] = 0.1;  // inconsistent target
  talus::ContactProblem<Box, 1, 4> bcp;
  talus::ContactOptions<double, talus::ContactProblem<Box, 1, 4>::max_lcp> copt;
  copt.bilateral_minimum_norm = true;
  talus::ContactReport<double> crep;
  const std::size_t calls = heap_calls([&] {
    EXPECT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, Settings{}, rep), Status::ok);
    EXPECT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, Settings{}, rep, &fext),
              Status::ok);
    EXPECT_EQ(talus::forward_dynamics_proximal(box, *bdata, *bcs, bq, bzero, bzero, bddq, Settings{}, rep), Status::ok);
    EXPECT_EQ(talus::forward_dynamics_proximal(box, *bdata, *bcs, bq, bzero, bzero, bddq, capped, rep),
              Status::not_converged);
    EXPECT_EQ(talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, ddq, bad, rep),
              Status::invalid_input);
    EXPECT_EQ(talus::compute_impulse_proximal(box, *bdata, *bcs, bq, bimpact, bddq, Settings{}, rep), Status::ok);
    EXPECT_EQ(talus::compute_impulse_proximal(box, *bdata, *bcs, bq, bimpact, bddq, capped, rep),
              Status::not_converged);
    EXPECT_EQ(talus::compute_impulse_proximal(box, *bdata, *bcs, bq, bimpact, bddq, Settings{}, rep, &bodd),
              Status::singular);
    EXPECT_EQ(talus::impulses_contact(box, *bdata, bcp, *bcs, bq, bimpact, bddq, copt, crep), Status::ok);
    EXPECT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *cs, s.q, s.v, s.tau, ddq, caba, rep), Status::ok);
    EXPECT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *cs, s.q, s.v, s.tau, ddq, caba, rep, &fext),
              Status::ok);
    EXPECT_EQ(talus::forward_dynamics_constrained_aba(box, *bdata, *bcs, bq, bzero, bzero, bddq, caba, rep),
              Status::ok);
    EXPECT_EQ(talus::forward_dynamics_constrained_aba(box, *bdata, *bcs, bq, bzero, bzero, bddq, capped, rep),
              Status::not_converged);
    EXPECT_EQ(talus::forward_dynamics_constrained_aba(model, *data, *cs, s.q, s.v, s.tau, ddq, bad, rep),
              Status::invalid_input);
    EXPECT_EQ(talus::compute_impulse_constrained_aba(box, *bdata, *bcs, bq, bimpact, bddq, caba, rep), Status::ok);
    EXPECT_EQ(talus::compute_impulse_constrained_aba(box, *bdata, *bcs, bq, bimpact, bddq, capped, rep),
              Status::not_converged);
    EXPECT_EQ(talus::compute_impulse_constrained_aba(model, *data, *cs, s.q, s.v, ddq, bad, rep),
              Status::invalid_input);
  });
  EXPECT_EQ(calls, 0u);
}

}  // namespace
}  // namespace talus_test
