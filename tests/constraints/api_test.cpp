// The ConstraintSet API a legged controller uses (issue 11): contacts by frame id, 6D contacts
// (local and local-world-aligned rows), re-anchoring per cycle, loop axes from an array,
// per-constraint force accessors, failure records, adding after bind, pinned coordinates
// in assembly. Each result is checked against an independent quantity: the frame Jacobians
// and accelerations of kinematics.hpp, an equivalent loop to the world, another method.
#include <Eigen/SVD>
#include <algorithm>
#include <cstdio>
#include <limits>
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
  ASSERT_EQ(a->add_loop(FL.body, FL.placement, FR.body, FR.placement, {axes[0], axes[1], axes[2], axes[3]}),
            Status::ok);
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
    const ReferenceFrame rf = variant == ContactFrame6D::local ? ReferenceFrame::local
                                                               : ReferenceFrame::local_world_aligned;
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
        ASSERT_EQ(cs->add_contact_6d(model, kFeet[0],
                                     kind == 0 ? ContactFrame6D::local : ContactFrame6D::local_world_aligned, oMf),
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
  ASSERT_EQ(cs->add_contact(model, kFeet[2],
                            {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()}),
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
  EXPECT_EQ(cs->failure().status, Status::ok);
  talus::Random rng(19);
  const auto s = random_state(model, rng);
  M::TangentVector ddq;
  EXPECT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ddq), Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::set_not_bound) << "an unbound set is not a bad input";
  // a body id outside the model is refused where it enters (add), not at bind
  EXPECT_EQ(cs->add_contact(M::nb, Vector3<double>::Zero(), {Vector3<double>::UnitZ()}), Status::invalid_input);
  EXPECT_EQ(cs->failure().status, Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::body_out_of_range);
  EXPECT_EQ(cs->failure().index, 2) << "the index the refused constraint would have had";
  EXPECT_EQ(cs->failure().kind, ConstraintKind::contact);
  EXPECT_STREQ(talus::to_string(cs->failure().reason), "body_out_of_range");
  EXPECT_EQ(cs->size(), 2);
  ASSERT_EQ(cs->bind(model), Status::ok) << "the refused add left the set as it was";

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

// Every add_* refuses a bad input at once (issue "ok means right", item 5), with the reason
// naming the input; a refused add leaves the set unchanged (size, rows, the constraints
// already added) and still bindable.
class RowsCustom : public talus::CustomConstraint<M> {
 public:
  explicit RowsCustom(int n) : n_(n) {}
  int n_;
  int rows() const override { return n_; }
  void jacobian(const M&, const talus::Data<M>&, const ConfigVector&, Rows& G) const override { G.setZero(); }
  void gamma(const M&, const talus::Data<M>&, const ConfigVector&, const TangentVector&, RowValues& g) const override {
    g.setZero();
  }
  void position_errors(const M&, const talus::Data<M>&, const ConfigVector&, RowValues& e) const override {
    e.setZero();
  }
};

