// The ConstraintSet API a legged controller uses (issue 11): contacts by frame id, 6D contacts
// (local and local-world-aligned rows), re-anchoring per cycle, loop axes from an array,
// per-constraint force accessors, failure records, adding after bind, pinned coordinates
// in assembly. Each result is checked against an independent quantity: the frame Jacobians
// and accelerations of kinematics.hpp, an equivalent loop to the world, another method.
#include <talus/models/solo12.hpp>

#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::ConstraintKind;
using talus::ContactFrame6D;
using talus::FailureReason;
using talus::ReferenceFrame;
using talus::Status;
namespace solo = talus::models::solo12;
using M = solo::Model<double>;
using Set = talus::ConstraintSet<M, 24, 8>;
constexpr int kFeet[4] = {solo::frame_id("FL_FOOT"), solo::frame_id("FR_FOOT"), solo::frame_id("HL_FOOT"),
                          solo::frame_id("HR_FOOT")};

TEST(ConsistencyConstraintApi, ContactByFrameIdIsTheFramesBodyAndOrigin) {
  const auto model = solo::make_model<double>();
  auto by_frame = std::make_unique<Set>();
  auto by_body = std::make_unique<Set>();
  for (int f : kFeet) {
    const auto& F = model.frames[f];
    ASSERT_EQ(by_frame->add_contact(model, f, {Vector3<double>::UnitZ(), Vector3<double>::UnitX()}), Status::ok);
    ASSERT_EQ(by_body->add_contact(F.body, F.placement.p, {Vector3<double>::UnitZ(), Vector3<double>::UnitX()}),
              Status::ok);
  }
  EXPECT_EQ(by_frame->find("HL_FOOT"), 2) << "the name defaults to the frame's";
  EXPECT_EQ(by_frame->add_contact(model, M::nframes, {Vector3<double>::UnitZ()}), Status::invalid_input);
  EXPECT_EQ(by_frame->failure().reason, FailureReason::frame_out_of_range);
  EXPECT_EQ(by_frame->add_contact(model, -1, {Vector3<double>::UnitZ()}), Status::invalid_input);
  EXPECT_EQ(by_frame->size(), 4);
  ASSERT_EQ(by_frame->bind(model), Status::ok);
  ASSERT_EQ(by_body->bind(model), Status::ok);
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(3);
  for (int i = 0; i < 5; ++i) {
    const auto s = random_state(model, rng);
    ASSERT_EQ(talus::compute_constraint_gamma(model, *data, *by_frame, s.q, s.v), Status::ok);
    ASSERT_EQ(talus::compute_constraint_gamma(model, *data, *by_body, s.q, s.v), Status::ok);
    EXPECT_EQ(Eigen::MatrixXd(by_frame->G), Eigen::MatrixXd(by_body->G));
    EXPECT_EQ(Eigen::VectorXd(by_frame->gamma), Eigen::VectorXd(by_body->gamma));
  }
}

TEST(ConsistencyConstraintApi, LoopAxesFromArrayAndPointer) {
  const auto model = solo::make_model<double>();
  const auto& FL = model.frames[kFeet[0]];
  const auto& FR = model.frames[kFeet[1]];
  std::array<talus::LoopAxis<double>, 4> axes;
  for (int k = 0; k < 4; ++k) axes[k].axis = talus::Motion<double>::Unit(2 + k);
  auto a = std::make_unique<Set>(), b = std::make_unique<Set>(), c = std::make_unique<Set>();
  ASSERT_EQ(a->add_loop(FL.body, FL.placement, FR.body, FR.placement, {axes[0], axes[1], axes[2], axes[3]}), Status::ok);
  ASSERT_EQ(b->add_loop(FL.body, FL.placement, FR.body, FR.placement, axes), Status::ok);
  ASSERT_EQ(c->add_loop(FL.body, FL.placement, FR.body, FR.placement, axes.data(), 4), Status::ok);
  EXPECT_EQ(c->add_loop(FL.body, FL.placement, FR.body, FR.placement, axes.data(), 7), Status::invalid_input);
  EXPECT_EQ(c->failure().reason, FailureReason::axis_count);
  for (auto* cs : {a.get(), b.get(), c.get()}) ASSERT_EQ(cs->bind(model), Status::ok);
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(5);
  const auto s = random_state(model, rng);
  ASSERT_EQ(talus::compute_constraint_gamma(model, *data, *a, s.q, s.v), Status::ok);
  for (auto* cs : {b.get(), c.get()}) {
    ASSERT_EQ(talus::compute_constraint_gamma(model, *data, *cs, s.q, s.v), Status::ok);
    EXPECT_EQ(Eigen::MatrixXd(cs->G), Eigen::MatrixXd(a->G));
    EXPECT_EQ(Eigen::VectorXd(cs->gamma), Eigen::VectorXd(a->gamma));
  }
}

