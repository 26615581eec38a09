// Hand-built closed chains: four-bar and 3D slider-crank (all methods, impulses, assembly,
// Baumgarte drift), and no heap on closed chains and a custom constraint.
#include "constraints/constraint_checks.hpp"
#include "support/alloc_trap.hpp"

namespace talus_test {
namespace {

using talus::Status;
constexpr int kStates = 20;

TEST(ConsistencyConstraints, FourBar) {
  const FourBarParams p;
  const FourBar model = make_four_bar(p);
  talus::ConstraintSet<FourBar, 6> cs;
  ASSERT_EQ(add_four_bar_loop(p, cs), Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);
  talus::Random rng(8);
  for (int i = 0; i < kStates; ++i) {
    FourBar::ConfigVector q(rng.uniform(0.5, 1.5), rng.uniform(-2.5, -1.0), rng.uniform(1.0, 2.5));
    FourBar::TangentVector v, tau;
    assemble(model, cs, q, v, rng);
    for (int k = 0; k < 3; ++k) tau[k] = rng.uniform(-1, 1);
    check_forward_methods(model, cs, q, v, tau, false);
    check_gamma_and_jacobian(model, cs, q, v, true);
    check_impulse_methods(model, cs, q, v, rng);
    check_wrenches(model, cs, q, v, tau);
  }
}

TEST(ConsistencyConstraints, SliderCrank3D) {
  const SliderCrankParams p;
  const SliderCrank model = make_slider_crank(p);
  talus::ConstraintSet<SliderCrank, 6> cs;
  ASSERT_EQ(add_slider_crank_loop(p, cs), Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);
  talus::Random rng(9);
  for (int i = 0; i < kStates; ++i) {
    // guess: crank angle, rod roughly along +x (a small random rotation), slider near its place
    const double th = rng.uniform(-3, 3);
    const Eigen::Quaterniond qr(Eigen::AngleAxisd(rng.uniform(-0.3, 0.3), Eigen::Vector3d(0.3, 0.2, 1).normalized()));
    SliderCrank::ConfigVector q;
    q << th, qr.w(), qr.x(), qr.y(), qr.z(), p.r * std::cos(th) + p.l + rng.uniform(-0.05, 0.05);
    SliderCrank::TangentVector v, tau;
    assemble(model, cs, q, v, rng);
    for (int k = 0; k < SliderCrank::nv; ++k) tau[k] = rng.uniform(-1, 1);
    check_forward_methods(model, cs, q, v, tau, false);
    check_gamma_and_jacobian(model, cs, q, v, true);
    check_impulse_methods(model, cs, q, v, rng);
    check_wrenches(model, cs, q, v, tau);
  }
}

/// Loop drift of the four-bar over 10 s of semi-implicit Euler: bounded with Baumgarte,
/// growing without.
double four_bar_drift(bool baumgarte, double* early) {
  const FourBarParams p;
  const FourBar model = make_four_bar(p);
  talus::ConstraintSet<FourBar, 6> cs;
  EXPECT_EQ(add_four_bar_loop(p, cs, baumgarte ? talus::Baumgarte<double>::on(0.1) : talus::Baumgarte<double>{}),
            Status::ok);
  EXPECT_EQ(cs.bind(model), Status::ok);
  talus::Random rng(10);
  FourBar::ConfigVector q(1.0, -1.8, 1.8);
  FourBar::TangentVector v;
  assemble(model, cs, q, v, rng);
  auto data = std::make_unique<talus::Data<FourBar>>();
  const FourBar::TangentVector tau = FourBar::TangentVector::Zero();
  FourBar::TangentVector ddq;
  const double dt = 1e-3;
  double worst = 0;
  *early = 0;
  for (int k = 0; k < 10000; ++k) {
    EXPECT_EQ(talus::forward_dynamics_range_space(model, *data, cs, q, v, tau, ddq), Status::ok);
    v += dt * ddq;
    q += dt * v;
    Eigen::VectorXd e;
    EXPECT_EQ(talus::compute_position_errors(model, *data, cs, q, e), Status::ok);
    worst = std::max(worst, e.cwiseAbs().maxCoeff());
    if (k == 999) *early = worst;
  }
  return worst;
}

TEST(ConsistencyConstraints, BaumgarteBoundsFourBarDrift) {
  double early_free = 0, early_bg = 0;
  const double free = four_bar_drift(false, &early_free);
  const double bg = four_bar_drift(true, &early_bg);
  std::printf("four-bar loop drift over 10 s: without Baumgarte %.3e (after 1 s %.3e), with %.3e (after 1 s %.3e)\n",
              free, early_free, bg, early_bg);
  EXPECT_GT(free, 5 * early_free) << "without stabilisation the drift grows";
  EXPECT_LT(bg, 2 * early_bg + 1e-9) << "with Baumgarte it stays bounded";
  EXPECT_LT(bg, 0.1 * free);
}

TEST(AllocConstraints, ClosedChainsAndCustom) {
  static const FourBarParams p;
  static const FourBar model = make_four_bar(p);
  static talus::Data<FourBar> data;
  static talus::ConstraintSet<FourBar, 6> cs;
  ASSERT_EQ(add_four_bar_loop(p, cs, talus::Baumgarte<double>::on()), Status::ok);
  ASSERT_EQ(cs.bind(model), Status::ok);
  State<FourBar> s;
  s.q << 1.0, -1.8, 1.8;
  s.v.setZero();
  s.tau << 0.1, -0.2, 0.3;
  static const GearParams gp;
  static const TwoWheels wheels = make_two_wheels(gp);
  static talus::Data<TwoWheels> wdata;
  static const GearConstraint gear(gp.ratio);
  static talus::ConstraintSet<TwoWheels, 2> gcs;
  ASSERT_EQ(gcs.add_custom(gear), Status::ok);
  ASSERT_EQ(gcs.bind(wheels), Status::ok);
  State<TwoWheels> gs;
  gs.q << 0.5, 0.2;
  gs.v << 0.3, 0.1;
  gs.tau << 0.1, 0.2;
  int bad = 0;
  const std::size_t calls = heap_calls([&] {
    FourBar::ConfigVector qa;
    talus::AssemblyReport<double> rep;
    bad += talus::assemble_q(model, data, cs, s.q, FourBar::TangentVector::Ones(), qa, {}, &rep) != Status::ok;
    s.q = qa;
    bad += call_everything(model, data, cs, s, false);
    (void)cs.set_active(0, false);
    bad += call_everything(model, data, cs, s, false);
    (void)cs.set_active(0, true);
    bad += call_everything(wheels, wdata, gcs, gs, false);
  });
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace talus_test
