// ANYmal C standing on its four feet, with friction, in a fixed-rate loop: the example of
// README.md ("Example") and docs/contact.md ("Example"), built by the install_consumer test
// against an installed talus, for the host (talus::port_posix) and for a Cortex-M7
// (talus::port_cortex_m, QEMU); the test also checks that every line of both excerpts is here.
//
// Each period: forward dynamics with the feet as unilateral contacts (ContactProblem: ground
// plane z = 0, μ = 0.7, 4-edge friction polygons; forward_dynamics_contact, Lemke), at the
// standing torque (computed once at start-up: gravity held by the feet, their forces the
// minimum-norm split of the base's gravity wrench, all inside the friction polygons). Expected:
// every foot pushes and sticks, so the sticking guess is the answer (no pivot), q̈ = 0 and
// Σ f_z = m g. Exit code 0 only if every period gives that. Printed on the port's log channel
// without printf (talus/rt/log.hpp), with the solve's time (talus::port::now_ns, and the
// loop's statistics).
#include <talus/constraints.hpp>  // ConstraintSet: the standing torque at start-up
#include <talus/contact.hpp>
#include <talus/models/anymal_c.hpp>  // generated at build time by talus_add_model
#include <talus/rt/log.hpp>
#include <talus/rt/loop.hpp>
#include <talus/talus.hpp>

#include <cmath>
#include <cstdint>

#ifndef EXAMPLE_PERIODS
#define EXAMPLE_PERIODS 300  // loop periods (the test uses 300 on the host, 20 on QEMU)
#endif
#ifndef EXAMPLE_PERIOD_NS
#define EXAMPLE_PERIOD_NS 1000000  // 1 kHz
#endif

namespace anymal = talus::models::anymal_c;
using Model = anymal::Model<double>;              // nq = 19, nv = 18
using Feet = talus::ContactProblem<Model, 4, 4>;  // ≤ 4 contacts, polygons of ≤ 4 edges

// Everything in static storage: no heap, nothing large on the stack.
const Model model = anymal::make_model<double>();
talus::Data<Model> data;
Feet feet;                                             // the unilateral contacts
talus::ContactOptions<double, Feet::max_lcp> options;  // default: Lemke, the sticking guess first
talus::ContactReport<double> report;                   // what the last solve did
talus::ConstraintSet<Model, 12> stance;                // the feet as bilateral rows: the standing torque
talus::rt::Loop<> loop([] {
  talus::rt::LoopConfig c;
  c.period_ns = EXAMPLE_PERIOD_NS;
  return c;
}());