// G of a 6D contact is the frame Jacobian in its variant's frame; γ is minus the frame's
// acceleration at q̈ = 0: spatial (frame_acceleration) for local rows, classical
// (frame_classical_acceleration) for local-world-aligned rows.
TEST(ConsistencyConstraintApi, Contact6DRowsAreFrameJacobiansAndAccelerations) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(7);
  for (ContactFrame6D variant : {ContactFrame6D::local, ContactFrame6D::local_world_aligned}) {
    const ReferenceFrame rf = variant == ContactFrame6D::local ? ReferenceFrame::local : ReferenceFrame::local_world_aligned;
    auto cs = std::make_unique<Set>();
    ASSERT_EQ(cs->add_contact_6d(model, kFeet[0], variant), Status::ok);
    ASSERT_EQ(cs->add_contact(model, kFeet[3], {Vector3<double>::UnitZ()}), Status::ok);
    ASSERT_EQ(cs->bind(model), Status::ok);
    EXPECT_EQ(cs->constraint(0).kind, ConstraintKind::contact_6d);
    for (int i = 0; i < 5; ++i) {
      const auto s = random_state(model, rng);
      ASSERT_EQ(talus::compute_constraint_gamma(model, *data, *cs, s.q, s.v), Status::ok);
      M::Jacobian6 J;
      ASSERT_EQ(talus::frame_jacobian(model, *data, s.q, kFeet[0], rf, J), Status::ok);
      EXPECT_LE((Eigen::MatrixXd(cs->G.topRows(6)) - J).cwiseAbs().maxCoeff(), 1e-12);
      ASSERT_EQ(talus::forward_kinematics(model, *data, s.q, s.v, M::TangentVector::Zero()), Status::ok);
      talus::Motion<double> a, vel;
      if (variant == ContactFrame6D::local) {
        ASSERT_EQ(talus::frame_acceleration(model, *data, kFeet[0], rf, a), Status::ok);
      } else {
        ASSERT_EQ(talus::frame_classical_acceleration(model, *data, kFeet[0], rf, a), Status::ok);
      }
      ASSERT_EQ(talus::frame_velocity(model, *data, kFeet[0], rf, vel), Status::ok);
      EXPECT_LE((Eigen::VectorXd(cs->gamma.head(6)) + a).cwiseAbs().maxCoeff(), 1e-12);
      EXPECT_LE((Eigen::VectorXd(cs->velocity_error.head(6)) - vel).cwiseAbs().maxCoeff(), 1e-12);
    }
  }
}

// With F at rest, a local and a local-world-aligned 6D contact and a 6-axis loop to a world
// frame all weld F: the same q̈ and the same wrench on the foot. Every method (Kokkevis
// included) agrees on each set.
TEST(ConsistencyConstraintApi, Contact6DAgreesWithLoopToWorld) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(9);
  for (int i = 0; i < 4; ++i) {
    auto s = random_state(model, rng);
    Eigen::VectorXd ddq[3];
    talus::ConstraintWrench<double> foot[3];
    for (int kind = 0; kind < 3; ++kind) {
      auto cs = std::make_unique<Set>();
      talus::Transform<double> oMf;
      ASSERT_EQ(talus::forward_kinematics(model, *data, s.q), Status::ok);
      ASSERT_EQ(talus::frame_placement(model, *data, kFeet[0], oMf), Status::ok);
      const auto& F = model.frames[kFeet[0]];
      if (kind < 2) {
        ASSERT_EQ(cs->add_contact_6d(model, kFeet[0], kind == 0 ? ContactFrame6D::local : ContactFrame6D::local_world_aligned,
                                     oMf),
                  Status::ok);
      } else {
        std::array<talus::LoopAxis<double>, 6> ax;
        for (int k = 0; k < 6; ++k) ax[k].axis = talus::Motion<double>::Unit(k);
        ASSERT_EQ(cs->add_loop(-1, oMf, F.body, F.placement, ax), Status::ok);
      }
      ASSERT_EQ(cs->add_contact(model, kFeet[2], {Vector3<double>::UnitZ(), Vector3<double>::UnitY()}), Status::ok);
      ASSERT_EQ(cs->bind(model), Status::ok);
      M::TangentVector v;
      ASSERT_EQ(talus::assemble_qdot(model, *data, *cs, s.q, s.v, M::TangentVector::Ones(), v), Status::ok);
      if (kind == 0) s.v = v;  // the same F-at-rest velocity for all three
      Eigen::VectorXd lambda;
      ddq[kind] = check_forward_methods(model, *cs, s.q, s.v, s.tau, kind < 2, &lambda);
      std::array<talus::ConstraintWrench<double>, 8> w;
      ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, v), Status::ok);
      ASSERT_EQ(talus::constraint_wrenches(model, *data, *cs, ReferenceFrame::world, w), Status::ok);
      foot[kind] = w[0];
      EXPECT_EQ(foot[kind].body[0], F.body);
    }
    EXPECT_LE(rel_err(ddq[0], ddq[2]), 1e-9);
    EXPECT_LE(rel_err(ddq[1], ddq[2]), 1e-9);
    EXPECT_LE(rel_err(foot[0].force[0], foot[2].force[0]), 1e-9);
    EXPECT_LE(rel_err(foot[1].force[0], foot[2].force[0]), 1e-9);
  }
}

