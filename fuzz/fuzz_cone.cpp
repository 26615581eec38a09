// fuzz_cone: solve_cone_pgs and solve_cone_admm (talus/contact/cone_solvers.hpp) on fuzzed
// frictional contact problems, ConeSolverWorkspace<S, 4> for S = double and float. nc is
// 0..6 (beyond the capacity 4 must be capacity_exceeded with an empty f), W raw, symmetrised,
// A Aᵀ + I (SPD) or a symmetric diagonally dominant matrix, b, μ (raw: negative, NaN allowed)
// and the options from the input.
// Byte 0: bit 0 scalar (double, float), bits 1..2 W shape, bit 3 warm start, bit 4 μ raw
// (else |μ|/4); byte 1: flags (bit 0 raw doubles, bit 1 absolute_tolerance, bit 2
// relative_tolerance, bit 3 max_iterations, bit 4 over_relaxation, bit 5 rho, bit 6
// rho_update_factor and rho_update_ratio, bit 7 warm start f of size 3nc + 1); byte 2:
// nc % 7 and check_interval 1 + (byte 2 / 7) % 4; then W (3nc × 3nc), b (3nc), μ (nc), the warm start f, the option values.
// Promises: ok ⇒ f finite with 3nc entries, inside the cones and within the documented
// residual bounds (re-checked here in double against the S-rounded W, b, μ, with a
// rounding allowance of 16·3nc·ε(S)); not ok ⇒ f exactly zero; nc > 4, μ < 0 or invalid
// options ⇒ not ok; no heap; same bits twice.
#include <memory>

#include <talus/contact/cone_solvers.hpp>

#include "fuzz_support.hpp"