TEST(ConsistencyConstraintApi, AddRefusesBadInputAtOnce) {
  const auto model = solo::make_model<double>();
  const auto& F = model.frames[kFeet[0]];
  const auto& G = model.frames[kFeet[1]];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Vector3<double> z = Vector3<double>::UnitZ();
  talus::LoopAxis<double> ax;
  ax.axis = talus::Motion<double>::Unit(3);
  talus::Transform<double> nan_frame = F.placement, skew = F.placement, far = F.placement;
  nan_frame.p[1] = nan;
  skew.R(0, 0) = 2;  // not orthonormal
  far.p[0] = 2 * talus::input_limits::position;
  std::array<talus::LoopAxis<double>, 1> huge{};
  huge[0].axis = talus::Motion<double>::Constant(2 * talus::input_limits::magnitude);
  const Vector3<double> four[4] = {z, z, z, z};
  RowsCustom seven(7), zero_rows(0), one(1);

  auto cs = std::make_unique<Set>();
  ASSERT_EQ(cs->add_contact(model, kFeet[0], {z}), Status::ok);  // one good constraint, 1 row
  // each add is evaluated before `expect` reads the record it left
  const auto expect = [&](const char* what, Status got, FailureReason reason, ConstraintKind kind) {
    SCOPED_TRACE(what);
    EXPECT_EQ(got, Status::invalid_input);
    EXPECT_EQ(cs->failure().status, Status::invalid_input);
    EXPECT_EQ(cs->failure().reason, reason) << talus::to_string(cs->failure().reason);
    EXPECT_EQ(cs->failure().index, 1) << "the index it would have had";
    EXPECT_EQ(cs->failure().kind, kind);
    EXPECT_EQ(cs->size(), 1) << "a refused add is not counted";
    EXPECT_EQ(cs->rows(), 1);
  };
  expect("contact body nb", cs->add_contact(M::nb, F.placement.p, {z}), FailureReason::body_out_of_range,
         ConstraintKind::contact);
  expect("contact body -1 (the world)", cs->add_contact(-1, F.placement.p, {z}), FailureReason::body_out_of_range,
         ConstraintKind::contact);
  expect("contact body garbage", cs->add_contact(-123456, F.placement.p, {z}), FailureReason::body_out_of_range,
         ConstraintKind::contact);
  expect("contact frame -1", cs->add_contact(model, -1, {z}), FailureReason::frame_out_of_range,
         ConstraintKind::contact);
  expect("contact point NaN", cs->add_contact(F.body, Vector3<double>(0, nan, 0), {z}), FailureReason::point_invalid,
         ConstraintKind::contact);
  expect("contact point far", cs->add_contact(F.body, Vector3<double>(0, 0, 2e6), {z}), FailureReason::point_invalid,
         ConstraintKind::contact);
  expect("contact normal length 2", cs->add_contact(F.body, F.placement.p, {Vector3<double>(0, 0, 2)}),
         FailureReason::normal_not_unit, ConstraintKind::contact);
  expect("contact 2nd normal 1+1e-5", cs->add_contact(F.body, F.placement.p, {z, Vector3<double>(1 + 1e-5, 0, 0)}),
         FailureReason::normal_not_unit, ConstraintKind::contact);
  expect("contact normal NaN", cs->add_contact(F.body, F.placement.p, {Vector3<double>(nan, 0, 1)}),
         FailureReason::zero_axis, ConstraintKind::contact);
  expect("contact normal zero", cs->add_contact(F.body, F.placement.p, {Vector3<double>::Zero()}),
         FailureReason::zero_axis, ConstraintKind::contact);
  expect("contact 4 normals", cs->add_contact(F.body, F.placement.p, four, 4), FailureReason::axis_count,
         ConstraintKind::contact);
  expect("contact 0 normals", cs->add_contact(F.body, F.placement.p, four, 0), FailureReason::axis_count,
         ConstraintKind::contact);
  expect("6d body nb", cs->add_contact_6d(M::nb, F.placement, ContactFrame6D::local), FailureReason::body_out_of_range,
         ConstraintKind::contact_6d);
  expect("6d bMf NaN", cs->add_contact_6d(F.body, nan_frame, ContactFrame6D::local), FailureReason::placement_invalid,
         ConstraintKind::contact_6d);
  expect("6d bMf not a rotation", cs->add_contact_6d(F.body, skew, ContactFrame6D::local),
         FailureReason::placement_invalid, ConstraintKind::contact_6d);
  expect("6d oMref far", cs->add_contact_6d(F.body, F.placement, ContactFrame6D::local, far),
         FailureReason::placement_invalid, ConstraintKind::contact_6d);
  expect("6d rows not an enumerator", cs->add_contact_6d(F.body, F.placement, static_cast<ContactFrame6D>(9)),
         FailureReason::axis_invalid, ConstraintKind::contact_6d);
  expect("6d frame nframes", cs->add_contact_6d(model, M::nframes, ContactFrame6D::local),
         FailureReason::frame_out_of_range, ConstraintKind::contact_6d);
  expect("6d Baumgarte T = 0",
         cs->add_contact_6d(F.body, F.placement, ContactFrame6D::local, {}, talus::Baumgarte<double>::on(0)),
         FailureReason::baumgarte_invalid, ConstraintKind::contact_6d);
  expect("loop pred body nb", cs->add_loop(M::nb, F.placement, G.body, G.placement, {ax}),
         FailureReason::body_out_of_range, ConstraintKind::loop);
  expect("loop succ body -2", cs->add_loop(F.body, F.placement, -2, G.placement, {ax}),
         FailureReason::body_out_of_range, ConstraintKind::loop);
  expect("loop world to world", cs->add_loop(-1, F.placement, -1, G.placement, {ax}), FailureReason::loop_without_body,
         ConstraintKind::loop);
  expect("loop frame NaN", cs->add_loop(F.body, nan_frame, G.body, G.placement, {ax}), FailureReason::placement_invalid,
         ConstraintKind::loop);
  expect("loop frame not a rotation", cs->add_loop(F.body, F.placement, G.body, skew, {ax}),
         FailureReason::placement_invalid, ConstraintKind::loop);
  expect("loop axis beyond magnitude", cs->add_loop(F.body, F.placement, G.body, G.placement, huge),
         FailureReason::axis_invalid, ConstraintKind::loop);
  expect("loop axis zero", cs->add_loop(F.body, F.placement, G.body, G.placement, {talus::LoopAxis<double>{}}),
         FailureReason::zero_axis, ConstraintKind::loop);
  expect("loop 7 axes", cs->add_loop(F.body, F.placement, G.body, G.placement, huge.data(), 7),
         FailureReason::axis_count, ConstraintKind::loop);
  expect("loop Baumgarte T NaN",
         cs->add_loop(F.body, F.placement, G.body, G.placement, {ax}, talus::Baumgarte<double>::on(nan)),
         FailureReason::baumgarte_invalid, ConstraintKind::loop);
  expect("custom 7 rows", cs->add_custom(seven), FailureReason::axis_count, ConstraintKind::custom);
  expect("custom 0 rows", cs->add_custom(zero_rows), FailureReason::axis_count, ConstraintKind::custom);
  expect("custom Baumgarte T 1e7", cs->add_custom(one, talus::Baumgarte<double>::on(1e7)),
         FailureReason::baumgarte_invalid, ConstraintKind::custom);
  EXPECT_EQ(cs->constraint(0).body[0], F.body) << "the constraint added before is untouched";
  ASSERT_EQ(cs->bind(model), Status::ok) << "the set is usable after every refusal";
  // bind keeps its own checks: a custom constraint whose rows() changed after the add
  cs->unbind();
  ASSERT_EQ(cs->add_custom(one), Status::ok);
  one.n_ = 2;
  EXPECT_EQ(cs->bind(model), Status::invalid_input);
  EXPECT_EQ(cs->failure().reason, FailureReason::custom_rows_changed);
  EXPECT_EQ(cs->failure().index, 1);
  one.n_ = 1;
  EXPECT_EQ(cs->bind(model), Status::ok);
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
  w[6] = talus::assembly_pinned();                              // and so does FL_HAA
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

// ---- capacities 1, 2, 3 ---------------------------------------------------------------------
// A set of capacity 1 holds G as a 1 × nv matrix (and a one-dof model Gᵀ as 1 × rows), shapes
// Eigen accepts only in the other storage order: ConstraintSet<Model, 1> did not compile for
// nv > 1. Each capacity, filled: the direct, range-space and null-space methods on the small
// set against the direct method on a large set with the same constraints, and the equations
// H q̈ + C = τ + Gᵀ λ, G q̈ = γ from H, C, G, γ as the small set left them. (Few methods: each
// capacity instantiates every solver it calls again.)
template <int MR, class Large, class Model, class AddFn>
void check_capacity(const Model& model, AddFn add, std::uint64_t seed) {
  auto small = std::make_unique<talus::ConstraintSet<Model, MR>>();
  auto large = std::make_unique<Large>();
  ASSERT_EQ(add(*small), Status::ok) << "capacity " << MR;
  ASSERT_EQ(add(*large), Status::ok);
  ASSERT_EQ(small->bind(model), Status::ok);
  ASSERT_EQ(large->bind(model), Status::ok);
  ASSERT_EQ(small->active_rows(), MR) << "the set is filled";
  talus::Random rng(seed);
  const auto s = random_state(model, rng);
  auto data = std::make_unique<talus::Data<Model>>();
  typename Model::TangentVector ddq_ref, ddq;
  ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *large, s.q, s.v, s.tau, ddq_ref), Status::ok);
  const Eigen::VectorXd lambda_ref = large->lambda;
  for (int method = 0; method < 3; ++method) {
    const Status st = method == 0   ? talus::forward_dynamics_direct(model, *data, *small, s.q, s.v, s.tau, ddq)
                      : method == 1 ? talus::forward_dynamics_range_space(model, *data, *small, s.q, s.v, s.tau, ddq)
                                    : talus::forward_dynamics_null_space(model, *data, *small, s.q, s.v, s.tau, ddq);
    ASSERT_EQ(st, Status::ok) << "capacity " << MR << ", method " << method;
    EXPECT_LE(rel_err(ddq, ddq_ref), 1e-10) << "capacity " << MR << ", method " << method;
    EXPECT_LE(rel_err(Eigen::VectorXd(small->lambda), lambda_ref), 1e-10) << "capacity " << MR << ", method " << method;
    const Eigen::MatrixXd G = small->G;
    const Eigen::VectorXd lambda = small->lambda;
    const Eigen::VectorXd f = data->H * ddq + small->C - G.transpose() * lambda - s.tau;
    const double scale = std::max({1.0, (data->H * ddq).cwiseAbs().maxCoeff(), small->C.cwiseAbs().maxCoeff()});
    EXPECT_LE(f.cwiseAbs().maxCoeff() / scale, 1e-10) << "capacity " << MR << ", method " << method;
    EXPECT_LE((G * ddq - Eigen::VectorXd(small->gamma)).cwiseAbs().maxCoeff(), 1e-10) << "capacity " << MR;
  }
  // the constrained inverse dynamics' scratch at this capacity: its storage types meet the same
  // Eigen rule (this line did not compile for MR = 1 before detail::BoundedMatrix)
  using IW = talus::InverseDynamicsWorkspace<double, Model::nv, MR>;
  auto iw = std::make_unique<IW>();
  EXPECT_EQ(int(IW::RowsxNV::MaxRowsAtCompileTime), MR);
  EXPECT_NE(iw, nullptr);
}