int main() {
#if defined(TALUS_PORT_POSIX)
  talus::port::init();  // on Cortex-M the startup code calls it before main
#endif
  talus::rt::LogLine<> out;  // printf-free text to talus::port::log_write
  using V3 = talus::Vector3<double>;
  // Start-up: each foot frame a point contact on the ground (normal +z through the origin),
  // μ = 0.7, a 4-edge friction polygon (a refusal is recorded in feet.failure()); and the same
  // feet as bilateral rows, for the standing torque.
  for (int foot : {anymal::frame::LF_FOOT, anymal::frame::RF_FOOT, anymal::frame::LH_FOOT, anymal::frame::RH_FOOT})
    if (feet.add_contact(model, foot, V3::UnitZ(), 0.7) != talus::Status::ok) return 1;  // ground z = 0, μ = 0.7
  for (int foot : {anymal::frame::LF_FOOT, anymal::frame::RF_FOOT, anymal::frame::LH_FOOT, anymal::frame::RH_FOOT})
    if (stance.add_contact(model, foot, {V3::UnitX(), V3::UnitY(), V3::UnitZ()}) != talus::Status::ok) return 1;
  if (stance.bind(model) != talus::Status::ok) return 1;

  // The standing pose (anymal.srdf "standing"; quaternion w, x, y, z), at rest.
  Model::ConfigVector q;
  // clang-format off
  q << 0, 0, 0.528, 1, 0, 0, 0,  -0.1, 0.7, -1.0,  -0.1, -0.7, 1.0,  0.1, 0.7, -1.0,  0.1, -0.7, 1.0;
  // clang-format on
  const Model::TangentVector v = Model::TangentVector::Zero();

  // Standing torque: g(q) = Sᵀτ + Gᵀλ with q̈ = 0. The base rows (6, unactuated) fix λ
  // (minimum norm), the joint rows give τ.
  Model::TangentVector g, tau;
  if (talus::generalized_gravity(model, data, q, g) != talus::Status::ok) return 2;
  if (talus::compute_constraint_jacobian(model, data, stance, q) != talus::Status::ok) return 2;
  const Eigen::Matrix<double, 12, 6> Gb = stance.G.leftCols<6>();
  const Eigen::Matrix<double, 6, 6> GbtGb = Gb.transpose().lazyProduct(Gb);  // lazy: no GEMM (and its heap fallback)
  const Eigen::Matrix<double, 12, 1> lambda0 = Gb * GbtGb.ldlt().solve(g.head<6>());
  tau.head<6>().setZero();
  tau.tail<12>() = g.tail<12>() - stance.G.rightCols<12>().transpose() * lambda0;

  // One solve, timed with the port's clock (std::chrono is not a clock on bare metal).
  Model::TangentVector ddq;
  const std::uint64_t t0 = talus::port::now_ns();
  const talus::Status s = talus::forward_dynamics_contact(model, data, feet, q, v, tau, ddq, options, report);
  const std::uint64_t t1 = talus::port::now_ns();
  if (s != talus::Status::ok) {  // outputs are zero; the problem says which contact or input and why
    (out << "forward_dynamics_contact: " << talus::to_string(s) << ", " << talus::to_string(feet.failure().reason))
        .write();
    return 1;
  }
  double fz = 0;
  V3 f;
  for (int k = 0; k < feet.size(); ++k) fz += feet.world_force(k, f) == talus::Status::ok ? f.z() : 0.0;  // N
  (out << "first solve: " << (t1 - t0) / 1000 << " us, sum f_z " << talus::rt::fixed(fz, 3) << " N, |ddq| "
       << talus::rt::sci(ddq.norm()) << ", guess " << talus::to_string(report.guess) << ", pivots "
       << report.lcp.pivots)
      .write();

  // The same solve every period of the 1 kHz loop.
  const double mg = model.total_mass() * -model.gravity.z();
  int failures = 0;
  double worst = 0;
  const talus::Status st = loop.run(EXAMPLE_PERIODS, [&](const talus::rt::Tick&) {
    const talus::Status sk = talus::forward_dynamics_contact(model, data, feet, q, v, tau, ddq, options, report);
    double fzk = 0;
    for (int k = 0; k < feet.size(); ++k) fzk += feet.world_force(k, f) == talus::Status::ok ? f.z() : 0.0;
    const double err = std::fabs(fzk - mg) / mg + ddq.norm();
    if (sk != talus::Status::ok || report.guess != talus::ContactGuess::accepted || !(err < 1e-6)) ++failures;
    if (!(err <= worst)) worst = err;
  });

  const auto& stats = loop.stats();
  (out << "anymal_c on four feet with friction: m g = " << talus::rt::fixed(mg, 3) << " N").write();
  (out << "  periods: " << stats.iterations << ", deadline misses: " << stats.misses).write();
  (out << "  solve median: " << stats.exec.median() << " ns, max " << stats.exec.max_ns << " ns").write();
  (out << "  worst |sum f_z - m g| / m g + |ddq|: " << talus::rt::sci(worst)).write();
  (out << "  evidence (residual / tolerance): " << talus::rt::sci(report.residual.value) << " / "
       << talus::rt::sci(report.residual.tolerance))
      .write();
  const bool ok = st == talus::Status::ok && stats.iterations == EXAMPLE_PERIODS && failures == 0;
  (out << (ok ? "contact: PASSED" : "contact: FAILED")).write();
  return ok ? 0 : 1;
}
