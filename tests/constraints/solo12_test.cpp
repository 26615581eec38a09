// solo12 (4 feet × 3 axes), solo12 with a loop between its front feet, standing still, bad input, no heap.
#include <talus/models/solo12.hpp>

#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::Status;
namespace solo = talus::models::solo12;
constexpr int kStates = 20;

TEST(ConsistencyConstraints, Solo12FourFeet) {
  const auto model = solo::make_model<double>();
  auto cs = std::make_unique<talus::ConstraintSet<solo::Model<double>, 12>>();
  add_feet(model, *cs,
           {solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
            solo::frame_id("HR_FOOT")});
  EXPECT_EQ(cs->active_rows(), 12);
  run_random_states(model, *cs, true, kStates, 1);
  // lift two feet (a trot phase), land them again: no rebind
  ASSERT_EQ(cs->set_active(cs->find("foot1"), false), Status::ok);
  ASSERT_EQ(cs->set_active(cs->find_user_id(102), false), Status::ok);
  EXPECT_EQ(cs->active_rows(), 6);
  EXPECT_EQ(cs->row_offset(3), 3);
  run_random_states(model, *cs, true, 5, 2);
  ASSERT_EQ(cs->set_active(1, true), Status::ok);
  ASSERT_EQ(cs->set_active(2, true), Status::ok);
  run_random_states(model, *cs, true, 3, 3);
}

