// ANYmal C standing on its four feet, in a fixed-rate loop: the example of README.md
// ("Use talus in your project"), built by the install_consumer test against an installed
// talus, for the host (talus::port_posix) and for a Cortex-M7 (talus::port_cortex_m, QEMU).
//
// Each period: constrained forward dynamics (4 three-axis contacts, range-space method) at
// the standing torque (computed once at start-up: gravity held by the feet, λ shared by
// the minimum-norm split of the base's gravity wrench). Expected: q̈ = 0 and Σ λ_z = m g.
// Exit code 0 only if every period gives that; progress on the port's log channel.
#include <talus/constraints.hpp>
#include <talus/models/anymal_c.hpp>  // generated at build time by talus_add_model
#include <talus/rt/loop.hpp>
#include <talus/talus.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

#ifndef EXAMPLE_PERIODS
#define EXAMPLE_PERIODS 300  // loop periods (the test uses 300 on the host, 20 on QEMU)
#endif
#ifndef EXAMPLE_PERIOD_NS
#define EXAMPLE_PERIOD_NS 1000000  // 1 kHz
#endif

namespace anymal = talus::models::anymal_c;
using Model = anymal::Model<double>;  // nq = 19, nv = 18
using Feet = talus::ConstraintSet<Model, 12>;

// Everything in static storage: no heap, nothing large on the stack.
const Model model = anymal::make_model<double>();
talus::Data<Model> data;
Feet feet;
talus::rt::Loop<> loop([] {
  talus::rt::LoopConfig c;
  c.period_ns = EXAMPLE_PERIOD_NS;
  return c;
}());

void say(const char* text, long value = 0, const char* unit = nullptr) {  // no printf on the target
  char buf[24], *p = buf + sizeof buf;
  unsigned long u = value < 0 ? 0ul - static_cast<unsigned long>(value) : static_cast<unsigned long>(value);
  // clang-format off
  do *--p = static_cast<char>('0' + u % 10); while (u /= 10);
  // clang-format on
  if (value < 0) *--p = '-';
  talus::port::log_write(text, std::strlen(text));
  if (unit) {
    talus::port::log_write(p, static_cast<std::size_t>(buf + sizeof buf - p));
    talus::port::log_write(unit, std::strlen(unit));
  }
  talus::port::log_write("\n", 1);
}

int main() {
#if defined(TALUS_PORT_POSIX)
  talus::port::init();  // on Cortex-M the startup code calls it before main
#endif
  // Start-up: the four feet as contacts along the world axes (by frame: its body, its origin
  // and its name); bind checks model and set, and says which constraint it refused and why.
  using V3 = talus::Vector3<double>;
  for (int foot : {anymal::frame::LF_FOOT, anymal::frame::RF_FOOT, anymal::frame::LH_FOOT, anymal::frame::RH_FOOT})
    if (feet.add_contact(model, foot, {V3::UnitX(), V3::UnitY(), V3::UnitZ()}) != talus::Status::ok) return 1;
  if (feet.bind(model) != talus::Status::ok) {
    say(talus::to_string(feet.failure().reason));  // e.g. "body_out_of_range", constraint failure().index
    return 1;
  }

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
  if (talus::compute_constraint_jacobian(model, data, feet, q) != talus::Status::ok) return 2;
  const Eigen::Matrix<double, 12, 6> Gb = feet.G.leftCols<6>();
  const Eigen::Matrix<double, 6, 6> GbtGb = Gb.transpose().lazyProduct(Gb);  // lazy: no GEMM (and its heap fallback)
  const Eigen::Matrix<double, 12, 1> lambda0 = Gb * GbtGb.ldlt().solve(g.head<6>());
  tau.head<6>().setZero();
  tau.tail<12>() = g.tail<12>() - feet.G.rightCols<12>().transpose() * lambda0;

  const double mg = model.total_mass() * -model.gravity.z();
  int failures = 0;
  double worst = 0;
  const talus::Status st = loop.run(EXAMPLE_PERIODS, [&](const talus::rt::Tick&) {
    Model::TangentVector ddq;
    const talus::Status s = talus::forward_dynamics_range_space(model, data, feet, q, v, tau, ddq);
    double fz = 0;
    V3 f;
    for (int k = 0; k < 4; ++k) fz += feet.contact_force(k, f) == talus::Status::ok ? f.z() : 0.0;  // world axes, N
    const double err = std::fabs(fz - mg) / mg + ddq.norm();
    if (s != talus::Status::ok || !(err < 1e-6)) ++failures;
    if (!(err <= worst)) worst = err;
  });

  const auto& stats = loop.stats();
  say("anymal_c on four feet: m g = ", std::lround(mg * 1000), " mN");
  say("  periods: ", static_cast<long>(stats.iterations), "");
  const talus::rt::Quantile median = stats.exec.median();  // ">= x" if in the overflow bin
  say(median.lower_bound ? "  solve median: >= " : "  solve median: ", static_cast<long>(median.ns / 1000), " us");
  say("  deadline misses: ", static_cast<long>(stats.misses), "");
  say("  worst |sum lambda_z - m g| / m g + |ddq| (x 1e-12): ", std::lround(worst * 1e12), "");
  const bool ok = st == talus::Status::ok && stats.iterations == EXAMPLE_PERIODS && failures == 0;
  say(ok ? "contact: PASSED" : "contact: FAILED");
  return ok ? 0 : 1;
}