namespace talus_fuzz {
namespace {

constexpr int MaxC = 4;

// Distances in the (normal, ‖tangent‖) half-plane (both cones are round): K = {t ≤ μ n},
// K* = {μ t ≤ n}. Written independently of the header's projection.
double cone_distance(double m, double n, double t) {
  if (t <= m * n && n >= 0) return 0.0;              // inside (μ = 0: the ray n ≥ 0)
  if (m * t <= -n) return std::sqrt(n * n + t * t);  // nearest point: the apex
  return (t - m * n) / std::sqrt(1 + m * m);         // nearest point on the edge
}
double dual_cone_distance(double m, double n, double t) {
  if (m * t <= n) return 0.0;
  if (t <= -m * n) return std::sqrt(n * n + t * t);
  return (m * t - n) / std::sqrt(1 + m * m);
}

template <class S>
void run_cone(std::uint8_t b0, Reader& r) {
  using WS = talus::ConeSolverWorkspace<S, MaxC>;
  using Opt = talus::ConeSolverOptions<S>;
  using MatX = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using VecX = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  const std::uint8_t flags = r.byte();
  r.set_raw(flags & 1);
  const std::uint8_t nc_byte = r.byte();
  const int nc = nc_byte % (MaxC + 3), n = 3 * nc;
  const int shape = (b0 >> 1) & 3;
  Eigen::MatrixXd A(n, n);
  r.fill(A);
  Eigen::MatrixXd Wd = A;
  if (shape == 1) Wd = (A + A.transpose()) * 0.5;
  if (shape == 2) Wd = A * A.transpose() + Eigen::MatrixXd::Identity(n, n);
  if (shape == 3) {
    Wd = (A + A.transpose()) * 0.5;
    for (int i = 0; i < n; ++i) Wd(i, i) = Wd.row(i).cwiseAbs().sum() + 0.5;
  }
  Eigen::VectorXd bd(n), mud(nc), f0d(n);
  r.fill(bd);
  r.fill(mud);
  if (!(b0 & 16)) mud = mud.cwiseAbs() / 4;
  Opt o;
  o.warm_start = (b0 & 8) != 0;
  const int f0_size = o.warm_start && (flags & 128) ? n + 1 : n;
  f0d.resize(f0_size);
  r.fill(f0d);
  bool invalid = nc > MaxC;
  for (int i = 0; i < nc; ++i) invalid |= !(static_cast<S>(mud(i)) >= S(0));
  if (flags & 2) o.absolute_tolerance = static_cast<S>(r.scalar() * 1e-6);
  if (flags & 4) o.relative_tolerance = static_cast<S>(r.scalar() * 1e-6);
  if (flags & 8) o.max_iterations = static_cast<int>(r.byte()) - 8;  // ≤ 247: bounded time
  o.check_interval = 1 + nc_byte / (MaxC + 3) % 4;
  if (flags & 16) o.over_relaxation = static_cast<S>(r.scalar() / 2);
  if (flags & 32) o.rho = static_cast<S>(r.scalar());
  if (flags & 64) {
    o.rho_update_factor = static_cast<S>(r.scalar());
    o.rho_update_ratio = static_cast<S>(r.scalar() * 4);
  }
  invalid |= !(o.absolute_tolerance >= S(0) && o.relative_tolerance >= S(0) && o.relative_tolerance <= S(1) &&
               o.max_iterations >= 1 && o.over_relaxation > S(0) && o.over_relaxation < S(2) && o.rho >= S(0) &&
               o.rho_update_factor >= S(1) && o.rho_update_ratio >= S(1));
  invalid |= o.warm_start && f0_size != n;
  const MatX W = Wd.cast<S>();
  const VecX b = bd.cast<S>(), mu = mud.cast<S>();

  struct Out {
    Status s;
    typename WS::Vector f;
    talus::ConeSolverReport<S> report;
  };
  for (int method = 0; method < 2; ++method) {
    const char* name = method == 0 ? "solve_cone_pgs" : "solve_cone_admm";
    auto run = [&](Out& out) {
      auto ws = std::make_unique<WS>();
      const int size = f0_size <= 3 * MaxC ? f0_size : 0;
      out.f.resize(size);
      for (int k = 0; k < size; ++k) out.f(k) = static_cast<S>(f0d(k));
      out.s = no_heap(name, [&] {
        return method == 0 ? talus::solve_cone_pgs(W, b, mu, out.f, *ws, o, out.report)
                           : talus::solve_cone_admm(W, b, mu, out.f, *ws, o, out.report);
      });
    };
    auto o1 = std::make_unique<Out>(), o2 = std::make_unique<Out>();
    run(*o1);
    run(*o2);
    const bool same_f = o1->f.size() == o2->f.size() &&
                        (o1->f.size() == 0 || std::memcmp(o1->f.data(), o2->f.data(),
                                                          sizeof(S) * static_cast<std::size_t>(o1->f.size())) == 0);
    if (o1->s != o2->s || !same_f) finding(name, o1->s, "same input, different status or output bits");
    if (o1->report.iterations != o2->report.iterations || o1->report.exit != o2->report.exit)
      finding(name, o1->s, "same input, different report");
    const Out& out = *o1;
    if (out.report.iterations > std::max(o.max_iterations, 0)) finding(name, out.s, "more iterations than the cap");
    if (out.s != Status::ok) {
      for (Eigen::Index k = 0; k < out.f.size(); ++k)
        if (out.f(k) != S(0)) finding(name, out.s, "not ok but f is not zero");
      if (out.f.size() != (nc <= MaxC ? n : 0)) finding(name, out.s, "not ok and f does not have 3nc (or 0) entries");
      continue;
    }
    if (invalid) finding(name, out.s, "ok with nc beyond the capacity, mu < 0 or invalid options");
    if (out.f.size() != n) finding(name, out.s, "ok but f does not have 3nc entries");
    if (!finite(out.f)) finding(name, out.s, "ok but f is not finite");
    {
      const auto& rep = out.report;
      const auto e = rep.evidence();
      if (!(rep.primal_residual <= rep.primal_tolerance && rep.dual_residual <= rep.dual_tolerance &&
            rep.complementarity <= rep.complementarity_tolerance && e.value >= S(0) && e.value <= e.tolerance &&
            e.tolerance == S(1)))
        finding(name, out.s, "ok with a residual above its tolerance in the report");
    }
    // the check, in double, against the S-rounded W, b, μ
    const Eigen::MatrixXd Ws = W.template cast<double>();
    const Eigen::VectorXd bs = b.template cast<double>(), f = out.f.template cast<double>();
    const Eigen::VectorXd sigma = Ws * f + bs;
    const double sf = n ? max_abs(f) : 0.0;
    const double ss = n ? (bs.cwiseAbs() + Ws.cwiseAbs() * f.cwiseAbs()).maxCoeff() : 0.0;
    const double eps = static_cast<double>(Eigen::NumTraits<S>::epsilon());
    const double ta = static_cast<double>(o.absolute_tolerance), tr = static_cast<double>(o.relative_tolerance);
    const double slack = 16.0 * n * eps;
    for (int i = 0; i < nc; ++i) {
      const double m = static_cast<double>(mu(i));
      const double fn = f(3 * i), ft = std::hypot(f(3 * i + 1), f(3 * i + 2));
      const double sn = sigma(3 * i), st = std::hypot(sigma(3 * i + 1), sigma(3 * i + 2));
      const double stn = sn + m * st;  // De Saxcé
      const double p = cone_distance(m, fn, ft);
      const double d = dual_cone_distance(m, stn, st);
      const double c = std::fabs(fn * stn + f(3 * i + 1) * sigma(3 * i + 1) + f(3 * i + 2) * sigma(3 * i + 2));
      const bool bad = !(p <= ta + (tr + slack) * sf) || !(d <= ta + (tr + slack) * ss) ||
                       !(c <= ta + (tr + slack) * sf * ss);
      if (bad) {
        char buf[240];
        std::snprintf(
            buf, sizeof buf,
            "contact %d of %d: primal %.3g dual %.3g compl %.3g, scales f %.3g sigma %.3g, tol abs %.3g rel %.3g, "
            "%d iterations",
            i, nc, p, d, c, sf, ss, ta, tr, out.report.iterations);
        finding(name, out.s, "ok but the Coulomb (De Saxce) conditions do not hold", buf);
      }
    }
  }
}

}  // namespace
}  // namespace talus_fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return talus_fuzz::run_by_scalar(data, size, [](auto scalar, std::uint8_t mode, talus_fuzz::Reader& r) {
    talus_fuzz::run_cone<decltype(scalar)>(mode, r);
  });
}