TEST(ConsistencyConstraintApi, ReanchoringPerCycle) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  ASSERT_EQ(cs->add_contact_6d(model, kFeet[0], ContactFrame6D::local_world_aligned), Status::ok);
  ASSERT_EQ(cs->add_contact_6d(model, kFeet[1], ContactFrame6D::local), Status::ok);
  ASSERT_EQ(cs->add_contact(model, kFeet[2], {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
            Status::ok);
  ASSERT_EQ(cs->add_contact(model, kFeet[3], {Vector3<double>::UnitZ()}), Status::ok);
  ASSERT_EQ(cs->set_active(3, false), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  talus::Random rng(13);
  const auto s = random_state(model, rng);
  Eigen::VectorXd e;
  std::size_t calls = heap_calls([&] { EXPECT_EQ(talus::anchor_contacts(model, *data, *cs, s.q), Status::ok); });
  EXPECT_EQ(calls, 0u);
  ASSERT_EQ(talus::compute_position_errors(model, *data, *cs, s.q, e), Status::ok);
  EXPECT_LE(e.cwiseAbs().maxCoeff(), 1e-12) << "anchored where the feet are";
  EXPECT_EQ(cs->constraint(3).anchor, Vector3<double>::Zero()) << "an inactive contact is left alone";
  ASSERT_EQ(talus::anchor_contacts(model, *data, *cs, s.q, 3), Status::ok);
  EXPECT_NE(cs->constraint(3).anchor, Vector3<double>::Zero());
  EXPECT_EQ(talus::anchor_contacts(model, *data, *cs, s.q, 9), Status::invalid_input);

  // a foot placed 2 cm further along world x and turned 0.1 rad about world z: known errors
  talus::Transform<double> oMf;
  ASSERT_EQ(talus::forward_kinematics(model, *data, s.q), Status::ok);
  ASSERT_EQ(talus::frame_placement(model, *data, kFeet[0], oMf), Status::ok);
  const talus::Matrix3<double> Rz = Eigen::AngleAxisd(0.1, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  const talus::Transform<double> ref(Rz * oMf.R, oMf.p + Vector3<double>(0.02, 0, 0));
  calls = heap_calls([&] { EXPECT_EQ(cs->set_contact_placement(0, ref), Status::ok); });
  EXPECT_EQ(calls, 0u);
  ASSERT_EQ(talus::compute_position_errors(model, *data, *cs, s.q, e), Status::ok);
  EXPECT_LE((e.head(3) - Vector3<double>(0, 0, -0.1)).cwiseAbs().maxCoeff(), 1e-12) << "world axes";
  EXPECT_LE((e.segment(3, 3) - Vector3<double>(-0.02, 0, 0)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_EQ(cs->set_contact_placement(2, ref), Status::invalid_input) << "2 is a point contact";
  EXPECT_EQ(cs->failure().reason, FailureReason::index_out_of_range);
  talus::Transform<double> bad = ref;
  bad.R(0, 0) = 2;
  EXPECT_EQ(cs->set_contact_placement(0, bad), Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::placement_invalid);
}

TEST(ConsistencyConstraintApi, ForceAccessorsAreSafe) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  for (int f : kFeet)
    ASSERT_EQ(cs->add_contact(model, f, {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
              Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  ASSERT_EQ(cs->set_active(1, false), Status::ok);
  talus::Random rng(17);
  const auto s = random_state(model, rng);
  M::TangentVector ddq;
  ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ddq), Status::ok);
  Set::ConstraintForce f;
  Vector3<double> fc;
  for (int i : {0, 2, 3}) {
    ASSERT_EQ(cs->force(i, f), Status::ok);
    const int r = cs->row_offset(i);
    EXPECT_EQ(f.head(3), Eigen::Vector3d(cs->lambda.segment(r, 3)));
    EXPECT_EQ(f.tail(3), Eigen::Vector3d::Zero());
    ASSERT_EQ(cs->contact_force(i, fc), Status::ok);
    EXPECT_EQ(fc, Eigen::Vector3d(cs->lambda.segment(r, 3))) << "normals are the world axes";
  }
  EXPECT_EQ(cs->row_offset(1), -1);
  f.setConstant(7);
  EXPECT_EQ(cs->force(1, f), Status::ok) << "inactive: zero";
  EXPECT_TRUE(f.isZero());
  fc.setConstant(7);
  EXPECT_EQ(cs->contact_force(1, fc), Status::ok);
  EXPECT_TRUE(fc.isZero());
  f.setConstant(7);
  EXPECT_EQ(cs->force(4, f), Status::invalid_input);
  EXPECT_TRUE(f.isZero());
  EXPECT_EQ(cs->force(-1, f), Status::invalid_input);
  EXPECT_FALSE(cs->valid_index(4));
}

TEST(ConsistencyConstraintApi, FailuresSayWhichAndWhy) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  ASSERT_EQ(cs->add_contact(model, kFeet[0], {Vector3<double>::UnitZ()}), Status::ok);
  ASSERT_EQ(cs->add_contact(model, kFeet[1], {Vector3<double>::UnitZ()}), Status::ok);
  ASSERT_EQ(cs->add_contact(M::nb, Vector3<double>::Zero(), {Vector3<double>::UnitZ()}), Status::ok);
  EXPECT_EQ(cs->failure().status, Status::ok);
  talus::Random rng(19);
  const auto s = random_state(model, rng);
  M::TangentVector ddq;
  EXPECT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ddq), Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::set_not_bound) << "an unbound set is not a bad input";
  EXPECT_EQ(cs->bind(model), Status::invalid_input);
  EXPECT_EQ(cs->failure().status, Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::body_out_of_range);
  EXPECT_EQ(cs->failure().index, 2);
  EXPECT_EQ(cs->failure().kind, ConstraintKind::contact);
  EXPECT_STREQ(talus::to_string(cs->failure().reason), "body_out_of_range");

  auto good = std::make_unique<Set>();
  ASSERT_EQ(good->add_contact(model, kFeet[0], {Vector3<double>::UnitZ()}), Status::ok);
  ASSERT_EQ(good->bind(model), Status::ok);
  EXPECT_EQ(good->add_contact(model, kFeet[1], {Vector3<double>::UnitZ()}), Status::invalid_input);
  EXPECT_EQ(good->failure().reason, FailureReason::set_already_bound);
  EXPECT_EQ(good->size(), 1);
  EXPECT_TRUE(good->bound()) << "a refused add leaves the bound set as it was";
  M::ConfigVector q_nan = s.q;
  q_nan[9] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, *good, q_nan, s.v, s.tau, ddq), Status::invalid_input);
  EXPECT_EQ(good->failure().reason, FailureReason::q_invalid);
  M::TangentVector tau_nan = s.tau;
  tau_nan[3] = std::numeric_limits<double>::infinity();
  EXPECT_EQ(talus::forward_dynamics_null_space(model, *data, *good, s.q, s.v, tau_nan, ddq), Status::invalid_input);
  EXPECT_EQ(good->failure().reason, FailureReason::input_invalid);
  EXPECT_EQ(talus::forward_dynamics_direct(model, *data, *good, s.q, s.v, s.tau, ddq), Status::ok);
  EXPECT_EQ(good->failure().status, Status::ok) << "success clears the record";
  EXPECT_EQ(good->failure().reason, FailureReason::none);

  good->unbind();
  ASSERT_EQ(good->add_contact(model, kFeet[0], {Vector3<double>::UnitZ()}), Status::ok) << "editable after unbind";
  ASSERT_EQ(good->bind(model), Status::ok);
  EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, *good, s.q, s.v, s.tau, ddq), Status::singular)
      << "the same contact twice";
  EXPECT_EQ(good->failure().reason, FailureReason::singular);
  EXPECT_EQ(good->failure().index, -1);
}