TEST(ConsistencyConstraintApi, CapacitiesOneTwoThreeOnAHandChain) {
  // slider-crank (nv 5), the loop with its first 1, 2 or 3 linear rows
  const SliderCrankParams p;
  const SliderCrank model = make_slider_crank(p);
  auto loop_with = [&](int rows) {
    return [&p, rows](auto& cs) {
      talus::LoopAxis<double> a[3];
      for (int k = 0; k < 3; ++k) a[k].axis = talus::Motion<double>::Unit(3 + k);
      return cs.add_loop(1, at(p.l), 2, at(0), a, rows);
    };
  };
  using Large = talus::ConstraintSet<SliderCrank, 6>;
  check_capacity<1, Large>(model, loop_with(1), 41);
  check_capacity<2, Large>(model, loop_with(2), 42);
  check_capacity<3, Large>(model, loop_with(3), 43);
}

TEST(ConsistencyConstraintApi, CapacitiesOneTwoThreeOnSolo12) {
  // a contact on the front-left foot with 1, 2 or 3 normals
  const auto model = solo::make_model<double>();
  auto contact_with = [&](int rows) {
    return [&model, rows](auto& cs) {
      const Vector3<double> n[3] = {Vector3<double>::UnitZ(), Vector3<double>::UnitX(), Vector3<double>::UnitY()};
      const auto& F = model.frames[kFeet[0]];
      return cs.add_contact(F.body, F.placement.p, n, rows);
    };
  };
  check_capacity<1, Set>(model, contact_with(1), 51);
  check_capacity<2, Set>(model, contact_with(2), 52);
  check_capacity<3, Set>(model, contact_with(3), 53);
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

// Near-redundant rows (two point contacts δ apart on one foot, the other three feet in contact):
// κ of the KKT matrix grows like 1/δ, κ(G H⁻¹ Gᵀ) like its square, so a Schur-complement
// method that forms K = G H⁻¹ Gᵀ loses more than the rank-revealing direct method's κ(KKT) ε
// (fuzz findings `finding-articulated-lambda-schur`, `finding-impulse-range-space-schur`). The
// articulated method and range space must agree with the direct method (full-pivoting LU) to
// 4 κ(KKT) ε, for forward dynamics (q̈, λ) and impulses (q̇⁺, Λ), at κ(KKT) 1e5 to 1e7.
TEST(ConsistencyConstraintApi, SchurMethodsAgreeWithTheDirectMethodOnNearRedundantRows) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(41);
  const auto s = random_state(model, rng);
  const std::initializer_list<Vector3<double>> xyz = {Vector3<double>::UnitX(), Vector3<double>::UnitY(),
                                                      Vector3<double>::UnitZ()};
  const double eps = std::numeric_limits<double>::epsilon();
  double worst_ratio = 0;
  for (const double delta : {1e-3, 3e-4, 1e-4}) {
    auto cs = std::make_unique<Set>();
    for (int f : kFeet) {
      const auto& F = model.frames[f];
      ASSERT_EQ(cs->add_contact(F.body, F.placement.p, xyz), Status::ok);
    }
    // the second point's rows across the offset d only (along d they repeat the first's)
    const auto& F = model.frames[kFeet[0]];
    const Vector3<double> d = Vector3<double>(1, 0.5, 0.25).normalized();
    const Vector3<double> n1 = d.cross(Vector3<double>::UnitZ()).normalized(), n2 = d.cross(n1);
    ASSERT_EQ(cs->add_contact(F.body, F.placement.p + delta * d, {n1, n2}), Status::ok);
    ASSERT_EQ(cs->bind(model), Status::ok);
    // reference: full-pivoting LU on the KKT matrix, and that matrix's condition number
    M::TangentVector ref_x, x;
    ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, ref_x, talus::KKTMethod::full_piv_lu),
              Status::ok);
    const Eigen::VectorXd ref_l = cs->lambda;
    const Eigen::MatrixXd G = cs->G;
    const int m = static_cast<int>(G.rows()), n = M::nv + m;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
    K.topLeftCorner(M::nv, M::nv) = data->H;
    K.topRightCorner(M::nv, m) = G.transpose();
    K.bottomLeftCorner(m, M::nv) = G;
    const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(K).singularValues();
    const double kappa = sv[0] / sv[n - 1];
    SCOPED_TRACE(testing::Message() << "delta " << delta << ", kappa(KKT) " << kappa);
    EXPECT_GT(kappa, 3e4);
    EXPECT_LT(kappa, 3e7);
    // relative to 1 + the reference's size; without the refinement step the range-space and
    // articulated forward solves are off by 5–9 ε κ(KKT) here, with it by under ε κ(KKT)
    const double tol = 4 * eps * kappa;
    auto agree = [&](const char* what, const M::TangentVector& xa, const Eigen::VectorXd& la,
                     const M::TangentVector& xr, const Eigen::VectorXd& lr) {
      const double ex = (xa - xr).cwiseAbs().maxCoeff() / (1 + xr.cwiseAbs().maxCoeff());
      const double el = (la - lr).cwiseAbs().maxCoeff() / (1 + lr.cwiseAbs().maxCoeff());
      EXPECT_LE(ex, tol) << what << ": x";
      EXPECT_LE(el, tol) << what << ": lambda";
      worst_ratio = std::max(worst_ratio, std::max(ex, el) / (eps * kappa));
    };
    ASSERT_EQ(talus::forward_dynamics_articulated(model, *data, *cs, s.q, s.v, s.tau, x), Status::ok);
    agree("forward_dynamics_articulated", x, cs->lambda, ref_x, ref_l);
    ASSERT_EQ(talus::forward_dynamics_range_space(model, *data, *cs, s.q, s.v, s.tau, x), Status::ok);
    agree("forward_dynamics_range_space", x, cs->lambda, ref_x, ref_l);
    // impulses: the constrained points stop
    ASSERT_EQ(talus::compute_impulse_direct(model, *data, *cs, s.q, s.v, ref_x, talus::KKTMethod::full_piv_lu),
              Status::ok);
    const Eigen::VectorXd ref_L = cs->lambda;
    ASSERT_EQ(talus::compute_impulse_range_space(model, *data, *cs, s.q, s.v, x), Status::ok);
    agree("compute_impulse_range_space", x, cs->lambda, ref_x, ref_L);
    ASSERT_EQ(talus::compute_impulse_articulated(model, *data, *cs, s.q, s.v, x), Status::ok);
    agree("compute_impulse_articulated", x, cs->lambda, ref_x, ref_L);
  }
  std::printf("worst error / (eps kappa(KKT)): %.3g\n", worst_ratio);
}
}  // namespace
}  // namespace talus_test

