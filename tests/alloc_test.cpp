// label: alloc — every foundation algorithm runs with zero heap calls after set-up.
// The trap (support/alloc_trap.cpp) replaces malloc & co. and operator new for the whole
// executable; it counts only while armed, around the algorithm calls.
#include <gtest/gtest.h>

#include "support/alloc_trap.hpp"
#include "support/random_state.hpp"
#include "support/test_model.hpp"

namespace {

using namespace talus_test;
using talus::Status;
using M = TestModel;

TEST(Alloc, TrapSeesAHeapCall) {  // the trap itself works, so a zero below means something
  const std::size_t n = heap_calls([] {
    void* volatile p = std::malloc(16);
    std::free(p);
    int* volatile i = new int(3);
    delete i;
  });
  EXPECT_EQ(n, 2u);
}

TEST(Alloc, NoHeapInAnyAlgorithm) {
  const M& model = test_model();
  static talus::Data<M> data;  // set-up: static storage, like firmware
  talus::Random rng(5);
  const auto s = random_state(model, rng);
  talus::ExternalForces<M> fext = talus::zero_external_forces<M>();
  fext[M::nb - 1] << 0.1, 0.2, 0.3, 1, 2, 3;
  M::TangentVector out, dv;
  M::ConfigVector q1;
  M::Jacobian6 J6;
  M::Jacobian3 J3;
  talus::Transform<double> X;
  talus::Motion<double> m;
  talus::Force<double> hg;
  talus::Vector3<double> p;
  int failures = 0;
  int call = 0, first_failure = -1;
  auto ok = [&](Status st) {
    ++call;
    if (st != Status::ok && first_failure < 0) first_failure = call;
    failures += st != Status::ok;
  };
  const std::size_t n = heap_calls([&] {
    for (int rep = 0; rep < 3; ++rep) {
      ok(talus::forward_kinematics(model, data, s.q));
      ok(talus::forward_kinematics(model, data, s.q, s.v));
      ok(talus::forward_kinematics(model, data, s.q, s.v, s.a));
      ok(talus::frame_placement(model, data, test_frame, X));
      ok(talus::frame_velocity(model, data, test_frame, talus::ReferenceFrame::local_world_aligned, m));
      ok(talus::frame_acceleration(model, data, test_frame, talus::ReferenceFrame::local, m));
      ok(talus::frame_classical_acceleration(model, data, test_frame, talus::ReferenceFrame::local_world_aligned, m));
      ok(talus::point_position(model, data, M::nb - 1, talus::Vector3<double>(0.1, 0, 0), p));
      ok(talus::point_velocity(model, data, M::nb - 1, talus::Vector3<double>(0.1, 0, 0), talus::ReferenceFrame::world,
                               p));
      ok(talus::point_acceleration(model, data, M::nb - 1, talus::Vector3<double>(0.1, 0, 0),
                                   talus::ReferenceFrame::world, p));
      ok(talus::compute_joint_jacobians(model, data, s.q));
      ok(talus::frame_jacobian(model, data, s.q, test_frame, talus::ReferenceFrame::local_world_aligned, J6));
      ok(talus::frame_jacobian(model, data, test_frame, talus::ReferenceFrame::local, J6));
      ok(talus::frame_jacobian(model, data, test_frame, talus::ReferenceFrame::world, J6));
      ok(talus::frame_linear_jacobian(model, data, test_frame, talus::ReferenceFrame::local, J3));
      ok(talus::point_jacobian(model, data, s.q, M::nb - 1, talus::Vector3<double>(0.1, 0, 0),
                               talus::ReferenceFrame::local, J3));
      ok(talus::rnea(model, data, s.q, s.v, s.a, out));
      ok(talus::rnea(model, data, s.q, s.v, s.a, fext, out));
      ok(talus::nonlinear_effects(model, data, s.q, s.v, out));
      ok(talus::generalized_gravity(model, data, s.q, out));
      ok(talus::crba(model, data, s.q));
      ok(talus::factorize_ltl(model, data));
      out = s.tau;
      ok(talus::solve_ltl(model, data, out));
      ok(talus::multiply_ltl(model, data, out));
      ok(talus::aba(model, data, s.q, s.v, s.tau, out));
      ok(talus::aba(model, data, s.q, s.v, s.tau, fext, out));
      ok(talus::center_of_mass(model, data, s.q));
      ok(talus::center_of_mass(model, data, s.q, s.v));
      ok(talus::com_jacobian(model, data, s.q, J3));
      ok(talus::centroidal_momentum_matrix(model, data, s.q, J6));
      ok(talus::centroidal_momentum(model, data, s.q, s.v, hg));
      talus::neutral(model, q1);
      ok(talus::integrate(model, s.q, s.v, q1));
      ok(talus::difference(model, s.q, q1, dv));
      ok(talus::normalize(model, q1));
      talus::Random r2(7);
      talus::random_configuration(model, r2, q1);
      // failure paths allocate nothing either
      M::ConfigVector qbad = s.q;
      qbad[0] = std::numeric_limits<double>::quiet_NaN();
      failures += talus::aba(model, data, qbad, s.v, s.tau, out) != Status::invalid_input;
    }
  });
  EXPECT_EQ(n, 0u) << model_name;
  EXPECT_EQ(failures, 0) << "first failing call #" << first_failure;
}

}  // namespace