// RBDL's weights mean "0 = free"; talus's are costs. assembly_pinned (+∞) keeps a coordinate
// exactly; a large finite weight only nearly.
TEST(ConsistencyConstraintApi, AssemblyKeepsPinnedCoordinatesExactly) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  for (int f : kFeet) ASSERT_EQ(cs->add_contact(model, f, {Vector3<double>::UnitZ()}), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);  // anchors at the world origin: feet on z = 0
  M::ConfigVector q0;
  talus::neutral(model, q0);
  q0[2] = 0.2;  // base 20 cm up: the legs must stretch down
  for (int k = 7; k < M::nq; ++k) q0[k] = 0.1 * ((k % 3) - 1);
  M::TangentVector w = M::TangentVector::Ones();
  for (int k = 0; k < 6; ++k) w[k] = talus::assembly_pinned();  // the base stays
  w[6] = talus::assembly_pinned();                                 // and so does FL_HAA
  M::ConfigVector q;
  talus::AssemblyReport<double> rep;
  ASSERT_EQ(talus::assemble_q(model, *data, *cs, q0, w, q, {}, &rep), Status::ok);
  EXPECT_LE(rep.residual, 1e-12);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(q[k], q0[k]) << "pinned coordinate " << k;
  EXPECT_NE(q[8], q0[8]);
  // the old way: a large finite weight moves the coordinate a little
  for (int k = 0; k < 7; ++k) w[k] = 1e9;
  ASSERT_EQ(talus::assemble_q(model, *data, *cs, q0, w, q, {}, &rep), Status::ok);
  bool moved = false;
  for (int k = 0; k < 8; ++k) moved = moved || q[k] != q0[k];
  EXPECT_TRUE(moved);
  // velocities: pinned entries of q̇ keep the guess
  M::TangentVector v0 = M::TangentVector::Constant(0.3), v;
  w.setOnes();
  w[10] = talus::assembly_pinned();
  ASSERT_EQ(talus::assemble_qdot(model, *data, *cs, q, v0, w, v), Status::ok);
  EXPECT_EQ(v[10], v0[10]);
  EXPECT_LE((cs->G * v).cwiseAbs().maxCoeff(), 1e-12);
  w[11] = -talus::assembly_pinned();
  EXPECT_EQ(talus::assemble_qdot(model, *data, *cs, q, v0, w, v), Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::input_invalid);
}