namespace talus_test {
namespace {

// The relative constraint residual ‖G x − g‖∞ / max(‖g‖∞, ‖ |G| |x| ‖∞), recomputed with
// Eigen's own sums (another order of summation than the solver's).
double constraint_residual_ref(const Eigen::MatrixXd& G, const Eigen::VectorXd& g, const Eigen::VectorXd& x) {
  if (G.rows() == 0) return 0;
  const double r = (G * x - g).cwiseAbs().maxCoeff();
  const double scale = std::max(g.cwiseAbs().maxCoeff(), (G.cwiseAbs() * x.cwiseAbs()).maxCoeff());
  return r == 0 ? 0 : r / scale;
}

// The direct method's normwise backward error of z = [x; −λ] for K = [H Gᵀ; G 0], rhs [b; g].
double kkt_backward_error_ref(const Eigen::MatrixXd& H, const Eigen::MatrixXd& G, const Eigen::VectorXd& b,
                              const Eigen::VectorXd& g, const Eigen::VectorXd& x, const Eigen::VectorXd& lambda) {
  const int nv = static_cast<int>(H.rows()), m = static_cast<int>(G.rows()), n = nv + m;
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
  K.topLeftCorner(nv, nv) = H;
  K.topRightCorner(nv, m) = G.transpose();
  K.bottomLeftCorner(m, nv) = G;
  Eigen::VectorXd z(n), rhs(n);
  z << x, -lambda;
  rhs << b, g;
  const double r = (K * z - rhs).cwiseAbs().maxCoeff();
  const double knorm = K.cwiseAbs().rowwise().sum().maxCoeff();
  return r == 0 ? 0 : r / (knorm * z.cwiseAbs().maxCoeff() + rhs.cwiseAbs().maxCoeff());
}

// Solo12's four feet as point contacts with world x, y and z rows (12 rows); the first
// status that is not ok, if any.
Status add_four_feet(const M& model, Set& cs) {
  for (int f : kFeet) {
    const auto& F = model.frames[f];
    const Status st = cs.add_contact(F.body, F.placement.p,
                                     {Vector3<double>::UnitX(), Vector3<double>::UnitY(), Vector3<double>::UnitZ()});
    if (st != Status::ok) return st;
  }
  return Status::ok;
}

// Every constrained solve (issue 26 item 4): on ok, cs.residual = (value, tolerance) with
// 0 ≤ value ≤ tolerance, tolerance > 0, and value the residual of the returned answer
// recomputed here (to the rounding of the sums: 4 n ε of the scale). Four feet of solo12 and
// the near-redundant set above (two points δ apart on one foot), forward dynamics and impulses.
TEST(ConsistencyConstraintApi, EveryConstrainedSolveReportsTheResidualItAccepted) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(43);
  const double eps = std::numeric_limits<double>::epsilon();
  double worst[2] = {0, 0};  // largest value / tolerance: direct, the others
  int checked = 0;
  for (const double delta : {0.0, 1e-3, 1e-4}) {
    for (int trial = 0; trial < 3; ++trial) {
      const auto s = random_state(model, rng);
      auto cs = std::make_unique<Set>();
      ASSERT_EQ(add_four_feet(model, *cs), Status::ok);
      if (delta > 0) {
        const auto& F = model.frames[kFeet[0]];
        const Vector3<double> d = Vector3<double>(1, 0.5, 0.25).normalized();
        const Vector3<double> n1 = d.cross(Vector3<double>::UnitZ()).normalized(), n2 = d.cross(n1);
        ASSERT_EQ(cs->add_contact(F.body, F.placement.p + delta * d, {n1, n2}), Status::ok);
      }
      ASSERT_EQ(cs->bind(model), Status::ok);
      const int m = cs->active_rows(), n = M::nv + m;
      SCOPED_TRACE(testing::Message() << "delta " << delta << ", trial " << trial);
      M::TangentVector x;
      auto check_direct = [&](const char* what, const Eigen::VectorXd& b, const Eigen::VectorXd& g) {
        SCOPED_TRACE(what);
        const auto r = cs->residual;
        EXPECT_GT(r.tolerance, 0);
        EXPECT_GE(r.value, 0);
        EXPECT_LE(r.value, r.tolerance);
        EXPECT_DOUBLE_EQ(r.tolerance, 64.0 * n * eps);
        const double ref = kkt_backward_error_ref(data->H, cs->G, b, g, x, cs->lambda);
        EXPECT_NEAR(r.value, ref, 4 * n * eps);
        worst[0] = std::max(worst[0], r.value / r.tolerance);
        ++checked;
      };
      auto check_other = [&](const char* what, const Eigen::VectorXd& g) {
        SCOPED_TRACE(what);
        const auto r = cs->residual;
        EXPECT_GT(r.tolerance, 0);
        EXPECT_GE(r.value, 0);
        EXPECT_LE(r.value, r.tolerance);
        const double ref = constraint_residual_ref(cs->G, g, x);
        EXPECT_NEAR(r.value, ref, 4 * n * eps);
        worst[1] = std::max(worst[1], r.value / r.tolerance);
        std::printf("  %-28s delta %-6g residual %.3g (tolerance %.3g)\n", what, delta, r.value, r.tolerance);
        ++checked;
      };
      for (auto method : {talus::KKTMethod::partial_piv_lu, talus::KKTMethod::full_piv_lu,
                          talus::KKTMethod::col_piv_householder_qr, talus::KKTMethod::householder_qr}) {
        ASSERT_EQ(talus::forward_dynamics_direct(model, *data, *cs, s.q, s.v, s.tau, x, method), Status::ok);
        check_direct("forward_dynamics_direct", s.tau - cs->C, cs->gamma);
      }
      ASSERT_EQ(talus::forward_dynamics_range_space(model, *data, *cs, s.q, s.v, s.tau, x), Status::ok);
      check_other("forward_dynamics_range_space", cs->gamma);
      ASSERT_EQ(talus::forward_dynamics_null_space(model, *data, *cs, s.q, s.v, s.tau, x), Status::ok);
      check_other("forward_dynamics_null_space", cs->gamma);
      ASSERT_EQ(talus::forward_dynamics_kokkevis(model, *data, *cs, s.q, s.v, s.tau, x), Status::ok);
      check_other("forward_dynamics_kokkevis", cs->gamma);
      ASSERT_EQ(talus::forward_dynamics_articulated(model, *data, *cs, s.q, s.v, s.tau, x), Status::ok);
      check_other("forward_dynamics_articulated", cs->gamma);
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(m);
      ASSERT_EQ(talus::compute_impulse_direct(model, *data, *cs, s.q, s.v, x), Status::ok);
      check_direct("compute_impulse_direct", data->H * s.v, zero);
      ASSERT_EQ(talus::compute_impulse_range_space(model, *data, *cs, s.q, s.v, x), Status::ok);
      check_other("compute_impulse_range_space", zero);
      ASSERT_EQ(talus::compute_impulse_null_space(model, *data, *cs, s.q, s.v, x), Status::ok);
      check_other("compute_impulse_null_space", zero);
      ASSERT_EQ(talus::compute_impulse_articulated(model, *data, *cs, s.q, s.v, x), Status::ok);
      check_other("compute_impulse_articulated", zero);
      // proximal: the absolute ‖G x − γ‖∞ against the settings' accuracy, as its report
      talus::ProximalSettings<double> ps;
      talus::ProximalReport<double> pr;
      for (int impulse = 0; impulse < 2; ++impulse) {
        const Status st = impulse ? talus::compute_impulse_proximal(model, *data, *cs, s.q, s.v, x, ps, pr)
                                  : talus::forward_dynamics_proximal(model, *data, *cs, s.q, s.v, s.tau, x, ps, pr);
        if (st == Status::not_converged) {  // near-redundant rows: 10 default iterations may not do
          EXPECT_GT(cs->residual.value, cs->residual.tolerance);
          continue;
        }
        ASSERT_EQ(st, Status::ok);
        const Eigen::VectorXd g = impulse ? zero : Eigen::VectorXd(cs->gamma);
        EXPECT_EQ(cs->residual.value, pr.residual);
        EXPECT_EQ(cs->residual.tolerance, pr.tolerance);
        EXPECT_GT(cs->residual.tolerance, 0);
        EXPECT_LE(cs->residual.value, cs->residual.tolerance);
        const Eigen::MatrixXd G = cs->G;
        EXPECT_NEAR(cs->residual.value, (G * x - g).cwiseAbs().maxCoeff(), 1e-12 * (1 + g.cwiseAbs().maxCoeff()));
      }
    }
  }
  std::printf("%d solves; largest value/tolerance: direct %.3g, the others %.3g\n", checked, worst[0], worst[1]);
}

// Above the tolerance the answer is refused: two points δ = 1e-8 apart with no rank threshold
// (pivot_tolerance 0) leave K = G H⁻¹ Gᵀ with κ(K) ε ≳ 1, which its Cholesky may still factor;
// the answer then misses G x = γ by far more than rounding. Each Schur-complement method either
// refuses K (singular, residual {0, 0}) or refuses its answer (singular, value > tolerance),
// with zero outputs; and at least one answer is refused on its residual (the check acts).
TEST(ConsistencyConstraintApi, AnAnswerAboveItsResidualToleranceIsRefused) {
  const auto model = solo::make_model<double>();
  auto data = std::make_unique<talus::Data<M>>();
  talus::Random rng(47);
  const std::initializer_list<Vector3<double>> xyz = {Vector3<double>::UnitX(), Vector3<double>::UnitY(),
                                                      Vector3<double>::UnitZ()};
  int refused_on_residual = 0;
  for (const double delta : {1e-7, 1e-8, 1e-9}) {
    for (int trial = 0; trial < 4; ++trial) {
      const auto s = random_state(model, rng);
      auto cs = std::make_unique<Set>();
      ASSERT_EQ(add_four_feet(model, *cs), Status::ok);
      const auto& F = model.frames[kFeet[0]];
      ASSERT_EQ(cs->add_contact(F.body, F.placement.p + delta * Vector3<double>(1, 0.5, 0.25).normalized(), xyz),
                Status::ok);
      ASSERT_EQ(cs->bind(model), Status::ok);
      cs->ws.pivot_tolerance = 0;
      M::TangentVector x;
      auto expect = [&](const char* what, Status st) {
        SCOPED_TRACE(testing::Message() << what << " delta " << delta << " trial " << trial);
        const auto r = cs->residual;
        std::printf("  %-28s delta %-6g %s residual %.3g (tolerance %.3g)\n", what, delta, talus::to_string(st),
                    r.value, r.tolerance);
        if (st == Status::ok) {
          EXPECT_LE(r.value, r.tolerance);
          return;
        }
        EXPECT_EQ(st, Status::singular);
        EXPECT_TRUE(x.isZero());
        EXPECT_EQ(cs->lambda.size(), cs->active_rows());
        EXPECT_TRUE(cs->lambda.isZero());
        if (r.tolerance > 0) {
          EXPECT_GT(r.value, r.tolerance);
          ++refused_on_residual;
        }
      };
      expect("forward_dynamics_range_space",
             talus::forward_dynamics_range_space(model, *data, *cs, s.q, s.v, s.tau, x));
      expect("forward_dynamics_kokkevis", talus::forward_dynamics_kokkevis(model, *data, *cs, s.q, s.v, s.tau, x));
      expect("forward_dynamics_articulated",
             talus::forward_dynamics_articulated(model, *data, *cs, s.q, s.v, s.tau, x));
      expect("compute_impulse_range_space", talus::compute_impulse_range_space(model, *data, *cs, s.q, s.v, x));
      expect("compute_impulse_articulated", talus::compute_impulse_articulated(model, *data, *cs, s.q, s.v, x));
    }
  }
  EXPECT_GT(refused_on_residual, 0);
}
}  // namespace
}  // namespace talus_test