// compute_constrained_system sweeps the tree once (kinematics, CRBA's and RNEA's forward steps
// together): its H, C, G, γ and errors equal those of the separate algorithms to the last bit,
// with and without external forces, for contacts and a loop.
TEST(ConsistencyConstraints, OnePassSystemEqualsTheSeparateAlgorithms) {
  using M = solo::Model<double>;
  const auto model = solo::make_model<double>();
  auto cs = std::make_unique<talus::ConstraintSet<M, 12>>();
  const auto& FL = model.frames[solo::frame_id("FL_FOOT")];
  const auto& FR = model.frames[solo::frame_id("FR_FOOT")];
  talus::LoopAxis<double> ax[3];
  for (int k = 0; k < 3; ++k) ax[k].axis = talus::Motion<double>::Unit(k + (k == 2 ? 3 : 0));
  ASSERT_EQ(cs->add_loop(FL.body, FL.placement, FR.body, FR.placement, {ax[0], ax[1], ax[2]}), Status::ok);
  for (const char* foot : {"HL_FOOT", "HR_FOOT", "FL_FOOT"})
    ASSERT_EQ(cs->add_contact(model, solo::frame_id(foot),
                              {Vector3<double>::UnitX(), Vector3<double>::UnitY(),
                               Vector3<double>(0.1, 0, 1).normalized()}),
              Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  ASSERT_EQ(cs->active_rows(), 12);
  auto one = std::make_unique<talus::Data<M>>();
  auto sep = std::make_unique<talus::Data<M>>();
  talus::Random rng(21);
  const int all = talus::detail::pass_jacobian | talus::detail::pass_gamma | talus::detail::pass_position_error |
                  talus::detail::pass_velocity_error;
  for (int n = 0; n < 20; ++n) {
    M::ConfigVector q;
    talus::random_configuration(model, rng, q);
    M::TangentVector v, C;
    for (int i = 0; i < M::nv; ++i) v[i] = rng.uniform(-2, 2);
    auto fext = talus::zero_external_forces<M>();
    for (auto& f : fext)
      for (int k = 0; k < 6; ++k) f[k] = rng.uniform(-5, 5);
    const talus::ExternalForces<M>* with = n % 2 ? &fext : nullptr;
    ASSERT_EQ(talus::compute_constrained_system(model, *one, *cs, q, v, with), Status::ok);
    const M::MatrixNV H = one->H;
    const M::TangentVector C1 = cs->C;
    const auto G = cs->G;
    const auto gamma = cs->gamma, perr = cs->position_error, verr = cs->velocity_error;
    ASSERT_TRUE(talus::detail::constraint_pass(model, *sep, *cs, q, v, all));
    ASSERT_EQ(talus::crba(model, *sep, q), Status::ok);
    const M::TangentVector zero = M::TangentVector::Zero();
    ASSERT_EQ(with ? talus::rnea(model, *sep, q, v, zero, fext, C) : talus::rnea(model, *sep, q, v, zero, C),
              Status::ok);
    EXPECT_TRUE(H == sep->H) << n;
    EXPECT_TRUE(C1 == C) << n;
    EXPECT_TRUE(G == cs->G && gamma == cs->gamma && perr == cs->position_error && verr == cs->velocity_error) << n;
    // An impulse sweeps once too (CRBA's forward pass gives the rows' kinematics): same H, G.
    M::TangentVector v_plus;
    ASSERT_EQ(talus::compute_impulse_range_space(model, *one, *cs, q, v, v_plus), Status::ok);
    EXPECT_TRUE(one->H == sep->H && cs->G == G) << n;
  }
}

TEST(ConsistencyConstraints, FloatingBaseWithLoop) {
  // solo12 with its front feet tied by a rod (3 linear rows) and its hind feet in contact
  const auto model = solo::make_model<double>();
  auto cs = std::make_unique<talus::ConstraintSet<solo::Model<double>, 12>>();
  const auto& FL = model.frames[solo::frame_id("FL_FOOT")];
  const auto& FR = model.frames[solo::frame_id("FR_FOOT")];
  talus::LoopAxis<double> ax[3];
  for (int k = 0; k < 3; ++k) ax[k].axis = talus::Motion<double>::Unit(3 + k);
  ASSERT_EQ(cs->add_loop(FL.body, FL.placement, FR.body, FR.placement, {ax[0], ax[1], ax[2]},
                         talus::Baumgarte<double>::on(), "front_rod"),
            Status::ok);
  for (const char* foot : {"HL_FOOT", "HR_FOOT"}) {
    const auto& F = model.frames[solo::frame_id(foot)];
    ASSERT_EQ(cs->add_contact(F.body, F.placement.p,
                              {Vector3<double>(0.3, 0, 1).normalized(), Vector3<double>(0, 1, 0)}, foot),
              Status::ok);
  }
  ASSERT_EQ(cs->bind(model), Status::ok);
  EXPECT_EQ(cs->active_rows(), 7);
  run_random_states(model, *cs, false, kStates, 7);
}

TEST(ConsistencyConstraints, StandingQuadrupedCarriesItsWeight) {
  const auto model = solo::make_model<double>();
  using M = solo::Model<double>;
  auto cs = std::make_unique<talus::ConstraintSet<M, 12>>();
  add_feet(model, *cs,
           {solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
            solo::frame_id("HR_FOOT")});
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(11);
  for (int i = 0; i < 5; ++i) {
    auto s = random_state(model, rng);
    const M::TangentVector v = M::TangentVector::Zero();
    M::TangentVector g;
    ASSERT_EQ(talus::generalized_gravity(model, *data, s.q, g), Status::ok);
    ASSERT_EQ(talus::compute_constraint_jacobian(model, *data, *cs, s.q), Status::ok);
    const Eigen::MatrixXd G = cs->G;
    // forces that hold the base still: G_baseᵀ λ = g_base (minimum norm); joint torques do the rest
    const Eigen::VectorXd lambda0 = G.leftCols(6).transpose().completeOrthogonalDecomposition().solve(g.head(6));
    M::TangentVector tau = g - G.transpose() * lambda0;
    tau.head(6).setZero();
    M::TangentVector ddq;
    Eigen::VectorXd lambda;
    ddq = check_forward_methods(model, *cs, s.q, v, tau, true, &lambda);
    EXPECT_LE(ddq.cwiseAbs().maxCoeff(), 1e-9) << "it stands still";
    EXPECT_LE((lambda - lambda0).cwiseAbs().maxCoeff(), 1e-9);
    double fz = 0, fx = 0, fy = 0;
    for (int k = 0; k < 4; ++k) fx += lambda[3 * k], fy += lambda[3 * k + 1], fz += lambda[3 * k + 2];
    double mass = 0;
    for (const auto& I : model.inertia) mass += I.mass;
    EXPECT_NEAR(fz, mass * 9.81, 1e-9 * mass * 9.81) << "the feet carry the weight";
    EXPECT_NEAR(fx, 0, 1e-9);
    EXPECT_NEAR(fy, 0, 1e-9);
  }
}

TEST(ConsistencyConstraints, BadInput) {
  const auto model = solo::make_model<double>();
  using M = solo::Model<double>;
  const auto& F = model.frames[solo::frame_id("FL_FOOT")];
  {  // body id out of range
    talus::ConstraintSet<M, 6> cs;
    EXPECT_EQ(cs.add_contact(M::nb + 3, F.placement.p, {Vector3<double>::UnitZ()}), Status::invalid_input);  // at add
    EXPECT_EQ(cs.size(), 0);
    auto data = std::make_unique<talus::Data<M>>();
    M::ConfigVector q;
    talus::neutral(model, q);
    M::TangentVector ddq = M::TangentVector::Constant(7);
    EXPECT_EQ(talus::forward_dynamics_direct(model, *data, cs, q, M::TangentVector::Zero(), M::TangentVector::Zero(),
                                             ddq),
              Status::invalid_input);
    EXPECT_TRUE(ddq.isZero()) << "outputs defined (zero) on failure";
  }
  {  // more rows than capacity
    talus::ConstraintSet<M, 6> cs;
    ASSERT_EQ(cs.add_contact(F.body, F.placement.p,
                             {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
              Status::ok);
    ASSERT_EQ(cs.add_contact(F.body, F.placement.p, {Vector3<double>::UnitX(), Vector3<double>::UnitY()}), Status::ok);
    EXPECT_EQ(cs.add_contact(F.body, F.placement.p, {Vector3<double>::UnitX(), Vector3<double>::UnitY()}),
              Status::capacity_exceeded);
    EXPECT_EQ(cs.rows(), 5);
    EXPECT_EQ(cs.bind(model), Status::ok) << "the set stays usable after a refused add";
    talus::ConstraintSet<M, 12, 2> few;
    ASSERT_EQ(few.add_contact(F.body, F.placement.p, {Vector3<double>::UnitZ()}), Status::ok);
    ASSERT_EQ(few.add_contact(F.body, F.placement.p, {Vector3<double>::UnitZ()}), Status::ok);
    EXPECT_EQ(few.add_contact(F.body, F.placement.p, {Vector3<double>::UnitZ()}), Status::capacity_exceeded);
  }
  {  // zero axis, non-unit normal
    talus::ConstraintSet<M, 6> cs;
    EXPECT_EQ(cs.add_contact(F.body, F.placement.p, {Vector3<double>::Zero()}), Status::invalid_input);
    EXPECT_EQ(cs.size(), 0);
    talus::LoopAxis<double> zero;
    EXPECT_EQ(cs.add_loop(F.body, F.placement, -1, talus::Transform<double>(), {zero}), Status::invalid_input);
    EXPECT_EQ(cs.add_contact(F.body, F.placement.p, {Vector3<double>(0, 0, 2)}), Status::invalid_input)
        << "normals must be unit vectors";
  }
  {  // NaN in q, unnormalised quaternion, NaN in tau: each method says invalid_input, outputs zero
    talus::ConstraintSet<M, 12> cs;
    ASSERT_EQ(cs.add_contact(F.body, F.placement.p,
                             {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
              Status::ok);
    ASSERT_EQ(cs.bind(model), Status::ok);
    auto data = std::make_unique<talus::Data<M>>();
    M::ConfigVector q;
    talus::neutral(model, q);
    M::ConfigVector q_nan = q, q_unnorm = q;
    q_nan[8] = std::numeric_limits<double>::quiet_NaN();
    q_unnorm[3] = 2;
    const M::TangentVector z = M::TangentVector::Zero();
    for (const M::ConfigVector* bad : {&q_nan, &q_unnorm}) {
      M::TangentVector out = M::TangentVector::Constant(3);
      EXPECT_EQ(talus::forward_dynamics_direct(model, *data, cs, *bad, z, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      EXPECT_TRUE(cs.lambda.isZero());
      out.setConstant(3);
      EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, cs, *bad, z, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      out.setConstant(3);
      EXPECT_EQ(talus::forward_dynamics_null_space(model, *data, cs, *bad, z, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      out.setConstant(3);
      EXPECT_EQ(talus::forward_dynamics_kokkevis(model, *data, cs, *bad, z, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      out.setConstant(3);
      EXPECT_EQ(talus::forward_dynamics_articulated(model, *data, cs, *bad, z, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      EXPECT_TRUE(cs.lambda.isZero());
      out.setConstant(3);
      EXPECT_EQ(talus::compute_impulse_articulated(model, *data, cs, *bad, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      out.setConstant(3);
      EXPECT_EQ(talus::compute_impulse_direct(model, *data, cs, *bad, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      out.setConstant(3);
      EXPECT_EQ(talus::compute_impulse_range_space(model, *data, cs, *bad, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      out.setConstant(3);
      EXPECT_EQ(talus::compute_impulse_null_space(model, *data, cs, *bad, z, out), Status::invalid_input);
      EXPECT_TRUE(out.isZero());
      EXPECT_EQ(talus::compute_constraint_jacobian(model, *data, cs, *bad), Status::invalid_input);
      EXPECT_TRUE(cs.G.isZero());
      M::ConfigVector qa;
      EXPECT_EQ(talus::assemble_q(model, *data, cs, *bad, M::TangentVector::Ones(), qa), Status::invalid_input);
      EXPECT_TRUE(talus::all_finite(qa));
    }
    M::TangentVector tau_nan = z, out;
    tau_nan[2] = std::numeric_limits<double>::infinity();
    EXPECT_EQ(talus::forward_dynamics_direct(model, *data, cs, q, z, tau_nan, out), Status::invalid_input);
    EXPECT_TRUE(out.isZero());
    // unbound set
    talus::ConstraintSet<M, 12> unbound;
    ASSERT_EQ(unbound.add_contact(F.body, F.placement.p, {Vector3<double>::UnitZ()}), Status::ok);
    EXPECT_EQ(talus::forward_dynamics_direct(model, *data, unbound, q, z, z, out), Status::invalid_input);
  }
}

TEST(AllocConstraints, Solo12ContactsToggled) {
  using M = talus::models::solo12::Model<double>;
  static const M model = talus::models::solo12::make_model<double>();
  static talus::Data<M> data;
  static talus::ConstraintSet<M, 12> cs;
  for (const char* foot : {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"}) {
    const auto& F = model.frames[talus::models::solo12::frame_id(foot)];
    ASSERT_EQ(cs.add_contact(F.body, F.placement.p,
                             {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}, foot),
              Status::ok);
  }
  ASSERT_EQ(cs.bind(model), Status::ok);
  talus::Random rng(31);
  const auto s = random_state(model, rng);
  int bad = 0;
  const std::size_t calls = heap_calls([&] {
    bad += call_everything(model, data, cs, s, true);
    (void)cs.set_active(1, false);
    (void)cs.set_active(2, false);
    bad += call_everything(model, data, cs, s, true);
    (void)cs.set_active(1, true);
    bad += call_everything(model, data, cs, s, true);
    (void)cs.set_active(2, true);
  });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace talus_test