TEST(AllocConstraintApi, PerCycleCallsDoNotAllocate) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  auto cs = std::make_unique<Set>();
  ASSERT_EQ(cs->add_contact_6d(model, kFeet[0], ContactFrame6D::local), Status::ok);
  ASSERT_EQ(cs->add_contact(model, kFeet[2], {Vector3<double>::UnitZ()}), Status::ok);
  const auto& FL = model.frames[kFeet[1]];
  talus::LoopAxis<double> ax;
  ax.axis = talus::Motion<double>::Unit(5);
  ASSERT_EQ(cs->add_loop(FL.body, FL.placement, -1, talus::Transform<double>(), {ax}), Status::ok);
  ASSERT_EQ(cs->bind(model), Status::ok);
  talus::Random rng(23);
  const auto s = random_state(model, rng);
  M::TangentVector ddq;
  Set::ConstraintForce f;
  std::array<talus::ConstraintWrench<double>, 8> w;
  const std::size_t calls = heap_calls([&] {
    EXPECT_EQ(talus::anchor_contacts(model, *data, *cs, s.q), Status::ok);
    EXPECT_EQ(cs->set_loop_frames(2, FL.placement, talus::Transform<double>()), Status::ok);
    EXPECT_EQ(talus::forward_dynamics_kokkevis(model, *data, *cs, s.q, s.v, s.tau, ddq), Status::invalid_input);
    EXPECT_EQ(cs->failure().reason, FailureReason::kind_not_supported);
    EXPECT_EQ(cs->failure().index, 2);
    EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, *cs, s.q, s.v, s.tau, ddq), Status::ok);
    EXPECT_EQ(cs->force(0, f), Status::ok);
    EXPECT_EQ(talus::constraint_wrenches(model, *data, *cs, ReferenceFrame::local, w), Status::ok);
  });
  EXPECT_EQ(calls, 0u);
}

}  // namespace
}  // namespace talus_test
